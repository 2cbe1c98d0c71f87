package machines

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

type edge struct{ from, to int }

func graphOf(n int, edges []edge) *Graph {
	g := NewGraph(n)
	for _, e := range edges {
		g.AddEdge(e.from, e.to)
	}
	return g
}

// longestPath returns the number of edges of the longest path in an acyclic
// graph by brute force, independently of Layers.
func longestPath(n int, edges []edge) int {
	var from func(v int) int
	from = func(v int) int {
		best := 0
		for _, e := range edges {
			if e.from == v {
				best = max(best, 1+from(e.to))
			}
		}
		return best
	}
	best := 0
	for v := range n {
		best = max(best, from(v))
	}
	return best
}

func TestLayers(t *testing.T) {
	for _, test := range []struct {
		name  string
		n     int
		edges []edge
		want  [][]int
	}{
		{name: "empty", n: 0, want: [][]int{}},
		{name: "single vertex", n: 1, want: [][]int{{0}}},
		{name: "isolated vertices", n: 3, want: [][]int{{0, 1, 2}}},
		{name: "chain", n: 4, edges: []edge{{2, 3}, {0, 1}, {1, 2}}, want: [][]int{{0}, {1}, {2}, {3}}},
		{name: "reversed chain", n: 3, edges: []edge{{2, 1}, {1, 0}}, want: [][]int{{2}, {1}, {0}}},
		{name: "diamond", n: 4, edges: []edge{{0, 1}, {0, 2}, {1, 3}, {2, 3}}, want: [][]int{{0}, {1, 2}, {3}}},
		// The shortcut 0 -> 2 does not pull 2 down: depth is the longest path.
		{name: "shortcut", n: 3, edges: []edge{{0, 2}, {0, 1}, {1, 2}}, want: [][]int{{0}, {1}, {2}}},
		{name: "disconnected", n: 6, edges: []edge{{0, 1}, {3, 4}, {4, 5}, {0, 5}}, want: [][]int{{0, 2, 3}, {1, 4}, {5}}},
		{name: "duplicate edges", n: 2, edges: []edge{{0, 1}, {0, 1}}, want: [][]int{{0}, {1}}},
		{name: "two sources one sink", n: 5, edges: []edge{{4, 0}, {3, 0}, {0, 1}, {4, 2}, {2, 1}}, want: [][]int{{3, 4}, {0, 2}, {1}}},
	} {
		t.Run(test.name, func(t *testing.T) {
			g := graphOf(test.n, test.edges)
			if c := g.Cycle(); c != nil {
				t.Errorf("Cycle() = %v for an acyclic graph", c)
			}
			layers, err := g.Layers()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(layers, test.want) {
				t.Errorf("Layers() = %v, want %v", layers, test.want)
			}
			if h, want := len(layers), longestPath(test.n, test.edges)+1; test.n > 0 && h != want {
				t.Errorf("height %d, want longest path + 1 = %d", h, want)
			}
			layer := make([]int, test.n)
			seen := 0
			for i, l := range layers {
				for _, v := range l {
					layer[v] = i
					seen++
				}
			}
			if seen != test.n {
				t.Errorf("layers hold %d vertices, want %d", seen, test.n)
			}
			for _, e := range test.edges {
				if layer[e.from] >= layer[e.to] {
					t.Errorf("edge %d -> %d goes from layer %d to layer %d", e.from, e.to, layer[e.from], layer[e.to])
				}
			}
		})
	}
}

func TestCycle(t *testing.T) {
	for _, test := range []struct {
		name  string
		n     int
		edges []edge
		want  []int // the cycle found by the deterministic search
	}{
		{name: "self-loop", n: 3, edges: []edge{{0, 1}, {1, 1}}, want: []int{1}},
		{name: "two-cycle", n: 2, edges: []edge{{0, 1}, {1, 0}}, want: []int{0, 1}},
		{name: "cycle behind a tail", n: 6, edges: []edge{{0, 1}, {1, 2}, {2, 5}, {5, 3}, {3, 2}, {3, 4}}, want: []int{2, 5, 3}},
		{name: "cycle in a later component", n: 6, edges: []edge{{0, 1}, {2, 3}, {3, 4}, {4, 5}, {5, 3}}, want: []int{3, 4, 5}},
		{name: "cycle through a diamond", n: 4, edges: []edge{{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 0}}, want: []int{0, 1, 3}},
	} {
		t.Run(test.name, func(t *testing.T) {
			g := graphOf(test.n, test.edges)
			c := g.Cycle()
			if !slices.Equal(c, test.want) {
				t.Errorf("Cycle() = %v, want %v", c, test.want)
			}
			if len(c) == 0 {
				t.Fatal("no cycle found")
			}
			// Whatever the search order, the vertices must form a cycle.
			for i, v := range c {
				if w := c[(i+1)%len(c)]; !g.HasEdge(v, w) {
					t.Errorf("cycle %v uses the missing edge %d -> %d", c, v, w)
				}
				if slices.Index(c, v) != i {
					t.Errorf("cycle %v repeats vertex %d", c, v)
				}
			}

			layers, err := g.Layers()
			if layers != nil {
				t.Errorf("Layers() = %v for a cyclic graph", layers)
			}
			var ce *CycleError
			if !errors.As(err, &ce) {
				t.Fatalf("Layers error %v, want *CycleError", err)
			}
			if !slices.Equal(ce.Cycle, c) {
				t.Errorf("error names %v, Cycle() gives %v", ce.Cycle, c)
			}
			var parts []string
			for _, v := range append(c, c[0]) {
				parts = append(parts, fmt.Sprint(v))
			}
			if want := "cycle " + strings.Join(parts, " -> "); !strings.HasSuffix(err.Error(), want) {
				t.Errorf("message %q, want it to end with %q", err, want)
			}
		})
	}
}
