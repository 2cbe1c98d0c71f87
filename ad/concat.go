package ad

import "fmt"

type concatCols[T Float] struct{}

// ConcatCols returns the matrix [a b]: the columns of a followed by
// those of b, which must have as many rows. A layer that computes
// learned points together with a batch, such as the anchors of a kernel
// machine, stacks them this way.
func (g *Graph[T]) ConcatCols(a, b *Node[T]) *Node[T] {
	if a.Value.Rows() != b.Value.Rows() {
		panic(fmt.Sprintf("ad: ConcatCols of shapes %v and %v", a.Value.Shape, b.Value.Shape))
	}
	return g.apply(concatCols[T]{}, []int{a.Value.Rows(), a.Value.Cols() + b.Value.Cols()}, a, b)
}

func (concatCols[T]) forward(out *Node[T]) {
	a, b := out.inputs[0].Value, out.inputs[1].Value
	na, nb, n := a.Cols(), b.Cols(), out.Value.Cols()
	for i := range a.Rows() {
		copy(out.Value.Data[i*n:i*n+na], a.Data[i*na:(i+1)*na])
		copy(out.Value.Data[i*n+na:(i+1)*n], b.Data[i*nb:(i+1)*nb])
	}
}

func (concatCols[T]) backward(out *Node[T]) {
	n := out.Value.Cols()
	lo := 0
	for _, in := range out.inputs {
		m := in.Value.Cols()
		if in.Grad != nil {
			for i := range in.Value.Rows() {
				axpy(1, out.Grad.Data[i*n+lo:i*n+lo+m], in.Grad.Data[i*m:(i+1)*m])
			}
		}
		lo += m
	}
}
