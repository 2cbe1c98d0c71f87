package tabular

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkObjectiveAnchors times one loss and gradient evaluation of the
// default machine with DeepAnchors anchors on 10 inputs: the fits of the
// cross-validation (320 rows) and the final fit (2000 rows) of `machines
// fit` on a table of 2000 rows.
func BenchmarkObjectiveAnchors(b *testing.B) {
	for _, n := range []int{320, 2000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			const d = 10
			rnd := rand.New(rand.NewPCG(1, 1))
			x, y := mat.NewDense(n, d, nil), mat.NewDense(n, 1, nil)
			for i := range n {
				for j := range d {
					x.Set(i, j, rnd.NormFloat64())
				}
				y.Set(i, 0, rnd.NormFloat64())
			}
			anchors := make([]int, DeepAnchors)
			for i := range anchors {
				anchors[i] = i * n / DeepAnchors
			}
			arch := kernel.Architecture{Dims: append(DefaultHidden()[:len(DefaultHidden()):len(DefaultHidden())], 1), Bandwidth: 2}
			o, err := kernel.NewObjective(arch, kernel.Problem{X: x, Y: y, Cost: 1e-3, Anchors: anchors})
			if err != nil {
				b.Fatal(err)
			}
			p := o.Init(nil, rnd)
			grad := make([]float64, len(p))
			for b.Loop() {
				o.Func(p, grad)
			}
		})
	}
}
