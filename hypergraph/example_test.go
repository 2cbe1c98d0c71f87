package hypergraph_test

import (
	"fmt"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/hypergraph"
)

// The hypergraph of Figure 1 of the paper. Its line graph orders the
// hyperedges in four layers; one more hyperedge, from v4 back to v3,
// closes a cycle.
func Example() {
	h := &hypergraph.Hypergraph{
		Vertices: []string{"v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"},
		Edges: []hypergraph.Edge{
			{Name: "E1", Sources: []int{0, 1}, Targets: []int{2}},
			{Name: "E2", Sources: []int{2}, Targets: []int{3}},
			{Name: "E3", Sources: []int{0}, Targets: []int{5}},
			{Name: "E4", Sources: []int{3}, Targets: []int{5, 4, 6}},
			{Name: "E5", Sources: []int{4}, Targets: []int{7}},
		},
	}
	layers, err := h.Layers()
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, layer := range layers {
		var names []string
		for _, e := range layer {
			names = append(names, h.Edges[e].Name)
		}
		fmt.Printf("layer %d: %s\n", i+1, strings.Join(names, ", "))
	}

	h.Edges = append(h.Edges, hypergraph.Edge{Name: "E6", Sources: []int{3}, Targets: []int{2}})
	fmt.Println(h.Acyclic())
	// Output:
	// layer 1: E1, E3
	// layer 2: E2
	// layer 3: E4
	// layer 4: E5
	// hypergraph: cycle v3 -E2-> v4 -E6-> v3
}

// A residual block written as a spec, y = x + W2 relu(W1 x), used as a
// layer of a graph of the ad engine.
func ExampleFromSpec() {
	spec, err := hypergraph.ReadSpec(strings.NewReader(`{
	  "format": "machines",
	  "kind": "hypergraph-spec",
	  "version": 2,
	  "vertices": [
	    {"name": "x", "shape": [2]},
	    {"name": "h", "shape": [2], "activation": "relu"},
	    {"name": "y", "shape": [2]}
	  ],
	  "edges": [
	    {"name": "W1", "kind": "linear", "sources": ["x"], "targets": ["h"]},
	    {"name": "W2", "kind": "linear", "sources": ["h"], "targets": ["y"]},
	    {"name": "shortcut", "kind": "identity", "sources": ["x"], "targets": ["y"]}
	  ]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := hypergraph.FromSpec[float64](spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The machine is a layer: its parameters, each edge's under the edge's
	// name, live in a parameter set.
	var ps ad.Params[float64]
	if _, err := m.Init(ad.NewScope(nil, &ps, "", nil), [][]int{{2}}); err != nil {
		fmt.Println(err)
		return
	}
	// Replace the random weights: W1 swaps the coordinates, W2 doubles.
	copy(ps.Value("W1.weight").Data, []float64{0, 1, 1, 0})
	copy(ps.Value("W2.weight").Data, []float64{2, 0, 0, 2})

	var g ad.Graph[float64]
	x := g.Input(ad.Matrix(2, 2, []float64{ // two samples, a row each
		1, -3,
		-1, 2,
	}))
	y, err := m.Apply(ad.NewScope(&g, &ps, "", nil), []*ad.Node[float64]{x})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("parameters:", ps.Names(), ps.Len())
	fmt.Println("layers:", m.Layers())
	fmt.Println("y:", y[0].Value.Data)
	// Output:
	// parameters: [W1.weight W2.weight] 8
	// layers: [[0 2] [1]]
	// y: [1 -1 3 2]
}
