package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkObjective times one loss and gradient evaluation at the sizes
// of workloads W4 (36 points in 2-D) and W4b (100 points in 1-D).
func BenchmarkObjective(b *testing.B) {
	for _, tc := range []struct{ n, d int }{{36, 2}, {100, 1}, {400, 1}} {
		b.Run(fmt.Sprintf("n=%d", tc.n), func(b *testing.B) {
			rnd := rand.New(rand.NewPCG(1, 1))
			x, y := mat.NewDense(tc.n, tc.d, nil), mat.NewDense(tc.n, 1, nil)
			for i := range tc.n {
				for j := range tc.d {
					x.Set(i, j, rnd.Float64())
				}
				y.Set(i, 0, rnd.Float64())
			}
			o, err := NewObjective(Architecture{Dims: []int{3, 3, 3, 1}}, Problem{X: x, Y: y, Cost: 0.0005})
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
