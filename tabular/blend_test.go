package tabular

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestBlends checks when a fit averages the machines of the inputs' two
// encodings: a regression of the auto family, at most blendMaxRows
// rows, whose losses differ by at most blendNoise / sqrt(n).
func TestBlends(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lo, hi float64
		n      int
		s      Settings
		want   bool
	}{
		{"within the noise", 1, 1.2, 100, Settings{}, true},
		{"at the bound", 1, 1.25, 100, Settings{}, true},
		{"beyond the noise", 1, 1.3, 100, Settings{}, false},
		{"the same gap on more rows", 1, 1.2, 400, Settings{}, false},
		{"shallow family", 1, 1, 100, Settings{Family: Shallow}, false},
		{"most rows", 1, 1, blendMaxRows, Settings{}, true},
		{"too many rows", 1, 1, blendMaxRows + 1, Settings{}, false},
	} {
		if got := blends(tc.lo, tc.hi, tc.n, tc.s); got != tc.want {
			t.Errorf("%s: blends %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestFitBlend checks fits whose encodings' losses are and are not
// within their noise: the first predicts the average of its machine and
// of the other encoding's, weighing otherWeight, and records it; the
// second stands alone.
func TestFitBlend(t *testing.T) {
	raceNarrow(t)
	for _, tc := range []struct {
		name  string
		input func(u float64) float64 // the first input of a target linear in u
		want  string                  // the encoding chosen
	}{
		{"linear", func(u float64) float64 { return u }, "linear"},
		{"skewed", func(u float64) float64 { return math.Exp(8 * u) }, "quantile"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkBlend(t, tc.input, tc.want)
		})
	}
	// The model records the weight and its summary says so.
	var csv strings.Builder
	csv.WriteString("a,b,y\n")
	r := rand.New(rand.NewPCG(4, 2))
	for range 60 {
		a, b := r.Float64(), r.Float64()
		fmt.Fprintf(&csv, "%g,%g,%g\n", a, b, a+0.5*b+0.3*r.NormFloat64())
	}
	md, rep := fitText(t, csv.String())
	want := "averaged with the shallow machine of their quantiles, weighing 0.25"
	if md.Fit.OtherWeight != otherWeight || !slices.ContainsFunc(rep.Summary(md), func(l string) bool { return strings.HasPrefix(l, want) }) {
		t.Errorf("the model records weight %v, its summary %q; want %v and %q", md.Fit.OtherWeight, rep.Summary(md), otherWeight, want)
	}

	step := func(v float64) float64 { return math.Tanh(4 * (math.Log(v) - 2)) }
	sx, sy, _ := skewedData(80, step)
	if m, res, err := FitRegression(sx, sy, Settings{}); err != nil || m.Other != nil || res.OtherWeight != 0 {
		t.Errorf("a step in the log of a skewed input (held-out losses %v): other machine %v, error %v; want none", res.InputLosses, m != nil && m.Other != nil, err)
	}
}

// TestClassifierBlend checks a classifier of few rows: it keeps its
// inputs as they are, and averages its scores with those of the shallow
// machine of their quantiles, weighing otherWeight and not mapped by its
// metric, where that one's held-out loss is the lower within the noise;
// where it is the higher, or the family is fixed, its machine stands
// alone.
func TestClassifierBlend(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, seed int
		s       Settings
		scale   string // the inputs' scale recorded
		other   bool
	}{
		{"quantiles' loss lower", 80, 2, Settings{}, "linear", true},
		{"quantiles' loss higher", 60, 3, Settings{}, "linear", false},
		{"shallow family", 80, 2, Settings{Family: Shallow}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, labels := skewedClasses(tc.n, tc.seed)
			var progress strings.Builder
			s := tc.s
			s.Progress = &progress
			m, res, err := FitClassifier(x, labels, 2, s)
			if err != nil {
				t.Fatal(err)
			}
			if res.InputScale != tc.scale || m.Quantiles != nil {
				t.Errorf("input scale %q, quantile map %v; want %q and none", res.InputScale, m.Quantiles != nil, tc.scale)
			}
			if m.Other == nil {
				if tc.other {
					t.Fatalf("no other machine at held-out losses %v", res.InputLosses)
				}
				return
			}
			if !tc.other || m.Other.Quantiles == nil || m.OtherWeight != otherWeight || res.OtherWeight != otherWeight {
				t.Fatalf("other machine of quantile map %v weighing %v (recorded %v) at held-out losses %v; want none, or the quantiles' weighing %v where their loss is the lower",
					m.Other.Quantiles != nil, m.OtherWeight, res.OtherWeight, res.InputLosses, otherWeight)
			}
			if _, after, _ := strings.Cut(progress.String(), "the shallow machine of the other weighs"); strings.Contains(after, "metric") {
				t.Errorf("the other machine's inputs were tried mapped by their metric:\n%s", after)
			}
			own := *m
			own.Other, own.OtherWeight = nil, 0
			got, a, b := m.Predict(nil, x), own.Predict(nil, x), m.Other.Predict(nil, x)
			for i := range tc.n {
				for k := range 2 {
					if want := (1-otherWeight)*a.At(i, k) + otherWeight*b.At(i, k); math.Abs(got.At(i, k)-want) > 1e-12*math.Abs(want)+1e-12 {
						t.Fatalf("row %d: score %v of class %d, want %v", i, got.At(i, k), k, want)
					}
				}
			}
		})
	}
}

