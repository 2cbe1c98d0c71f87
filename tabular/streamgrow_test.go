package tabular

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// A streamed fit tries ShallowAnchors's doublings above its sample's
// count while the rows times the square of the count is at most what
// 400 anchors cost on 10^6 rows.
func TestStreamCounts(t *testing.T) {
	for _, tc := range []struct {
		rows, base int
		want       []int
	}{
		{20001, 141, []int{141, 200, 400, 800, 1600}},
		{40455, 201, []int{201, 400, 800, 1600}},
		{62500, 250, []int{250, 400, 800, 1600}},
		{62501, 250, []int{250, 400, 800}},
		{100000, 316, []int{316, 400, 800}},
		{250001, 400, nil},
		{1000000, 400, nil},
		{0, 100, nil},
	} {
		if got := streamCounts(tc.rows, tc.base); !slices.Equal(got, tc.want) {
			t.Errorf("streamCounts(%d, %d) = %v, want %v", tc.rows, tc.base, got, tc.want)
		}
	}
}

// moreAnchors continues the k-means++ seeding of the anchors it is
// given: new points of x, distinct, each draw the same whatever the
// number asked for, and no more than x holds.
func TestMoreAnchors(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(300, 3, nil)
	for i := range 300 {
		for j := range 3 {
			x.Set(i, j, rnd.NormFloat64())
		}
	}
	have := pickRows(x, anchorRows(Shallow, x, Settings{Anchors: 10}, 4))
	more := moreAnchors(x, have, 20, 4)
	if n, _ := more.Dims(); n != 20 {
		t.Fatalf("%d more anchors, want 20", n)
	}
	all := mat.NewDense(30, 3, nil)
	all.Stack(have, more)
	for i := range 30 {
		for j := range i {
			if mat.Equal(all.RowView(i), all.RowView(j)) {
				t.Errorf("anchors %d and %d are the same point", j, i)
			}
		}
	}
	if few := moreAnchors(x, have, 7, 4); !mat.Equal(few, more.Slice(0, 7, 0, 3)) {
		t.Error("the first 7 of 20 more anchors are not the 7 more")
	}
	// Two distinct points, one of them an anchor already: one more.
	two := mat.NewDense(6, 1, []float64{0, 1, 0, 1, 1, 0})
	if got := moreAnchors(two, mat.NewDense(1, 1, []float64{0}), 3, 1); got == nil || !mat.Equal(got, mat.NewDense(1, 1, []float64{1})) {
		t.Errorf("more anchors of two points %v, want the other point", got)
	}
}

// drawWeighted draws by the running sum of the weights, and never a
// weight of 0, even where rounding leaves u above their sum.
func TestDrawWeighted(t *testing.T) {
	w := []float64{1, 0, 2, 0}
	for _, tc := range []struct {
		u    float64
		want int
	}{{0, 0}, {0.99, 0}, {1, 2}, {2.99, 2}, {3, 2}, {3.5, 2}} {
		if got := drawWeighted(w, tc.u); got != tc.want {
			t.Errorf("drawWeighted(%v, %v) = %d, want %d", w, tc.u, got, tc.want)
		}
	}
}

// stepCounts keeps each count whose loss falls below the loss kept by
// more than growMargin, stops at the first that does not, and tries
// 1,600 only after a fall of more than growAhead.
func TestStepCounts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		counts []int
		losses []float64
		want   int
		tried  int
	}{
		{"falls", []int{141, 200, 400}, []float64{1, 0.99, 0.98}, 2, 3},
		{"stops", []int{141, 200, 400, 800}, []float64{1, 0.99, 0.989, 0.5}, 1, 3},
		{"within the margin", []int{201, 400}, []float64{1, 0.998}, 0, 2},
		{"rises", []int{201, 400}, []float64{1, 1.01}, 0, 2},
		{"1600 after a small fall", []int{201, 400, 800, 1600}, []float64{1, 0.9, 0.895, 0.5}, 2, 3},
		{"1600 after a large fall", []int{201, 400, 800, 1600}, []float64{1, 0.9, 0.85, 0.8}, 3, 4},
		{"one count", []int{400}, []float64{1}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tried []int
			got, err := stepCounts(tc.counts, func(m int) (float64, error) {
				tried = append(tried, m)
				return tc.losses[slices.Index(tc.counts, m)], nil
			})
			if err != nil || got != tc.want || len(tried) != tc.tried {
				t.Errorf("kept %d (error %v) after trying %v, want %d after %d", got, err, tried, tc.want, tc.tried)
			}
		})
	}
	bad := errors.New("bad")
	if _, err := stepCounts([]int{100, 200}, func(m int) (float64, error) {
		if m == 200 {
			return 0, bad
		}
		return 1, nil
	}); err != bad {
		t.Errorf("error %v, want %v", err, bad)
	}
}

