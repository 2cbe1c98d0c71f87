package model

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/hypergraph"
)

// legacyFile is a saved hypergraph machine of earlier versions: its spec
// and, by edge, its parameter tensors in the order the edge's layer
// registers them.
type legacyFile struct {
	Format  string           `json:"format"`
	Version int              `json:"version"`
	Spec    *hypergraph.Spec `json:"spec"`
	Params  []struct {
		Edge    string `json:"edge"`
		Tensors []struct {
			Shape []int     `json:"shape"`
			Data  []float64 `json:"data"`
		} `json:"tensors"`
	} `json:"params"`
}

func decodeLegacy[T ad.Float](data []byte) (*Model[T], error) {
	var f legacyFile
	if err := legacyFormat.Decode(data, &f); err != nil {
		return nil, err
	}
	if f.Spec == nil {
		return nil, fmt.Errorf("no \"spec\"")
	}
	if err := f.Spec.Validate(); err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	m, err := fromSpec[T](f.Spec, nil, len(data))
	if err != nil {
		return nil, err
	}
	byEdge := map[string][]string{}
	for _, name := range m.params.Names() {
		edge, _, _ := strings.Cut(name, ".")
		byEdge[edge] = append(byEdge[edge], name)
	}
	seen := map[string]bool{}
	for _, p := range f.Params {
		names, ok := byEdge[p.Edge]
		switch {
		case !ok:
			return nil, fmt.Errorf("parameters for edge %q, which has none or which the machine does not have", p.Edge)
		case seen[p.Edge]:
			return nil, fmt.Errorf("parameters of edge %q given twice", p.Edge)
		case len(p.Tensors) != len(names):
			return nil, fmt.Errorf("edge %s: %d parameter tensors, want %d", p.Edge, len(p.Tensors), len(names))
		}
		seen[p.Edge] = true
		for i, t := range p.Tensors {
			dst := m.params.Value(names[i])
			if !slices.Equal(t.Shape, dst.Shape) || len(t.Data) != dst.Len() {
				return nil, fmt.Errorf("edge %s: parameter %d has shape %v and %d values, want shape %v", p.Edge, i, t.Shape, len(t.Data), dst.Shape)
			}
			for j, v := range t.Data {
				if x := float64(T(v)); math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, fmt.Errorf("edge %s: parameter %d, value %d is %v, not a finite number of the model's type", p.Edge, i, j, v)
				}
				dst.Data[j] = T(v)
			}
		}
	}
	for edge := range byEdge {
		if !seen[edge] {
			return nil, fmt.Errorf("edge %s: no parameters", edge)
		}
	}
	return m, nil
}
