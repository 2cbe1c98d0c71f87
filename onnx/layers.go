package onnx

import (
	"errors"
	"fmt"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/kernel/infinite"
	"github.com/parametric-machines/machines/ode"
	"github.com/parametric-machines/machines/onnx/onnxpb"
)

// kernelLayer adds the kernel.Layer l, whose parameters ps holds under
// scope, applied to the batch x[0]: its machine, anchored at its learned
// points, as Tabular adds a fitted one.
func kernelLayer[T ad.Float](b *builder, l kernel.Layer[T], ps *ad.Params[T], scope string, x []string) ([]string, error) {
	m, err := l.Machine(ps, scope)
	if err != nil {
		return nil, err
	}
	return []string{b.machine(elemType[T](), m, x[0])}, nil
}

// double is the element type of the solves of infinite-depth and ODE
// layers, which the library computes in float64 whatever the model's
// type.
const double = onnxpb.TensorProto_DOUBLE

// infiniteLayer adds the infinite.Layer l, whose parameters ps holds
// under scope, applied to the batch x[0], unrolled as the layer solves
// it: Steps RK4 steps of the separable form z' = Φ(t, u(t)), z(0) = 0,
// with u(t) = ψ + z(t) C(t), where Φⱼ is the Gaussian of u and the
// anchor xⱼ(t), and C(t) holds the coefficients cⱼ(t). The anchors'
// trajectory does not depend on the batch: it is solved here, and the
// states and coefficients that each stage reads are constants.
func infiniteLayer[T ad.Float](b *builder, l infinite.Layer[T], ps *ad.Params[T], scope string, x []string) ([]string, error) {
	if l.Tol > 0 {
		return nil, fmt.Errorf("an infinite-depth layer solved adaptively (Tol %g) is not exported: Dormand-Prince chooses its step sizes from the data, which a graph of fixed steps cannot do; Tol 0 solves by RK4 on a fixed grid, which is exported", l.Tol)
	}
	mc, psi, err := l.Machine(ps, scope)
	if err != nil {
		return nil, err
	}
	tr, err := mc.Forward(psi)
	if err != nil {
		return nil, fmt.Errorf("the anchors' trajectory: %w", err)
	}
	s := mc.Architecture.WithDefaults()
	elem := elemType[T]()
	in := b.cast(x[0], elem, double)
	u := func(t float64, z string) string {
		return b.op("Add", []string{in, b.op("MatMul", []string{z, b.reals(double, []int64{int64(s.Anchors), int64(s.Dim)}, tr.CoefAt(nil, t))})})
	}
	// The grid of volterra.SolveSeparable on [0, 1].
	ts := make([]float64, s.Steps+1)
	h := 1 / float64(s.Steps)
	for i := range ts {
		ts[i] = float64(i) * h
	}
	ts[s.Steps] = 1
	z := b.rk4(b.zeros(double, in, []int{s.Anchors}), ts, func(t float64, z string) string {
		return b.kernelValues(double, u(t, z), tr.At(nil, t), s.Anchors, s.Dim, s.Gamma, false)
	})
	return []string{b.cast(u(1, z), double, elem)}, nil
}

// odeLayer adds the ode.Layer l, whose parameters ps holds under scope,
// applied to the batch x[0] of vectors of n values, unrolled as the
// layer solves it: RK4 on its grid, the field an ode.MLP.
func odeLayer[T ad.Float](b *builder, l ode.Layer[T], ps *ad.Params[T], scope string, x []string, n int) ([]string, error) {
	if l.Steps == 0 {
		return nil, errors.New("a neural ODE solved adaptively (Steps 0: Dormand-Prince) is not exported: its step sizes depend on the data, which a graph of fixed steps cannot follow; Steps above 0 solves by RK4 on a fixed grid, which is exported")
	}
	l = l.WithDefaults()
	f, ok := l.Field.(ode.MLP)
	if !ok {
		return nil, fmt.Errorf("a neural ODE whose field is a %T is not exported: only ode.MLP is, whose equations this package knows", l.Field)
	}
	theta := ps.Value(scope + ".theta")
	if theta == nil || theta.Len() != f.NumParams(n) {
		return nil, fmt.Errorf("no theta of %d values, an MLP's of %d hidden units on vectors of %d, in the parameters", f.NumParams(n), f.Hidden, n)
	}
	// θ is W₁ (Hidden×n), b₁, c (Hidden each), W₂ (n×Hidden) and b₂ (n).
	th, hid := float64s(theta.Data), f.Hidden
	w1, b1, c := th[:hid*n], th[hid*n:hid*n+hid], th[hid*n+hid:hid*n+2*hid]
	w2, b2 := th[hid*n+2*hid:2*hid*n+2*hid], th[2*hid*n+2*hid:]
	elem := elemType[T]()
	y := b.rk4(b.cast(x[0], elem, double), l.Times(), func(t float64, y string) string {
		ct := make([]float64, hid)
		for i, v := range c {
			ct[i] = v * t
		}
		z := b.op("Add", []string{b.op("Add", []string{b.matMulT(double, y, w1, hid, n), b.reals(double, []int64{int64(hid)}, b1)}),
			b.reals(double, []int64{int64(hid)}, ct)})
		return b.op("Add", []string{b.matMulT(double, b.activation(double, f.Activation, z), w2, n, hid), b.reals(double, []int64{int64(n)}, b2)})
	})
	return []string{b.cast(y, double, elem)}, nil
}

// cast returns x, of element type from, in element type to.
func (b *builder) cast(x string, from, to onnxpb.TensorProto_DataType) string {
	if from == to {
		return x
	}
	return b.op("Cast", []string{x}, intAttr("to", int64(to)))
}

// rk4 adds the solve of y' = f(t, y), y(ts[0]) = y0, by the classical
// Runge-Kutta method with one step per interval of the grid ts, as
// package ode's RK4 computes it, and returns y at the grid's end; f adds
// the derivative at t of a state. Everything is in float64.
func (b *builder) rk4(y0 string, ts []float64, f func(t float64, y string) string) string {
	// y + h Σ a_j k_j, summed as ode's combine does.
	combine := func(y string, h float64, a []float64, k []string) string {
		var acc string
		for j, kj := range k {
			term := b.op("Mul", []string{kj, b.reals(double, []int64{1}, []float64{a[j]})})
			if acc == "" {
				acc = term
			} else {
				acc = b.op("Add", []string{acc, term})
			}
		}
		return b.op("Add", []string{y, b.op("Mul", []string{acc, b.reals(double, []int64{1}, []float64{h})})})
	}
	y := y0
	for i := range len(ts) - 1 {
		t, h := ts[i], ts[i+1]-ts[i]
		k1 := f(t, y)
		k2 := f(t+0.5*h, combine(y, h, []float64{0.5}, []string{k1}))
		k3 := f(t+0.5*h, combine(y, h, []float64{0.5}, []string{k2}))
		k4 := f(t+h, combine(y, h, []float64{1}, []string{k3}))
		y = combine(y, h, []float64{1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6}, []string{k1, k2, k3, k4})
	}
	return y
}
