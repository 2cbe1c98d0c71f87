package ad

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
)

func transOf(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

type matMul[T Float] struct{ ta, tb bool }

// MatMul returns op(a)*op(b), where op transposes its argument when the
// matching flag is set. The product is gonum's Gemm, computed by
// internal/matmul's assembly kernels where the processor has AVX and FMA.
func (g *Graph[T]) MatMul(a, b *Node[T], transA, transB bool) *Node[T] {
	m, k := a.Value.Rows(), a.Value.Cols()
	if transA {
		m, k = k, m
	}
	kb, n := b.Value.Rows(), b.Value.Cols()
	if transB {
		kb, n = n, kb
	}
	if k != kb {
		panic(fmt.Errorf("%w: ad: MatMul of shapes %v (trans %t) and %v (trans %t)", ErrShape, a.Value.Shape, transA, b.Value.Shape, transB))
	}
	return g.apply(matMul[T]{transA, transB}, []int{m, n}, a, b)
}

func (o matMul[T]) forward(out *Node[T]) {
	a, b := out.inputs[0].Value, out.inputs[1].Value
	gemm(transOf(o.ta), transOf(o.tb), 1, a, b, 0, out.Value)
}

func (o matMul[T]) backward(out *Node[T]) {
	a, b := out.inputs[0], out.inputs[1]
	dc := out.Grad
	if a.Grad != nil {
		if o.ta {
			gemm(transOf(o.tb), blas.Trans, 1, b.Value, dc, 1, a.Grad)
		} else {
			gemm(blas.NoTrans, transOf(!o.tb), 1, dc, b.Value, 1, a.Grad)
		}
	}
	if b.Grad != nil {
		if o.tb {
			gemm(blas.Trans, transOf(o.ta), 1, dc, a.Value, 1, b.Grad)
		} else {
			gemm(transOf(!o.ta), blas.NoTrans, 1, a.Value, dc, 1, b.Grad)
		}
	}
}

type binaryKind int

const (
	add binaryKind = iota
	sub
	mul
)

type binary[T Float] struct{ kind binaryKind }

// Add returns a+b elementwise.
func (g *Graph[T]) Add(a, b *Node[T]) *Node[T] { return g.binary(add, a, b) }

// Sub returns a-b elementwise.
func (g *Graph[T]) Sub(a, b *Node[T]) *Node[T] { return g.binary(sub, a, b) }

// Mul returns the elementwise (Hadamard) product of a and b.
func (g *Graph[T]) Mul(a, b *Node[T]) *Node[T] { return g.binary(mul, a, b) }

func (g *Graph[T]) binary(k binaryKind, a, b *Node[T]) *Node[T] {
	if !a.Value.sameShape(b.Value) {
		panic(fmt.Errorf("%w: ad: elementwise operation on shapes %v and %v", ErrShape, a.Value.Shape, b.Value.Shape))
	}
	return g.apply(binary[T]{k}, a.Value.Shape, a, b)
}

func (o binary[T]) forward(out *Node[T]) {
	a, b, c := out.inputs[0].Value.Data, out.inputs[1].Value.Data, out.Value.Data
	switch o.kind {
	case add:
		addTo(c, a, b)
	case sub:
		for i := range c {
			c[i] = a[i] - b[i]
		}
	case mul:
		for i := range c {
			c[i] = a[i] * b[i]
		}
	}
}

func (o binary[T]) backward(out *Node[T]) {
	a, b, dc := out.inputs[0], out.inputs[1], out.Grad.Data
	if a.Grad != nil {
		da := a.Grad.Data
		if o.kind == mul {
			bv := b.Value.Data
			for i, d := range dc {
				da[i] += d * bv[i]
			}
		} else {
			addTo(da, da, dc)
		}
	}
	if b.Grad != nil {
		db := b.Grad.Data
		switch o.kind {
		case add:
			addTo(db, db, dc)
		case sub:
			for i, d := range dc {
				db[i] -= d
			}
		case mul:
			av := a.Value.Data
			for i, d := range dc {
				db[i] += d * av[i]
			}
		}
	}
}

type scale[T Float] struct{ c T }

// Scale returns c*a.
func (g *Graph[T]) Scale(a *Node[T], c T) *Node[T] { return g.apply(scale[T]{c}, a.Value.Shape, a) }

func (o scale[T]) forward(out *Node[T]) {
	a := out.inputs[0].Value.Data
	for i := range out.Value.Data {
		out.Value.Data[i] = o.c * a[i]
	}
}

func (o scale[T]) backward(out *Node[T]) {
	if da := out.inputs[0].Grad; da != nil {
		for i, d := range out.Grad.Data {
			da.Data[i] += o.c * d
		}
	}
}

type addRow[T Float] struct{}

// AddRow returns a with the row vector b (1 x cols) added to each of its
// rows: a bias added to every sample.
func (g *Graph[T]) AddRow(a, b *Node[T]) *Node[T] {
	if b.Value.Rows() != 1 || b.Value.Cols() != a.Value.Cols() {
		panic(fmt.Errorf("%w: ad: AddRow of shapes %v and %v: want a 1 x %d bias for a batch of shape %v (samples x features)", ErrShape,
			a.Value.Shape, b.Value.Shape, a.Value.Cols(), a.Value.Shape))
	}
	return g.apply(addRow[T]{}, a.Value.Shape, a, b)
}

func (addRow[T]) forward(out *Node[T]) {
	a, b := out.inputs[0].Value, out.inputs[1].Value.Data
	n := len(b)
	for i := range a.Rows() {
		row, dst := a.Data[i*n:(i+1)*n], out.Value.Data[i*n:(i+1)*n]
		addTo(dst, row, b)
	}
}

func (addRow[T]) backward(out *Node[T]) {
	a, b := out.inputs[0], out.inputs[1]
	if a.Grad != nil {
		axpy(1, out.Grad.Data, a.Grad.Data)
	}
	if b.Grad != nil {
		n := len(b.Grad.Data)
		for i := range out.Value.Rows() {
			axpy(1, out.Grad.Data[i*n:(i+1)*n], b.Grad.Data)
		}
	}
}

// unary is an elementwise function; df gives the derivative from the
// input x and the output y, whichever is cheaper. Both compute in float64
// whatever the element type: the transcendental functions of package math
// are float64 only, and converting a float32 to float64 and back is exact
// up to the final rounding.
type unary[T Float] struct {
	f  func(x float64) float64
	df func(x, y float64) float64
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func square(x float64) float64 { return x * x }

func dTanh(_, y float64) float64 { return 1 - y*y }

func dSigmoid(_, y float64) float64 { return y * (1 - y) }

func dExp(_, y float64) float64 { return y }

func dSquare(x, _ float64) float64 { return 2 * x }

// Tanh returns tanh(a) elementwise.
func (g *Graph[T]) Tanh(a *Node[T]) *Node[T] { return g.unary(math.Tanh, dTanh, a) }

// Sigmoid returns the logistic function of a, elementwise.
func (g *Graph[T]) Sigmoid(a *Node[T]) *Node[T] { return g.unary(sigmoid, dSigmoid, a) }

// reluOp is ReLU with its own loops: as a unary it cost a call and an
// unpredictable branch per element, most of the time of a small conv net.
type reluOp[T Float] struct{}

// ReLU returns max(a, 0) elementwise.
func (g *Graph[T]) ReLU(a *Node[T]) *Node[T] { return g.apply(reluOp[T]{}, a.Value.Shape, a) }

func (reluOp[T]) forward(out *Node[T]) {
	a := out.inputs[0].Value.Data
	y := out.Value.Data[:len(a)]
	for i, v := range a {
		y[i] = max(v, 0)
	}
}

func (reluOp[T]) backward(out *Node[T]) {
	if in := out.inputs[0]; in.Grad != nil {
		addInside(in.Grad.Data, out.Grad.Data, in.Value.Data, T(math.Inf(1)))
	}
}

// Exp returns e^a elementwise.
func (g *Graph[T]) Exp(a *Node[T]) *Node[T] { return g.unary(math.Exp, dExp, a) }

// Square returns a^2 elementwise.
func (g *Graph[T]) Square(a *Node[T]) *Node[T] { return g.unary(square, dSquare, a) }

func (g *Graph[T]) unary(f func(x float64) float64, df func(x, y float64) float64, a *Node[T]) *Node[T] {
	return g.apply(unary[T]{f, df}, a.Value.Shape, a)
}

func (o unary[T]) forward(out *Node[T]) {
	a := out.inputs[0].Value.Data
	for i, x := range a {
		out.Value.Data[i] = T(o.f(float64(x)))
	}
}

func (o unary[T]) backward(out *Node[T]) {
	in := out.inputs[0]
	if in.Grad == nil {
		return
	}
	x, y := in.Value.Data, out.Value.Data
	for i, d := range out.Grad.Data {
		in.Grad.Data[i] += d * T(o.df(float64(x[i]), float64(y[i])))
	}
}

type sum[T Float] struct{}

// Sum returns the sum of all elements of a, as a 1x1 node.
func (g *Graph[T]) Sum(a *Node[T]) *Node[T] { return g.apply(sum[T]{}, []int{1, 1}, a) }

func (sum[T]) forward(out *Node[T]) {
	var s T
	for _, v := range out.inputs[0].Value.Data {
		s += v
	}
	out.Value.Data[0] = s
}

func (sum[T]) backward(out *Node[T]) {
	if da := out.inputs[0].Grad; da != nil {
		d := out.Grad.Data[0]
		for i := range da.Data {
			da.Data[i] += d
		}
	}
}

type dotOp[T Float] struct{}

// Dot returns the Frobenius inner product sum(a .* b) as a 1x1 node. Dot(a, a)
// is the squared norm of a.
func (g *Graph[T]) Dot(a, b *Node[T]) *Node[T] {
	if !a.Value.sameShape(b.Value) {
		panic(fmt.Errorf("%w: ad: Dot of shapes %v and %v", ErrShape, a.Value.Shape, b.Value.Shape))
	}
	return g.apply(dotOp[T]{}, []int{1, 1}, a, b)
}

func (dotOp[T]) forward(out *Node[T]) {
	out.Value.Data[0] = dot(out.inputs[0].Value.Data, out.inputs[1].Value.Data)
}

func (dotOp[T]) backward(out *Node[T]) {
	a, b := out.inputs[0], out.inputs[1]
	d := out.Grad.Data[0]
	if a.Grad != nil {
		axpy(d, b.Value.Data, a.Grad.Data)
	}
	if b.Grad != nil {
		axpy(d, a.Value.Data, b.Grad.Data)
	}
}

type rowBlock[T Float] struct{ lo, hi int }

// RowBlock returns rows lo..hi-1 of a matrix.
func (g *Graph[T]) RowBlock(a *Node[T], lo, hi int) *Node[T] {
	if lo < 0 || hi > a.Value.Rows() || lo > hi {
		panic(fmt.Errorf("%w: ad: rows %d:%d of shape %v", ErrShape, lo, hi, a.Value.Shape))
	}
	return g.apply(rowBlock[T]{lo, hi}, []int{hi - lo, a.Value.Cols()}, a)
}

func (o rowBlock[T]) forward(out *Node[T]) {
	a := out.inputs[0].Value
	n := a.Cols()
	copy(out.Value.Data, a.Data[o.lo*n:o.hi*n])
}

func (o rowBlock[T]) backward(out *Node[T]) {
	if da := out.inputs[0].Grad; da != nil {
		n := da.Cols()
		axpy(1, out.Grad.Data, da.Data[o.lo*n:o.hi*n])
	}
}

type selectCols[T Float] struct{ idx []int }

// SelectCols returns the columns of a listed in idx, in that order; a
// column may be listed more than once.
func (g *Graph[T]) SelectCols(a *Node[T], idx []int) *Node[T] {
	for _, j := range idx {
		if j < 0 || j >= a.Value.Cols() {
			panic(fmt.Errorf("%w: ad: column %d of shape %v", ErrShape, j, a.Value.Shape))
		}
	}
	return g.apply(selectCols[T]{append([]int(nil), idx...)}, []int{a.Value.Rows(), len(idx)}, a)
}

func (o selectCols[T]) forward(out *Node[T]) {
	a := out.inputs[0].Value
	n, m := a.Cols(), len(o.idx)
	for i := range a.Rows() {
		src, dst := a.Data[i*n:(i+1)*n], out.Value.Data[i*m:(i+1)*m]
		for k, j := range o.idx {
			dst[k] = src[j]
		}
	}
}

func (o selectCols[T]) backward(out *Node[T]) {
	da := out.inputs[0].Grad
	if da == nil {
		return
	}
	n, m := da.Cols(), len(o.idx)
	for i := range da.Rows() {
		src, dst := out.Grad.Data[i*m:(i+1)*m], da.Data[i*n:(i+1)*n]
		for k, j := range o.idx {
			dst[j] += src[k]
		}
	}
}
