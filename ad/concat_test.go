package ad

import (
	"reflect"
	"testing"
)

func TestConcatRows(t *testing.T) {
	var g Graph[float64]
	a := g.Input(Matrix(1, 2, []float64{1, 2}))
	b := g.Input(Matrix(2, 2, []float64{3, 4, 5, 6}))
	if got := g.ConcatRows(a, b); !reflect.DeepEqual(got.Value.Data, []float64{1, 2, 3, 4, 5, 6}) || !reflect.DeepEqual(got.Value.Shape, []int{3, 2}) {
		t.Errorf("[a; b] = %v of shape %v", got.Value.Data, got.Value.Shape)
	}
	for _, tc := range []opCase[float64]{
		{"ConcatRows", [][]int{{2, 3}, {4, 3}}, func(g *Graph[float64], p []*Node[float64]) *Node[float64] { return g.ConcatRows(p[0], p[1]) }},
		{"ConcatRowsSame", [][]int{{2, 3}}, func(g *Graph[float64], p []*Node[float64]) *Node[float64] { return g.ConcatRows(p[0], p[0]) }},
	} {
		c := buildCase(tc)
		if e := CheckGradient(&c.g, c.loss, c.params, 1e-6); e.Rel > 1e-7 {
			t.Errorf("%s: relative gradient error %.3g", tc.name, e.Rel)
		}
	}
}
