package tabular

import (
	"math/rand/v2"

	"github.com/parametric-machines/machines/internal/numeric"
	"github.com/parametric-machines/machines/internal/parallel"
	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/mat"
)

// objective is the loss that a final fit minimises: one kernel.Objective, or a
// splitObjective over parts of the rows.
type objective interface {
	Init(dst []float64, rnd *rand.Rand) []float64
	Func(params, grad []float64) float64
	Loss(params []float64) (loss, data float64)
	Machine(params []float64, anchors *mat.Dense) *kernel.Machine
}

// The final fit of a set of at least splitRows rows evaluates its loss in
// splitParts parts of the rows at once, one per core. The number of parts
// does not depend on the cores, so that neither does the result.
const (
	splitRows  = 1000
	splitParts = 2
)

// splitObjective is the loss of a problem whose rows are split into
// parts evaluated in parallel: each part holds all the anchors as anchor
// points, and the loss is the sum of the parts' data losses weighted by
// their shares of the rows, plus the regulariser, which the first part
// carries.
type splitObjective struct {
	parts   []*kernel.Objective
	weights []float64
	grads   [][]float64
}

// newObjective returns the loss of p: split into splitParts parts when p
// has at least splitRows rows and its anchors are a subset of them,
// otherwise one kernel.Objective.
func newObjective(arch kernel.Architecture, p kernel.Problem) (objective, error) {
	n, _ := p.X.Dims()
	if n < splitRows || p.Anchors == nil {
		return kernel.NewObjective(arch, p)
	}
	anchors := pickRows(p.X, p.Anchors)
	s := &splitObjective{}
	for k := range splitParts {
		rows := numeric.Indices(n)[k*n/splitParts : (k+1)*n/splitParts]
		part := kernel.Problem{X: pickRows(p.X, rows), Labels: pick(p.Labels, rows), AnchorPoints: anchors}
		if p.Y != nil {
			part.Y = pickRows(p.Y, rows)
		}
		share := float64(len(rows)) / float64(n)
		if k == 0 {
			// Weighted by its share, the first part's loss carries the
			// whole regulariser.
			part.Cost = p.Cost / share
		}
		o, err := kernel.NewObjective(arch, part)
		if err != nil {
			return nil, err
		}
		s.parts = append(s.parts, o)
		s.weights = append(s.weights, share)
		s.grads = append(s.grads, make([]float64, o.Len()))
	}
	return s, nil
}

func (s *splitObjective) Init(dst []float64, rnd *rand.Rand) []float64 {
	return s.parts[0].Init(dst, rnd)
}

func (s *splitObjective) Machine(params []float64, anchors *mat.Dense) *kernel.Machine {
	return s.parts[0].Machine(params, anchors)
}

// Func evaluates the parts in parallel and returns the weighted sum of
// their losses, writing that of their gradients to grad.
func (s *splitObjective) Func(params, grad []float64) float64 {
	losses := make([]float64, len(s.parts))
	parallel.Run(len(s.parts), len(s.parts), func(k int) error {
		losses[k] = s.parts[k].Func(params, s.grads[k])
		return nil
	})
	var loss float64
	for i := range grad {
		grad[i] = 0
	}
	for k, w := range s.weights {
		loss += w * losses[k]
		for i, g := range s.grads[k] {
			grad[i] += w * g
		}
	}
	return loss
}

// Loss returns the loss at params and its data term alone.
func (s *splitObjective) Loss(params []float64) (loss, data float64) {
	for k, o := range s.parts {
		l, d := o.Loss(params)
		loss += s.weights[k] * l
		data += s.weights[k] * d
	}
	return loss, data
}
