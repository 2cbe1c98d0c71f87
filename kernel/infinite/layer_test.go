package infinite

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/train"
	"github.com/parametric-machines/machines/volterra"
	"gonum.org/v1/gonum/floats/scalar"
)

// testLayer is a layer under the name "inf" with its parameters.
type testLayer struct {
	Layer[float64]
	ps ad.Params[float64]
}

// randomLayer returns a layer of cost 1 (so that its penalty is its
// norm) with normal anchors and coefficients of the given scale, and a
// batch of b normal initial conditions.
func randomLayer(t testing.TB, s Architecture, b int, scale float64, rnd *rand.Rand) (*testLayer, *ad.Tensor[float64]) {
	t.Helper()
	l := &testLayer{Layer: Layer[float64]{Architecture: s, Cost: 1}}
	if _, err := l.Init(ad.NewScope(nil, &l.ps, "inf", rnd), [][]int{{s.Dim}}); err != nil {
		t.Fatal(err)
	}
	for i := range l.coef() {
		l.coef()[i] = scale * rnd.NormFloat64()
	}
	psi := ad.NewTensor[float64](b, s.Dim)
	for i := range psi.Data {
		psi.Data[i] = rnd.NormFloat64()
	}
	return l, psi
}

func (l *testLayer) anchors() []float64 { return l.ps.Value("inf.anchors").Data }
func (l *testLayer) coef() []float64    { return l.ps.Value("inf.coef").Data }

// apply adds the layer to g for the batch psi and returns its final
// states and its norm.
func (l *testLayer) apply(t testing.TB, g *ad.Graph[float64], psi *ad.Node[float64]) (out, norm *ad.Node[float64]) {
	t.Helper()
	s := ad.NewScope(g, &l.ps, "inf", nil)
	y, err := l.Apply(s, []*ad.Node[float64]{psi})
	if err != nil {
		t.Fatal(err)
	}
	return y[0], s.Penalties()[0]
}

// machine returns the layer's machine, outside a graph, and its anchors.
func (l *testLayer) machine(t testing.TB) (*Machine, []float64) {
	t.Helper()
	m, anchors, err := l.Machine(&l.ps, "inf")
	if err != nil {
		t.Fatal(err)
	}
	return m, anchors
}

// jointKernel is eq. 10 for the anchors followed by the batch, written
// directly on the joint state: every point p follows
// Σⱼ k(u_p, xⱼ)·cⱼ(t), the xⱼ being the first m points.
func jointKernel(l *testLayer, points int) volterra.KernelFunc {
	m, n, f := l.Architecture.Anchors, l.Dim, l.MaxFreq
	coef := l.coef()
	return volterra.KernelFunc{N: points * n, F: func(dst []float64, t, _ float64, u []float64) {
		clear(dst)
		for p := range points {
			for j := range m {
				kpj := gaussian(l.gamma(), u[p*n:(p+1)*n], u[j*n:(j+1)*n])
				for k := range f {
					ck := math.Cos(2 * math.Pi * float64(k) * t)
					for r := range n {
						dst[p*n+r] += kpj * ck * coef[(j*f+k)*n+r]
					}
				}
			}
		}
	}}
}

