package machines

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/ad"
)

// Graph is a directed graph on the vertices 0, …, n-1. As a dependency
// graph, an edge i -> j means that j depends on i, so i must be computed
// first. The zero value is the graph with no vertices.
type Graph struct {
	succ [][]int
}

// NewGraph returns a graph with n vertices and no edges.
func NewGraph(n int) *Graph {
	if n < 0 {
		panic(fmt.Errorf("%w: machines: negative vertex count %d", ad.ErrValue, n))
	}
	return &Graph{succ: make([][]int, n)}
}

// Len returns the number of vertices.
func (g *Graph) Len() int { return len(g.succ) }

// AddEdge adds the edge from -> to; adding an existing edge has no effect.
// A self-loop is allowed and is a cycle.
func (g *Graph) AddEdge(from, to int) {
	g.check(from)
	g.check(to)
	if !slices.Contains(g.succ[from], to) {
		g.succ[from] = append(g.succ[from], to)
	}
}

// HasEdge reports whether the edge from -> to is in the graph.
func (g *Graph) HasEdge(from, to int) bool {
	g.check(from)
	g.check(to)
	return slices.Contains(g.succ[from], to)
}

func (g *Graph) check(v int) {
	if v < 0 || v >= len(g.succ) {
		panic(fmt.Errorf("%w: machines: vertex %d out of range [0, %d)", ad.ErrShape, v, len(g.succ)))
	}
}

// Cycle returns the vertices of a directed cycle, v_0, v_1, …, v_k, with
// edges v_0 -> v_1 -> … -> v_k -> v_0, or nil if the graph is acyclic.
// The search is deterministic: vertices and edges are explored in order.
func (g *Graph) Cycle() []int {
	const (
		unseen = iota
		onPath // on the current depth-first path
		done   // fully explored, no cycle through it
	)
	state := make([]int8, len(g.succ))
	var path []int
	var visit func(v int) []int
	visit = func(v int) []int {
		state[v] = onPath
		path = append(path, v)
		for _, w := range g.succ[v] {
			switch state[w] {
			case onPath:
				// The path from w to v closed by the edge v -> w.
				return slices.Clone(path[slices.Index(path, w):])
			case unseen:
				if c := visit(w); c != nil {
					return c
				}
			}
		}
		state[v] = done
		path = path[:len(path)-1]
		return nil
	}
	for v := range g.succ {
		if state[v] == unseen {
			if c := visit(v); c != nil {
				return c
			}
		}
	}
	return nil
}

// Layers returns the layering of minimal height: vertex v goes to layer
// d(v), the length of the longest path ending at v. Every edge then goes
// from a lower to a higher layer, and the number of layers is the length of
// the longest path plus one, the least possible. Vertices within a layer are
// in increasing order. A cyclic graph has no layering; the error is then a
// *CycleError naming a cycle.
func (g *Graph) Layers() ([][]int, error) {
	n := len(g.succ)
	indeg := make([]int, n)
	for _, ws := range g.succ {
		for _, w := range ws {
			indeg[w]++
		}
	}
	// Kahn's order: a vertex is taken once all its predecessors are, so
	// its depth is final when it is taken.
	queue := make([]int, 0, n)
	for v, d := range indeg {
		if d == 0 {
			queue = append(queue, v)
		}
	}
	depth := make([]int, n)
	height := 0
	for k := 0; k < len(queue); k++ {
		v := queue[k]
		height = max(height, depth[v]+1)
		for _, w := range g.succ[v] {
			depth[w] = max(depth[w], depth[v]+1)
			indeg[w]--
			if indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	if len(queue) < n {
		return nil, &CycleError{Cycle: g.Cycle()}
	}
	layers := make([][]int, height)
	for v, d := range depth {
		layers[d] = append(layers[d], v)
	}
	return layers, nil
}

// CycleError reports a dependency graph that has a cycle, so that no
// layering, and no layered stable state, exists.
type CycleError struct {
	// Cycle lists the vertices of the cycle in edge order; the last
	// vertex has an edge back to the first.
	Cycle []int
}

func (e *CycleError) Error() string {
	var b strings.Builder
	b.WriteString("machines: dependency cycle ")
	for _, v := range e.Cycle {
		b.WriteString(strconv.Itoa(v))
		b.WriteString(" -> ")
	}
	if len(e.Cycle) > 0 {
		b.WriteString(strconv.Itoa(e.Cycle[0]))
	}
	return b.String()
}
