package ad

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// mustImages panics unless shape is that of a batch of images, [N C H W].
func mustImages(op string, shape []int) {
	if len(shape) != 4 {
		panic(fmt.Errorf("%w: ad: %s of shape %v, want [N C H W]", ErrShape, op, shape))
	}
}

// maxPool2 keeps, for each output element, the index into the input of
// the maximum it took, for the backward pass.
type maxPool2[T Float] struct{ arg []int32 }

// MaxPool2 returns the maximum of each 2x2 block of every image of x
// ([N C H W], H and W even): a [N C H/2 W/2] result. The gradient flows
// to the element that was the maximum, the first one in row-major order
// on ties.
func (g *Graph[T]) MaxPool2(x *Node[T]) *Node[T] {
	s := x.Value.Shape
	mustImages("MaxPool2", s)
	if s[2]%2 != 0 || s[3]%2 != 0 {
		panic(fmt.Errorf("%w: ad: MaxPool2 of shape %v: height and width must be even", ErrShape, s))
	}
	if int64(x.Value.Len()) > math.MaxInt32 {
		panic(fmt.Errorf("%w: ad: MaxPool2 of shape %v: too large", ErrShape, s))
	}
	o := &maxPool2[T]{arg: make([]int32, x.Value.Len()/4)}
	return g.apply(o, []int{s[0], s[1], s[2] / 2, s[3] / 2}, x)
}

func (o *maxPool2[T]) forward(out *Node[T]) {
	x := out.inputs[0].Value
	w := x.Shape[3]
	y := out.Value.Data
	wo := w / 2
	// Two input rows make one output row. A knockout of the two pairs
	// of a block, each choice an integer conditional move and a float
	// maximum rather than a branch: the branches of a running maximum
	// are unpredictable on activations, and made the operation over
	// twice as slow.
	// A tie goes to the element first in row-major order.
	for r := range len(y) / wo {
		top := 2 * r * w
		a, b := x.Data[top:top+w], x.Data[top+w:top+2*w]
		yr, ar := y[r*wo:(r+1)*wo], o.arg[r*wo:(r+1)*wo]
		for j := range yr {
			i := 2 * j
			ia, ib := top+i, top+w+i
			if a[i+1] > a[i] {
				ia++
			}
			if b[i+1] > b[i] {
				ib++
			}
			ma, mb := max(a[i], a[i+1]), max(b[i], b[i+1])
			if mb > ma {
				ia = ib
			}
			yr[j], ar[j] = max(ma, mb), int32(ia)
		}
	}
}

func (o *maxPool2[T]) backward(out *Node[T]) {
	dx := out.inputs[0].Grad
	if dx == nil {
		return
	}
	for i, d := range out.Grad.Data {
		dx.Data[o.arg[i]] += d
	}
}

type upsample2[T Float] struct{}

// Upsample2 returns every image of x ([N C H W]) enlarged twice in height
// and width by repeating each element over a 2x2 block (nearest
// neighbour): a [N C 2H 2W] result.
func (g *Graph[T]) Upsample2(x *Node[T]) *Node[T] {
	s := x.Value.Shape
	mustImages("Upsample2", s)
	return g.apply(upsample2[T]{}, []int{s[0], s[1], 2 * s[2], 2 * s[3]}, x)
}

func (upsample2[T]) forward(out *Node[T]) {
	x := out.inputs[0].Value
	w := x.Shape[3]
	y := out.Value.Data
	for r := range len(x.Data) / w {
		src := x.Data[r*w : (r+1)*w]
		dst := y[4*r*w : (4*r+2)*w]
		for j, v := range src {
			dst[2*j], dst[2*j+1] = v, v
		}
		copy(y[(4*r+2)*w:(4*r+4)*w], dst)
	}
}

func (upsample2[T]) backward(out *Node[T]) {
	dx := out.inputs[0].Grad
	if dx == nil {
		return
	}
	w := dx.Shape[3]
	dy := out.Grad.Data
	for r := range len(dx.Data) / w {
		dst := dx.Data[r*w : (r+1)*w]
		a, b := dy[4*r*w:(4*r+2)*w], dy[(4*r+2)*w:(4*r+4)*w]
		for j := range dst {
			dst[j] += (a[2*j] + a[2*j+1]) + (b[2*j] + b[2*j+1])
		}
	}
}

type relu6[T Float] struct{}

// ReLU6 returns min(max(a, 0), 6) elementwise. Its derivative is taken
// as 1 strictly between 0 and 6 and 0 elsewhere.
func (g *Graph[T]) ReLU6(a *Node[T]) *Node[T] { return g.apply(relu6[T]{}, a.Value.Shape, a) }

func (relu6[T]) forward(out *Node[T]) {
	a := out.inputs[0].Value.Data
	if single[T]() {
		clampVec32(retypeSlice[float32](out.Value.Data), retypeSlice[float32](a), 6)
		return
	}
	y := out.Value.Data[:len(a)]
	for i, v := range a {
		y[i] = min(max(v, 0), 6)
	}
}

