package ad

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// gaussian keeps the weighted gradient between backward calls so that
// replaying the graph allocates nothing.
type gaussian struct {
	gamma float64 // 1/(2 sigma^2)
	w     *Tensor // upstream gradient times kernel value
	sum   []float64
}

// Gaussian returns the m x n matrix of Gaussian kernel values between the
// columns of v (d x m) and the columns of u (d x n):
//
//	out[i][j] = exp(-|v_i - u_j|^2 / (2 sigma^2)).
//
// When v and u are the same node the matrix is symmetric and only half of
// the exponentials are computed: the exponential dominates the cost of the
// finite-depth kernel machine.
func (g *Graph) Gaussian(v, u *Node, sigma float64) *Node {
	if v.Value.Rows() != u.Value.Rows() {
		panic(fmt.Sprintf("ad: Gaussian of points of dimension %d and %d", v.Value.Rows(), u.Value.Rows()))
	}
	if !(sigma > 0) {
		panic(fmt.Sprintf("ad: Gaussian bandwidth %v, want > 0", sigma))
	}
	m, n := v.Value.Cols(), u.Value.Cols()
	o := &gaussian{gamma: 1 / (2 * sigma * sigma), w: NewTensor(m, n), sum: make([]float64, max(m, n))}
	return g.apply(o, []int{m, n}, v, u)
}

func (o *gaussian) forward(out *Node) {
	v, u := out.inputs[0].Value, out.inputs[1].Value
	m, n := v.Cols(), u.Cols()
	sym := out.inputs[0] == out.inputs[1]
	k := out.Value.Data
	clear(k)
	for r := range v.Rows() {
		vr, ur := v.Data[r*m:(r+1)*m], u.Data[r*n:(r+1)*n]
		for i, vi := range vr {
			lo := 0
			if sym {
				lo = i
			}
			row := k[i*n+lo : (i+1)*n]
			for j, uj := range ur[lo:] {
				d := vi - uj
				row[j] += d * d
			}
		}
	}
	for i := range m {
		lo := 0
		if sym {
			lo = i
		}
		row := k[i*n+lo : (i+1)*n]
		for j, d2 := range row {
			row[j] = expNonPos(-o.gamma * d2)
		}
	}
	if sym {
		for i := range m {
			for j := range i {
				k[i*n+j] = k[j*n+i]
			}
		}
	}
}

func (o *gaussian) backward(out *Node) {
	v, u := out.inputs[0], out.inputs[1]
	m, n := v.Value.Cols(), u.Value.Cols()
	w := o.w.Data
	for i, d := range out.Grad.Data {
		w[i] = d * out.Value.Data[i]
	}
	c := 2 * o.gamma // 1/sigma^2
	if v == u {
		// Both gradients land on the same points: with S = W + W^T,
		// du_j = c * sum_i S_ij (u_i - u_j), one product instead of two.
		for i := range m {
			for j := range i {
				s := w[i*n+j] + w[j*n+i]
				w[i*n+j], w[j*n+i] = s, s
			}
			w[i*n+i] *= 2
		}
		o.addGrad(u.Grad, v.Value, u.Value, o.w, blas.NoTrans, c)
		return
	}
	if u.Grad != nil {
		// du_j = c * sum_i w_ij (v_i - u_j)
		o.addGrad(u.Grad, v.Value, u.Value, o.w, blas.NoTrans, c)
	}
	if v.Grad != nil {
		// dv_i = c * sum_j w_ij (u_j - v_i)
		o.addGrad(v.Grad, u.Value, v.Value, o.w, blas.Trans, c)
	}
}

// addGrad adds c * (other * op(w) - self .* colsum(op(w))) to dst: the
// gradient of the kernel with respect to the points self, whose partners
// are the points other.
func (o *gaussian) addGrad(dst, other, self, w *Tensor, t blas.Transpose, c float64) {
	blas64.Gemm(blas.NoTrans, t, c, other.general(), w.general(), 1, dst.general())
	m, n := w.Rows(), w.Cols()
	sums := o.sum[:self.Cols()]
	clear(sums)
	for i := range m {
		row := w.Data[i*n : (i+1)*n]
		if t == blas.NoTrans {
			for j, x := range row {
				sums[j] += x
			}
		} else {
			s := 0.0
			for _, x := range row {
				s += x
			}
			sums[i] = s
		}
	}
	n = self.Cols()
	for r := range self.Rows() {
		dr, xr := dst.Data[r*n:(r+1)*n], self.Data[r*n:(r+1)*n]
		for j, sj := range sums {
			dr[j] -= c * xr[j] * sj
		}
	}
}
