package tabular

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/mat"
)

// randomMachine returns a kernel machine of the given architecture with
// random parameters on the given number of anchors at random inputs,
// with an input scaler and, for one output, an output scaler, a log
// target when log is set, and a range.
func randomMachine(t testing.TB, rnd *rand.Rand, arch kernel.Architecture, inputs, anchors int, log bool) *Machine {
	t.Helper()
	x := randomData(rnd, anchors, inputs)
	o, err := kernel.NewObjective(arch, kernel.Problem{X: x, Y: randomData(rnd, anchors, arch.Outputs())})
	if err != nil {
		t.Fatal(err)
	}
	m := &Machine{Machine: o.Machine(o.Init(nil, rnd), x), Input: scale.FitScaler(randomData(rnd, 20, inputs))}
	m.Quantiles = scale.FitQuantileMap(randomData(rnd, 20, inputs))
	k := arch.Outputs()
	m.Output = &scale.Scaler{Mean: make([]float64, k), Scale: make([]float64, k)}
	for j := range k {
		m.Output.Mean[j], m.Output.Scale[j] = 3-float64(j), 0.2+float64(j)
		m.Range = append(m.Range, [2]float64{-1e3, 4 + float64(j)})
	}
	m.LogTarget = log
	return m
}

// TestPredictorRowsIndependent checks that a row's prediction has the
// same bits whatever batch it comes in: alone, at any place of a batch
// of any size, across the chunks of a large one, and through
// Machine.Predict; and that a Predictor reused for batches of several
// sizes gives what a new one gives.
func TestPredictorRowsIndependent(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 3))
	for _, tc := range []struct {
		name           string
		arch           kernel.Architecture
		inputs, anchor int
		log            bool
	}{
		{"additive", kernel.Architecture{Dims: []int{3, 3, 3, 1}}, 10, 100, false},
		{"multiplicative", kernel.Architecture{Dims: []int{2, 2, 1}, Kernel: kernel.Multiplicative, Bandwidth: 0.7}, 3, 9, false},
		{"classes", kernel.Architecture{Dims: []int{4, 3, 5}}, 12, 40, false},
		{"log target", kernel.Architecture{Dims: []int{3, 2, 1}}, 9, 30, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := randomMachine(t, rnd, tc.arch, tc.inputs, tc.anchor, tc.log)
			const n = 600 // three chunks, the last of 88 rows
			x := randomData(rnd, n, tc.inputs)
			all := m.Predict(nil, x)
			p := m.NewPredictor()
			for _, size := range []int{1, 2, 7, 8, 9, 100, 256, 300} {
				for _, at := range []int{0, size / 2, size - 1} {
					// Row r of x sits at place at of a batch of size rows.
					r := (size*7 + at*13) % n
					batch := randomData(rnd, size, tc.inputs)
					batch.SetRow(at, x.RawRowView(r))
					got := p.Predict(nil, batch)
					for k := range m.Outputs() {
						if got.At(at, k) != all.At(r, k) {
							t.Fatalf("row %d output %d at place %d of %d: %v, in a batch of %d: %v", r, k, at, size, got.At(at, k), n, all.At(r, k))
						}
					}
				}
			}
		})
	}
}

// TestPredictorMaps checks the maps around the machine, for rows in a
// batch of any size: the prediction and the ends of the intervals are
// the kernel machine's output on the inputs' quantiles, standardised,
// plus and minus the half width, mapped to the targets' units by the
// output scaler's Invert, expm1 and the range.
func TestPredictorMaps(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 5))
	for _, log := range []bool{false, true} {
		m := randomMachine(t, rnd, kernel.Architecture{Dims: []int{3, 2, 2}}, 4, 20, log)
		halfWidth := []float64{0.5, 0.25}
		x := randomData(rnd, 300, 4)
		want := m.Machine.Predict(nil, m.Input.Transform(m.Quantiles.Transform(x)))
		p := m.NewPredictor()
		for _, size := range []int{1, 5, 300} {
			pred, lower, upper := p.PredictInterval(nil, nil, nil, x.Slice(0, size, 0, 4), halfWidth)
			for e, end := range []*mat.Dense{pred, lower, upper} {
				sign := []float64{0, -1, 1}[e]
				for i := range size {
					for k := range 2 {
						v := m.Output.InvertValue(k, want.At(i, k)+sign*halfWidth[k])
						if log {
							v = math.Expm1(v)
						}
						v = min(max(v, m.Range[k][0]), m.Range[k][1])
						if end.At(i, k) != v {
							t.Fatalf("log %v, %d rows, end %d, row %d output %d: %v, want %v", log, size, e, i, k, end.At(i, k), v)
						}
					}
				}
			}
		}
	}
}

// TestPredictorShape checks the panics of a Predictor given the wrong
// shapes.
func TestPredictorShape(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 4))
	p := randomMachine(t, rnd, kernel.Architecture{Dims: []int{2, 2, 1}}, 3, 5, false).NewPredictor()
	for _, tc := range []struct {
		name string
		dst  *mat.Dense
		x    *mat.Dense
		h    []float64
	}{
		{"inputs", nil, mat.NewDense(2, 4, nil), nil},
		{"dst rows", mat.NewDense(3, 1, nil), mat.NewDense(2, 3, nil), nil},
		{"dst columns", mat.NewDense(2, 2, nil), mat.NewDense(2, 3, nil), nil},
		{"half widths", nil, mat.NewDense(2, 3, nil), []float64{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			if tc.h != nil {
				p.PredictInterval(tc.dst, nil, nil, tc.x, tc.h)
			}
			p.Predict(tc.dst, tc.x)
		})
	}
}

// BenchmarkPredictor times predictions of batches of n rows by a
// machine of the size of machines fit's default on a table of 10
// numeric columns: dims 10,3,3,3,1 and 100 anchors.
func BenchmarkPredictor(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 1))
	p := randomMachine(b, rnd, kernel.Architecture{Dims: []int{3, 3, 3, 1}}, 10, 100, false).NewPredictor()
	for _, n := range []int{1, 16, 64, 256} {
		x := randomData(rnd, n, 10)
		dst := mat.NewDense(n, 1, nil)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Predict(dst, x)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