func (relu6[T]) backward(out *Node[T]) {
	if in := out.inputs[0]; in.Grad != nil {
		addInside(in.Grad.Data, out.Grad.Data, in.Value.Data, 6)
	}
}

// addInside adds dy[i] to da[i] where 0 < x[i] < hi, for hi > 0: the
// backward pass of a clamp to [0, hi]. It selects with bit masks, not
// branches: activations of both signs make a branch unpredictable.
func addInside[T Float](da, dy, x []T, hi T) {
	switch xd := any(x).(type) {
	case []float32:
		addInside32(any(da).([]float32), any(dy).([]float32), xd, float32(hi))
	case []float64:
		addInside64(any(da).([]float64), any(dy).([]float64), xd, float64(hi))
	default:
		if single[T]() {
			addInside32(retypeSlice[float32](da), retypeSlice[float32](dy), retypeSlice[float32](x), float32(hi))
		} else {
			addInside64(retypeSlice[float64](da), retypeSlice[float64](dy), retypeSlice[float64](x), float64(hi))
		}
	}
}

// addInside64 selects as addInside32 does (see elementwise.go), in 64
// bits: x is inside when the subtraction u-1 - (bits(hi)-1) borrows.
func addInside64(da, dy, x []float64, hi float64) {
	top := math.Float64bits(hi) - 1
	da, dy = da[:len(x)], dy[:len(x)]
	for i, v := range x {
		_, borrow := bits.Sub64(math.Float64bits(v)-1, top, 0)
		da[i] += math.Float64frombits(math.Float64bits(dy[i]) & -borrow)
	}
}

type reshape[T Float] struct{}

// Reshape returns the elements of x, in row-major order, as a tensor of
// the given shape, which must hold the same number of elements. One
// dimension may be -1: it is then what the others leave, so that
// Reshape(x, N, -1) flattens a batch of images into a matrix with a row
// per image, the layout of every other batch. Reshape panics, with an
// error that wraps ErrShape, if no shape fits.
func (g *Graph[T]) Reshape(x *Node[T], shape ...int) *Node[T] {
	shape, err := ResolveShape(x.Value.Len(), shape)
	if err != nil {
		panic(fmt.Errorf("ad: Reshape of shape %v: %w", x.Value.Shape, err))
	}
	return g.apply(reshape[T]{}, shape, x)
}

// ResolveShape returns shape with its -1 dimension, if it has one,
// replaced by what n elements leave for it, or an error wrapping
// ErrShape if no such shape holds n elements.
func ResolveShape(n int, shape []int) ([]int, error) {
	shape = slices.Clone(shape)
	free, prod := -1, 1
	for i, s := range shape {
		switch {
		case s == -1 && free < 0:
			free = i
		case s < 1:
			return nil, fmt.Errorf("%w: shape %v: dimensions must be at least 1, and at most one -1", ErrShape, shape)
		default:
			prod *= s
		}
	}
	if free >= 0 && prod > 0 && n%prod == 0 && n > 0 {
		shape[free] = n / prod
		prod = n
	}
	if prod != n {
		return nil, fmt.Errorf("%w: shape %v does not hold %d elements", ErrShape, shape, n)
	}
	return shape, nil
}

func (reshape[T]) forward(out *Node[T]) { copy(out.Value.Data, out.inputs[0].Value.Data) }

func (reshape[T]) backward(out *Node[T]) {
	if dx := out.inputs[0].Grad; dx != nil {
		addTo(dx.Data, dx.Data, out.Grad.Data)
	}
}

type transpose[T Float] struct{}

// Transpose returns the transpose of a matrix: it turns a matrix with a
// row per sample into one with a column per sample, and back.
func (g *Graph[T]) Transpose(x *Node[T]) *Node[T] {
	if len(x.Value.Shape) != 2 {
		panic(fmt.Errorf("%w: ad: Transpose of shape %v, want a matrix", ErrShape, x.Value.Shape))
	}
	return g.apply(transpose[T]{}, []int{x.Value.Cols(), x.Value.Rows()}, x)
}

func (transpose[T]) forward(out *Node[T]) { transposeTo(out.Value, out.inputs[0].Value, false) }

func (transpose[T]) backward(out *Node[T]) {
	if dx := out.inputs[0].Grad; dx != nil {
		transposeTo(dx, out.Grad, true)
	}
}

// transposeTo sets dst to the transpose of src, or adds it.
func transposeTo[T Float](dst, src *Tensor[T], add bool) {
	m, n := src.Rows(), src.Cols()
	// Blocks of 8x8 keep both sides in cache for large matrices.
	const b = 8
	for i0 := 0; i0 < m; i0 += b {
		for j0 := 0; j0 < n; j0 += b {
			for i := i0; i < min(i0+b, m); i++ {
				row := src.Data[i*n : (i+1)*n]
				for j := j0; j < min(j0+b, n); j++ {
					if add {
						dst.Data[j*m+i] += row[j]
					} else {
						dst.Data[j*m+i] = row[j]
					}
				}
			}
		}
	}
}
