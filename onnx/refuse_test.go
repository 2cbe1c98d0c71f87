package onnx

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestKernelRefuses checks that what cannot be exported gets an error
// naming the part at fault.
func TestKernelRefuses(t *testing.T) {
	machine := func(comb kernel.Combine, outputs int) *kernel.Machine {
		return &kernel.Machine{
			Architecture: kernel.Architecture{Dims: []int{2, outputs}, Kernel: comb},
			A:            mat.NewDense(2+outputs, 2, nil),
			C:            mat.NewDense(outputs, 3, nil),
			Anchors:      mat.NewDense(3, 2, nil),
		}
	}
	for _, tc := range []struct {
		name string
		km   KernelModel
		want string
	}{
		{"no machine", KernelModel{Features: []string{"a", "b"}}, "no machine"},
		{"unknown kernel", KernelModel{Machine: machine(kernel.Combine(7), 1), Features: []string{"a", "b"}}, "kernel Combine(7)"},
		{"features", KernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"a"}}, "1 features for a machine of 2 inputs"},
		{"classes", KernelModel{Machine: machine(kernel.Additive, 2), Features: []string{"a", "b"}, Classes: []string{"x", "y", "z"}}, "3 classes for a machine of 2 outputs"},
		{"regression outputs", KernelModel{Machine: machine(kernel.Additive, 2), Features: []string{"a", "b"}}, "regression machine of 2 outputs"},
		{"output name", KernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"a", "prediction"}}, `feature "prediction" has the name of an output`},
		{"internal name", KernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"machines/1", "b"}}, `feature "machines/1"`},
		{"twice", KernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"a", "a"}}, `feature "a" is listed twice`},
		{"interval of classes", KernelModel{Machine: machine(kernel.Additive, 2), Features: []string{"a", "b"}, Classes: []string{"x", "y"}, HalfWidth: []float64{1, 1}},
			"prediction intervals are for regressions"},
		{"half widths", KernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"a", "b"}, HalfWidth: []float64{1, 2}}, "2 interval half widths for 1 outputs"},
		{"infinite half width", KernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"a", "b"}, HalfWidth: []float64{math.Inf(1)}}, "half width +Inf"},
		{"interval name", KernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"a", "upper"}, HalfWidth: []float64{1}}, `feature "upper" has the name of an output`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Kernel(tc.km)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// A machine that can be exported, to show that the cases above fail
	// for their own reason.
	if _, err := Kernel(KernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"a", "b"}}); err != nil {
		t.Errorf("a valid machine: %v", err)
	}
}

// goMap is a hypergraph map written in Go: the identity.
type goMap struct{}

func (goMap) Params() []*ad.Tensor[float32] { return nil }

func (goMap) Build(_ *ad.Graph[float32], _ int, _, x []*ad.Node[float32]) []*ad.Node[float32] {
	return x
}

// TestHypergraphRefuses checks that the hypergraph machines that cannot
// be exported get an error naming the part at fault.
func TestHypergraphRefuses(t *testing.T) {
	h := &hypergraph.Hypergraph{Vertices: []string{"x", "y"}, Edges: []hypergraph.Edge{{Name: "E", Sources: []int{0}, Targets: []int{1}}}}
	goMachine, err := hypergraph.New(hypergraph.Config[float32]{Hypergraph: h,
		Spaces: []hypergraph.Space{{Shape: []int{2}}, {Shape: []int{2}}}, Maps: []hypergraph.Map[float32]{goMap{}}})
	if err != nil {
		t.Fatal(err)
	}
	spec := func(inputs, outputs []string, x string) *hypergraph.Machine[float32] {
		s := &hypergraph.Spec{Inputs: inputs, Outputs: outputs,
			Vertices: []hypergraph.VertexSpec{{Name: x, Shape: []int{2}}, {Name: "y", Shape: []int{2}}},
			Edges:    []hypergraph.EdgeSpec{{Name: "E", Kind: "linear", Sources: []string{x}, Targets: []string{"y"}}}}
		m, err := hypergraph.FromSpec[float32](s, 1)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, tc := range []struct {
		name string
		m    *hypergraph.Machine[float32]
		want string
	}{
		{"go map", goMachine, "not built from a spec"},
		{"input and output", spec([]string{"x"}, []string{"x", "y"}, "x"), `vertex "x" is both an input and an output`},
		{"internal name", spec(nil, nil, "machines/x"), `vertex "machines/x": names starting with "machines/"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Hypergraph(tc.m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := Hypergraph(spec(nil, nil, "x")); err != nil {
		t.Errorf("a valid machine: %v", err)
	}
}

func TestCaseVariants(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", []string{""}},
		{"?", []string{"?"}},
		{"n/a", []string{"n/a", "n/A", "N/a", "N/A"}},
	} {
		got := caseVariants(tc.in)
		slices.Sort(got)
		slices.Sort(tc.want)
		if !slices.Equal(got, tc.want) {
			t.Errorf("caseVariants(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if n := len(caseVariants("null")); n != 16 {
		t.Errorf("%d variants of null, want 16", n)
	}
}
