package ad

import "fmt"

// laplacian is the op of Graph.Laplacian.
type laplacian[T Float] struct {
	gamma float64 // 1/sigma, kept in float64 for the exponential
}

// Laplacian returns the m x n matrix of Laplacian kernel values between
// the columns of v (d x m) and the columns of u (d x n):
//
//	out[i][j] = exp(-|v_i - u_j|_1 / sigma),
//
// the product over the coordinates of one-dimensional Laplacians. It
// falls off at every coordinate's difference alike, so that points apart
// along one input (a group's code) are far whatever the others.
func (g *Graph[T]) Laplacian(v, u *Node[T], sigma T) *Node[T] {
	if v.Value.Rows() != u.Value.Rows() {
		panic(fmt.Errorf("%w: ad: Laplacian of points of dimension %d and %d", ErrShape, v.Value.Rows(), u.Value.Rows()))
	}
	if !(sigma > 0) {
		panic(fmt.Errorf("%w: ad: Laplacian bandwidth %v, want > 0", ErrValue, sigma))
	}
	return g.apply(&laplacian[T]{gamma: 1 / float64(sigma)}, []int{v.Value.Cols(), u.Value.Cols()}, v, u)
}

func (o *laplacian[T]) forward(out *Node[T]) {
	v, u := out.inputs[0].Value, out.inputs[1].Value
	d, m, n := v.Rows(), v.Cols(), u.Cols()
	for i := range m {
		row := out.Value.Data[i*n : (i+1)*n]
		clear(row)
		for r := range d {
			x, ur := v.Data[r*m+i], u.Data[r*n:(r+1)*n]
			for j, y := range ur {
				row[j] += abs(x - y)
			}
		}
		negExp(row, o.gamma)
	}
}

// backward adds, for w = the upstream gradient times the kernel value,
// dv_ri = -sum_j w_ij sign(v_ri - u_rj) / sigma to v's gradient and the
// opposite sums over i to u's.
func (o *laplacian[T]) backward(out *Node[T]) {
	v, u := out.inputs[0], out.inputs[1]
	d, m, n := v.Value.Rows(), v.Value.Cols(), u.Value.Cols()
	c := T(o.gamma)
	for i := range m {
		k, gr := out.Value.Data[i*n:(i+1)*n], out.Grad.Data[i*n:(i+1)*n]
		for r := range d {
			x, ur := v.Value.Data[r*m+i], u.Value.Data[r*n:(r+1)*n]
			var sv T
			for j, y := range ur {
				s := c * gr[j] * k[j] * sign(x-y)
				sv -= s
				if u.Grad != nil {
					u.Grad.Data[r*n+j] += s
				}
			}
			if v.Grad != nil {
				v.Grad.Data[r*m+i] += sv
			}
		}
	}
}

func abs[T Float](x T) T {
	if x < 0 {
		return -x
	}
	return x
}

func sign[T Float](x T) T {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
