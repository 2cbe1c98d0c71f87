package ad

import (
	"reflect"
	"testing"
)

func TestConcatCols(t *testing.T) {
	var g Graph[float64]
	a := g.Input(Matrix(2, 1, []float64{1, 2}))
	b := g.Input(Matrix(2, 3, []float64{3, 4, 5, 6, 7, 8}))
	if got := g.ConcatCols(a, b).Value.Data; !reflect.DeepEqual(got, []float64{1, 3, 4, 5, 2, 6, 7, 8}) {
		t.Errorf("[a b] = %v", got)
	}
	for _, tc := range []opCase[float64]{
		{"ConcatCols", [][]int{{3, 2}, {3, 4}}, func(g *Graph[float64], p []*Node[float64]) *Node[float64] { return g.ConcatCols(p[0], p[1]) }},
		{"ConcatColsSame", [][]int{{2, 3}}, func(g *Graph[float64], p []*Node[float64]) *Node[float64] { return g.ConcatCols(p[0], p[0]) }},
	} {
		c := buildCase(tc)
		if e := CheckGradient(&c.g, c.loss, c.params, 1e-6); e.Rel > 1e-7 {
			t.Errorf("%s: relative gradient error %.3g", tc.name, e.Rel)
		}
	}
}
