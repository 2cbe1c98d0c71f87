package hypergraph

import (
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
)

const residualSpec = `{
  "format": "machines-hypergraph", "version": 1,
  "vertices": [
    {"name": "x", "shape": [2]},
    {"name": "h", "shape": [3], "activation": "relu"},
    {"name": "y", "shape": [2]}
  ],
  "edges": [
    {"name": "W1", "kind": "dense", "sources": ["x"], "targets": ["h"]},
    {"name": "W2", "kind": "linear", "sources": ["h"], "targets": ["y"]},
    {"name": "skip", "kind": "identity", "sources": ["x"], "targets": ["y"]}
  ]
}`

// TestUse checks that a machine registered in a parameter set computes
// what it computes on its own, with its tensors named by edge, and that
// its own vectors are refused once the set has moved the parameters.
func TestUse(t *testing.T) {
	spec, err := ReadSpec(strings.NewReader(residualSpec))
	if err != nil {
		t.Fatal(err)
	}
	m, err := FromSpec[float64](spec, 3)
	if err != nil {
		t.Fatal(err)
	}
	x := ad.Matrix(3, 2, []float64{1, -2, 0.5, 3, 0, -1}) // three samples
	var alone ad.Graph[float64]
	want := m.Build(&alone, nil, []*ad.Node[float64]{alone.Input(x)})[0].Value.Data

	var ps ad.Params[float64]
	var g ad.Graph[float64]
	nodes := m.Use(&g, &ps, "res")
	y := m.Build(&g, nodes, []*ad.Node[float64]{g.Input(x)})[0]
	if names := ps.Names(); !slices.Equal(names, []string{"res.W1.0", "res.W1.1", "res.W2.0"}) {
		t.Errorf("parameters %v", names)
	}
	if ps.Len() != len(m.Params()) {
		t.Errorf("%d parameters in the set, %d in the machine", ps.Len(), len(m.Params()))
	}
	saved := ps.Values()[0]
	ps.Values()[0] += 1 // packs, then changes W1 through the set
	g.Forward()
	if slices.Equal(y.Value.Data, want) {
		t.Error("changing a weight through the set did not change the output")
	}
	ps.Values()[0] = saved
	g.Forward()
	if !slices.Equal(y.Value.Data, want) {
		t.Errorf("output %v in a model, %v alone", y.Value.Data, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("Params after the set packed the parameters did not panic")
		}
	}()
	m.Params()
}
