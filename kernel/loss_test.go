package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parametric-machines/machines/internal/numeric"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// TestLossMatchesPaper computes the training loss of small machines
// from the paper's definitions, with loops that share nothing with the
// engine's graph: the states h = A x + sum_i f_i(h) level by level, the
// data loss, and the regulariser cost * (|A|^2 + sum_i |f_i|^2_RKHS),
// where the squared RKHS norm of f_i = sum_a c_ia K_i(a, .) is
// sum_{a,b} <c_ia, c_ib> K_i(a, b). Dropping either term of the
// regulariser, or summing it over the wrong anchors, changes the loss by
// far more than the tolerance.
func TestLossMatchesPaper(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 5))
	for _, tc := range []struct {
		name    string
		arch    Architecture
		anchors []int
		classes int // 0 for regression
	}{
		{"additive", Architecture{Dims: []int{2, 3, 1}, Bandwidth: 0.7}, nil, 0},
		{"multiplicative", Architecture{Dims: []int{2, 2, 2, 1}, Kernel: Multiplicative, Bandwidth: 1.2}, nil, 0},
		{"anchors", Architecture{Dims: []int{3, 2, 2}, Bandwidth: 0.9}, []int{0, 2, 5}, 0},
		{"classifier", Architecture{Dims: []int{2, 2, 3}, Bandwidth: 1}, []int{1, 3, 4, 6}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n, d, cost = 7, 2, 0.3
			x := randomData(rnd, n, d)
			p := Problem{X: x, Cost: cost, Anchors: tc.anchors}
			outputs := tc.arch.Outputs()
			if tc.classes > 0 {
				p.Labels = make([]int, n)
				for i := range p.Labels {
					p.Labels[i] = i % tc.classes
				}
			} else {
				p.Y = randomData(rnd, n, outputs)
			}
			o, err := NewObjective(tc.arch, p)
			if err != nil {
				t.Fatal(err)
			}
			params := o.Init(nil, rnd)
			got, gotData := o.Loss(params)

			anchors := tc.anchors
			if anchors == nil {
				anchors = numeric.Indices(n)
			}
			size := tc.arch.Size()
			a := mat.NewDense(size, d, params[:size*d])
			c := mat.NewDense(size-tc.arch.Dims[0], len(anchors), params[size*d:])
			// h starts as A x; level i adds sum_a c_ia K_i(a, p) to block i.
			h := mat.NewDense(n, size, nil)
			h.Mul(x, a.T())
			norm := 0.0
			start, crow := tc.arch.Dims[0], 0
			for i, di := range tc.arch.Dims[1:] {
				level := i + 1
				k := mat.NewDense(n, len(anchors), nil)
				for q := range n {
					for j, an := range anchors {
						k.Set(q, j, levelKernel(tc.arch, h, q, an, level, tc.arch.Sigma()))
					}
				}
				for r := range di {
					for q := range n {
						s := 0.0
						for j := range anchors {
							s += c.At(crow+r, j) * k.At(q, j)
						}
						h.Set(q, start+r, h.At(q, start+r)+s)
					}
					for j1, an := range anchors {
						for j2 := range anchors {
							norm += c.At(crow+r, j1) * c.At(crow+r, j2) * k.At(an, j2)
						}
					}
				}
				start += di
				crow += di
			}
			out := size - outputs
			data := 0.0
			for q := range n {
				if tc.classes == 0 {
					for r := range outputs {
						e := h.At(q, out+r) - p.Y.At(q, r)
						data += e * e / float64(n*outputs)
					}
					continue
				}
				sum := 0.0
				for r := range outputs {
					sum += math.Exp(h.At(q, out+r))
				}
				data += (math.Log(sum) - h.At(q, out+p.Labels[q])) / n
			}
			want := data + cost*(mat.Norm(a, 2)*mat.Norm(a, 2)+norm)
			if !scalar.EqualWithinAbsOrRel(gotData, data, 1e-12, 1e-12) {
				t.Errorf("data loss %v, want %v", gotData, data)
			}
			if !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
				t.Errorf("loss %v, want %v (data %v, |A|^2 %v, RKHS norm %v)", got, want, data, mat.Norm(a, 2)*mat.Norm(a, 2), norm)
			}
		})
	}
}
