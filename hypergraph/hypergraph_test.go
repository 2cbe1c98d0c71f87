package hypergraph

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// build returns the hypergraph with the given vertex names and edges
// written as {name, sources, targets} by vertex name.
func build(vertices []string, edges []testEdge) *Hypergraph {
	h := &Hypergraph{Vertices: vertices}
	for _, e := range edges {
		E := Edge{Name: e.name, Sources: []int{}, Targets: []int{}}
		for _, s := range e.src {
			E.Sources = append(E.Sources, h.Vertex(s))
		}
		for _, t := range e.tgt {
			E.Targets = append(E.Targets, h.Vertex(t))
		}
		h.Edges = append(h.Edges, E)
	}
	return h
}

type testEdge struct {
	name     string
	src, tgt []string
}

// figure1 is the hypergraph of Figure 1 of the paper.
func figure1() *Hypergraph {
	return build([]string{"v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"}, []testEdge{
		{"E1", []string{"v1", "v2"}, []string{"v3"}},
		{"E2", []string{"v3"}, []string{"v4"}},
		{"E3", []string{"v1"}, []string{"v6"}},
		{"E4", []string{"v4"}, []string{"v6", "v5", "v7"}},
		{"E5", []string{"v5"}, []string{"v8"}},
	})
}

func TestFigure1Structure(t *testing.T) {
	h := figure1()
	lg := h.LineGraph()
	var got [][2]int
	for i := range lg.Len() {
		for j := range lg.Len() {
			if lg.HasEdge(i, j) {
				got = append(got, [2]int{i, j})
			}
		}
	}
	// E1 -> E2 through v3, E2 -> E4 through v4, E4 -> E5 through v5;
	// E3 writes v6, which nothing reads.
	if want := [][2]int{{0, 1}, {1, 3}, {3, 4}}; !reflect.DeepEqual(got, want) {
		t.Errorf("line graph edges %v, want %v", got, want)
	}
	layers, err := h.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{0, 2}, {1}, {3}, {4}}; !reflect.DeepEqual(layers, want) {
		t.Errorf("layers %v, want %v", layers, want)
	}
	if err := h.Acyclic(); err != nil {
		t.Errorf("Acyclic: %v", err)
	}
	if p, ok := h.Cycle(); ok {
		t.Errorf("Cycle found %v in an acyclic hypergraph", h.Format(p))
	}
}

func TestPaths(t *testing.T) {
	h := figure1()
	v := func(names ...string) []int {
		var out []int
		for _, n := range names {
			out = append(out, h.Vertex(n))
		}
		return out
	}
	for _, test := range []struct {
		name          string
		p             Path
		path, isCycle bool
	}{
		{"single vertex", Path{Vertices: v("v2")}, true, false},
		{"one edge", Path{Vertices: v("v2", "v3"), Edges: []int{0}}, true, false},
		{"through the figure", Path{Vertices: v("v1", "v3", "v4", "v5", "v8"), Edges: []int{0, 1, 3, 4}}, true, false},
		{"second target of E4", Path{Vertices: v("v3", "v4", "v7"), Edges: []int{1, 3}}, true, false},
		{"not a source", Path{Vertices: v("v3", "v3"), Edges: []int{0}}, false, false},
		{"not a target", Path{Vertices: v("v1", "v4"), Edges: []int{0}}, false, false},
		{"junction not a source", Path{Vertices: v("v1", "v6", "v5"), Edges: []int{2, 3}}, false, false},
		{"wrong lengths", Path{Vertices: v("v1"), Edges: []int{0}}, false, false},
		{"vertex out of range", Path{Vertices: []int{8}}, false, false},
		{"edge out of range", Path{Vertices: v("v1", "v3"), Edges: []int{5}}, false, false},
	} {
		t.Run(test.name, func(t *testing.T) {
			if got := h.IsPath(test.p); got != test.path {
				t.Errorf("IsPath = %t, want %t", got, test.path)
			}
			if got := h.IsCycle(test.p); got != test.isCycle {
				t.Errorf("IsCycle = %t, want %t", got, test.isCycle)
			}
		})
	}
}

func TestCycle(t *testing.T) {
	for _, test := range []struct {
		name     string
		vertices []string
		edges    []testEdge
		want     string // "" for acyclic
	}{
		{
			name:     "overlapping source and target",
			vertices: []string{"a", "b"},
			edges:    []testEdge{{"E", []string{"a", "b"}, []string{"b"}}},
			want:     "b -E-> b",
		},
		{
			name:     "two edges",
			vertices: []string{"v1", "v2", "v3"},
			edges: []testEdge{
				{"E1", []string{"v2"}, []string{"v1"}},
				{"E2", []string{"v1"}, []string{"v3"}},
				{"E4", []string{"v3"}, []string{"v1"}},
			},
			want: "v1 -E2-> v3 -E4-> v1",
		},
		{
			// The cycle closes on a source of the first edge other than
			// the one it left from: v1 ∈ s(E1) is reached from v2.
			name:     "closing on another source",
			vertices: []string{"v1", "v2", "v3"},
			edges: []testEdge{
				{"E1", []string{"v1", "v3"}, []string{"v2"}},
				{"E2", []string{"v2"}, []string{"v1"}},
			},
			want: "v1 -E1-> v2 -E2-> v1",
		},
		{
			name:     "empty sources and targets",
			vertices: []string{"a", "b"},
			edges: []testEdge{
				{"bias", nil, []string{"a"}},
				{"sink", []string{"a"}, nil},
				{"nothing", nil, nil},
				{"ab", []string{"a"}, []string{"b"}},
			},
		},
		{
			name:     "diamond",
			vertices: []string{"a", "b", "c", "d"},
			edges: []testEdge{
				{"E1", []string{"a"}, []string{"b", "c"}},
				{"E2", []string{"b"}, []string{"d"}},
				{"E3", []string{"c"}, []string{"d"}},
				{"E4", []string{"a"}, []string{"d"}},
			},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			h := build(test.vertices, test.edges)
			p, found := h.Cycle()
			err := h.Acyclic()
			_, layersErr := h.Layers()
			if test.want == "" {
				if found || err != nil || layersErr != nil {
					t.Fatalf("cycle %v, Acyclic %v, Layers %v in an acyclic hypergraph", p, err, layersErr)
				}
				return
			}
			if !found {
				t.Fatal("no cycle found")
			}
			if !h.IsCycle(p) {
				t.Errorf("Cycle returned %+v, which is not a cycle", p)
			}
			if got := h.Format(p); got != test.want {
				t.Errorf("cycle %q, want %q", got, test.want)
			}
			for _, err := range []error{err, layersErr} {
				var ce *CycleError
				if !errors.As(err, &ce) {
					t.Fatalf("error %v, want a *CycleError", err)
				}
				if want := "hypergraph: cycle " + test.want; err.Error() != want {
					t.Errorf("error %q, want %q", err, want)
				}
			}
		})
	}
}

