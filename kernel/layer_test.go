package kernel

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// TestLayer checks the layer against the machine it represents: its
// output is what Machine.Predict computes for the same points, its
// penalty the cost times what the training objective computes as its
// regulariser with those anchors, and its gradients (with respect to the
// batch, the augmenter, the coefficients and the learned points) match
// finite differences. In float32 it computes what it computes in float64.
func TestLayer(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 11))
	for _, kind := range []Combine{Additive, Multiplicative} {
		t.Run(kind.String(), func(t *testing.T) {
			arch := Architecture{Dims: []int{2, 3, 2}, Kernel: kind, Bandwidth: 0.9}
			l := Layer[float64]{Architecture: arch, Anchors: 4, Cost: 0.3}
			const n = 5
			rows := randomData(rnd, n, 3)
			x := ad.FromMatrix(rows)
			var ps ad.Params[float64]
			var g ad.Graph[float64]
			s := ad.NewScope(&g, &ps, "head", rnd)
			if _, err := l.Init(s, [][]int{{3}}); err != nil {
				t.Fatal(err)
			}
			if names := ps.Names(); !slices.Equal(names, []string{"head.weight", "head.coef", "head.anchors"}) {
				t.Errorf("parameters %v", names)
			}
			xn := g.Param(x, nil)
			y, err := l.Apply(s, []*ad.Node[float64]{xn})
			if err != nil {
				t.Fatal(err)
			}
			out, pen := y[0], s.Penalties()
			if r, c := out.Value.Rows(), out.Value.Cols(); r != n || c != 2 || len(pen) != 1 {
				t.Fatalf("output %dx%d and %d penalties, want %dx2 and 1", r, c, len(pen), n)
			}
			m, err := l.Machine(&ps, "head")
			if err != nil {
				t.Fatal(err)
			}
			want := m.Predict(nil, rows)
			for i := range n {
				for k := range 2 {
					if got := out.Value.At(i, k); !scalar.EqualWithinAbsOrRel(got, want.At(i, k), 1e-12, 1e-12) {
						t.Errorf("sample %d output %d: layer %v, Predict %v", i, k, got, want.At(i, k))
					}
				}
			}
			// The regulariser is the objective's, on the anchors alone.
			o, err := NewObjective(arch, Problem{X: mat.DenseCopyOf(m.Anchors), Y: mat.NewDense(4, 2, nil), Cost: 1})
			if err != nil {
				t.Fatal(err)
			}
			params := append(slices.Clone(ps.Value("head.weight").Data), ps.Value("head.coef").Data...)
			loss, data := o.Loss(params)
			if !scalar.EqualWithinAbsOrRel(pen[0].Scalar(), 0.3*(loss-data), 1e-12, 1e-12) {
				t.Errorf("penalty %v, 0.3 times the objective's regulariser %v", pen[0].Scalar(), loss-data)
			}

			weights := g.Input(ad.FromMatrix(randomData(rnd, n, 2)))
			total := g.Add(g.Dot(out, weights), pen[0])
			check := []*ad.Node[float64]{xn, ps.Node(&g, "head.weight"), ps.Node(&g, "head.coef"), ps.Node(&g, "head.anchors")}
			if e := ad.CheckGradient(&g, total, check, 1e-6); e.Rel > 1e-6 {
				t.Errorf("relative gradient error %.3g at parameter %d element %d", e.Rel, e.Param, e.Index)
			}

			// The same layer in float32, from the same parameters.
			var ps32 ad.Params[float32]
			var g32 ad.Graph[float32]
			s32 := ad.NewScope(&g32, &ps32, "head", rnd)
			if _, err := (Layer[float32]{Architecture: arch, Anchors: 4}).Init(s32, [][]int{{3}}); err != nil {
				t.Fatal(err)
			}
			for _, name := range ps.Names() {
				for i, v := range ps.Value(name).Data {
					ps32.Value(name).Data[i] = float32(v)
				}
			}
			x32 := ad.NewTensor[float32](x.Shape...)
			for i, v := range x.Data {
				x32.Data[i] = float32(v)
			}
			y32, err := (Layer[float32]{Architecture: arch, Anchors: 4}).Apply(s32, []*ad.Node[float32]{g32.Input(x32)})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range y32[0].Value.Data {
				if !scalar.EqualWithinAbsOrRel(float64(v), out.Value.Data[i], 1e-5, 1e-4) {
					t.Errorf("float32 output %d: %v, float64 %v", i, v, out.Value.Data[i])
				}
			}
		})
	}
}

// TestLayerErrors checks that Init refuses what does not fit.
func TestLayerErrors(t *testing.T) {
	arch := Architecture{Dims: []int{2, 2}}
	for _, c := range []struct {
		name  string
		layer Layer[float64]
		in    [][]int
	}{
		{"image input", Layer[float64]{Architecture: arch, Anchors: 2}, [][]int{{1, 2, 2}}},
		{"no anchors", Layer[float64]{Architecture: arch}, [][]int{{3}}},
		{"negative cost", Layer[float64]{Architecture: arch, Anchors: 2, Cost: -1}, [][]int{{3}}},
		{"one block", Layer[float64]{Architecture: Architecture{Dims: []int{2}}, Anchors: 2}, [][]int{{3}}},
	} {
		var ps ad.Params[float64]
		if _, err := c.layer.Init(ad.NewScope(nil, &ps, "k", nil), c.in); err == nil {
			t.Errorf("%s: no error", c.name)
		} else if ps.Len() != 0 {
			t.Errorf("%s: %d parameters registered before the error", c.name, ps.Len())
		}
	}
}