// TestLayerMatchesMachine checks the layer against the machine it
// stands for: its batch's final states are those of Trajectory.Query
// against Machine.Forward's anchors, and its norm Trajectory.Norm, which
// reads the anchors' whole trajectory; a wrong layout of the batch, the
// coefficients or the anchors' grid shows up here. Against the general
// trapezoidal solver of the joint equation of anchors and batch, written
// out independently, it catches what the layer and Query might share.
func TestLayerMatchesMachine(t *testing.T) {
	for _, tc := range []struct {
		s    Architecture
		b    int
		seed uint64
	}{
		{Architecture{Dim: 3, Anchors: 4, MaxFreq: 3, Steps: 10}, 5, 1},
		{Architecture{Dim: 2, Anchors: 1, MaxFreq: 1}, 1, 2},
		{Architecture{Dim: 4, Anchors: 3, MaxFreq: 2, Gamma: 0.2, Steps: 7}, 3, 3},
	} {
		t.Run("m="+strconv.Itoa(tc.s.Anchors)+",B="+strconv.Itoa(tc.b), func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(tc.seed, 10))
			l, psi := randomLayer(t, tc.s, tc.b, 0.7, rnd)
			var g ad.Graph[float64]
			out, norm := l.apply(t, &g, g.Input(psi))
			if err := g.Err(); err != nil {
				t.Fatal(err)
			}

			m, anchors := l.machine(t)
			tr, err := m.Forward(anchors)
			if err != nil {
				t.Fatal(err)
			}
			want, err := tr.Query(nil, psi.Data)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range out.Value.Data {
				if !scalar.EqualWithinAbsOrRel(v, want[i], 1e-12, 1e-12) {
					t.Errorf("u(1)[%d] = %v, Query %v", i, v, want[i])
				}
			}
			if got, want := norm.Scalar(), tr.Norm(); !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
				t.Errorf("norm %v, Trajectory.Norm %v", got, want)
			}

			// The RK4 error of the coarser cases is up to 2e-2 here, so the
			// layer is compared on a finer grid.
			fine := &testLayer{Layer: l.Layer, ps: l.ps}
			fine.Steps = 40
			var gf ad.Graph[float64]
			out, _ = fine.apply(t, &gf, gf.Input(psi))
			k, n := tc.s.Anchors, tc.s.Dim
			joint := append(append([]float64(nil), l.anchors()...), psi.Data...)
			sol, err := volterra.Solve(&volterra.Equation{T0: 0, T: 1, Psi: volterra.Const(joint), Kernel: jointKernel(l, k+tc.b)}, 400, volterra.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			fin := sol.U[len(sol.U)-len(joint):]
			var change float64
			for i, v := range out.Value.Data {
				change = max(change, math.Abs(v-psi.Data[i]))
				if !scalar.EqualWithinAbsOrRel(v, fin[k*n+i], 1e-4, 1e-4) {
					t.Errorf("u(1)[%d] = %v, general solver of the joint equation %v", i, v, fin[k*n+i])
				}
			}
			if change < 0.1 {
				t.Errorf("the batch moved by at most %g: too little to test anything", change)
			}
		})
	}
}

// TestLayerGradient checks the gradients with respect to the batch, the
// anchors and the coefficients against central finite differences, for
// a loss of the final states with and without the norm. The anchors'
// gradient reaches them both through their own solve and through the
// batch's; forgetting the second, or the norm's, fails it.
func TestLayerGradient(t *testing.T) {
	for _, tc := range []struct {
		name   string
		s      Architecture
		b      int
		weight float64 // of the norm
	}{
		{"states", Architecture{Dim: 3, Anchors: 3, MaxFreq: 2, Steps: 6}, 4, 0},
		{"states+norm", Architecture{Dim: 3, Anchors: 3, MaxFreq: 2, Steps: 6}, 4, 0.3},
		{"one anchor", Architecture{Dim: 2, Anchors: 1, MaxFreq: 3, Gamma: 0.8, Steps: 5}, 2, 0.5},
		// Every RK4 stage of the batch falls on the anchors' grid, so
		// the gradient through an interpolated anchor state is not
		// reached here: TestBatchKernelVJP checks it.
	} {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(20, 1))
			l, psiT := randomLayer(t, tc.s, tc.b, 0.6, rnd)
			var g ad.Graph[float64]
			psi := g.Param(psiT, nil)
			out, norm := l.apply(t, &g, psi)
			w := ad.NewTensor[float64](out.Value.Shape...)
			for i := range w.Data {
				w.Data[i] = rnd.NormFloat64()
			}
			loss := g.Add(g.Sum(g.Mul(out, g.Input(w))), g.Scale(norm, tc.weight))
			nodes := []*ad.Node[float64]{psi, l.ps.Node(&g, "inf.anchors"), l.ps.Node(&g, "inf.coef")}
			e := ad.CheckGradient(&g, loss, nodes, 1e-6)
			if err := g.Err(); err != nil {
				t.Fatal(err)
			}
			if e.Rel > 1e-6 {
				t.Errorf("worst error in parameter %d element %d: gradient %v, finite difference %v (Rel %g)",
					e.Param, e.Index, e.Analytic, e.Numeric, e.Rel)
			}
		})
	}
}

