package ad

import (
	"math/rand/v2"
	"testing"

	"github.com/parametric-machines/machines/internal/testutil"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// TestVJPMatchesBackward checks, for every operation, that VJP seeded
// with v gives the gradients that Backward gives for the scalar ⟨out, v⟩,
// and that a second call overwrites rather than accumulates.
func TestVJPMatchesBackward(t *testing.T) {
	for _, tc := range opCases[float64]() {
		t.Run(tc.name, func(t *testing.T) {
			c := buildCase(tc)
			c.g.Backward(c.loss)
			want := make([][]float64, len(c.params))
			for i, p := range c.params {
				want[i] = append([]float64(nil), p.Grad.Data...)
			}
			for range 2 {
				c.g.VJP(c.out, c.weights.Value.Data)
				for i, p := range c.params {
					for j, got := range p.Grad.Data {
						if !scalar.EqualWithinAbsOrRel(got, want[i][j], 1e-14, 1e-14) {
							t.Fatalf("parameter %d element %d: VJP %v, Backward of the inner product %v", i, j, got, want[i][j])
						}
					}
				}
			}
		})
	}
}

// TestVJPJacobian checks VJP against vᵀJ for the Jacobian J of a small
// network with a matrix output, computed by central differences: the
// cotangent is read in row-major order.
func TestVJPJacobian(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	var g Graph[float64]
	w := g.Param(randMatrix[float64](rnd, 3, 2), nil)
	x := g.Param(randMatrix[float64](rnd, 2, 4), nil)
	out := g.Tanh(g.MatMul(w, x, false, false)) // 3×4
	v := randTensor[float64](rnd, 3, 4).Data

	params := []*Node[float64]{w, x}
	var size int
	for _, p := range params {
		size += p.Value.Len()
	}
	at := make([]float64, 0, size)
	for _, p := range params {
		at = append(at, p.Value.Data...)
	}
	set := func(z []float64) {
		off := 0
		for _, p := range params {
			off += copy(p.Value.Data, z[off:])
		}
	}
	jac := mat.NewDense(out.Value.Len(), size, nil)
	fd.Jacobian(jac, func(y, z []float64) {
		set(z)
		g.Forward()
		copy(y, out.Value.Data)
	}, append([]float64(nil), at...), &fd.JacobianSettings{Formula: fd.Central})
	set(at)
	g.Forward()
	want := mat.NewVecDense(size, nil)
	want.MulVec(jac.T(), mat.NewVecDense(len(v), v))

	g.VJP(out, v)
	k := 0
	for i, p := range params {
		for j, got := range p.Grad.Data {
			if !scalar.EqualWithinAbsOrRel(got, want.AtVec(k), 1e-8, 1e-8) {
				t.Errorf("parameter %d element %d: VJP %v, finite differences %v", i, j, got, want.AtVec(k))
			}
			k++
		}
	}
}

// TestVJPConstant checks that a node that depends on no parameter
// clears the gradients of an earlier call instead of leaving them.
func TestVJPConstant(t *testing.T) {
	var g Graph[float64]
	p := g.Param(Matrix(2, 1, []float64{1, 2}), nil)
	x := g.Input(Matrix(2, 1, []float64{3, 4}))
	g.VJP(g.Square(p), []float64{1, 1})
	if p.Grad.Data[0] == 0 {
		t.Fatal("no gradient from a node that depends on the parameter")
	}
	g.VJP(g.Square(x), []float64{1, 1})
	for i, d := range p.Grad.Data {
		if d != 0 {
			t.Errorf("gradient[%d] = %v after the VJP of a constant, want 0", i, d)
		}
	}
}

func TestVJPPanics(t *testing.T) {
	var g, other Graph[float64]
	p := g.Param(Matrix(2, 1, []float64{1, 2}), nil)
	out := g.Tanh(p)
	q := other.Tanh(other.Param(Matrix(2, 1, []float64{1, 2}), nil))
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"short cotangent", func() { g.VJP(out, []float64{1}) }, "1 cotangent values for a node of shape [2 1]"},
		{"other graph", func() { g.VJP(q, []float64{1, 1}) }, "another graph"},
	} {
		t.Run(tc.name, func(t *testing.T) { testutil.CheckPanic(t, tc.f, tc.want) })
	}
}
