package kernel

import (
	"math/rand/v2"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// TestLayer checks the layer against the machine it represents: its
// output is what Machine().Predict computes for the same points, its
// regulariser what the training objective computes with those anchors,
// and its gradients (with respect to the batch, the augmenter, the
// coefficients and the learned points) match finite differences.
func TestLayer(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 11))
	for _, kind := range []Combine{Additive, Multiplicative} {
		t.Run(kind.String(), func(t *testing.T) {
			arch := Architecture{Dims: []int{2, 3, 2}, Kernel: kind, Bandwidth: 0.9}
			l, err := NewLayer(arch, 3, 4, rnd)
			if err != nil {
				t.Fatal(err)
			}
			const n = 5
			rows := randomData(rnd, n, 3)
			x := ad.FromMatrix(rows)
			var ps ad.Params[float64]
			var g ad.Graph[float64]
			xn := g.Param(x, nil)
			out, reg := l.Apply(&g, &ps, "head", xn)
			if r, c := out.Value.Rows(), out.Value.Cols(); r != n || c != 2 {
				t.Fatalf("output %dx%d, want %dx2", r, c, n)
			}
			want := l.Machine().Predict(nil, rows)
			for i := range n {
				for k := range 2 {
					if got := out.Value.At(i, k); !scalar.EqualWithinAbsOrRel(got, want.At(i, k), 1e-12, 1e-12) {
						t.Errorf("sample %d output %d: layer %v, Predict %v", i, k, got, want.At(i, k))
					}
				}
			}
			// The regulariser is the objective's, on the anchors alone.
			o, err := NewObjective(arch, Problem{X: mat.DenseCopyOf(l.Machine().Anchors), Y: mat.NewDense(4, 2, nil), Cost: 1})
			if err != nil {
				t.Fatal(err)
			}
			params := append(append([]float64(nil), l.A.Data...), l.C.Data...)
			loss, data := o.Loss(params)
			if !scalar.EqualWithinAbsOrRel(reg.Scalar(), loss-data, 1e-12, 1e-12) {
				t.Errorf("regulariser %v, the objective's %v", reg.Scalar(), loss-data)
			}
			if names := ps.Names(); len(names) != 3 || names[2] != "head.anchors" {
				t.Errorf("parameters %v", names)
			}

			weights := g.Input(ad.FromMatrix(randomData(rnd, n, 2)))
			total := g.Add(g.Dot(out, weights), g.Scale(reg, 0.3))
			// Nodes of the set read and write the layer's own tensors.
			check := []*ad.Node[float64]{xn, ps.Node(&g, "head.a"), ps.Node(&g, "head.c"), ps.Node(&g, "head.anchors")}
			if e := ad.CheckGradient(&g, total, check, 1e-6); e.Rel > 1e-6 {
				t.Errorf("relative gradient error %.3g at parameter %d element %d", e.Rel, e.Param, e.Index)
			}
		})
	}
}
