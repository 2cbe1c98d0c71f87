package bench

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/internal/matmul"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// machineSize is one problem size of the machines suite, after the
// authors' benchmarks of machines of finite depth.
type machineSize struct {
	name  string
	dims  []int
	batch int
}

var machineSizes = []machineSize{
	{"small", []int{2, 2, 2, 2, 2}, 2},
	{"medium", []int{32, 32, 32, 32, 32}, 32},
}

// machinePasses are the timed passes of every machine. The authors time
// the backward pass as the reversed solve alone (the cotangents of y0
// and z0: activation derivatives, flipped weight, solve), and the
// weight-gradient product apart from it; "backward" is timed the same
// way so that the ratios compare, and "gradient" is the whole backward
// pass, solve and weight gradient, which does twice the forward
// pass's products.
var machinePasses = []struct{ name, unit, reference string }{
	{"forward", "forward solve", "authors' CPU backward/forward 0.80-0.99"},
	{"backward", "reversed solve", "authors' CPU backward/forward 0.80-0.99"},
	{"gradient", "reversed solve + weight gradient", "twice the forward's products"},
}

// Signal lengths, padding and time blocks of the machines suite.
const (
	machineLength    = 16
	convPad          = 3
	recurPad         = 6
	recurTimeBlock   = 5
	machineWorkloadT = "float32"
)

// MachineWorkloads returns the workloads of the machines suite: the
// forward and the backward pass of dense, convolutional (length 16, pad
// 3) and recurrent (length 16, pad 6, timeblock 5) machines with tanh, at
// a small (dims [2,2,2,2,2], batch 2) and a medium (dims
// [32,32,32,32,32], batch 32) size, in float32, named KIND-SIZE-PASS;
// and, as KIND-medium-reference, the medium dense and conv layers
// computed as one masked matrix product (one masked convolution by
// im2col and one matrix product) followed by tanh, which the forward
// passes are compared with. The forward pass takes y0 and z0 with all D
// channels; the backward pass, the cotangents of both y and z, and
// computes the cotangents of y0 and z0 and the weight's gradient.
func MachineWorkloads() []Workload {
	var ws []Workload
	for _, kind := range []string{"dense", "conv", "recur"} {
		for _, size := range machineSizes {
			for _, pass := range machinePasses {
				ws = append(ws, Workload{
					Name: kind + "-" + size.name + "-" + pass.name, Dtype: machineWorkloadT,
					Unit:      fmt.Sprintf("%s, batch %d", pass.unit, size.batch),
					Reference: pass.reference,
					setup:     func() (func(), error) { return machinePass(kind, size, pass.name) },
				})
			}
			if size.name == "medium" && kind != "recur" {
				ref := "one masked product (engine matmul) + tanh"
				if kind == "conv" {
					ref = "one masked conv: im2col + engine matmul + tanh"
				}
				ws = append(ws, Workload{
					Name: kind + "-" + size.name + "-reference", Dtype: machineWorkloadT,
					Unit:      fmt.Sprintf("reference layer, batch %d", size.batch),
					Reference: ref,
					setup:     func() (func(), error) { return machineReference(kind, size) },
				})
			}
		}
	}
	return ws
}

func newBenchMachine(kind string, size machineSize, rnd *rand.Rand) (*finite.Machine[float32], []int, error) {
	switch kind {
	case "dense":
		m, err := finite.NewDense[float32](size.dims, ad.Tanh, rnd)
		return m, nil, err
	case "conv":
		m, err := finite.NewConv[float32](size.dims, ad.Tanh, []int{convPad}, rnd)
		return m, []int{machineLength}, err
	case "recur":
		m, err := finite.NewRecur[float32](size.dims, ad.Tanh, recurPad, recurTimeBlock, rnd)
		return m, []int{machineLength}, err
	}
	return nil, nil, fmt.Errorf("unknown machine kind %q", kind)
}

