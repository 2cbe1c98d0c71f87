package kernel

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/testutil"

	"gonum.org/v1/gonum/mat"
)

// randomMachine returns a machine of the given architecture with random
// parameters on anchors at random inputs, and the given number of
// anchors.
func randomMachine(t testing.TB, rnd *rand.Rand, arch Architecture, inputs, anchors int) *Machine {
	t.Helper()
	x := randomData(rnd, anchors, inputs)
	o, err := NewObjective(arch, Problem{X: x, Y: randomData(rnd, anchors, arch.Outputs())})
	if err != nil {
		t.Fatal(err)
	}
	return o.Machine(o.Init(nil, rnd), x)
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
		arch           Architecture
		inputs, anchor int
	}{
		{"additive", Architecture{Dims: []int{3, 3, 3, 1}}, 10, 100},
		{"multiplicative", Architecture{Dims: []int{2, 2, 1}, Kernel: Multiplicative, Bandwidth: 0.7}, 3, 9},
		{"classes", Architecture{Dims: []int{4, 3, 5}}, 12, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := randomMachine(t, rnd, tc.arch, tc.inputs, tc.anchor)
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

// TestPredictorShape checks the panics of a Predictor given the wrong
// shapes.
func TestPredictorShape(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 4))
	p := randomMachine(t, rnd, Architecture{Dims: []int{2, 2, 1}}, 3, 5).NewPredictor()
	for _, tc := range []struct {
		name string
		dst  *mat.Dense
		x    *mat.Dense
		want string
	}{
		{"inputs", nil, mat.NewDense(2, 4, nil), "4 input columns for a machine of 3 inputs"},
		{"dst rows", mat.NewDense(3, 1, nil), mat.NewDense(2, 3, nil), "dst is 3×1 for 2 rows of 1 outputs"},
		{"dst columns", mat.NewDense(2, 2, nil), mat.NewDense(2, 3, nil), "dst is 2×2 for 2 rows of 1 outputs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := testutil.PanicError(func() { p.Predict(tc.dst, tc.x) }); !errors.Is(err, ad.ErrShape) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("panic %v, want ad.ErrShape saying %q", err, tc.want)
			}
		})
	}
}

// BenchmarkPredictor times predictions of batches of n rows by a
// machine of the size of machines fit's default on a table of 10
// numeric columns: dims 10,3,3,3,1 and 100 anchors.
func BenchmarkPredictor(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 1))
	m := randomMachine(b, rnd, Architecture{Dims: []int{3, 3, 3, 1}}, 10, 100)
	p := m.NewPredictor()
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
