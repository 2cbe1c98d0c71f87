package infinite

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parametric-machines/machines/ad"

	"gonum.org/v1/gonum/mat"
)

// TestClassifierLossMatchesPaper recomputes the classifier's training
// loss from the definitions, sharing no code with the package: ψᵢ = A xᵢ
// + b, the integrals zᵢⱼ(t) = ∫₀ᵗ k(uᵢ(s), uⱼ(s)) ds with uᵢ(t) = ψᵢ +
// Σⱼ zᵢⱼ(t) cⱼ(t) integrated by RK4 on a grid finer than the package's,
// the mean cross-entropy of the last Classes coordinates of uᵢ(1), the
// squared RKHS norm Σᵢⱼ ∫₀¹ zᵢⱼ(t)⟨cᵢ(t), cⱼ(t)⟩ dt by the trapezoidal
// rule, and |A|². The cost is large enough that dropping either term of
// the regulariser moves the loss by far more than the tolerance, which
// covers the package's coarser grid. With sines, cⱼ(t) has them too, as
// the paper's truncated Fourier series.
func TestClassifierLossMatchesPaper(t *testing.T) {
	for _, sine := range []bool{false, true} {
		t.Run(fmt.Sprintf("sine=%v", sine), func(t *testing.T) { testClassifierLoss(t, sine) })
	}
}

func testClassifierLoss(t *testing.T, sine bool) {
	rnd := rand.New(rand.NewPCG(31, 31))
	const rows, inputs, classes, dim, freqs, cost = 3, 4, 3, 4, 2, 0.5
	x := mat.NewDense(rows, inputs, nil)
	x.Apply(func(_, _ int, _ float64) float64 { return rnd.Float64() }, x)
	labels := []int{2, 0, 1}
	cfg := Config{Dim: dim, MaxFreq: freqs, Cost: cost, Steps: 64, Sine: sine}
	cl, m, err := newClassifier(x, labels, classes, cfg)
	if err != nil {
		t.Fatal(err)
	}
	mc := cl.Machine
	a := mat.NewDense(dim, inputs, cl.Params.Value("input.a").Data)
	bias := cl.Params.Value("input.b").Data
	for i, v := range m.Params().Values() {
		m.Params().Values()[i] = v + 0.6*rnd.NormFloat64()
	}
	got, err := m.Loss(nil, false)
	if err != nil {
		t.Fatal(err)
	}

	gamma := mc.gamma()
	psi := make([][]float64, rows)
	for i := range rows {
		psi[i] = make([]float64, dim)
		for r := range dim {
			psi[i][r] = bias[r] + mat.Dot(a.RowView(r), x.RowView(i))
		}
	}
	// c returns cⱼ(t) for every anchor j.
	c := func(t float64) [][]float64 {
		out := make([][]float64, rows)
		for j := range rows {
			out[j] = make([]float64, dim)
			var basis []float64
			for k := range freqs {
				basis = append(basis, math.Cos(2*math.Pi*float64(k)*t))
			}
			for k := 1; sine && k < freqs; k++ {
				basis = append(basis, math.Sin(2*math.Pi*float64(k)*t))
			}
			for k, w := range basis {
				for r := range dim {
					out[j][r] += w * mc.Coef[(j*len(basis)+k)*dim+r]
				}
			}
		}
		return out
	}
	state := func(z []float64, t float64) [][]float64 {
		cs := c(t)
		u := make([][]float64, rows)
		for i := range rows {
			u[i] = append([]float64(nil), psi[i]...)
			for j := range rows {
				for r := range dim {
					u[i][r] += z[i*rows+j] * cs[j][r]
				}
			}
		}
		return u
	}
	deriv := func(z []float64, t float64) []float64 {
		u := state(z, t)
		d := make([]float64, len(z))
		for i := range rows {
			for j := range rows {
				var dist float64
				for r := range dim {
					e := u[i][r] - u[j][r]
					dist += e * e
				}
				d[i*rows+j] = math.Exp(-gamma * dist)
			}
		}
		return d
	}
	normAt := func(z []float64, t float64) float64 {
		cs := c(t)
		var s float64
		for i := range rows {
			for j := range rows {
				s += z[i*rows+j] * mat.Dot(mat.NewVecDense(dim, cs[i]), mat.NewVecDense(dim, cs[j]))
			}
		}
		return s
	}
	const steps = 2000
	h := 1.0 / steps
	z := make([]float64, rows*rows)
	norm := 0.5 * h * normAt(z, 0)
	axpy := func(a float64, x, y []float64) []float64 {
		out := append([]float64(nil), y...)
		for i := range out {
			out[i] += a * x[i]
		}
		return out
	}
	for s := range steps {
		t0 := float64(s) * h
		k1 := deriv(z, t0)
		k2 := deriv(axpy(h/2, k1, z), t0+h/2)
		k3 := deriv(axpy(h/2, k2, z), t0+h/2)
		k4 := deriv(axpy(h, k3, z), t0+h)
		for i := range z {
			z[i] += h / 6 * (k1[i] + 2*k2[i] + 2*k3[i] + k4[i])
		}
		w := h
		if s == steps-1 {
			w = h / 2
		}
		norm += w * normAt(z, t0+h)
	}
	u := state(z, 1)
	var ce float64
	for i := range rows {
		scores := u[i][dim-classes:]
		var sum float64
		for _, s := range scores {
			sum += math.Exp(s)
		}
		ce += (math.Log(sum) - scores[labels[i]]) / rows
	}
	a2 := mat.Norm(a, 2) * mat.Norm(a, 2)
	want := ce + cost*(norm+a2)
	if math.Abs(got-want) > 1e-3*math.Abs(want) {
		t.Errorf("loss %.6f, want %.6f (cross-entropy %.6f, RKHS norm %.6f, |A|^2 %.6f)", got, want, ce, norm, a2)
	}
	if cost*norm < 1e-2*math.Abs(want) || cost*a2 < 1e-2*math.Abs(want) {
		t.Errorf("the terms are too small to test: norm %.3g, |A|^2 %.3g against a loss of %.3g", cost*norm, cost*a2, want)
	}
}

