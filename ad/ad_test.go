package ad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

func randMatrix(rnd *rand.Rand, rows, cols int) *Tensor {
	t := NewTensor(rows, cols)
	for i := range t.Data {
		t.Data[i] = rnd.Float64()*2 - 1
	}
	return t
}

// TestGradients checks every operation's backward pass against central
// finite differences. Each case reduces the op's output to a scalar with
// a fixed random weighting so that every output element matters.
func TestGradients(t *testing.T) {
	labels := []int{2, 0, 1, 2, 1}
	for _, tc := range []struct {
		name   string
		shapes [][2]int
		build  func(g *Graph, p []*Node) *Node
	}{
		{"MatMul", [][2]int{{3, 4}, {4, 5}}, func(g *Graph, p []*Node) *Node { return g.MatMul(p[0], p[1], false, false) }},
		{"MatMulTA", [][2]int{{4, 3}, {4, 5}}, func(g *Graph, p []*Node) *Node { return g.MatMul(p[0], p[1], true, false) }},
		{"MatMulTB", [][2]int{{3, 4}, {5, 4}}, func(g *Graph, p []*Node) *Node { return g.MatMul(p[0], p[1], false, true) }},
		{"MatMulTT", [][2]int{{4, 3}, {5, 4}}, func(g *Graph, p []*Node) *Node { return g.MatMul(p[0], p[1], true, true) }},
		{"MatMulSame", [][2]int{{4, 4}}, func(g *Graph, p []*Node) *Node { return g.MatMul(p[0], p[0], false, true) }},
		{"Add", [][2]int{{3, 4}, {3, 4}}, func(g *Graph, p []*Node) *Node { return g.Add(p[0], p[1]) }},
		{"Sub", [][2]int{{3, 4}, {3, 4}}, func(g *Graph, p []*Node) *Node { return g.Sub(p[0], p[1]) }},
		{"Mul", [][2]int{{3, 4}, {3, 4}}, func(g *Graph, p []*Node) *Node { return g.Mul(p[0], p[1]) }},
		{"MulSame", [][2]int{{3, 4}}, func(g *Graph, p []*Node) *Node { return g.Mul(p[0], p[0]) }},
		{"Scale", [][2]int{{3, 4}}, func(g *Graph, p []*Node) *Node { return g.Scale(p[0], -2.5) }},
		{"AddCol", [][2]int{{3, 4}, {3, 1}}, func(g *Graph, p []*Node) *Node { return g.AddCol(p[0], p[1]) }},
		{"Tanh", [][2]int{{3, 4}}, func(g *Graph, p []*Node) *Node { return g.Tanh(p[0]) }},
		{"Sigmoid", [][2]int{{3, 4}}, func(g *Graph, p []*Node) *Node { return g.Sigmoid(p[0]) }},
		{"ReLU", [][2]int{{3, 4}}, func(g *Graph, p []*Node) *Node { return g.ReLU(p[0]) }},
		{"Exp", [][2]int{{3, 4}}, func(g *Graph, p []*Node) *Node { return g.Exp(p[0]) }},
		{"Square", [][2]int{{3, 4}}, func(g *Graph, p []*Node) *Node { return g.Square(p[0]) }},
		{"Sum", [][2]int{{3, 4}}, func(g *Graph, p []*Node) *Node { return g.Sum(p[0]) }},
		{"Dot", [][2]int{{3, 4}, {3, 4}}, func(g *Graph, p []*Node) *Node { return g.Dot(p[0], p[1]) }},
		{"DotSame", [][2]int{{3, 4}}, func(g *Graph, p []*Node) *Node { return g.Dot(p[0], p[0]) }},
		{"RowBlock", [][2]int{{5, 4}}, func(g *Graph, p []*Node) *Node { return g.RowBlock(p[0], 1, 4) }},
		{"SelectCols", [][2]int{{3, 5}}, func(g *Graph, p []*Node) *Node { return g.SelectCols(p[0], []int{4, 0, 4, 2}) }},
		{"Gaussian", [][2]int{{3, 4}, {3, 6}}, func(g *Graph, p []*Node) *Node { return g.Gaussian(p[0], p[1], 0.8) }},
		{"GaussianSymmetric", [][2]int{{2, 6}}, func(g *Graph, p []*Node) *Node { return g.Gaussian(p[0], p[0], 1.3) }},
		{"GaussianAnchors", [][2]int{{2, 6}}, func(g *Graph, p []*Node) *Node {
			return g.Gaussian(g.SelectCols(p[0], []int{1, 3}), p[0], 1)
		}},
		{"AddGaussian", [][2]int{{4, 6}, {2, 4}, {2, 6}}, func(g *Graph, p []*Node) *Node { return g.AddGaussian(p[0], p[1], p[2], 0.9) }},
		{"AddGaussianSymmetric", [][2]int{{5, 5}, {2, 5}}, func(g *Graph, p []*Node) *Node { return g.AddGaussian(p[0], p[1], p[1], 1.1) }},
		{"MulGaussian", [][2]int{{4, 6}, {2, 4}, {2, 6}}, func(g *Graph, p []*Node) *Node { return g.MulGaussian(p[0], p[1], p[2], 0.9) }},
		{"MulGaussianSymmetric", [][2]int{{5, 5}, {2, 5}}, func(g *Graph, p []*Node) *Node { return g.MulGaussian(p[0], p[1], p[1], 1.1) }},
		{"MSE", [][2]int{{3, 4}, {3, 4}}, func(g *Graph, p []*Node) *Node { return g.MSE(p[0], p[1]) }},
		{"SoftmaxCrossEntropy", [][2]int{{3, 5}}, func(g *Graph, p []*Node) *Node { return g.SoftmaxCrossEntropy(p[0], labels) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(1, 1))
			var g Graph
			params := make([]*Node, len(tc.shapes))
			for i, s := range tc.shapes {
				params[i] = g.Param(randMatrix(rnd, s[0], s[1]), nil)
			}
			out := tc.build(&g, params)
			weights := g.Input(randMatrix(rnd, out.Value.Rows(), out.Value.Cols()))
			loss := g.Dot(out, weights)
			if e := CheckGradient(&g, loss, params, 1e-6); e.Rel > 1e-7 {
				t.Errorf("relative gradient error %.3g: parameter %d element %d analytic %v numeric %v",
					e.Rel, e.Param, e.Index, e.Analytic, e.Numeric)
			}
		})
	}
}

