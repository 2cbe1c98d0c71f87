package ad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestImageOpValues(t *testing.T) {
	var g Graph[float64]
	x := g.Param(View([]float64{
		1, 5, 2, 0,
		3, 4, 8, -1,
	}, 1, 1, 2, 4), nil)
	pool := g.MaxPool2(x)
	up := g.Upsample2(g.Input(View([]float64{1, 2, 3, 4}, 1, 2, 1, 2)))
	flat := g.Reshape(x, 2, 4)
	tr := g.Transpose(flat)
	for _, tc := range []struct {
		name      string
		got, want *Tensor[float64]
	}{
		{"MaxPool2", pool.Value, View([]float64{5, 8}, 1, 1, 1, 2)},
		{"Upsample2", up.Value, View([]float64{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, 1, 2, 2, 4)},
		{"Reshape", flat.Value, View([]float64{1, 5, 2, 0, 3, 4, 8, -1}, 2, 4)},
		{"Transpose", tr.Value, View([]float64{1, 3, 5, 4, 2, 8, 0, -1}, 4, 2)},
	} {
		if !tc.got.sameShape(tc.want) || !slices.Equal(tc.got.Data, tc.want.Data) {
			t.Errorf("%s = %v %v, want %v %v", tc.name, tc.got.Shape, tc.got.Data, tc.want.Shape, tc.want.Data)
		}
	}
	g.Backward(g.Sum(pool))
	if want := []float64{0, 1, 0, 0, 0, 0, 1, 0}; !slices.Equal(x.Grad.Data, want) {
		t.Errorf("MaxPool2 gradient %v, want %v", x.Grad.Data, want)
	}
	// Ties go to the first maximum in row-major order.
	for _, tc := range []struct{ x, grad []float64 }{
		{[]float64{2, 2, 2, 2}, []float64{1, 0, 0, 0}},
		{[]float64{1, 3, 3, 1}, []float64{0, 1, 0, 0}},
		{[]float64{1, 0, 3, 3}, []float64{0, 0, 1, 0}},
		{[]float64{0, 1, 0, 1}, []float64{0, 1, 0, 0}},
	} {
		var g Graph[float64]
		x := g.Param(View(slices.Clone(tc.x), 1, 1, 2, 2), nil)
		g.Backward(g.Sum(g.MaxPool2(x)))
		if !slices.Equal(x.Grad.Data, tc.grad) {
			t.Errorf("MaxPool2 gradient at %v: %v, want %v", tc.x, x.Grad.Data, tc.grad)
		}
	}
}

// TestReLU6 checks ReLU6 and its derivative at and around the corners,
// where the derivative is 0, and on special values.
func TestReLU6(t *testing.T) {
	t.Run("float64", testReLU6[float64])
	t.Run("float32", testReLU6[float32])
	t.Run("namedFloat32", testReLU6[namedFloat32])
}

func testReLU6[T Float](t *testing.T) {
	inf := math.Inf(1)
	tiny := math.SmallestNonzeroFloat64
	if single[T]() {
		tiny = math.SmallestNonzeroFloat32
	}
	below6 := math.Nextafter(6, 0)
	if single[T]() {
		below6 = float64(math.Nextafter32(6, 0))
	}
	for _, tc := range []struct{ x, y, dy float64 }{
		{-inf, 0, 0}, {-1, 0, 0}, {math.Copysign(0, -1), 0, 0}, {0, 0, 0},
		{tiny, tiny, 1}, {3, 3, 1}, {below6, below6, 1},
		{6, 6, 0}, {7, 6, 0}, {inf, 6, 0},
	} {
		var g Graph[T]
		x := g.Param(View([]T{T(tc.x)}, 1, 1), nil)
		y := g.ReLU6(x)
		g.Backward(y)
		if got := float64(y.Scalar()); got != tc.y {
			t.Errorf("ReLU6(%v) = %v, want %v", tc.x, got, tc.y)
		}
		if got := float64(x.Grad.Data[0]); got != tc.dy {
			t.Errorf("derivative of ReLU6 at %v = %v, want %v", tc.x, got, tc.dy)
		}
	}
	var g Graph[T]
	x := g.Param(View([]T{T(math.NaN())}, 1, 1), nil)
	y := g.ReLU6(x)
	g.Backward(y)
	if y.IsFinite() || x.Grad.Data[0] != 0 {
		t.Errorf("ReLU6(NaN) = %v with derivative %v, want NaN and 0", y.Scalar(), x.Grad.Data[0])
	}
}

func TestImageShapePanics(t *testing.T) {
	img := func(g *Graph[float64], shape ...int) *Node[float64] { return g.Input(NewTensor[float64](shape...)) }
	for _, tc := range []struct {
		name string
		f    func(g *Graph[float64])
	}{
		{"Conv2D input not 4-D", func(g *Graph[float64]) { g.Conv2D(img(g, 1, 5, 5), img(g, 1, 1, 3, 3), 1) }},
		{"Conv2D kernel not 4-D", func(g *Graph[float64]) { g.Conv2D(img(g, 1, 1, 5, 5), img(g, 1, 3, 3), 1) }},
		{"Conv2D channels", func(g *Graph[float64]) { g.Conv2D(img(g, 1, 2, 5, 5), img(g, 1, 3, 3, 3), 1) }},
		{"Conv2D kernel too tall", func(g *Graph[float64]) { g.Conv2D(img(g, 1, 1, 2, 5), img(g, 1, 1, 5, 3), 1) }},
		{"Conv2D kernel too wide", func(g *Graph[float64]) { g.Conv2D(img(g, 1, 1, 5, 2), img(g, 1, 1, 3, 3), 0) }},
		{"Conv2D negative padding", func(g *Graph[float64]) { g.Conv2D(img(g, 1, 1, 5, 5), img(g, 1, 1, 3, 3), -1) }},
		{"Conv2D empty kernel", func(g *Graph[float64]) { g.Conv2D(img(g, 1, 1, 5, 5), img(g, 0, 1, 3, 3), 1) }},
		{"MaxPool2 odd height", func(g *Graph[float64]) { g.MaxPool2(img(g, 1, 1, 3, 4)) }},
		{"MaxPool2 odd width", func(g *Graph[float64]) { g.MaxPool2(img(g, 1, 1, 4, 5)) }},
		{"MaxPool2 not 4-D", func(g *Graph[float64]) { g.MaxPool2(img(g, 4, 4)) }},
		{"Upsample2 not 4-D", func(g *Graph[float64]) { g.Upsample2(img(g, 1, 4, 4)) }},
		{"Reshape size", func(g *Graph[float64]) { g.Reshape(img(g, 2, 3), 5) }},
		{"Reshape negative", func(g *Graph[float64]) { g.Reshape(img(g, 2, 3), -2, -3) }},
		{"Transpose not a matrix", func(g *Graph[float64]) { g.Transpose(img(g, 1, 2, 3)) }},
	} {
		mustPanic(t, tc.name, func() { tc.f(new(Graph[float64])) })
	}
}

// TestImageReplayAllocates checks that replaying a graph of image
// operations allocates nothing: each keeps its scratch from the graph's
// construction.
func TestImageReplayAllocates(t *testing.T) {
	t.Run("float64", testImageReplayAllocates[float64])
	for _, vec := range []bool{false, true} {
		t.Run(fmt.Sprintf("float32/vec=%t", vec), func(t *testing.T) { withVec(t, vec, testImageReplayAllocates[float32]) })
	}
	t.Run("namedFloat32", testImageReplayAllocates[namedFloat32])
}

func testImageReplayAllocates[T Float](t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	var g Graph[T]
	x := g.Input(randTensor[T](rnd, 4, 1, 8, 8))
	w1 := g.Param(randTensor[T](rnd, 3, 1, 3, 3), nil)
	w2 := g.Param(randTensor[T](rnd, 2, 3, 3, 3), nil)
	head := g.Param(randTensor[T](rnd, 5, 2*3*3), nil)
	h := g.MaxPool2(g.ReLU6(g.Conv2D(x, w1, 1)))
	h = g.Conv2D(g.Upsample2(h), w2, 0)
	h = g.MaxPool2(g.ReLU6(h))
	logits := g.MatMul(g.Reshape(h, 4, 2*3*3), head, false, true)
	loss := g.SoftmaxCrossEntropy(logits, []int{0, 4, 2, 1})
	if n := testing.AllocsPerRun(10, func() {
		g.Forward()
		g.Backward(loss)
	}); n != 0 {
		t.Errorf("%v allocations per Forward and Backward, want 0", n)
	}
}

// BenchmarkImageOps times the elementwise and resampling operations
// forward and backward on a batch of 32 images of 4 channels.
func BenchmarkImageOps(b *testing.B) {
	b.Run("float32", benchmarkImageOps[float32])
	b.Run("float64", benchmarkImageOps[float64])
}

func benchmarkImageOps[T Float](b *testing.B) {
	ops := []struct {
		name string
		f    func(g *Graph[T], x *Node[T]) *Node[T]
	}{
		{"ReLU6", (*Graph[T]).ReLU6},
		{"MaxPool2", (*Graph[T]).MaxPool2},
		{"Upsample2", (*Graph[T]).Upsample2},
		{"Flatten", func(g *Graph[T], x *Node[T]) *Node[T] {
			s := x.Value.Shape
			return g.Reshape(x, s[0], s[1]*s[2]*s[3])
		}},
	}
	for _, op := range ops {
		for _, size := range []int{14, 28} {
			rnd := rand.New(rand.NewPCG(1, 1))
			var g Graph[T]
			x := g.Param(randTensor[T](rnd, 32, 4, size, size), nil)
			for i := range x.Value.Data {
				x.Value.Data[i] *= 8
			}
			y := op.f(&g, x)
			for i := range y.Grad.Data {
				y.Grad.Data[i] = 1
			}
			b.Run(fmt.Sprintf("%s/size=%d", op.name, size), func(b *testing.B) {
				for b.Loop() {
					y.op.forward(y)
					y.op.backward(y)
				}
			})
		}
	}
}
