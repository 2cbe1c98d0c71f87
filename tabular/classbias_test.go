package tabular

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// drawLabels returns n rows of k scores drawn from N(0, 1) and labels
// drawn from softmax(beta * scores + bias), with no label of the
// classes in absent.
func drawLabels(seed uint64, n int, beta float64, bias []float64, absent int) (*mat.Dense, []int) {
	rnd := rand.New(rand.NewPCG(seed, 7))
	k := len(bias)
	scores := mat.NewDense(n, k, nil)
	labels := make([]int, 0, n)
	p := make([]float64, k)
	for len(labels) < n {
		i := len(labels)
		for j := range k {
			scores.Set(i, j, rnd.NormFloat64())
			p[j] = beta*scores.At(i, j) + bias[j]
		}
		softmaxTo(p, p)
		u, l := rnd.Float64(), 0
		for ; l < k-1; l++ {
			if u -= p[l]; u < 0 {
				break
			}
		}
		if l != absent {
			labels = append(labels, l)
		}
	}
	return scores, labels
}

// TestFitLogits checks that fitLogits recovers the factor and the
// biases that drew the labels, and that the biases' prior keeps the bias
// of a class no row holds finite: without it, Newton's steps drive it
// down without end.
func TestFitLogits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		beta   float64
		bias   []float64
		absent int
	}{
		{"two classes", 1.5, []float64{0, -1.2}, -1},
		{"three classes", 2, []float64{0, -1, 0.5}, -1},
		{"a class absent", 2, []float64{0, 0.3, -1}, 2},
	} {
		scores, labels := drawLabels(3, 8000, tc.beta, tc.bias, tc.absent)
		beta, bias := fitLogits(scores, labels)
		if math.Abs(beta-tc.beta) > 0.1 {
			t.Errorf("%s: factor %v, want %v", tc.name, beta, tc.beta)
		}
		for j, b := range bias {
			switch {
			case j == tc.absent:
				if !(b > -15 && b < tc.bias[j]) {
					t.Errorf("%s: bias of the absent class %v, want finite, below %v", tc.name, b, tc.bias[j])
				}
			case math.Abs(b-tc.bias[j]) > 0.1:
				t.Errorf("%s: bias of class %d %v, want %v", tc.name, j, b, tc.bias[j])
			}
		}
	}
}

// TestCalibrateClassBias checks that a classifier's calibration holds
// the biases of its held-out scores and adds them when it applies: the
// decision then moves to the class the rows favour, which the scores'
// argmax alone misses.
func TestCalibrateClassBias(t *testing.T) {
	scores, labels := drawLabels(5, 4000, 1, []float64{0, 1.5}, -1)
	parts := []problemData{{labels: labels[:2000]}, {labels: labels[2000:]}}
	preds := []*mat.Dense{mat.DenseCopyOf(scores.Slice(0, 2000, 0, 2)), mat.DenseCopyOf(scores.Slice(2000, 4000, 0, 2))}
	c := calibrate(preds, nil, parts)
	if math.Abs(c.bias[1]-1.5) > 0.15 {
		t.Fatalf("bias %v, want [0 1.5]", c.bias)
	}
	got := mat.DenseCopyOf(scores)
	c.apply(got, true)
	var moved int
	for i := range labels {
		if math.Abs(got.At(i, 1)-c.factor[0]*scores.At(i, 1)-c.bias[1]) > 1e-12 {
			t.Fatalf("row %d: calibrated score %v, want %v", i, got.At(i, 1), c.factor[0]*scores.At(i, 1)+c.bias[1])
		}
		if (scores.At(i, 1) > scores.At(i, 0)) != (got.At(i, 1) > got.At(i, 0)) {
			moved++
		}
	}
	if moved == 0 {
		t.Error("no decision moved")
	}
	if s := c.scores; len(s) != len(labels) {
		t.Errorf("%d conformal scores for %d rows", len(s), len(labels))
	}
}