// hasCycle decides by brute force, from Definition 5, whether h has a
// cycle: a sequence of at most len(h.Edges) hyperedges, each writing a
// source of the next, the last writing a source of the first. A shortest
// cycle repeats no hyperedge, so longer sequences need not be tried.
func hasCycle(h *Hypergraph) bool {
	meets := func(a, b int) bool {
		for _, v := range h.Edges[a].Targets {
			if slices.Contains(h.Edges[b].Sources, v) {
				return true
			}
		}
		return false
	}
	var extend func(seq []int) bool
	extend = func(seq []int) bool {
		last := seq[len(seq)-1]
		if meets(last, seq[0]) {
			return true
		}
		if len(seq) == len(h.Edges) {
			return false
		}
		for e := range h.Edges {
			if meets(last, e) && extend(append(seq, e)) {
				return true
			}
		}
		return false
	}
	for e := range h.Edges {
		if extend([]int{e}) {
			return true
		}
	}
	return false
}

// TestRandomHypergraphs compares the cycle search with the brute force of
// Definition 5 and checks the layering on random small hypergraphs.
func TestRandomHypergraphs(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	subset := func(n int, p float64) []int {
		s := []int{}
		for v := range n {
			if rnd.Float64() < p {
				s = append(s, v)
			}
		}
		return s
	}
	cyclic := 0
	for trial := range 500 {
		nv, ne := 1+rnd.IntN(5), rnd.IntN(5)
		h := &Hypergraph{Vertices: make([]string, nv)}
		for v := range nv {
			h.Vertices[v] = string(rune('a' + v))
		}
		for e := range ne {
			h.Edges = append(h.Edges, Edge{Name: string(rune('A' + e)), Sources: subset(nv, 0.35), Targets: subset(nv, 0.35)})
		}
		want := hasCycle(h)
		p, got := h.Cycle()
		if got != want {
			t.Fatalf("trial %d: %+v: Cycle found %t, brute force %t", trial, h, got, want)
		}
		layers, err := h.Layers()
		if want {
			cyclic++
			if !h.IsCycle(p) || p.Vertices[0] != p.Vertices[len(p.Vertices)-1] {
				t.Fatalf("trial %d: %+v: Cycle returned %+v", trial, h, p)
			}
			if err == nil {
				t.Fatalf("trial %d: Layers of a cyclic hypergraph succeeded", trial)
			}
			continue
		}
		layer := make([]int, ne)
		seen := 0
		for i, l := range layers {
			if len(l) == 0 {
				t.Fatalf("trial %d: empty layer %d", trial, i)
			}
			for _, e := range l {
				layer[e] = i
				seen++
			}
		}
		if seen != ne {
			t.Fatalf("trial %d: layers %v do not partition %d edges", trial, layers, ne)
		}
		for a := range ne {
			for b := range ne {
				if h.LineGraph().HasEdge(a, b) && layer[a] >= layer[b] {
					t.Fatalf("trial %d: edge %d (layer %d) writes a source of edge %d (layer %d)", trial, a, layer[a], b, layer[b])
				}
			}
		}
		// Minimal height: each edge is in the layer of its depth, the
		// length of the longest path of the line graph that ends at it.
		lg := h.LineGraph()
		depth := make([]int, ne)
		for range ne {
			for a := range ne {
				for b := range ne {
					if lg.HasEdge(a, b) {
						depth[b] = max(depth[b], depth[a]+1)
					}
				}
			}
		}
		for e := range ne {
			if layer[e] != depth[e] {
				t.Fatalf("trial %d: edge %d in layer %d, but its longest path has %d edges before it; layers %v", trial, e, layer[e], depth[e], layers)
			}
		}
	}
	if cyclic < 50 || cyclic > 450 {
		t.Errorf("%d of 500 random hypergraphs cyclic; the test needs a better mix", cyclic)
	}
}

func TestCheckPanics(t *testing.T) {
	for _, test := range []struct {
		name string
		h    *Hypergraph
	}{
		{"vertex out of range", &Hypergraph{Vertices: []string{"a"}, Edges: []Edge{{Name: "E", Sources: []int{1}}}}},
		{"vertex listed twice", &Hypergraph{Vertices: []string{"a", "b"}, Edges: []Edge{{Name: "E", Targets: []int{1, 1}}}}},
	} {
		t.Run(test.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("LineGraph did not panic")
				}
			}()
			test.h.LineGraph()
		})
	}
}
