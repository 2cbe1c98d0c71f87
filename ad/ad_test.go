package ad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/parametric-machines/machines/internal/testutil"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"
)

func randMatrix[T Float](rnd *rand.Rand, rows, cols int) *Tensor[T] {
	return randTensor[T](rnd, rows, cols)
}

// randTensor returns a tensor of the given shape with elements uniform
// in [-1, 1).
func randTensor[T Float](rnd *rand.Rand, shape ...int) *Tensor[T] {
	t := NewTensor[T](shape...)
	for i := range t.Data {
		t.Data[i] = T(rnd.Float64()*2 - 1)
	}
	return t
}

// opCase is an operation built on parameters of the given shapes.
type opCase[T Float] struct {
	name   string
	shapes [][]int
	build  func(g *Graph[T], p []*Node[T]) *Node[T]
}

// opCases lists every operation. The list is generic so that the
// finite-difference test in float64 and the comparisons of other element
// types against float64 cover the same cases.
func opCases[T Float]() []opCase[T] {
	labels := []int{2, 0, 1, 2, 1}
	return []opCase[T]{
		{"MatMul", [][]int{{3, 4}, {4, 5}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.MatMul(p[0], p[1], false, false) }},
		{"MatMulTA", [][]int{{4, 3}, {4, 5}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.MatMul(p[0], p[1], true, false) }},
		{"MatMulTB", [][]int{{3, 4}, {5, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.MatMul(p[0], p[1], false, true) }},
		{"MatMulTT", [][]int{{4, 3}, {5, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.MatMul(p[0], p[1], true, true) }},
		{"MatMulSame", [][]int{{4, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.MatMul(p[0], p[0], false, true) }},
		{"Add", [][]int{{3, 4}, {3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Add(p[0], p[1]) }},
		{"Sub", [][]int{{3, 4}, {3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Sub(p[0], p[1]) }},
		{"Mul", [][]int{{3, 4}, {3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Mul(p[0], p[1]) }},
		{"MulSame", [][]int{{3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Mul(p[0], p[0]) }},
		{"Scale", [][]int{{3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Scale(p[0], -2.5) }},
		{"AddRow", [][]int{{4, 3}, {1, 3}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.AddRow(p[0], p[1]) }},
		{"Tanh", [][]int{{3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Tanh(p[0]) }},
		{"Sigmoid", [][]int{{3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Sigmoid(p[0]) }},
		{"ReLU", [][]int{{3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.ReLU(p[0]) }},
		{"ReLUWide", [][]int{{3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.ReLU(g.Scale(p[0], 8)) }},
		{"Exp", [][]int{{3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Exp(p[0]) }},
		{"Square", [][]int{{3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Square(p[0]) }},
		{"Sum", [][]int{{3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Sum(p[0]) }},
		{"Dot", [][]int{{3, 4}, {3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Dot(p[0], p[1]) }},
		{"DotSame", [][]int{{3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Dot(p[0], p[0]) }},
		{"RowBlock", [][]int{{5, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.RowBlock(p[0], 1, 4) }},
		{"SelectCols", [][]int{{3, 5}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.SelectCols(p[0], []int{4, 0, 4, 2}) }},
		{"Gaussian", [][]int{{3, 4}, {3, 6}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Gaussian(p[0], p[1], 0.8) }},
		{"GaussianSymmetric", [][]int{{2, 6}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Gaussian(p[0], p[0], 1.3) }},
		{"GaussianAnchors", [][]int{{2, 6}}, func(g *Graph[T], p []*Node[T]) *Node[T] {
			return g.Gaussian(g.SelectCols(p[0], []int{1, 3}), p[0], 1)
		}},
		{"AddGaussian", [][]int{{4, 6}, {2, 4}, {2, 6}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.AddGaussian(p[0], p[1], p[2], 0.9) }},
		{"AddGaussianSymmetric", [][]int{{5, 5}, {2, 5}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.AddGaussian(p[0], p[1], p[1], 1.1) }},
		{"AddGaussianWide", [][]int{{9, 19}, {2, 9}, {2, 19}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.AddGaussian(p[0], p[1], p[2], 0.9) }},
		{"AddGaussianWideSymmetric", [][]int{{13, 13}, {2, 13}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.AddGaussian(p[0], p[1], p[1], 1.1) }},
		{"AddGaussianChain", [][]int{{2, 17}, {3, 17}}, func(g *Graph[T], p []*Node[T]) *Node[T] {
			// the additive kernel of a machine: anchors' rows, a second
			// level whose gradient reaches the first's
			a := []int{0, 2, 3, 5, 8, 16}
			k := g.Gaussian(g.SelectCols(p[0], a), p[0], 1)
			return g.AddGaussian(k, g.SelectCols(p[1], a), p[1], 1.2)
		}},
		{"Laplacian", [][]int{{3, 4}, {3, 6}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Laplacian(p[0], p[1], 0.8) }},
		{"LaplacianSymmetric", [][]int{{2, 6}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Laplacian(p[0], p[0], 1.3) }},
		{"MulGaussian", [][]int{{4, 6}, {2, 4}, {2, 6}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.MulGaussian(p[0], p[1], p[2], 0.9) }},
		{"MulGaussianSymmetric", [][]int{{5, 5}, {2, 5}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.MulGaussian(p[0], p[1], p[1], 1.1) }},
		{"MSE", [][]int{{3, 4}, {3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.MSE(p[0], p[1]) }},
		{"SoftmaxCrossEntropy", [][]int{{5, 3}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.SoftmaxCrossEntropy(p[0], labels) }},
		{"Conv2DSame", [][]int{{2, 3, 5, 4}, {2, 3, 3, 3}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Conv2D(p[0], p[1], 1) }},
		{"Conv2DValid", [][]int{{2, 2, 5, 6}, {3, 2, 2, 3}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Conv2D(p[0], p[1], 0) }},
		{"Conv2DWidePad", [][]int{{1, 2, 4, 3}, {3, 2, 3, 3}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Conv2D(p[0], p[1], 2) }},
		{"Conv2DManyIn", [][]int{{2, 5, 4, 4}, {2, 5, 3, 3}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Conv2D(p[0], p[1], 1) }},
		{"Conv2DConstInput", [][]int{{4, 1, 3, 3}}, func(g *Graph[T], p []*Node[T]) *Node[T] {
			x := g.Input(randTensor[T](rand.New(rand.NewPCG(2, 2)), 3, 1, 6, 5))
			return g.Conv2D(x, p[0], 1)
		}},
		{"MaxPool2", [][]int{{2, 3, 4, 6}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.MaxPool2(p[0]) }},
		{"Upsample2", [][]int{{2, 2, 3, 2}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Upsample2(p[0]) }},
		{"ReLU6", [][]int{{3, 4}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.ReLU6(g.Scale(p[0], 8)) }},
		{"Reshape", [][]int{{2, 3, 2, 2}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Reshape(p[0], 2, 12) }},
		{"Transpose", [][]int{{3, 5}}, func(g *Graph[T], p []*Node[T]) *Node[T] { return g.Transpose(p[0]) }},
		{"ImageModel", [][]int{{5, 2, 4, 4}, {3, 2, 3, 3}, {3, 3, 3, 3}, {3, 48}}, func(g *Graph[T], p []*Node[T]) *Node[T] {
			// convolution, pooling and back up, a linear head and the loss,
			// as a sculpted hypergraph machine has them
			h := g.MaxPool2(g.ReLU6(g.Scale(g.Conv2D(p[0], p[1], 1), 4)))
			h = g.Upsample2(g.ReLU6(g.Conv2D(h, p[2], 1)))
			logits := g.MatMul(g.Reshape(h, 5, 48), p[3], false, true)
			return g.SoftmaxCrossEntropy(logits, labels)
		}},
	}
}

// caseGraph is an op case built on random parameters, its output reduced
// to a scalar loss with a fixed random weighting so that every output
// element matters.
type caseGraph[T Float] struct {
	g                  Graph[T]
	params             []*Node[T]
	out, weights, loss *Node[T]
}

func buildCase[T Float](tc opCase[T]) *caseGraph[T] {
	rnd := rand.New(rand.NewPCG(1, 1))
	c := new(caseGraph[T])
	c.params = make([]*Node[T], len(tc.shapes))
	for i, s := range tc.shapes {
		c.params[i] = c.g.Param(randTensor[T](rnd, s...), nil)
	}
	c.out = tc.build(&c.g, c.params)
	c.weights = c.g.Input(randTensor[T](rnd, c.out.Value.Shape...))
	c.loss = c.g.Dot(c.out, c.weights)
	return c
}

// TestGradients checks every operation's backward pass against central
// finite differences.
func TestGradients(t *testing.T) {
	for _, tc := range opCases[float64]() {
		t.Run(tc.name, func(t *testing.T) {
			c := buildCase(tc)
			if e := CheckGradient(&c.g, c.loss, c.params, 1e-6); e.Rel > 1e-7 {
				t.Errorf("relative gradient error %.3g: parameter %d element %d analytic %v numeric %v",
					e.Rel, e.Param, e.Index, e.Analytic, e.Numeric)
			}
		})
	}
}

// TestGradientsFloat32 runs the finite-difference check on float32
// graphs with the step and tolerance that CheckGradient documents.
func TestGradientsFloat32(t *testing.T) {
	for _, tc := range opCases[float32]() {
		t.Run(tc.name, func(t *testing.T) {
			c := buildCase(tc)
			if e := CheckGradient(&c.g, c.loss, c.params, 1e-3); e.Rel > 2e-3 {
				t.Errorf("relative gradient error %.3g: parameter %d element %d analytic %v numeric %v",
					e.Rel, e.Param, e.Index, e.Analytic, e.Numeric)
			}
		})
	}
}

type (
	namedFloat32 float32
	namedFloat64 float64
)

// TestAgainstFloat64 checks every operation in other element types
// against float64: forward values and gradients of the same graph on the
// same inputs must agree to the precision of the type. Named float types
// take the BLAS and exponential routines of their underlying type.
func TestAgainstFloat64(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testAgainstFloat64[float32](t, 1e-5) })
	t.Run("namedFloat32", func(t *testing.T) { testAgainstFloat64[namedFloat32](t, 1e-5) })
	t.Run("namedFloat64", func(t *testing.T) { testAgainstFloat64[namedFloat64](t, 1e-14) })
}

func testAgainstFloat64[T Float](t *testing.T, tol float64) {
	want := opCases[float64]()
	for i, tc := range opCases[T]() {
		t.Run(tc.name, func(t *testing.T) {
			got, ref := buildCase(tc), buildCase(want[i])
			// The same inputs: the float64 graph gets the rounded values.
			for j, p := range got.params {
				copyTo(ref.params[j].Value.Data, p.Value.Data)
			}
			copyTo(ref.weights.Value.Data, got.weights.Value.Data)
			got.run()
			ref.run()
			if e := relDiff(got.out.Value.Data, ref.out.Value.Data); e > tol {
				t.Errorf("output: relative difference %.3g from float64", e)
			}
			for j, p := range got.params {
				if e := relDiff(p.Grad.Data, ref.params[j].Grad.Data); e > tol {
					t.Errorf("gradient of parameter %d: relative difference %.3g from float64", j, e)
				}
			}
		})
	}
}

func (c *caseGraph[T]) run() {
	c.g.Forward()
	c.g.Backward(c.loss)
}

func copyTo[T, U Float](dst []T, src []U) {
	for i, v := range src {
		dst[i] = T(v)
	}
}

// relDiff returns max |got - want| / max |want|, a scale-free measure of
// the distance between two tensors.
func relDiff[T Float](got []T, want []float64) float64 {
	maxDiff, maxWant := 0.0, 0.0
	for i, w := range want {
		maxDiff = math.Max(maxDiff, math.Abs(float64(got[i])-w))
		maxWant = math.Max(maxWant, math.Abs(w))
	}
	if maxDiff == 0 {
		return 0
	}
	return maxDiff / maxWant
}

// TestCheckGradientDetects makes sure the checker itself can fail: a
// deliberately wrong derivative must be reported.
func TestCheckGradientDetects(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	var g Graph[float64]
	x := g.Param(randMatrix[float64](rnd, 2, 3), nil)
	loss := g.Sum(g.unary(math.Sin, func(x, _ float64) float64 { return math.Sin(x) }, x))
	if e := CheckGradient(&g, loss, []*Node[float64]{x}, 0); e.Rel < 0.1 {
		t.Errorf("wrong derivative passed the check: relative error %g", e.Rel)
	}
}

// TestGaussianLarge checks kernels big enough to be computed on several
// goroutines against the definition, with and without symmetry.
func TestGaussianLarge(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 3))
	const d, m, n, sigma = 3, 150, 700, 1.3
	if m*n*(d+4) < parallelWork {
		t.Fatalf("%dx%d kernel is below the parallel threshold", m, n)
	}
	v, u := randTensor[float64](rnd, d, m), randTensor[float64](rnd, d, n)
	var g Graph[float64]
	vn, un := g.Input(v), g.Input(u)
	for _, tc := range []struct {
		name string
		k    *Node[float64]
		a, b *Tensor[float64]
	}{
		{"anchors", g.Gaussian(vn, un, sigma), v, u},
		{"symmetric", g.Gaussian(un, un, sigma), u, u},
	} {
		rows, cols := tc.a.Cols(), tc.b.Cols()
		for i := range rows {
			for j := range cols {
				var dist float64
				for r := range d {
					x := tc.a.At(r, i) - tc.b.At(r, j)
					dist += x * x
				}
				want := math.Exp(-dist / (2 * sigma * sigma))
				if got := tc.k.Value.At(i, j); !scalar.EqualWithinAbsOrRel(got, want, 1e-15, 1e-14) {
					t.Fatalf("%s: K[%d,%d] = %v, want %v", tc.name, i, j, got, want)
				}
			}
		}
	}
}

func TestForwardValues(t *testing.T) {
	var g Graph[float64]
	a := g.Param(Matrix(2, 2, []float64{1, 2, 3, 4}), nil)
	b := g.Input(Matrix(2, 2, []float64{0, 1, 1, 0}))
	prod := g.MatMul(a, b, false, false)
	k := g.Gaussian(a, a, 1)
	l := g.Laplacian(a, b, 2)
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
		// columns (1,3) and (1,0) are 3 apart in the sum of absolute differences
		{"Laplacian", l.Value.At(0, 1), math.Exp(-1.5)},
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
	var g Graph[float64]
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

// TestBackwardOverwrites checks, for every op case, that Backward
// overwrites every gradient the previous call left, however it is
// cleared or overwritten: the gradients after a second call, with NaN
// left in all of them, are those of the first, bit for bit.
func TestBackwardOverwrites(t *testing.T) {
	for _, tc := range opCases[float64]() {
		t.Run(tc.name, func(t *testing.T) {
			c := new(caseGraph[float64])
			rnd := rand.New(rand.NewPCG(1, 1))
			for _, s := range tc.shapes {
				c.params = append(c.params, c.g.Param(randTensor[float64](rnd, s...), nil))
			}
			c.g.Scale(c.params[0], 3) // reached by the backward pass, but not from the loss
			c.out = tc.build(&c.g, c.params)
			c.loss = c.g.Dot(c.out, c.g.Input(randTensor[float64](rnd, c.out.Value.Shape...)))
			extra := c.g.Param(NewTensor[float64](2, 2), nil) // after the loss
			c.g.Backward(c.loss)
			var want [][]float64
			for _, n := range c.g.nodes {
				if n.Grad != nil {
					want = append(want, slices.Clone(n.Grad.Data))
					for i := range n.Grad.Data {
						n.Grad.Data[i] = math.NaN()
					}
				}
			}
			c.g.Backward(c.loss)
			i := 0
			for k, n := range c.g.nodes {
				if n.Grad == nil {
					continue
				}
				if !slices.Equal(n.Grad.Data, want[i]) {
					t.Fatalf("node %d: gradient %v after a second Backward, want %v", k, n.Grad.Data, want[i])
				}
				i++
			}
			if extra.Grad.Data[0] != 0 {
				t.Errorf("a parameter off the loss's path has gradient %v", extra.Grad.Data)
			}
		})
	}
}

// TestSharedGradient checks that a parameter's gradient shared by two
// nodes, one of them off the loss's path, holds the gradient through
// the other (as Params.Node gives every call a node of its own).
func TestSharedGradient(t *testing.T) {
	var g Graph[float64]
	value, grad := Matrix(1, 2, []float64{1, 2}), NewTensor[float64](1, 2)
	w := g.Param(value, grad)
	loss := g.Dot(w, w)
	g.Param(value, grad) // a second node, after the loss
	for range 2 {
		g.Backward(loss)
		if !slices.Equal(grad.Data, []float64{2, 4}) {
			t.Fatalf("shared gradient %v, want [2 4]", grad.Data)
		}
	}
}

// mustPanic runs f as subtest name and fails it unless f panics.
func mustPanic(t *testing.T, name string, f func()) {
	t.Run(name, func(t *testing.T) { testutil.CheckPanic(t, f, "") })
}

func TestShapePanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(g *Graph[float64])
	}{
		{"MatMul", func(g *Graph[float64]) {
			g.MatMul(g.Input(NewTensor[float64](2, 3)), g.Input(NewTensor[float64](2, 3)), false, false)
		}},
		{"Add", func(g *Graph[float64]) { g.Add(g.Input(NewTensor[float64](2, 3)), g.Input(NewTensor[float64](3, 2))) }},
		{"RowBlock", func(g *Graph[float64]) { g.RowBlock(g.Input(NewTensor[float64](2, 3)), 1, 3) }},
		{"SelectCols", func(g *Graph[float64]) { g.SelectCols(g.Input(NewTensor[float64](2, 3)), []int{3}) }},
		{"Gaussian bandwidth", func(g *Graph[float64]) { x := g.Input(NewTensor[float64](2, 3)); g.Gaussian(x, x, 0) }},
		{"labels", func(g *Graph[float64]) { g.SoftmaxCrossEntropy(g.Input(NewTensor[float64](2, 3)), []int{0}) }},
		{"label range", func(g *Graph[float64]) { g.SoftmaxCrossEntropy(g.Input(NewTensor[float64](1, 2)), []int{2}) }},
		{"Backward non-scalar", func(g *Graph[float64]) { x := g.Param(NewTensor[float64](2, 3), nil); g.Backward(x) }},
	} {
		mustPanic(t, tc.name, func() { tc.f(new(Graph[float64])) })
	}
}

// TestReplayAllocates checks that replaying a graph allocates nothing:
// the full-batch optimisers replay it hundreds of times.
func TestReplayAllocates(t *testing.T) {
	t.Run("float64", testReplayAllocates[float64])
	t.Run("float32", testReplayAllocates[float32])
	t.Run("namedFloat32", testReplayAllocates[namedFloat32])
}

func testReplayAllocates[T Float](t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	var g Graph[T]
	a := g.Param(randMatrix[T](rnd, 4, 3), nil)
	x := g.Input(randMatrix[T](rnd, 3, 10))
	z := g.MatMul(a, x, false, false)
	k := g.AddGaussian(g.Gaussian(z, z, 1), z, z, 2)
	loss := g.Add(g.Dot(k, k), g.MSE(g.Tanh(z), g.Exp(z)))
	if n := testing.AllocsPerRun(10, func() {
		g.Forward()
		g.Backward(loss)
	}); n != 0 {
		t.Errorf("%v allocations per Forward and Backward, want 0", n)
	}
}

func BenchmarkGaussian(b *testing.B) {
	b.Run("float64", benchmarkGaussian[float64])
	b.Run("float32", benchmarkGaussian[float32])
}

func benchmarkGaussian[T Float](b *testing.B) {
	for _, n := range []int{36, 100, 400} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rnd := rand.New(rand.NewPCG(1, 1))
			var g Graph[T]
			x := g.Param(randMatrix[T](rnd, 3, n), nil)
			loss := g.Sum(g.Gaussian(x, x, 1))
			for b.Loop() {
				g.Forward()
				g.Backward(loss)
			}
		})
	}
}

// BenchmarkMatMul times the product of two n x n matrices, forward only
// (workload W1) and forward with backward.
func BenchmarkMatMul(b *testing.B) {
	b.Run("float64", benchmarkMatMul[float64])
	b.Run("float32", benchmarkMatMul[float32])
}

func benchmarkMatMul[T Float](b *testing.B) {
	for _, n := range []int{64, 512} {
		rnd := rand.New(rand.NewPCG(1, 1))
		var g Graph[T]
		x, y := g.Param(randMatrix[T](rnd, n, n), nil), g.Param(randMatrix[T](rnd, n, n), nil)
		loss := g.Sum(g.MatMul(x, y, false, false))
		b.Run(fmt.Sprintf("n=%d/forward", n), func(b *testing.B) {
			for b.Loop() {
				g.Forward()
			}
		})
		b.Run(fmt.Sprintf("n=%d/backward", n), func(b *testing.B) {
			for b.Loop() {
				g.Forward()
				g.Backward(loss)
			}
		})
	}
}

// twice is an Op defined as a user outside the package would: 2*x.
type twice struct{}

func (twice) Forward(out *Node[float64]) {
	for i, v := range out.Inputs()[0].Value.Data {
		out.Value.Data[i] = 2 * v
	}
}

func (twice) Backward(out *Node[float64]) {
	if in := out.Inputs()[0]; in.Grad != nil {
		for i, d := range out.Grad.Data {
			in.Grad.Data[i] += 2 * d
		}
	}
}

func TestApply(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	var g Graph[float64]
	x := g.Param(randMatrix[float64](rnd, 2, 3), nil)
	loss := g.Dot(g.Apply(twice{}, x.Value.Shape, x), x)
	if want := 2 * floats.Dot(x.Value.Data, x.Value.Data); !scalar.EqualWithinAbsOrRel(loss.Scalar(), want, 1e-14, 1e-14) {
		t.Errorf("loss %v, want %v", loss.Scalar(), want)
	}
	if e := CheckGradient(&g, loss, []*Node[float64]{x}, 1e-6); e.Rel > 1e-7 {
		t.Errorf("relative gradient error %.3g", e.Rel)
	}
}

// TestGradientsAccumulate checks that every operation adds to the
// gradients of its inputs rather than overwriting them: each node of an
// op case also feeds a linear term of the loss, added to the graph after
// it, whose backward pass runs first and leaves its share in the node's
// gradient; an operation that overwrites that share fails the check.
func TestGradientsAccumulate(t *testing.T) {
	for _, tc := range opCases[float64]() {
		t.Run(tc.name, func(t *testing.T) {
			c := buildCase(tc)
			rnd := rand.New(rand.NewPCG(3, 3))
			loss := c.loss
			for _, n := range slices.Clone(c.g.nodes) {
				if n.Grad != nil && n.Value.Len() > 1 {
					loss = c.g.Add(loss, c.g.Dot(n, c.g.Input(randTensor[float64](rnd, n.Value.Shape...))))
				}
			}
			if e := CheckGradient(&c.g, loss, c.params, 1e-6); e.Rel > 1e-7 {
				t.Errorf("relative gradient error %.3g: parameter %d element %d analytic %v numeric %v",
					e.Rel, e.Param, e.Index, e.Analytic, e.Numeric)
			}
		})
	}
}
