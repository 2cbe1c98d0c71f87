package tabular

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/numeric"
	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// friedmanCSV returns n rows of Friedman 1 with noise 1, a category that
// shifts the target and, for a classification, the target's sign class.
func friedmanCSV(n int, seed uint64, classify bool) string {
	rnd := rand.New(rand.NewPCG(seed, 2))
	var b strings.Builder
	b.WriteString("x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,kind,y\n")
	x := make([]float64, 10)
	for range n {
		for j := range x {
			x[j] = rnd.Float64()
			fmt.Fprintf(&b, "%.5f,", x[j])
		}
		kind := rnd.IntN(3)
		y := dataset.Friedman1Truth(x) + float64(kind) + rnd.NormFloat64()
		if classify {
			fmt.Fprintf(&b, "k%d,%s\n", kind, []string{"low", "high"}[min(1, int(y/16))])
			continue
		}
		fmt.Fprintf(&b, "k%d,%.4f\n", kind, y)
	}
	return b.String()
}

// chunks returns the rows of the CSV text as frames of at most size rows.
func chunks(t testing.TB, text string, size int) []*dataset.Frame {
	fr, err := dataset.NewFrameReader(strings.NewReader(text), "chunks.csv", dataset.FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*dataset.Frame
	for {
		f, err := fr.Read(size)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
}

// addAll adds the frames to new stats of the plan.
func addAll(t testing.TB, p *Plan, frames []*dataset.Frame) *Stats {
	acc := p.NewStats()
	for _, f := range frames {
		if err := acc.Add(f); err != nil {
			t.Fatal(err)
		}
	}
	return acc
}

// maxRelDiff returns the largest difference between a and b relative to
// the largest magnitude of a.
func maxRelDiff(a, b mat.Matrix) float64 {
	scale := mat.Norm(a, math.Inf(1))
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1)) / math.Max(scale, 1e-300)
}

// The chunked fit of a plan drawn from all the rows is the in-memory
// fit of the shallow machine on those rows: the invariant that a
// distributed fit relies on.
func TestPlanSolveEqualsFit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		classify bool
		opts     Options
		full     bool // in the full run only, being slow
	}{
		{"regression", false, Options{Seed: 3}, false},
		{"log target", false, Options{Seed: 4, TargetScale: LogScale}, true},
		{"quantiles", false, Options{Seed: 5, InputScale: QuantileInputs}, true},
		{"classifier", true, Options{Seed: 6}, false},
		{"raw", false, Options{Seed: 7, Raw: true}, true},
		{"weights", false, Options{Seed: 8, Weight: "x9"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.full && testing.Short() {
				t.Skip("slow: in the full run only")
			}
			text := friedmanCSV(600, 1, tc.classify)
			f, err := dataset.ReadFrame(strings.NewReader(text), "all.csv")
			if err != nil {
				t.Fatal(err)
			}
			want := tc.opts
			want.Family = Shallow
			want.ShallowKernel = GaussianKernel // a plan's kernel
			md, _, err := Fit(f, []string{"y"}, want)
			if err != nil {
				t.Fatal(err)
			}
			p, err := NewPlan(f, []string{"y"}, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, rep, err := p.Solve(addAll(t, p, chunks(t, text, 97)))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Rows != 600 || got.Fit.Rows != 600 {
				t.Errorf("rows %d and %d, want 600", rep.Rows, got.Fit.Rows)
			}
			a, _, err := md.Predict(f)
			if err != nil {
				t.Fatal(err)
			}
			b, _, err := got.Predict(f)
			if err != nil {
				t.Fatal(err)
			}
			if d := maxRelDiff(a.Values, b.Values); !(d < 1e-9) {
				t.Fatalf("predictions differ by %g of their size", d)
			}
			// The coefficients of 400 anchors on 600 rows, grown past
			// the selection's 100, are less well conditioned than the
			// predictions they make.
			if d := maxRelDiff(md.Machine.C, got.Machine.C); !(d < 1e-7) {
				t.Errorf("kernel coefficients differ by %g of their size", d)
			}
			if fmt.Sprint(md.Machine.Range) != fmt.Sprint(got.Machine.Range) {
				t.Errorf("range %v, want %v", got.Machine.Range, md.Machine.Range)
			}
		})
	}
}