// skewedClasses returns n rows of two inputs, a skewed one and a uniform
// one, and two classes that follow a step in the first's logarithm and
// the second, with noise.
func skewedClasses(n, seed int) (*mat.Dense, []int) {
	rnd := rand.New(rand.NewPCG(uint64(seed), 3))
	x := mat.NewDense(n, 2, nil)
	labels := make([]int, n)
	for i := range n {
		u, w := rnd.Float64(), rnd.Float64()
		x.Set(i, 0, math.Exp(4*u))
		x.Set(i, 1, w)
		if math.Tanh(4*(4*u-2))+w-0.5+0.3*rnd.NormFloat64() > 0 {
			labels[i] = 1
		}
	}
	return x, labels
}

// checkBlend fits a regression of 60 rows whose target is linear in u,
// the first input being input(u), and checks that the machine chosen on
// the encoding want is averaged with the other's, within the range.
func checkBlend(t *testing.T, input func(float64) float64, want string) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(4, 2))
	const n = 60
	x, y := mat.NewDense(n, 2, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		a, b := rnd.Float64(), rnd.Float64()
		x.Set(i, 0, input(a))
		x.Set(i, 1, b)
		y.Set(i, 0, a+0.5*b+0.3*rnd.NormFloat64())
	}
	var progress strings.Builder
	m, res, err := FitRegression(x, y, Settings{Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if m.Other == nil || m.OtherWeight != otherWeight || res.OtherWeight != otherWeight {
		t.Fatalf("other machine %v weighing %v (recorded %v) at held-out losses %v, want one weighing %v", m.Other != nil, m.OtherWeight, res.OtherWeight, res.InputLosses, otherWeight)
	}
	// The other encoding's machine is the shallow one: no race.
	if _, after, _ := strings.Cut(progress.String(), "the shallow machine of the other weighs"); strings.Contains(after, "choosing the cost and bandwidth") || !strings.Contains(progress.String(), "choosing the cost and bandwidth") {
		t.Errorf("the deep machine raced on the other encoding, or not on the chosen one:\n%s", progress.String())
	}
	if res.InputScale != want {
		t.Fatalf("input scale %q at held-out losses %v, want %q", res.InputScale, res.InputLosses, want)
	}
	if (m.Quantiles == nil) == (m.Other.Quantiles == nil) || (m.Quantiles != nil) != (res.InputScale == QuantileInputs.String()) {
		t.Errorf("quantile maps %v and %v, input scale %q: want the chosen one's and the other", m.Quantiles != nil, m.Other.Quantiles != nil, res.InputScale)
	}
	own := withoutHedges(m)
	if m.NumParams() != own.NumParams()+m.Other.NumParams()+linearParams(m) {
		t.Errorf("%d parameters, want %d, %d and the linear machine's %d", m.NumParams(), own.NumParams(), m.Other.NumParams(), linearParams(m))
	}
	got, avg := m.Predict(nil, x), averaged(m, x)
	for i := range n {
		if want := avg.At(i, 0); math.Abs(got.At(i, 0)-want) > 1e-12*math.Abs(want)+1e-12 {
			t.Fatalf("row %d: prediction %v, want %v", i, got.At(i, 0), want)
		}
	}
	// The intervals: the machine's own about the average, on the scale
	// it fits (standardised, and logarithmic for a log target), kept
	// within the range, which binds on some rows.
	m.Range = [][2]float64{{0.2, 1.2}}
	half := []float64{0.3}
	mean, sd := m.Output.Mean[0], m.Output.Scale[0]
	clamped := 0
	for _, logTarget := range []bool{false, true} {
		m.LogTarget = logTarget
		pred, lower, upper := m.PredictInterval(nil, nil, nil, x, half)
		avg := averaged(m, x)
		for i := range n {
			v := avg.At(i, 0)
			u := (v - mean) / sd
			if logTarget {
				u = (math.Log1p(v) - mean) / sd
			}
			end := func(z float64) float64 {
				z = z*sd + mean
				if logTarget {
					z = math.Expm1(z)
				}
				if z < 0.2 || z > 1.2 {
					clamped++
				}
				return min(max(z, 0.2), 1.2)
			}
			for _, e := range [][2]float64{{pred.At(i, 0), v}, {lower.At(i, 0), end(u - 0.3)}, {upper.At(i, 0), end(u + 0.3)}} {
				if math.Abs(e[0]-e[1]) > 1e-12 {
					t.Fatalf("log target %v, row %d: prediction or end %v, want %v", logTarget, i, e[0], e[1])
				}
			}
		}
	}
	if clamped == 0 {
		t.Error("the range bound no interval's end")
	}
}

// withoutHedges returns a copy of m without its Other, Linear and Mean.
func withoutHedges(m *Machine) Machine {
	own := *m
	own.Other, own.OtherWeight, own.Linear, own.LinearWeight, own.Mean, own.MeanWeight = nil, 0, nil, 0, nil, 0
	return own
}

// linearParams returns the parameters of m's Linear, 0 for none.
func linearParams(m *Machine) int {
	if m.Linear == nil {
		return 0
	}
	return m.Linear.NumParams()
}

// averaged returns the predictions of m computed apart: its own
// machine's, then each hedge's weighing its weight in the average
// before it.
func averaged(m *Machine, x mat.Matrix) *mat.Dense {
	own := withoutHedges(m)
	v := own.Predict(nil, x)
	for _, h := range m.Hedges() {
		p := h.Machine.Predict(nil, x)
		v.Apply(func(i, j int, a float64) float64 { return (1-h.Weight)*a + h.Weight*p.At(i, j) }, v)
	}
	return v
}
