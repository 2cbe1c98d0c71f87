package onnx

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
)

// finiteCase is a finite machine to export: how to make it, in either
// element type, and the spatial shape of its signals.
type finiteCase struct {
	name  string
	kind  finite.Kind
	dims  []int
	sigma ad.Activation
	pad   []int
	tb    int
	shape []int
	// scale is nil for no scaling, [] for one per channel, the signal
	// shape for one per entry.
	scale []int
}

var finiteCases = []finiteCase{
	{name: "dense", kind: finite.Dense, dims: []int{3, 4, 2, 3}, sigma: ad.Tanh, scale: []int{}},
	{name: "conv1d", kind: finite.Conv, dims: []int{1, 3, 2}, sigma: ad.Sigmoid, pad: []int{2}, shape: []int{9}},
	{name: "conv2d", kind: finite.Conv, dims: []int{2, 3, 3}, sigma: ad.ReLU, pad: []int{1, 2}, shape: []int{5, 6}, scale: []int{5, 6}},
	{name: "recur-tb1", kind: finite.Recur, dims: []int{2, 3, 2}, sigma: ad.Tanh, pad: []int{2}, tb: 1, shape: []int{7}, scale: []int{}},
	{name: "recur-tb3", kind: finite.Recur, dims: []int{1, 2, 2}, sigma: ad.Identity, pad: []int{4}, tb: 3, shape: []int{10}, scale: []int{10}},
	{name: "recur-shift", kind: finite.Recur, dims: []int{1, 4, 4, 4}, sigma: ad.Tanh, pad: []int{6}, tb: 5, shape: []int{16}},
}

// finiteMachine returns the machine of c with random weights and a
// random scaling.
func finiteMachine[T ad.Float](t *testing.T, c finiteCase, rnd *rand.Rand) *finite.Machine[T] {
	t.Helper()
	var m *finite.Machine[T]
	var err error
	switch c.kind {
	case finite.Dense:
		m, err = finite.NewDense[T](c.dims, c.sigma, rnd)
	case finite.Conv:
		m, err = finite.NewConv[T](c.dims, c.sigma, c.pad, rnd)
	case finite.Recur:
		m, err = finite.NewRecur[T](c.dims, c.sigma, c.pad[0], c.tb, rnd)
	}
	if err != nil {
		t.Fatal(err)
	}
	// Weights large enough that every block matters.
	for i := range m.W.Data {
		m.W.Data[i] *= 3
	}
	if c.scale != nil {
		if err := m.LearnScale(c.scale...); err != nil {
			t.Fatal(err)
		}
		for i := range m.Scale.Data {
			m.Scale.Data[i] = T(0.5 + rnd.Float64())
		}
	}
	return m
}

// TestFiniteAgreement exports finite machines of every kind and compares
// ONNX Runtime's state with the library's on random inputs.
func TestFiniteAgreement(t *testing.T) {
	var cases []agreementCase
	for _, c := range finiteCases {
		cases = append(cases,
			finiteAgreement(t, c.name+"/float32", finiteMachine[float32](t, c, rand.New(rand.NewPCG(1, 1))), c.shape),
			finiteAgreement(t, c.name+"/float64", finiteMachine[float64](t, c, rand.New(rand.NewPCG(1, 1))), c.shape))
	}
	runAgreement(t, cases)
}

// finiteAgreement exports m for signals of the given shape and compares
// the runtime's state on random inputs with that of m.Apply.
func finiteAgreement[T ad.Float](t *testing.T, name string, m *finite.Machine[T], shape []int) agreementCase {
	t.Helper()
	model, err := Finite(m, shape...)
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(2, 1))
	y0 := ad.NewTensor[T](slices.Concat([]int{5, m.Dims()[0]}, shape)...)
	for i := range y0.Data {
		y0.Data[i] = T(2*rnd.Float64() - 1)
	}
	want := solve(t, m, y0)
	diff := func(t *testing.T, outputs map[string]tensorJSON) float64 {
		got := outputs[OutputZ]
		if !slices.Equal(got.Dims, want.Value.Shape) {
			t.Fatalf("output of shape %v, want %v", got.Dims, want.Value.Shape)
		}
		return outputDiff(got.doubles(), float64s(want.Value.Data))
	}
	return agreementCase{name: name, path: writeModel(t, model), inputs: map[string]tensorJSON{InputY0: realJSON(y0)},
		tol: tolerance[T](), diff: diff}
}

// solve returns m's stable state z for the batch y0 (samples first,
// zero z0), solved by the machine's Solver in its own layout.
func solve[T ad.Float](t *testing.T, m *finite.Machine[T], y0 *ad.Tensor[T]) *ad.Node[T] {
	t.Helper()
	s, err := m.NewSolver(y0.Shape[2:]...)
	if err != nil {
		t.Fatal(err)
	}
	n, c, pos := y0.Shape[0], y0.Shape[1], s.Positions()
	in := ad.NewTensor[T](c, pos*n)
	for b := range n {
		for k := range c {
			for p := range pos {
				in.Data[(k*pos+p)*n+b] = y0.Data[(b*c+k)*pos+p]
			}
		}
	}
	_, z := s.Forward(in, nil)
	d := m.Size()
	out := ad.NewTensor[T](append([]int{n, d}, y0.Shape[2:]...)...)
	for b := range n {
		for k := range d {
			for p := range pos {
				out.Data[(b*d+k)*pos+p] = z.Data[(k*pos+p)*n+b]
			}
		}
	}
	return &ad.Node[T]{Value: out}
}

// TestFiniteRefuses checks the errors of machines and shapes that cannot
// be exported.
func TestFiniteRefuses(t *testing.T) {
	conv, err := finite.NewConv[float64]([]int{1, 2}, ad.Tanh, []int{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	scaled, err := finite.NewConv[float64]([]int{1, 2}, ad.Tanh, []int{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := scaled.LearnScale(8); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		m     *finite.Machine[float64]
		shape []int
		want  string
	}{
		{"no shape", conv, nil, "1-D conv machine given signals of shape []"},
		{"short", conv, []int{2}, "shorter than the kernel"},
		{"scale", scaled, []int{9}, "scaling of shape [3 8]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Finite(tc.m, tc.shape...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := Finite(scaled, 8); err != nil {
		t.Errorf("a valid machine: %v", err)
	}
}