// TestBatchKernelVJP checks PhiVJP and CoefVJP of the batch's kernel
// against finite differences of Phi and Coef, including at a time
// between two grid points of the anchors, where the gradient with
// respect to the anchors' states is split between both.
func TestBatchKernelVJP(t *testing.T) {
	rnd := rand.New(rand.NewPCG(21, 1))
	s := Architecture{Dim: 2, Anchors: 3, MaxFreq: 2, Steps: 4}
	l, psi := randomLayer(t, s, 1, 0.5, rnd)
	m, anchors := l.machine(t)
	tr, err := m.Forward(anchors)
	if err != nil {
		t.Fatal(err)
	}
	k := newBatchKernel(tr)
	params := append(append([]float64(nil), tr.coef...), tr.U...)
	// setParams writes params into the kernel's coefficients and grid;
	// checkGrad restores params, not the kernel.
	setParams := func() {
		copy(tr.coef, params[:len(tr.coef)])
		copy(tr.U, params[len(tr.coef):])
	}
	v := psi.Data
	for _, s := range []float64{0, 0.25, 0.3, 1} {
		phiW := make([]float64, k.Terms()*k.TermDim())
		for i := range phiW {
			phiW[i] = rnd.NormFloat64()
		}
		phi := make([]float64, len(phiW))
		lossPhi := func() float64 {
			setParams()
			k.Phi(phi, s, v)
			var sum float64
			for i, y := range phi {
				sum += phiW[i] * y
			}
			return sum
		}
		dv, dp := make([]float64, len(v)), make([]float64, k.NumParams())
		setParams()
		k.PhiVJP(dv, dp, s, v, phiW)
		checkGrad(t, "PhiVJP v at s="+strconv.FormatFloat(s, 'g', -1, 64), dv, lossPhi, v)
		checkGrad(t, "PhiVJP p at s="+strconv.FormatFloat(s, 'g', -1, 64), dp, lossPhi, params)

		coefW := make([]float64, k.Dim()*k.Terms())
		for i := range coefW {
			coefW[i] = rnd.NormFloat64()
		}
		c := make([]float64, len(coefW))
		lossCoef := func() float64 {
			setParams()
			// A fresh kernel: a kernel keeps C(t), its trajectory's
			// coefficients being fixed.
			newBatchKernel(tr).Coef(c, s)
			var sum float64
			for i, y := range c {
				sum += coefW[i] * y
			}
			return sum
		}
		setParams()
		k.CoefVJP(dp, s, coefW)
		checkGrad(t, "CoefVJP at s="+strconv.FormatFloat(s, 'g', -1, 64), dp, lossCoef, params)
	}
}

// layerModel is the classifier of the paper's set-up on minibatches: a
// linear input map ψ = x·Aᵀ + b, the layer, and the last classes
// coordinates of u(1) as logits; the layer's penalty is cost times its
// norm.
type layerModel struct {
	params  ad.Params[float64]
	a, bias *ad.Tensor[float64]
	layer   Layer[float64]
	x       [][]float64
	labels  []int
	classes int
}

func (md *layerModel) Params() *ad.Params[float64] { return &md.params }

