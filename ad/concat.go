package ad

import "fmt"

type concatRows[T Float] struct{}

// ConcatRows returns the rows of a followed by those of b, which must
// have as many columns: two batches stacked into one. A layer that
// computes learned points together with a batch, such as the anchors of
// a kernel machine, stacks them this way.
func (g *Graph[T]) ConcatRows(a, b *Node[T]) *Node[T] {
	if len(a.Value.Shape) != 2 || len(b.Value.Shape) != 2 || a.Value.Cols() != b.Value.Cols() {
		panic(fmt.Errorf("%w: ad: ConcatRows of shapes %v and %v", ErrShape, a.Value.Shape, b.Value.Shape))
	}
	return g.apply(concatRows[T]{}, []int{a.Value.Rows() + b.Value.Rows(), a.Value.Cols()}, a, b)
}

func (concatRows[T]) forward(out *Node[T]) {
	a := out.inputs[0].Value.Data
	copy(out.Value.Data, a)
	copy(out.Value.Data[len(a):], out.inputs[1].Value.Data)
}

func (concatRows[T]) backward(out *Node[T]) {
	lo := 0
	for _, in := range out.inputs {
		n := in.Value.Len()
		if in.Grad != nil {
			axpy(1, out.Grad.Data[lo:lo+n], in.Grad.Data)
		}
		lo += n
	}
}