// Stats of parts of a table merge into the stats of the whole, through
// JSON as a distributed run ships them, and a plan survives JSON.
func TestStatsMerge(t *testing.T) {
	text := friedmanCSV(500, 2, false)
	frames := chunks(t, text, 64)
	p, err := NewPlan(frames[0], []string{"y"}, Options{Seed: 1, Weight: ""})
	if err != nil {
		t.Fatal(err)
	}
	whole := addAll(t, p, frames)
	if w := p.Width(); slices.ContainsFunc(numeric.Indices(w*w), func(i int) bool { return i/w > i%w && whole.ZZ[i] != 0 }) {
		t.Error("ZZ holds sums below its diagonal")
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var q Plan
	if err := json.Unmarshal(data, &q); err != nil {
		t.Fatal(err)
	}
	// A plan refits one machine: a model that averages several is refused.
	for name, set := range map[string]func(*Machine){
		"sum":    func(m *Machine) { m.Sum = []*kernel.Machine{m.Machine} },
		"other":  func(m *Machine) { m.Other, m.OtherWeight = &Machine{Machine: m.Machine}, 0.25 },
		"linear": func(m *Machine) { m.Linear, m.LinearWeight = &Machine{Machine: m.Machine}, 0.25 },
		"mean":   func(m *Machine) { m.Mean, m.MeanWeight = &Machine{Machine: m.Machine}, 0.25 },
	} {
		bad := *p
		md := *p.model
		m := *md.Machine
		set(&m)
		md.Machine, bad.model = &m, &md
		data, err := json.Marshal(&bad)
		if err != nil {
			t.Fatal(err)
		}
		var r Plan
		if err := json.Unmarshal(data, &r); err == nil || !strings.Contains(err.Error(), "averages several machines") {
			t.Errorf("a plan of a model with a %s: error %v, want a refusal", name, err)
		}
	}
	merged := q.NewStats()
	for _, part := range [][]*dataset.Frame{frames[5:], frames[:2], frames[2:5]} {
		data, err := json.Marshal(addAll(t, &q, part))
		if err != nil {
			t.Fatal(err)
		}
		var s Stats
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		if err := merged.Merge(&s); err != nil {
			t.Fatal(err)
		}
	}
	if merged.HeldOut.Rows != whole.HeldOut.Rows || whole.HeldOut.Rows == 0 || maxRelDiff(mat.NewVecDense(len(whole.HeldOut.ZY), whole.HeldOut.ZY), mat.NewVecDense(len(merged.HeldOut.ZY), merged.HeldOut.ZY)) > 1e-12 {
		t.Errorf("merged %d held-out rows, want %d, and the same sums", merged.HeldOut.Rows, whole.HeldOut.Rows)
	}
	if merged.Rows != whole.Rows || merged.Weight != whole.Weight {
		t.Fatalf("merged %d rows of weight %v, want %d of %v", merged.Rows, merged.Weight, whole.Rows, whole.Weight)
	}
	for name, pair := range map[string][2][]float64{"Z": {whole.Z, merged.Z}, "ZZ": {whole.ZZ, merged.ZZ}, "ZY": {whole.ZY, merged.ZY},
		"Y": {whole.Y, merged.Y}, "YY": {whole.YY, merged.YY}, "Low": {whole.Low, merged.Low}, "High": {whole.High, merged.High}} {
		a, b := mat.NewVecDense(len(pair[0]), pair[0]), mat.NewVecDense(len(pair[1]), pair[1])
		if d := maxRelDiff(a, b); !(d < 1e-12) {
			t.Errorf("%s differs by %g of its size", name, d)
		}
	}
	m1, _, err := p.Solve(whole)
	if err != nil {
		t.Fatal(err)
	}
	m2, _, err := q.Solve(merged)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxRelDiff(m1.Machine.C, m2.Machine.C); !(d < 1e-9) {
		t.Errorf("the merged stats' machine differs by %g", d)
	}
	if err := merged.Merge(&Stats{Z: []float64{1}}); err == nil {
		t.Error("stats of another width merged")
	}
	// A log of the encoding of other columns is refused by the solve.
	var other dataset.EncodeLog
	if err := json.Unmarshal([]byte(`{"columns":[{"unseen":1}]}`), &other); err != nil {
		t.Fatal(err)
	}
	merged.Log = &other
	if _, _, err := q.Solve(merged); err == nil || !strings.Contains(err.Error(), "encoding of 1 columns") {
		t.Errorf("solve of stats of another encoding: error %v", err)
	}
}

// A chunk's bad cells are errors that name the row and the column.
func TestStatsAddErrors(t *testing.T) {
	text := friedmanCSV(300, 3, false)
	f, err := dataset.ReadFrame(strings.NewReader(text), "sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(f, []string{"y"}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cls, err := dataset.ReadFrame(strings.NewReader(friedmanCSV(300, 3, true)), "classes.csv")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := NewPlan(cls, []string{"y"}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	logPlan, err := NewPlan(f, []string{"y"}, Options{Seed: 1, TargetScale: LogScale})
	if err != nil {
		t.Fatal(err)
	}
	const header = "x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,kind,y\n"
	const good = ".1,.2,.3,.4,.5,.6,.7,.8,.9,.1,k1,"
	for _, tc := range []struct {
		name string
		plan *Plan
		text string
		want []string
	}{
		{"text target", p, header + good + "3\n" + good + "abc\n", []string{"chunk.csv", "row 3", `"y"`}},
		{"unknown class", pc, header + good + "low\n" + good + "middle\n", []string{"row 3", `"y"`, "middle"}},
		{"negative log target", logPlan, header + good + "-2\n", []string{"row 2", `"y"`, "negative"}},
		{"no target column", p, "x0,kind\n1,k1\n", []string{`"y"`}},
		{"bad input", p, header + ".1,.2,.3,.4,.5,.6,.7,.8,.9,.1,k1,3\n.1,.2,.3,.4,.5,.6,.7,true,.9,.1,k1,3\n", []string{"row 3", `"x7"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chunk, err := dataset.NewFrameReader(strings.NewReader(tc.text), "chunk.csv", dataset.FrameOptions{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			fr, err := chunk.ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			err = tc.plan.NewStats().Add(fr)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %s", err, w)
				}
			}
		})
	}
}

// Add sums every row once: the rows held out in HeldOut alone, the
// others in the stats' own sums, which together are the sums of all the
// rows; and stats without held-out rows take those of what merges into
// them.
func TestStatsHoldOut(t *testing.T) {
	text := friedmanCSV(400, 3, false)
	p, err := NewPlan(chunks(t, text, 400)[0], []string{"y"}, Options{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	stats := addAll(t, p, chunks(t, text, 50))
	f := chunks(t, text, 400)[0]
	c, err := p.chunkTargets(f)
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := p.model.Encoder.Transform(f, c.rows)
	if err != nil {
		t.Fatal(err)
	}
	want := p.newSums()
	want.count(c)
	want.add(p.features(x, nil), c, p.shift)
	held := 0
	for r := range f.Len() {
		if holdsOut(f.Line(r)) {
			held++
		}
	}
	if stats.Rows != 400 || stats.HeldOut.Rows != held || held == 0 {
		t.Errorf("%d rows, %d held out; want 400 and %d", stats.Rows, stats.HeldOut.Rows, held)
	}
	// The features and targets are about 1 in size, their sums about 0
	// (the plan's shift and the targets' scale are their means).
	all := stats.all()
	for name, pair := range map[string][2][]float64{"Z": {want.Z, all.Z}, "ZZ": {want.ZZ, all.ZZ}, "ZY": {want.ZY, all.ZY}, "Y": {want.Y, all.Y}, "YY": {want.YY, all.YY}} {
		if d := floats.Distance(pair[0], pair[1], math.Inf(1)); !(d < 1e-10) {
			t.Errorf("%s of all the rows differs by %g", name, d)
		}
	}
	merged := stats.zero()
	if err := merged.Merge(stats); err != nil {
		t.Fatal(err)
	}
	if merged.HeldOut == nil || merged.HeldOut.Rows != held || !slices.Equal(merged.HeldOut.ZY, stats.HeldOut.ZY) {
		t.Errorf("merged into stats without held-out rows, the held-out rows are %+v", merged.HeldOut)
	}
}

// The held-out loss that Solve chooses the cost by, from the sums alone,
// is the sum of the squared errors of the predictions of each row.
func TestStatsLoss(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 5))
	const n, width, k = 50, 6, 2
	z, y := mat.NewDense(n, width, nil), mat.NewDense(n, k, nil)
	beta := mat.NewDense(width, k, nil)
	for _, m := range []*mat.Dense{z, y, beta} {
		m.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, m)
	}
	w := make([]float64, n)
	var total float64
	for i := range w {
		w[i] = rnd.Float64()
		total += w[i]
	}
	shift, b := []float64{1, -2, 0.5, 3, 0, 1}, []float64{0.3, -0.7}
	s := &Stats{Z: make([]float64, width), ZZ: make([]float64, width*width), ZY: make([]float64, width*k),
		Y: make([]float64, k), YY: make([]float64, k)}
	c := &chunkRows{rows: numeric.Indices(n), y: y, w: w, total: total}
	s.count(c)
	s.add(mat.DenseCopyOf(z), c, shift)
	var pred mat.Dense
	pred.Mul(z, beta)
	var want float64
	for i := range n {
		for j := range k {
			e := y.At(i, j) - b[j] - pred.At(i, j)
			want += w[i] * e * e
		}
	}
	if got := s.loss(beta, b, shift); math.Abs(got-want) > 1e-9*want {
		t.Errorf("loss %v, want %v", got, want)
	}
}

// On enough held-out rows Solve chooses the cost of lowest held-out
// error among StreamCosts, which then fits at least as well there as the
// sample's.
func TestSolveChoosesCost(t *testing.T) {
	frames := chunks(t, friedmanCSV(12000, 4, false), 2000)
	p, err := NewPlan(frames[0], []string{"y"}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	md, rep, err := p.Solve(addAll(t, p, frames))
	if err != nil {
		t.Fatal(err)
	}
	h := rep.HeldOutCost
	if h == nil {
		t.Fatal("no cost chosen on the held-out rows")
	}
	best := floats.MinIdx(h.Losses)
	if md.Fit.Cost != h.Costs[best] || rep.Result.Cost != h.Costs[best] || h.Rows < 1000 {
		t.Errorf("cost %v, want %v of lowest held-out loss on %d rows", md.Fit.Cost, h.Costs[best], h.Rows)
	}
	// The report does not credit the sample's leave-one-out with the cost.
	if rep.Result.CostRows != 0 || strings.Contains(strings.Join(rep.Summary(md), "\n"), "re-chosen by leave-one-out") {
		t.Errorf("cost re-chosen on %d rows of the sample; summary:\n%s", rep.Result.CostRows, strings.Join(rep.Summary(md), "\n"))
	}
	if sample := h.Losses[slices.Index(h.Costs, h.Sample)]; !(h.Losses[best] <= sample) {
		t.Errorf("held-out loss %v at the chosen cost, %v at the sample's", h.Losses[best], sample)
	}
}

// The final solve's Cholesky factorisation at one cost gives the fit
// that the held-out choice's eigendecomposition gives at that cost, to
// rounding and the directions of eigenvalues below eigenFloor, which
// the smallest costs shrink less: the same coefficients, intercept and
// held-out loss.
func TestPlanSolutionAt(t *testing.T) {
	frames := chunks(t, friedmanCSV(6000, 4, false), 1000)
	p, err := NewPlan(frames[0], []string{"y"}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	acc := addAll(t, p, frames)
	all, basis := acc.all(), p.toBasis(p.toC)
	costs := []float64{1e-8, 1e-5, 1e-2, 1}
	betas, intercepts, err := p.fits(all, p.toC, costs)
	if err != nil {
		t.Fatal(err)
	}
	for i, cost := range costs {
		beta, b, err := p.solutionAt(all, p.toC, cost)
		if err != nil {
			t.Fatal(err)
		}
		var want, got mat.Dense
		mul(&want, basis, betas[i])
		mul(&got, basis, beta)
		wl, gl := acc.HeldOut.loss(&want, intercepts[i], p.shift), acc.HeldOut.loss(&got, b, p.shift)
		dc, di, dl := maxRelDiff(betas[i], beta), math.Abs(b[0]-intercepts[i][0])/math.Abs(intercepts[i][0]), math.Abs(gl-wl)/wl
		t.Logf("cost %g: coefficients %g, intercept %g, loss %g", cost, dc, di, dl)
		if !(dc < 1e-7 && di < 1e-9 && dl < 1e-9) {
			t.Errorf("cost %g: coefficients differ by %g of their size, intercepts by %g, held-out losses by %g", cost, dc, di, dl)
		}
	}
	// Where the Gram matrix is not positive definite (here a feature's
	// sum of squares below its mean's), the solution is the
	// eigendecomposition's.
	bad := *all
	bad.ZZ = slices.Clone(all.ZZ)
	w := len(bad.Z)
	bad.ZZ[w*w-1] = -bad.ZZ[w*w-1]
	betas, intercepts, err = p.fits(&bad, p.toC, []float64{1e-5})
	if err != nil {
		t.Fatal(err)
	}
	beta, b, err := p.solutionAt(&bad, p.toC, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(beta, betas[0]) || !slices.Equal(b, intercepts[0]) {
		t.Error("not positive definite: the solution is not the eigendecomposition's")
	}
}

// The streamed fits leave out the directions of the features' Gram
// matrix whose eigenvalues fall below eigenFloor times the largest:
// their targets' products are rounding errors, which a small cost would
// otherwise divide by little more than itself. Those just above it are
// fitted.
func TestNormalSumsFloor(t *testing.T) {
	const rows, cost = 1000, 1e-8
	for _, tc := range []struct {
		small float64 // the Gram matrix's second eigenvalue; the first is 1
		want  float64 // the second coefficient
	}{
		{small: eigenFloor / 10, want: 0},
		{small: eigenFloor * 10, want: 1e-7 / (eigenFloor*10 + rows*cost)},
	} {
		n := &normalSums{
			gram: mat.NewSymDense(2, []float64{1, 0, 0, tc.small}),
			zy:   mat.NewDense(2, 1, []float64{1, 1e-7}),
			mean: []float64{0, 0},
			dy:   []float64{0},
		}
		betas, _, err := n.fits(rows, []float64{cost})
		if err != nil {
			t.Fatal(err)
		}
		first, second := betas[0].At(0, 0), betas[0].At(1, 0)
		if math.Abs(first-1/(1+rows*cost)) > 1e-12 || math.Abs(second-tc.want) > 1e-9*math.Abs(tc.want)+1e-15 {
			t.Errorf("eigenvalue %g: coefficients %g, %g, want %g, %g", tc.small, first, second, 1/(1+rows*cost), tc.want)
		}
	}
}

// The warnings of reading parts of a table merge to the same first
// warnings and count in any order, and Solve gives them.
func TestStatsMergeRead(t *testing.T) {
	text := friedmanCSV(300, 2, false)
	p, err := NewPlan(chunks(t, text, 300)[0], []string{"y"}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]*Stats, 5)
	for i := range parts {
		parts[i] = p.NewStats()
		for j := range 6 {
			parts[i].Read = append(parts[i].Read, dataset.Warning{Rows: 1, Message: fmt.Sprintf("part-%d-%d.csv: 1 stray cell", (7*i+3*j)%10, j)})
		}
	}
	merge := func(order []int) *Stats {
		acc := p.NewStats()
		for _, i := range order {
			part := *parts[i]
			part.Read = slices.Clone(part.Read)
			if err := acc.Merge(&part); err != nil {
				t.Fatal(err)
			}
		}
		return acc
	}
	a, b := merge([]int{0, 1, 2, 3, 4}), merge([]int{4, 2, 0, 3, 1})
	if !slices.Equal(a.Read, b.Read) || a.ReadMore != b.ReadMore || len(a.Read) != maxRead || a.ReadMore != 30-maxRead {
		t.Errorf("merged in two orders: %d warnings and %d more, %d and %d; want the same, %d and %d",
			len(a.Read), a.ReadMore, len(b.Read), b.ReadMore, maxRead, 30-maxRead)
	}
	if a.Read[0].Message != "part-0-0.csv: 1 stray cell" {
		t.Errorf("first warning %q, want the first in the order of their text", a.Read[0].Message)
	}
	if err := a.Add(chunks(t, text, 300)[0]); err != nil {
		t.Fatal(err)
	}
	_, rep, err := p.Solve(a)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Warnings, a.Read[maxRead-1]) || !slices.ContainsFunc(rep.Warnings, func(w dataset.Warning) bool {
		return strings.HasPrefix(w.Message, fmt.Sprintf("and %d more warnings of reading", 30-maxRead))
	}) {
		t.Errorf("solve's warnings %q, want the reading's and a count of the rest", rep.Warnings)
	}
	a.ReadMore = -1
	if _, _, err := p.Solve(a); err == nil {
		t.Error("stats of a negative count of warnings solved")
	}
}
