package kernel

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkObjective times one loss and gradient evaluation at the sizes
// of workloads W4 (36 points in 2-D) and W4b (100 points in 1-D), and at
// those of tabular's deep machine: dims 3, 3, 3 and the output, 80 anchor
// rows, the 100 to 320 training rows of a cross-validation fold and the
// 800 of a final fit, with 3 to 60 inputs.
func BenchmarkObjective(b *testing.B) {
	for _, tc := range []struct{ n, d, m int }{
		{36, 2, 0}, {100, 1, 0}, {400, 1, 0},
		{100, 3, 80}, {320, 3, 80}, {320, 20, 80}, {320, 60, 80}, {800, 20, 80},
	} {
		b.Run(fmt.Sprintf("n=%d/d=%d/m=%d", tc.n, tc.d, tc.m), func(b *testing.B) {
			rnd := rand.New(rand.NewPCG(1, 1))
			x, y := mat.NewDense(tc.n, tc.d, nil), mat.NewDense(tc.n, 1, nil)
			for i := range tc.n {
				for j := range tc.d {
					x.Set(i, j, rnd.NormFloat64())
				}
				y.Set(i, 0, rnd.NormFloat64())
			}
			p := Problem{X: x, Y: y, Cost: 0.0005}
			if tc.m > 0 {
				p.Anchors = rnd.Perm(tc.n)[:tc.m]
				slices.Sort(p.Anchors)
			}
			o, err := NewObjective(Architecture{Dims: []int{3, 3, 3, 1}}, p)
			if err != nil {
				b.Fatal(err)
			}
			params := o.Init(nil, rnd)
			grad := make([]float64, len(params))
			b.ReportAllocs()
			for b.Loop() {
				o.Func(params, grad)
			}
		})
	}
}