// TestConvAugmenter recomputes ψ of the convolutional augmenter by loops:
// a 3×3 convolution with padding 1 evaluated at every other pixel, a
// bias per channel, the ReLU and the affine map.
func TestConvAugmenter(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 5))
	const rows, h, w, ch, dim = 2, 5, 4, 3, 4
	x := mat.NewDense(rows, h*w, nil)
	x.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, x)
	cl, m, err := newClassifier(x, []int{0, 1}, 2, Config{Dim: dim, MaxFreq: 1, Augmenter: Conv, Height: h, Width: w, Channels: ch})
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Params().Values() {
		m.Params().Values()[i] = rnd.NormFloat64()
	}
	kw, kb := cl.Params.Value("conv.w").Data, cl.Params.Value("conv.b").Data
	a, b := cl.Params.Value("input.a").Data, cl.Params.Value("input.b").Data
	ho, wo := (h+1)/2, (w+1)/2
	got := cl.psi(ad.FromMatrix(x))
	for n := range rows {
		var feat []float64
		for c := range ch {
			for i := range ho {
				for j := range wo {
					v := kb[c]
					for dy := range 3 {
						for dx := range 3 {
							y, z := 2*i+dy-1, 2*j+dx-1
							if y >= 0 && y < h && z >= 0 && z < w {
								v += kw[c*9+dy*3+dx] * x.At(n, y*w+z)
							}
						}
					}
					feat = append(feat, max(v, 0))
				}
			}
		}
		for r := range dim {
			want := b[r]
			for f, v := range feat {
				want += a[r*len(feat)+f] * v
			}
			if g := got[n*dim+r]; math.Abs(g-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("psi[%d][%d] = %v, want %v", n, r, g, want)
			}
		}
	}
}
