package ad

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

func transOf(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

type matMul struct{ ta, tb bool }

// MatMul returns op(a)*op(b), where op transposes its argument when the
// matching flag is set. The product runs through gonum's BLAS.
func (g *Graph) MatMul(a, b *Node, transA, transB bool) *Node {
	m, k := a.Value.Rows(), a.Value.Cols()
	if transA {
		m, k = k, m
	}
	kb, n := b.Value.Rows(), b.Value.Cols()
	if transB {
		kb, n = n, kb
	}
	if k != kb {
		panic(fmt.Sprintf("ad: MatMul of shapes %v (trans %t) and %v (trans %t)", a.Value.Shape, transA, b.Value.Shape, transB))
	}
	return g.apply(matMul{transA, transB}, []int{m, n}, a, b)
}

func (o matMul) forward(out *Node) {
	a, b := out.inputs[0].Value, out.inputs[1].Value
	blas64.Gemm(transOf(o.ta), transOf(o.tb), 1, a.general(), b.general(), 0, out.Value.general())
}

func (o matMul) backward(out *Node) {
	a, b := out.inputs[0], out.inputs[1]
	dc := out.Grad.general()
	if a.Grad != nil {
		if o.ta {
			blas64.Gemm(transOf(o.tb), blas.Trans, 1, b.Value.general(), dc, 1, a.Grad.general())
		} else {
			blas64.Gemm(blas.NoTrans, transOf(!o.tb), 1, dc, b.Value.general(), 1, a.Grad.general())
		}
	}
	if b.Grad != nil {
		if o.tb {
			blas64.Gemm(blas.Trans, transOf(o.ta), 1, dc, a.Value.general(), 1, b.Grad.general())
		} else {
			blas64.Gemm(transOf(!o.ta), blas.NoTrans, 1, a.Value.general(), dc, 1, b.Grad.general())
		}
	}
}

type binaryKind int

const (
	add binaryKind = iota
	sub
	mul
)

type binary struct{ kind binaryKind }

// Add returns a+b elementwise.
func (g *Graph) Add(a, b *Node) *Node { return g.binary(add, a, b) }

// Sub returns a-b elementwise.
func (g *Graph) Sub(a, b *Node) *Node { return g.binary(sub, a, b) }

// Mul returns the elementwise (Hadamard) product of a and b.
func (g *Graph) Mul(a, b *Node) *Node { return g.binary(mul, a, b) }

func (g *Graph) binary(k binaryKind, a, b *Node) *Node {
	if !a.Value.sameShape(b.Value) {
		panic(fmt.Sprintf("ad: elementwise operation on shapes %v and %v", a.Value.Shape, b.Value.Shape))
	}
	return g.apply(binary{k}, a.Value.Shape, a, b)
}

func (o binary) forward(out *Node) {
	a, b, c := out.inputs[0].Value.Data, out.inputs[1].Value.Data, out.Value.Data
	switch o.kind {
	case add:
		for i := range c {
			c[i] = a[i] + b[i]
		}
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

func (o binary) backward(out *Node) {
	a, b, dc := out.inputs[0], out.inputs[1], out.Grad.Data
	if a.Grad != nil {
		da := a.Grad.Data
		if o.kind == mul {
			bv := b.Value.Data
			for i, d := range dc {
				da[i] += d * bv[i]
			}
		} else {
			for i, d := range dc {
				da[i] += d
			}
		}
	}
	if b.Grad != nil {
		db := b.Grad.Data
		switch o.kind {
		case add:
			for i, d := range dc {
				db[i] += d
			}
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

type scale struct{ c float64 }

// Scale returns c*a.
func (g *Graph) Scale(a *Node, c float64) *Node { return g.apply(scale{c}, a.Value.Shape, a) }

func (o scale) forward(out *Node) {
	a := out.inputs[0].Value.Data
	for i := range out.Value.Data {
		out.Value.Data[i] = o.c * a[i]
	}
}

func (o scale) backward(out *Node) {
	if da := out.inputs[0].Grad; da != nil {
		for i, d := range out.Grad.Data {
			da.Data[i] += o.c * d
		}
	}
}

type addCol struct{}

// AddCol returns a with the column vector b (rows x 1) added to each of
// its columns: a bias added to every sample.
func (g *Graph) AddCol(a, b *Node) *Node {
	if b.Value.Cols() != 1 || b.Value.Rows() != a.Value.Rows() {
		panic(fmt.Sprintf("ad: AddCol of shapes %v and %v", a.Value.Shape, b.Value.Shape))
	}
	return g.apply(addCol{}, a.Value.Shape, a, b)
}

func (addCol) forward(out *Node) {
	a, b := out.inputs[0].Value, out.inputs[1].Value.Data
	n := a.Cols()
	for i, bi := range b {
		row, dst := a.Data[i*n:(i+1)*n], out.Value.Data[i*n:(i+1)*n]
		for j, v := range row {
			dst[j] = v + bi
		}
	}
}

func (addCol) backward(out *Node) {
	a, b := out.inputs[0], out.inputs[1]
	n := out.Value.Cols()
	for i := range out.Value.Rows() {
		row := out.Grad.Data[i*n : (i+1)*n]
		if a.Grad != nil {
			da := a.Grad.Data[i*n : (i+1)*n]
			for j, d := range row {
				da[j] += d
			}
		}
		if b.Grad != nil {
			s := 0.0
			for _, d := range row {
				s += d
			}
			b.Grad.Data[i] += s
		}
	}
}

// unary is an elementwise function; df gives the derivative from the
// input x and the output y, whichever is cheaper.
type unary struct {
	f  func(x float64) float64
	df func(x, y float64) float64
}

var (
	tanhOp    = unary{math.Tanh, func(_, y float64) float64 { return 1 - y*y }}
	sigmoidOp = unary{sigmoid, func(_, y float64) float64 { return y * (1 - y) }}
	reluOp    = unary{relu, func(x, _ float64) float64 { return step(x) }}
	expOp     = unary{math.Exp, func(_, y float64) float64 { return y }}
	squareOp  = unary{func(x float64) float64 { return x * x }, func(x, _ float64) float64 { return 2 * x }}
)

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func relu(x float64) float64 { return math.Max(x, 0) }

func step(x float64) float64 {
	if x > 0 {
		return 1
	}
	return 0
}

// Tanh returns tanh(a) elementwise.
func (g *Graph) Tanh(a *Node) *Node { return g.apply(tanhOp, a.Value.Shape, a) }

// Sigmoid returns the logistic function of a, elementwise.
func (g *Graph) Sigmoid(a *Node) *Node { return g.apply(sigmoidOp, a.Value.Shape, a) }

// ReLU returns max(a, 0) elementwise.
func (g *Graph) ReLU(a *Node) *Node { return g.apply(reluOp, a.Value.Shape, a) }

// Exp returns e^a elementwise.
func (g *Graph) Exp(a *Node) *Node { return g.apply(expOp, a.Value.Shape, a) }

// Square returns a^2 elementwise.
func (g *Graph) Square(a *Node) *Node { return g.apply(squareOp, a.Value.Shape, a) }

func (o unary) forward(out *Node) {
	a := out.inputs[0].Value.Data
	for i, x := range a {
		out.Value.Data[i] = o.f(x)
	}
}

func (o unary) backward(out *Node) {
	in := out.inputs[0]
	if in.Grad == nil {
		return
	}
	x, y := in.Value.Data, out.Value.Data
	for i, d := range out.Grad.Data {
		in.Grad.Data[i] += d * o.df(x[i], y[i])
	}
}

type sum struct{}

// Sum returns the sum of all elements of a, as a 1x1 node.
func (g *Graph) Sum(a *Node) *Node { return g.apply(sum{}, []int{1, 1}, a) }

func (sum) forward(out *Node) {
	s := 0.0
	for _, v := range out.inputs[0].Value.Data {
		s += v
	}
	out.Value.Data[0] = s
}

func (sum) backward(out *Node) {
	if da := out.inputs[0].Grad; da != nil {
		d := out.Grad.Data[0]
		for i := range da.Data {
			da.Data[i] += d
		}
	}
}

type dot struct{}

// Dot returns the Frobenius inner product sum(a .* b) as a 1x1 node. Dot(a, a)
// is the squared norm of a.
func (g *Graph) Dot(a, b *Node) *Node {
	if !a.Value.sameShape(b.Value) {
		panic(fmt.Sprintf("ad: Dot of shapes %v and %v", a.Value.Shape, b.Value.Shape))
	}
	return g.apply(dot{}, []int{1, 1}, a, b)
}

func (dot) forward(out *Node) {
	a, b := out.inputs[0].Value.Data, out.inputs[1].Value.Data
	out.Value.Data[0] = blas64.Dot(blas64.Vector{N: len(a), Inc: 1, Data: a}, blas64.Vector{N: len(b), Inc: 1, Data: b})
}

func (dot) backward(out *Node) {
	a, b := out.inputs[0], out.inputs[1]
	d := out.Grad.Data[0]
	if a.Grad != nil {
		axpy(d, b.Value.Data, a.Grad.Data)
	}
	if b.Grad != nil {
		axpy(d, a.Value.Data, b.Grad.Data)
	}
}

// axpy adds alpha*x to y.
func axpy(alpha float64, x, y []float64) {
	blas64.Axpy(alpha, blas64.Vector{N: len(x), Inc: 1, Data: x}, blas64.Vector{N: len(y), Inc: 1, Data: y})
}

type rowBlock struct{ lo, hi int }

// RowBlock returns rows lo..hi-1 of a matrix.
func (g *Graph) RowBlock(a *Node, lo, hi int) *Node {
	if lo < 0 || hi > a.Value.Rows() || lo > hi {
		panic(fmt.Sprintf("ad: rows %d:%d of shape %v", lo, hi, a.Value.Shape))
	}
	return g.apply(rowBlock{lo, hi}, []int{hi - lo, a.Value.Cols()}, a)
}

func (o rowBlock) forward(out *Node) {
	a := out.inputs[0].Value
	n := a.Cols()
	copy(out.Value.Data, a.Data[o.lo*n:o.hi*n])
}

func (o rowBlock) backward(out *Node) {
	if da := out.inputs[0].Grad; da != nil {
		n := da.Cols()
		axpy(1, out.Grad.Data, da.Data[o.lo*n:o.hi*n])
	}
}

type selectCols struct{ idx []int }

// SelectCols returns the columns of a listed in idx, in that order; a
// column may be listed more than once.
func (g *Graph) SelectCols(a *Node, idx []int) *Node {
	for _, j := range idx {
		if j < 0 || j >= a.Value.Cols() {
			panic(fmt.Sprintf("ad: column %d of shape %v", j, a.Value.Shape))
		}
	}
	return g.apply(selectCols{append([]int(nil), idx...)}, []int{a.Value.Rows(), len(idx)}, a)
}

func (o selectCols) forward(out *Node) {
	a := out.inputs[0].Value
	n, m := a.Cols(), len(o.idx)
	for i := range a.Rows() {
		src, dst := a.Data[i*n:(i+1)*n], out.Value.Data[i*m:(i+1)*m]
		for k, j := range o.idx {
			dst[k] = src[j]
		}
	}
}

func (o selectCols) backward(out *Node) {
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
