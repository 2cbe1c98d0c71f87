package ode

import (
	"fmt"
	"math"

	"github.com/parametric-machines/machines/ad"
)

// Layer is a neural ODE as a layer of the engine: it maps the state of
// every sample, a row of its input, to y(T), the solution at time T of
// y' = f(t, y; θ), y(0) = the row, with f a GraphSystem; the gradients
// with respect to the inputs and θ come from Solution.Gradient. The
// samples of a batch are solved together as a Batch, so with
// Dormand–Prince they share the step sizes.
type Layer struct {
	// F is the right-hand side for one sample.
	F *GraphSystem
	// T is the end time, greater than 0.
	T float64
	// Steps is the number of RK4 steps; 0 selects adaptive
	// Dormand–Prince with Settings.
	Steps    int
	Settings *Settings
	// Grad is the gradient method: Backprop (the zero value) or Adjoint.
	Grad GradMethod

	err error
}

// Apply adds the layer to g for the batch y0 (N x Dim, a row per sample)
// and registers θ in ps as name+".theta", the tensor the right-hand side
// reads, which the set then owns. It returns the N x Dim states at T.
// A solve that fails (a step size that vanishes, a non-finite state)
// makes the output NaN, which a training loop reports as a non-finite
// loss, and Err tells why.
func (l *Layer) Apply(g *ad.Graph[float64], ps *ad.Params[float64], name string, y0 *ad.Node[float64]) *ad.Node[float64] {
	n := l.F.Dim()
	if len(y0.Value.Shape) != 2 || y0.Value.Cols() != n {
		panic(fmt.Sprintf("ode: a layer of dimension %d given a batch of shape %v, want [samples, %d]", n, y0.Value.Shape, n))
	}
	if !(l.T > 0) || l.Steps < 0 {
		panic(fmt.Sprintf("ode: layer with end time %v and %d steps, want T > 0 and steps >= 0", l.T, l.Steps))
	}
	theta := ps.Use(g, name+".theta", l.F.theta.Value)
	op := &layerOp{l: l, batch: &Batch{System: l.F, N: y0.Value.Rows()}}
	return g.Apply(op, y0.Value.Shape, y0, theta)
}

// Err returns the error of the last solve of any graph the layer was
// applied to that failed, and forgets it.
func (l *Layer) Err() error {
	err := l.err
	l.err = nil
	return err
}

type layerOp struct {
	l     *Layer
	batch *Batch
	sol   *Solution
}

func (o *layerOp) Forward(out *ad.Node[float64]) {
	l, y0 := o.l, out.Inputs()[0].Value.Data
	ts := []float64{0, l.T}
	var err error
	if l.Steps > 0 {
		ts = make([]float64, l.Steps+1)
		for i := range ts {
			ts[i] = l.T * float64(i) / float64(l.Steps)
		}
		o.sol, err = RK4(o.batch, y0, ts, nil)
	} else {
		o.sol, err = DormandPrince(o.batch, y0, ts, l.Settings)
	}
	if err != nil {
		l.err, o.sol = err, nil
		for i := range out.Value.Data {
			out.Value.Data[i] = math.NaN()
		}
		return
	}
	copy(out.Value.Data, o.sol.Y[len(o.sol.Y)-len(y0):])
}

func (o *layerOp) Backward(out *ad.Node[float64]) {
	if o.sol == nil {
		return // the forward solve failed; Err says why
	}
	in := out.Inputs()
	y0, theta := in[0], in[1]
	dY := make([]float64, len(o.sol.Y))
	copy(dY[len(dY)-len(out.Grad.Data):], out.Grad.Data)
	dy0 := make([]float64, len(y0.Value.Data))
	dp := make([]float64, theta.Value.Len())
	if err := o.sol.Gradient(dy0, dp, dY, o.l.Grad); err != nil {
		o.l.err = err
		return
	}
	if y0.Grad != nil {
		for i, v := range dy0 {
			y0.Grad.Data[i] += v
		}
	}
	if theta.Grad != nil {
		for i, v := range dp {
			theta.Grad.Data[i] += v
		}
	}
}
