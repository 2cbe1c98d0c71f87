package finite

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parametric-machines/machines"
	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// TestStableStateOfFramework checks that a dense machine's forward solve
// is the stable state, in the sense of the root package, of the map
// f(y, z) = (W z, s ⊙ tanh(y)) on the space Y ⊕ Z, computed from g =
// (y0, z0) by plain iteration h = g + f(h) with W used as a full matrix:
// only the filtration makes the iteration stop, after at most 2(n+1)
// steps for n+1 blocks.
func TestStableStateOfFramework(t *testing.T) {
	rnd := rand.New(rand.NewPCG(13, 13))
	dims := []int{2, 3, 2}
	m, err := NewDense[float64](dims, ad.Tanh, rnd)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LearnScale(); err != nil {
		t.Fatal(err)
	}
	d := m.Size()
	for i := range m.Scale.Data {
		m.Scale.Data[i] = 0.5 + rnd.Float64()
	}
	// The map uses W's blocks below the diagonal; the solver must never
	// read the others, so they are filled with numbers that would show.
	w := mat.NewDense(d, d, nil)
	lo := 0
	for _, n := range dims {
		for i := lo; i < lo+n; i++ {
			for j := range d {
				if j < lo {
					w.Set(i, j, m.W.Data[i*d+j])
				} else {
					m.W.Data[i*d+j] = 100
				}
			}
		}
		lo += n
	}
	const samples = 4
	y0 := ad.NewTensor[float64](d, samples)
	for i := range y0.Data {
		y0.Data[i] = 2*rnd.Float64() - 1
	}
	s, err := m.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	y, z := s.Forward(y0, nil)

	// The root package's layout: a row per sample, the coordinates of
	// Y then Z in columns.
	g := mat.NewDense(samples, 2*d, nil)
	for i := range d {
		for b := range samples {
			g.Set(b, i, y0.Data[i*samples+b])
		}
	}
	f := machines.Func(func(dst, h *mat.Dense) {
		dst.Zero()
		for b := range samples {
			for i := range d {
				var wz float64
				for j := range d {
					wz += w.At(i, j) * h.At(b, d+j)
				}
				dst.Set(b, i, wz)
				dst.Set(b, d+i, m.Scale.Data[i]*math.Tanh(h.At(b, i)))
			}
		}
	})
	var h mat.Dense
	res, err := machines.Iterate(&h, f, g, machines.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if max := 2 * len(dims); res.Depth > max {
		t.Errorf("depth %d, want at most %d", res.Depth, max)
	}
	for i := range d {
		for b := range samples {
			if got, want := y.Data[i*samples+b], h.At(b, i); !scalar.EqualWithinAbsOrRel(got, want, 1e-13, 1e-13) {
				t.Errorf("y[%d] of sample %d: solver %v, stable state %v", i, b, got, want)
			}
			if got, want := z.Data[i*samples+b], h.At(b, d+i); !scalar.EqualWithinAbsOrRel(got, want, 1e-13, 1e-13) {
				t.Errorf("z[%d] of sample %d: solver %v, stable state %v", i, b, got, want)
			}
		}
	}
}