func (md *layerModel) Loss(batch []int, backward bool) (float64, error) {
	var g ad.Graph[float64]
	n, d := md.layer.Dim, len(md.x[0])
	x := ad.NewTensor[float64](len(batch), d)
	labels := make([]int, len(batch))
	for i, e := range batch {
		copy(x.Data[i*d:(i+1)*d], md.x[e])
		labels[i] = md.labels[e]
	}
	a := md.params.Use(&g, "in.a", md.a)
	b := md.params.Use(&g, "in.b", md.bias)
	psi := g.AddRow(g.MatMul(g.Input(x), a, false, true), b)
	s := ad.NewScope(&g, &md.params, "inf", nil)
	out, err := md.layer.Apply(s, []*ad.Node[float64]{psi})
	if err != nil {
		return 0, err
	}
	cols := make([]int, md.classes)
	for i := range cols {
		cols[i] = n - md.classes + i
	}
	loss := g.Add(g.SoftmaxCrossEntropy(g.SelectCols(out[0], cols), labels), s.Penalties()[0])
	if backward {
		g.Backward(loss)
	}
	return loss.Scalar(), g.Err()
}

// TestLayerTrains trains the input map, the anchors and the coefficients
// by minibatches on three blobs in the plane: the loss, which starts at
// about log 3, must fall well below it and the points be classified.
func TestLayerTrains(t *testing.T) {
	rnd := rand.New(rand.NewPCG(22, 1))
	const classes, per = 3, 20
	centres := [][]float64{{0, 2}, {-2, -1}, {2, -1}}
	md := &layerModel{classes: classes}
	for c, ctr := range centres {
		for range per {
			md.x = append(md.x, []float64{ctr[0] + 0.5*rnd.NormFloat64(), ctr[1] + 0.5*rnd.NormFloat64()})
			md.labels = append(md.labels, c)
		}
	}
	s := Architecture{Dim: 4, Anchors: 6, MaxFreq: 2, Steps: 8}
	md.layer = Layer[float64]{Architecture: s, Cost: 1e-3}
	if _, err := md.layer.Init(ad.NewScope(nil, &md.params, "inf", rnd), [][]int{{s.Dim}}); err != nil {
		t.Fatal(err)
	}
	md.a, md.bias = ad.NewTensor[float64](s.Dim, 2), ad.NewTensor[float64](1, s.Dim)
	for i := range md.a.Data {
		md.a.Data[i] = 0.5 * rnd.NormFloat64()
	}
	all := make([]int, len(md.x))
	for i := range all {
		all[i] = i
	}
	before, err := md.Loss(all, false)
	if err != nil {
		t.Fatal(err)
	}
	anchors := append([]float64(nil), md.params.Value("inf.anchors").Data...)
	if _, err := train.Run[float64](md, len(md.x), train.Config{Epochs: 30, Batch: 10, Seed: 1, Optimizer: &optim.Adam{LR: 0.05}}); err != nil {
		t.Fatal(err)
	}
	after, err := md.Loss(all, false)
	if err != nil {
		t.Fatal(err)
	}
	if after > 0.3*before {
		t.Errorf("loss %.3f before training, %.3f after: want a fall to under 30%%", before, after)
	}
	var moved float64
	for i, v := range md.params.Value("inf.anchors").Data {
		moved = max(moved, math.Abs(v-anchors[i]))
	}
	if moved < 0.01 {
		t.Errorf("the anchors moved by at most %g in training: no gradient reaches them", moved)
	}
	t.Logf("loss %.4f -> %.4f", before, after)
}

// BenchmarkLayer times one forward and backward pass of the layer and a
// loss of its final states.
func BenchmarkLayer(b *testing.B) {
	for _, bc := range []struct{ m, batch, n, freqs int }{
		{10, 32, 16, 3},
	} {
		b.Run("m="+strconv.Itoa(bc.m)+",B="+strconv.Itoa(bc.batch)+",n="+strconv.Itoa(bc.n), func(b *testing.B) {
			rnd := rand.New(rand.NewPCG(1, 1))
			l, psiT := randomLayer(b, Architecture{Dim: bc.n, Anchors: bc.m, MaxFreq: bc.freqs}, bc.batch, 0.3, rnd)
			var g ad.Graph[float64]
			psi := g.Param(psiT, nil)
			out, norm := l.apply(b, &g, psi)
			loss := g.Add(g.Sum(out), g.Scale(norm, 0.01))
			for b.Loop() {
				g.Forward()
				g.Backward(loss)
			}
			if err := g.Err(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
