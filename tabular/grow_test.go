package tabular

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestAnchorGrowth checks the counts of anchors that a fit tries beyond
// ShallowAnchors: none on at most SelectionRows rows, else doublings up to
// streamAnchorsMax, and beyond it within growShare and growCells.
func TestAnchorGrowth(t *testing.T) {
	for _, tc := range []struct {
		n, inputs int
		want      []int
	}{
		{120, 3, nil},
		{SelectionRows, 3, nil},
		{SelectionRows + 1, 3, []int{200, 400}},
		{999, 3, []int{200, 400}},
		{3199, 3, []int{200, 400}},
		{3200, 3, []int{200, 400, 800}},
		{9950, 3, []int{200, 400, 800}},
		{9950, 200, []int{200, 400}},
		{20000, 3, []int{200, 400}},
	} {
		if got := anchorGrowth(tc.n, tc.inputs); !slices.Equal(got, tc.want) {
			t.Errorf("%d rows of %d inputs: counts %v, want %v", tc.n, tc.inputs, got, tc.want)
		}
	}
}

// rippledPlane returns n rows of two inputs in the unit square whose
// target is a product of sines of period 1/2 in each, plus noise of
// standard deviation noise: more detail than ShallowAnchors anchors
// spread over the square can follow.
func rippledPlane(rnd *rand.Rand, n int, noise float64) (x, y *mat.Dense) {
	x, y = mat.NewDense(n, 2, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		u, v := rnd.Float64(), rnd.Float64()
		x.SetRow(i, []float64{u, v})
		y.Set(i, 0, math.Sin(4*math.Pi*u)*math.Sin(4*math.Pi*v)+noise*rnd.NormFloat64())
	}
	return x, y
}

// TestGrowAnchors checks that a shallow machine chosen on a subsample
// of the rows is fitted to all of them with more anchors where their
// leave-one-out loss falls with the count (a rippled plane), with
// ShallowAnchors where it does not (noise alone), with the count that
// Settings.Anchors sets, and with ShallowAnchors when the selection ran
// on all the rows or on grouped folds.
func TestGrowAnchors(t *testing.T) {
	if testing.Short() {
		t.Skip("fits of 3,000 rows")
	}
	const n = 3000
	groups := make([]int, n)
	for i := range groups {
		groups[i] = i / 10
	}
	for _, tc := range []struct {
		name  string
		noise float64
		s     Settings
		rows  int
		want  func(int) bool
	}{
		{"rippled", 0.1, Settings{}, n, func(m int) bool { return m > ShallowAnchors }},
		{"noise", 0, Settings{}, n, func(m int) bool { return m == ShallowAnchors }},
		{"set", 0.1, Settings{Anchors: 50}, n, func(m int) bool { return m == 50 }},
		{"grouped", 0.1, Settings{Groups: groups}, n, func(m int) bool { return m == ShallowAnchors }},
		{"whole", 0.1, Settings{}, SelectionRows, func(m int) bool { return m == ShallowAnchors }},
	} {
		x, y := rippledPlane(rand.New(rand.NewPCG(5, 6)), tc.rows, tc.noise)
		if tc.noise == 0 {
			rnd := rand.New(rand.NewPCG(7, 8))
			for i := range tc.rows {
				y.Set(i, 0, rnd.NormFloat64())
			}
		}
		s := tc.s
		s.Family, s.Seed = Shallow, 1
		m, res, err := FitRegression(x, y, s)
		if err != nil {
			t.Fatal(err)
		}
		anchors, _ := m.Machine.Anchors.Dims()
		if !tc.want(res.Anchors) || anchors != res.Anchors {
			t.Errorf("%s: %d anchors reported, %d in the machine", tc.name, res.Anchors, anchors)
		}
	}
}

// TestLowersEnough checks the margin by which a larger count of anchors
// must lower the leave-one-out loss.
func TestLowersEnough(t *testing.T) {
	for _, tc := range []struct {
		next, best float64
		want       bool
	}{
		{0.99, 1, true},
		{0.998, 1, false},
		{1, 1, false},
		{1.01, 1, false},
		{math.NaN(), 1, false},
	} {
		if got := lowersEnough(tc.next, tc.best); got != tc.want {
			t.Errorf("lowersEnough(%g, %g) = %v, want %v", tc.next, tc.best, got, tc.want)
		}
	}
}
