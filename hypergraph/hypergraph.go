package hypergraph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parametric-machines/machines"
	"github.com/parametric-machines/machines/ad"
)

// Hypergraph is a directed hypergraph (Definition 4): named vertices and
// hyperedges, each hyperedge with a set of source vertices and a set of
// target vertices. Either set may be empty, and unlike in Gallo et al. the
// two may overlap; such a hyperedge is a cycle of length 1.
//
// Vertices and edges are referred to by their index; the names serve in
// messages and in spec files. The methods panic if an edge refers to a
// vertex out of range.
type Hypergraph struct {
	Vertices []string
	Edges    []Edge
}

// Edge is a hyperedge E: it reads the vertices s(E) = Sources and writes
// the vertices t(E) = Targets, both given as indices into the Vertices of
// its hypergraph. The order of the lists is the order in which a map p_E
// receives and returns its values; a vertex must not be listed twice in
// the same list.
type Edge struct {
	Name             string
	Sources, Targets []int
}

// Vertex returns the index of the vertex with the given name, or -1.
func (h *Hypergraph) Vertex(name string) int { return slices.Index(h.Vertices, name) }

// Path is a path of Definition 5, v_1, E_1, v_2, …, E_q, v_{q+1}: a
// vertex v_1 in s(E_1), then for each j a vertex v_{j+1} in t(E_j) that is
// also in s(E_{j+1}) when j < q. Vertices has q+1 entries and Edges q; a
// path of length 0 is a single vertex.
type Path struct {
	Vertices []int
	Edges    []int
}

// IsPath reports whether p is a path of h.
func (h *Hypergraph) IsPath(p Path) bool {
	if len(p.Vertices) != len(p.Edges)+1 {
		return false
	}
	for _, v := range p.Vertices {
		if v < 0 || v >= len(h.Vertices) {
			return false
		}
	}
	for j, e := range p.Edges {
		if e < 0 || e >= len(h.Edges) {
			return false
		}
		E := h.Edges[e]
		if !slices.Contains(E.Sources, p.Vertices[j]) || !slices.Contains(E.Targets, p.Vertices[j+1]) {
			return false
		}
	}
	return true
}

// IsCycle reports whether p is a cycle of h: a path of positive length
// whose last vertex is a source of its first hyperedge.
func (h *Hypergraph) IsCycle(p Path) bool {
	return len(p.Edges) > 0 && h.IsPath(p) &&
		slices.Contains(h.Edges[p.Edges[0]].Sources, p.Vertices[len(p.Vertices)-1])
}

// Cycle returns a cycle of h, or false if h is acyclic. The cycle returned
// ends at the vertex it starts from. The search is deterministic.
func (h *Hypergraph) Cycle() (Path, bool) {
	edges := h.LineGraph().Cycle()
	if edges == nil {
		return Path{}, false
	}
	// Consecutive hyperedges of a cycle of the line graph share a vertex,
	// t(E_j) ∩ s(E_{j+1}), and so does the last with the first; picking
	// one from each junction gives the vertices of the path.
	q := len(edges)
	p := Path{Vertices: make([]int, q+1), Edges: edges}
	for j := range q {
		p.Vertices[j] = h.junction(edges[(j+q-1)%q], edges[j])
	}
	p.Vertices[q] = p.Vertices[0]
	return p, true
}

// junction returns the smallest vertex in t(from) ∩ s(to), or -1.
func (h *Hypergraph) junction(from, to int) int {
	best := -1
	for _, v := range h.Edges[from].Targets {
		if slices.Contains(h.Edges[to].Sources, v) && (best < 0 || v < best) {
			best = v
		}
	}
	return best
}

// LineGraph returns the line graph of h (Definition 6): one vertex per
// hyperedge, and an edge E -> E' when t(E) ∩ s(E') is not empty, a
// self-loop included. For a hypergraph representation it contains the
// dependency graph of the maps p_E, so it orders their evaluation.
func (h *Hypergraph) LineGraph() *machines.Graph {
	h.check()
	g := machines.NewGraph(len(h.Edges))
	// writers[v] lists the hyperedges that target v.
	writers := make([][]int, len(h.Vertices))
	for e, E := range h.Edges {
		for _, v := range E.Targets {
			writers[v] = append(writers[v], e)
		}
	}
	for e, E := range h.Edges {
		for _, v := range E.Sources {
			for _, w := range writers[v] {
				g.AddEdge(w, e)
			}
		}
	}
	return g
}

// Layers returns the layering of minimal height of the line graph: the
// hyperedges grouped so that every hyperedge comes after all those that
// write one of its sources (Corollary 1). Hyperedges within a layer are in
// increasing order. A cyclic hypergraph gives a *CycleError.
func (h *Hypergraph) Layers() ([][]int, error) {
	layers, err := h.LineGraph().Layers()
	if err != nil {
		return nil, h.cycleError()
	}
	return layers, nil
}

// Acyclic returns nil if h has no cycle, and otherwise a *CycleError
// naming one.
func (h *Hypergraph) Acyclic() error {
	if h.LineGraph().Cycle() == nil {
		return nil
	}
	return h.cycleError()
}

func (h *Hypergraph) cycleError() error {
	p, ok := h.Cycle()
	if !ok {
		panic(fmt.Errorf("%w: hypergraph: internal error: layering failed on an acyclic hypergraph", ad.ErrState))
	}
	e := &CycleError{Path: p, Text: h.Format(p)}
	return e
}

// Format writes a path with the names of its vertices and hyperedges, as
// in "v1 -E2-> v3 -E4-> v1".
func (h *Hypergraph) Format(p Path) string {
	var b strings.Builder
	for j, v := range p.Vertices {
		if j > 0 {
			fmt.Fprintf(&b, " -%s-> ", h.Edges[p.Edges[j-1]].Name)
		}
		b.WriteString(h.Vertices[v])
	}
	return b.String()
}

// CycleError reports a hypergraph with a cycle, which has no layering and
// whose maps need not sum to a machine.
type CycleError struct {
	// Path is the cycle; it ends at the vertex it starts from.
	Path Path
	// Text is the cycle with names, as written by Hypergraph.Format.
	Text string
}

func (e *CycleError) Error() string { return "hypergraph: cycle " + e.Text }

// check panics if an edge refers to a vertex that does not exist or lists
// a vertex twice.
func (h *Hypergraph) check() {
	for _, E := range h.Edges {
		for _, list := range [][]int{E.Sources, E.Targets} {
			for i, v := range list {
				if v < 0 || v >= len(h.Vertices) {
					panic(fmt.Errorf("%w: hypergraph: edge %s: vertex %d out of range [0, %d)", ad.ErrShape, E.Name, v, len(h.Vertices)))
				}
				if slices.Contains(list[:i], v) {
					panic(fmt.Errorf("%w: hypergraph: edge %s: vertex %s listed twice", ad.ErrName, E.Name, h.Vertices[v]))
				}
			}
		}
	}
}
