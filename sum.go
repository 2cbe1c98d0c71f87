package machines

import (
	"fmt"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/mat"
)

// Sum is the machine f = Σ_v Terms[v]. When its dependency graph is
// acyclic, its stable state is computed by Corollary 1: with the layering
// V_1, …, V_k of the graph,
//
//	S_f = (id + Σ_{v∈V_k} (S_{f_v} - id)) ∘ … ∘ (id + Σ_{v∈V_1} (S_{f_v} - id)),
//
// each S_{f_v} by StableState, so that square-zero terms take one step and
// only terms that depend on themselves are iterated.
//
// Sum keeps scratch memory between calls, so a Sum must not be used
// concurrently.
type Sum struct {
	Terms []Machine
	// Deps, if not nil, declares the dependency graph: an edge i -> j
	// states that Terms[j] depends on Terms[i]. It has one vertex per term
	// and, as in the paper, no self-loops; whether a term depends on itself
	// is for the term to handle (see SquareZero and Block). A nil Deps means
	// the graph given by Dependencies.
	Deps *Graph

	tmp, acc mat.Dense
}

// Apply sets dst = Σ_v Terms[v](h). If dst is empty it is resized to the
// shape of h.
func (s *Sum) Apply(dst, h *mat.Dense) {
	r, c := shape(dst, h)
	dst.Zero()
	if len(s.Terms) == 0 {
		return
	}
	resize(&s.tmp, r, c)
	for _, f := range s.Terms {
		f.Apply(&s.tmp, h)
		dst.Add(dst, &s.tmp)
	}
}

// StableState sets dst to the stable state of the sum with initial
// condition g, layer by layer. A cyclic dependency graph gives a
// *CycleError naming the terms on a cycle; a term whose own stable state
// fails gives its error wrapped with the term's index. The conventions for
// dst and g are those of the package-level StableState.
func (s *Sum) StableState(dst, g *mat.Dense, set Settings) (Result, error) {
	r, c := shape(dst, g)
	set.Bounds() // Reject bad settings even when no term iterates.
	deps := s.Deps
	if deps == nil {
		deps = Dependencies(s.Terms, c)
	}
	if deps.Len() != len(s.Terms) {
		panic(fmt.Errorf("%w: machines: dependency graph has %d vertices for %d terms", ad.ErrShape, deps.Len(), len(s.Terms)))
	}
	layers, err := deps.Layers()
	if err != nil {
		return Result{}, err
	}

	resize(&s.tmp, r, c)
	resize(&s.acc, r, c)
	dst.Copy(g)
	var res Result
	for _, layer := range layers {
		// Within a layer the terms are mutually independent, so each sees
		// the state left by the previous layers and their increments add.
		s.acc.Zero()
		depth := 0
		for _, v := range layer {
			rv, err := StableState(&s.tmp, s.Terms[v], dst, set)
			res.Iterations += rv.Iterations
			res.Residual = max(res.Residual, rv.Residual)
			if err != nil {
				return res, fmt.Errorf("term %d: %w", v, err)
			}
			depth = max(depth, rv.Depth)
			s.acc.Add(&s.acc, &s.tmp)
			s.acc.Sub(&s.acc, dst)
		}
		dst.Add(dst, &s.acc)
		res.Depth += depth
	}
	return res, nil
}

// Dependencies returns the dependency graph of terms acting on a space of
// dim coordinates: an edge i -> j, for i ≠ j, when terms[i] writes a
// coordinate that terms[j] reads. Footprints come from the Spanner
// interface; a term that does not implement it is taken to read and write
// every coordinate, the only safe assumption.
func Dependencies(terms []Machine, dim int) *Graph {
	all := []Span{{0, dim}}
	in := make([][]Span, len(terms))
	out := make([][]Span, len(terms))
	for i, f := range terms {
		if sp, ok := f.(Spanner); ok {
			in[i], out[i] = sp.Spans()
		} else {
			in[i], out[i] = all, all
		}
	}
	g := NewGraph(len(terms))
	for i := range terms {
		for j := range terms {
			if i != j && overlap(out[i], in[j]) {
				g.AddEdge(i, j)
			}
		}
	}
	return g
}