// TestShallowMachineClassBias checks that a shallow machine takes its
// calibration's biases in its intercepts alone: its kernel machine's
// outputs are the uncalibrated ones times the factor.
func TestShallowMachineClassBias(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 9))
	x := mat.NewDense(30, 2, nil)
	x.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, x)
	labels := make([]int, 30)
	for i := range labels {
		if x.At(i, 0)+0.3*rnd.NormFloat64() > 0.5 {
			labels[i] = 1
		}
	}
	anchors := pickRows(x, rnd.Perm(30)[:10])
	b, err := newShallowBasis(newShallowInputs(x, anchors, 1, false), 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.ridge(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pr := r.project(oneHot(labels, 2))
	plain, b0 := b.machine(r, pr, 0.1, anchors, calibration{factor: []float64{1}})
	cal := calibration{factor: []float64{2}, bias: []float64{0, 0.7}}
	km, b1 := b.machine(r, pr, 0.1, anchors, cal)
	want := plain.Predict(nil, x)
	want.Scale(2, want)
	if got := km.Predict(nil, x); !mat.EqualApprox(got, want, 1e-12) {
		t.Errorf("calibrated outputs\n%v\nwant twice the plain ones\n%v", mat.Formatted(got.T()), mat.Formatted(want.T()))
	}
	for j := range b1 {
		if w := 2*b0[j] + cal.bias[j]; math.Abs(b1[j]-w) > 1e-12 {
			t.Errorf("intercept %d: %v, want %v", j, b1[j], w)
		}
	}
}

// TestBrier checks the Brier score of least-squares scores, with and
// without weights.
func TestBrier(t *testing.T) {
	pred := mat.NewDense(3, 2, []float64{0.8, 0.1, 0.4, 0.5, 1.2, -0.1})
	for _, tc := range []struct {
		name string
		w    []float64
		want float64
	}{
		{"plain", nil, (0.04 + 0.01 + 0.16 + 0.25 + 0.04 + 0.01) / 3},
		{"weighed", []float64{1, 2, 1}, (0.04 + 0.01 + 2*(0.16+0.25) + 0.04 + 0.01) / 4},
	} {
		if got := brier(pred, problemData{labels: []int{0, 1, 0}, w: tc.w}); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestShallowClassifierRankedByBrier checks that the shallow machine's
// selection of a classifier ranks its settings by the held-out Brier
// score of their scores, and says so.
func TestShallowClassifierRankedByBrier(t *testing.T) {
	x, _, labels := friedmanLike(1, 80)
	s := Settings{Seed: 2, InputScale: LinearInputs, Family: Shallow}
	p, err := prepare(x, nil, labels, s, true)
	if err != nil {
		t.Fatal(err)
	}
	val, err := newValidation(p.linear, s)
	if err != nil {
		t.Fatal(err)
	}
	f, err := selectShallow(p, val, 2, s, true)
	if err != nil {
		t.Fatal(err)
	}
	if f.sel.Loss != "brier" {
		t.Errorf("selection's loss %q, want brier", f.sel.Loss)
	}
	b, err := newShallowBasis(f.inputs(mat.DenseCopyOf(p.linear.x), f.anchors), f.best.Bandwidth, 1)
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.ridge(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pred := mat.NewDense(80, 2, nil)
	if !r.leaveOneOut(oneHot(labels, 2), r.project(oneHot(labels, 2))).predictions(pred, f.best.Cost) {
		t.Fatal("leave-one-out undefined")
	}
	if want := brier(pred, p.linear); math.Abs(f.best.Loss-want) > 1e-9*want {
		t.Errorf("chosen setting's loss %v, want its leave-one-out Brier score %v", f.best.Loss, want)
	}
}

// TestDescribeCalibration checks that the report names a classifier's
// biases when it has them.
func TestDescribeCalibration(t *testing.T) {
	for _, tc := range []struct {
		c    Calibration
		want string
	}{
		{Calibration{LogitScale: 2}, "class scores multiplied by 2, of lowest held-out log-loss (calibrated probabilities)"},
		{Calibration{LogitScale: 2, ClassBias: []float64{0, -0.5}}, "class scores multiplied by 2 and moved by the biases [0 -0.5], of lowest held-out log-loss (calibrated probabilities)"},
	} {
		if got := describeCalibration(tc.c); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}