// TestCheckGradientDetects makes sure the checker itself can fail: a
// deliberately wrong derivative must be reported.
func TestCheckGradientDetects(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	var g Graph
	x := g.Param(randMatrix(rnd, 2, 3), nil)
	wrong := unary{math.Sin, func(x, _ float64) float64 { return math.Sin(x) }}
	loss := g.Sum(g.apply(wrong, x.Value.Shape, x))
	if e := CheckGradient(&g, loss, []*Node{x}, 0); e.Rel < 0.1 {
		t.Errorf("wrong derivative passed the check: relative error %g", e.Rel)
	}
}

func TestForwardValues(t *testing.T) {
	var g Graph
	a := g.Param(Matrix(2, 2, []float64{1, 2, 3, 4}), nil)
	b := g.Input(Matrix(2, 2, []float64{0, 1, 1, 0}))
	prod := g.MatMul(a, b, false, false)
	k := g.Gaussian(a, a, 1)
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"MatMul[0,0]", prod.Value.At(0, 0), 2},
		{"MatMul[1,0]", prod.Value.At(1, 0), 4},
		{"Gaussian diagonal", k.Value.At(1, 1), 1},
		// columns (1,3) and (2,4) are sqrt(2) apart
		{"Gaussian off-diagonal", k.Value.At(0, 1), math.Exp(-1)},
		{"Gaussian symmetric", k.Value.At(1, 0), math.Exp(-1)},
	} {
		if !scalar.EqualWithinAbsOrRel(tc.got, tc.want, 1e-14, 1e-14) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

// TestReplay checks that Forward recomputes in place after an input
// changes and that Backward overwrites rather than accumulates across
// calls.
func TestReplay(t *testing.T) {
	var g Graph
	x := g.Input(Matrix(1, 3, []float64{1, 2, 3}))
	w := g.Param(Matrix(1, 3, []float64{1, 1, 1}), nil)
	loss := g.Dot(g.Mul(x, w), w)
	g.Backward(loss)
	g.Backward(loss)
	if got := w.Grad.Data[2]; got != 6 {
		t.Errorf("gradient after two Backward calls = %v, want 6", got)
	}
	copy(x.Value.Data, []float64{2, 2, 2})
	g.Forward()
	if got := loss.Scalar(); got != 6 {
		t.Errorf("loss after replay = %v, want 6", got)
	}
}

func TestShapePanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(g *Graph)
	}{
		{"MatMul", func(g *Graph) { g.MatMul(g.Input(NewTensor(2, 3)), g.Input(NewTensor(2, 3)), false, false) }},
		{"Add", func(g *Graph) { g.Add(g.Input(NewTensor(2, 3)), g.Input(NewTensor(3, 2))) }},
		{"RowBlock", func(g *Graph) { g.RowBlock(g.Input(NewTensor(2, 3)), 1, 3) }},
		{"SelectCols", func(g *Graph) { g.SelectCols(g.Input(NewTensor(2, 3)), []int{3}) }},
		{"Gaussian bandwidth", func(g *Graph) { x := g.Input(NewTensor(2, 3)); g.Gaussian(x, x, 0) }},
		{"labels", func(g *Graph) { g.SoftmaxCrossEntropy(g.Input(NewTensor(2, 3)), []int{0}) }},
		{"label range", func(g *Graph) { g.SoftmaxCrossEntropy(g.Input(NewTensor(2, 1)), []int{2}) }},
		{"Backward non-scalar", func(g *Graph) { x := g.Param(NewTensor(2, 3), nil); g.Backward(x) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			tc.f(new(Graph))
		})
	}
}

func BenchmarkGaussian(b *testing.B) {
	for _, n := range []int{36, 100, 400} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rnd := rand.New(rand.NewPCG(1, 1))
			var g Graph
			x := g.Param(randMatrix(rnd, 3, n), nil)
			loss := g.Sum(g.Gaussian(x, x, 1))
			for b.Loop() {
				g.Forward()
				g.Backward(loss)
			}
		})
	}
}
