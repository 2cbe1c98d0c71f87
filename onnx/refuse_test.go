package onnx

import (
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/model"
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

// goLayer is a layer written in Go, which no export knows.
type goLayer struct{}

func (goLayer) Init(_ *ad.Scope[float32], in [][]int) ([][]int, error) { return in, nil }

func (goLayer) Apply(_ *ad.Scope[float32], x []*ad.Node[float32]) ([]*ad.Node[float32], error) {
	return x, nil
}

// TestModelRefuses checks that the models that cannot be exported get an
// error naming the part at fault.
func TestModelRefuses(t *testing.T) {
	goModel := model.New[float32](nil)
	goModel.Add("E", goLayer{}, goModel.Input("x", 2))
	spec := func(inputs, outputs []string, x string) *model.Model[float32] {
		s := &hypergraph.Spec{Inputs: inputs, Outputs: outputs,
			Vertices: []hypergraph.VertexSpec{{Name: x, Shape: []int{2}}, {Name: "y", Shape: []int{2}}},
			Edges:    []hypergraph.EdgeSpec{{Name: "E", Kind: "linear", Sources: []string{x}, Targets: []string{"y"}}}}
		m, err := model.FromSpec[float32](s, nil)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, tc := range []struct {
		name string
		m    *model.Model[float32]
		want string
	}{
		{"go layer", goModel, "layer E: a layer of type onnx.goLayer is not exported"},
		{"input and output", spec([]string{"x"}, []string{"x", "y"}, "x"), `space "x" is both an input and an output`},
		{"internal name", spec(nil, nil, "machines/x"), `space "machines/x": names starting with "machines/"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Model(tc.m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if _, err := Model(spec(nil, nil, "x")); err != nil {
		t.Errorf("a valid model: %v", err)
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
