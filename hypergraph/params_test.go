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

// TestOneOwner checks that a machine's parameters, named by layer and
// edge, live in the parameter set alone: a change through the set's
// packed vector reaches graphs built before and after packing.
func TestOneOwner(t *testing.T) {
	spec, err := ReadSpec(strings.NewReader(residualSpec))
	if err != nil {
		t.Fatal(err)
	}
	m, err := FromSpec[float64](spec)
	if err != nil {
		t.Fatal(err)
	}
	var ps ad.Params[float64]
	if _, err := m.Init(ad.NewScope(nil, &ps, "res", SpecRand(3)), [][]int{{2}}); err != nil {
		t.Fatal(err)
	}
	if names := ps.Names(); !slices.Equal(names, []string{"res.W1.weight", "res.W1.bias", "res.W2.weight"}) {
		t.Errorf("parameters %v", names)
	}
	x := ad.Matrix(3, 2, []float64{1, -2, 0.5, 3, 0, -1}) // three samples
	res := func(g *ad.Graph[float64]) *ad.Node[float64] {
		y, err := m.Apply(ad.NewScope(g, &ps, "res", nil), []*ad.Node[float64]{g.Input(x)})
		if err != nil {
			t.Fatal(err)
		}
		return y[0]
	}
	var before ad.Graph[float64]
	yb := res(&before)
	want := slices.Clone(yb.Value.Data)

	ps.Values()[0] += 1 // packs, then changes W1 through the set
	var after ad.Graph[float64]
	ya := res(&after)
	before.Forward()
	if slices.Equal(yb.Value.Data, want) || !slices.Equal(ya.Value.Data, yb.Value.Data) {
		t.Errorf("after a change through the set: graph built before %v, after %v; before the change %v", yb.Value.Data, ya.Value.Data, want)
	}
}