// A plan of a table of more rows than its sample adds up the features
// of more anchors, as JSON carries them, and Solve chooses their count
// on the rows held out: the model has the chosen count's anchors, the
// first of the plan's, and its held-out loss is no higher than the
// sample's count's.
func TestSolveChoosesAnchors(t *testing.T) {
	defer func(n int, w float64) { streamRows, streamWork = n, w }(streamRows, streamWork)
	streamRows, streamWork = 2000, 12000*400*400
	frames := chunks(t, friedmanCSV(12000, 4, false), 2000)
	p, err := NewStreamPlan(frames[0], []string{"y"}, Options{Seed: 1}, 12000)
	if err != nil {
		t.Fatal(err)
	}
	if p.base() != StreamAnchors(12000) || p.Anchors() != 400 || !slices.Equal(p.counts(), []int{110, 200, 400}) {
		t.Fatalf("plan of %d anchors, %d of the sample's fit, counts %v; want 400, %d, [110 200 400]", p.Anchors(), p.base(), p.counts(), StreamAnchors(12000))
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var q Plan
	if err := json.Unmarshal(data, &q); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(q.anchors(), p.anchors()) {
		t.Error("the plan's anchors differ after JSON")
	}
	md, rep, err := q.Solve(addAll(t, &q, frames))
	if err != nil {
		t.Fatal(err)
	}
	h := rep.HeldOutCost
	if h == nil || len(h.Counts) < 2 || h.Counts[0] != 110 {
		t.Fatalf("held-out choice %+v, want one among counts from 110", h)
	}
	// Friedman 1 on 12,000 rows needs more than 110 anchors.
	i := slices.Index(h.Counts, h.Anchors)
	if h.Anchors < 200 || i < 0 || h.CountLosses[i] != slices.Min(h.Losses) || !(h.CountLosses[i] < h.CountLosses[0]) {
		t.Errorf("%d anchors chosen, losses %v at counts %v", h.Anchors, h.CountLosses, h.Counts)
	}
	a := md.Machine.Anchors
	if n, _ := a.Dims(); n != h.Anchors || md.Fit.Anchors != h.Anchors || rep.Result.Anchors != h.Anchors {
		t.Errorf("model of %d anchors, fit record %d, result %d; want %d", n, md.Fit.Anchors, rep.Result.Anchors, h.Anchors)
	}
	if !mat.Equal(a, q.anchors().Slice(0, h.Anchors, 0, q.inputs())) {
		t.Error("the model's anchors are not the plan's first")
	}
	if md.Fit.Cost != h.Costs[floats.MinIdx(h.Losses)] {
		t.Errorf("cost %v, want %v", md.Fit.Cost, h.Costs[floats.MinIdx(h.Losses)])
	}
	// FitSource gives its plan the table's rows, unless -anchors fixes
	// the count, and its log says the sample's count, then the count
	// added up where more pay.
	text := friedmanCSV(12000, 4, false)
	for _, tc := range []struct {
		fixed int
		log   []string
	}{
		{0, []string{"fitting the shallow machine with 110 anchors on a sample of 2000 rows (up to 400 where more pay on its held-out rows), then adding up every row",
			"more anchors pay on the sample's held-out rows: adding up every row at 400 anchors, whose count the table's held-out rows choose"}},
		{150, []string{"fitting the shallow machine with 150 anchors on a sample of 2000 rows, then adding up every row"}},
	} {
		var log []string
		_, rep, err := FitSource(textSource(text), []string{"y"}, Options{Seed: 1, Anchors: tc.fixed, Log: func(line string) { log = append(log, line) }})
		if err != nil {
			t.Fatal(err)
		}
		if h := rep.HeldOutCost; h == nil || (h.Counts != nil) != (tc.fixed == 0) || (tc.fixed != 0 && h.Anchors != tc.fixed) {
			t.Errorf("-anchors %d: held-out choice %+v", tc.fixed, h)
		}
		var said []string // after the first line's "table.csv: 12000 rows; "
		for _, line := range log {
			if _, after, ok := strings.Cut(line, " rows; "); ok {
				line = after
			}
			if strings.Contains(line, "anchors") {
				said = append(said, line)
			}
		}
		if !slices.Equal(said, tc.log) {
			t.Errorf("-anchors %d: log of the anchors %q, want %q", tc.fixed, said, tc.log)
		}
	}
}

// Where the sample's rows held out say that more anchors do not pay, as
// on a target of noise, the plan adds up the sample's count's alone.
func TestPlanMoreAnchorsPay(t *testing.T) {
	defer func(n int, w float64) { streamRows, streamWork = n, w }(streamRows, streamWork)
	streamRows, streamWork = 2000, 12000*400*400
	rnd := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("x0,x1,x2,y\n")
	for range 2000 {
		fmt.Fprintf(&b, "%.5f,%.5f,%.5f,%.4f\n", rnd.Float64(), rnd.Float64(), rnd.Float64(), rnd.NormFloat64())
	}
	sample, err := dataset.ReadFrame(strings.NewReader(b.String()), "noise.csv")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewStreamPlan(sample, []string{"y"}, Options{Seed: 1}, 12000)
	if err != nil {
		t.Fatal(err)
	}
	if p.Anchors() != p.base() || p.more != nil {
		t.Errorf("a plan of noise with %d anchors, %d of the sample's fit", p.Anchors(), p.base())
	}
}