func uniform32(rnd *rand.Rand, shape ...int) *ad.Tensor[float32] {
	t := ad.NewTensor[float32](shape...)
	for i := range t.Data {
		t.Data[i] = rnd.Float32()
	}
	return t
}

// machinePass returns one pass of a machine, named as in
// machinePasses, on random inputs and cotangents in [0, 1).
func machinePass(kind string, size machineSize, pass string) (func(), error) {
	rnd := rand.New(rand.NewPCG(1, 1))
	m, shape, err := newBenchMachine(kind, size, rnd)
	if err != nil {
		return nil, err
	}
	s, err := m.NewSolver(shape...)
	if err != nil {
		return nil, err
	}
	d, n := m.Size(), s.Positions()*size.batch
	y0, z0 := uniform32(rnd, d, n), uniform32(rnd, d, n)
	_, z := s.Forward(y0, z0)
	for _, v := range z.Data {
		if math.IsNaN(float64(v)) {
			return nil, fmt.Errorf("%s machine: NaN in the state", kind)
		}
	}
	dy, dz := uniform32(rnd, d, n), uniform32(rnd, d, n)
	switch pass {
	case "forward":
		return func() { s.Forward(y0, z0) }, nil
	case "backward":
		return func() { s.Backward(dy, dz, nil, nil) }, nil
	case "gradient":
		dW := ad.NewTensor[float32](m.WeightShape()...)
		return func() { s.Backward(dy, dz, dW, nil) }, nil
	}
	return nil, fmt.Errorf("unknown pass %q", pass)
}

// machineReference returns the medium dense or conv layer computed the
// plain way: y = y0 + Wm z with Wm the masked weight, as one product
// (for conv, of Wm viewed as a D x (D*K) matrix with the state unfolded
// by im2col), then z = z0 + tanh(y).
func machineReference(kind string, size machineSize) (func(), error) {
	rnd := rand.New(rand.NewPCG(1, 1))
	m, shape, err := newBenchMachine(kind, size, rnd)
	if err != nil {
		return nil, err
	}
	d, k := m.Size(), m.Taps()
	positions := 1
	for _, l := range shape {
		positions *= l
	}
	n := positions * size.batch
	// Mask the weight: zero on and above the block diagonal.
	wm := append([]float32(nil), m.W.Data...)
	block := make([]int, d)
	for i, c := 0, 0; i < len(size.dims); i++ {
		for range size.dims[i] {
			block[c] = i
			c++
		}
	}
	for i := range d {
		for j := range d {
			if block[j] >= block[i] {
				clear(wm[(i*d+j)*k : (i*d+j)*k+k])
			}
		}
	}
	y0, z0 := uniform32(rnd, d, n), uniform32(rnd, d, n)
	z := uniform32(rnd, d, n)
	y := make([]float32, d*n)
	out := make([]float32, d*n)
	unfolded := z.Data
	if kind == "conv" {
		unfolded = make([]float32, d*k*n)
	}
	b := size.batch
	w := blas32.General{Rows: d, Cols: d * k, Stride: d * k, Data: wm}
	zc := blas32.General{Rows: d * k, Cols: n, Stride: n, Data: unfolded}
	yg := blas32.General{Rows: d, Cols: n, Stride: n, Data: y}
	return func() {
		if kind == "conv" {
			// im2col: row c*K+t holds channel c shifted by t-pad.
			for c := range d {
				for t := range k {
					sh := t - convPad
					row := unfolded[(c*k+t)*n : (c*k+t+1)*n]
					lo, hi := max(0, -sh), min(positions, positions-sh)
					clear(row[:lo*b])
					copy(row[lo*b:hi*b], z.Data[c*n+(lo+sh)*b:c*n+(hi+sh)*b])
					clear(row[hi*b:])
				}
			}
		}
		copy(y, y0.Data)
		matmul.F32(blas.NoTrans, blas.NoTrans, 1, w, zc, 1, yg)
		for i, v := range y {
			out[i] = z0.Data[i] + float32(math.Tanh(float64(v)))
		}
	}, nil
}
