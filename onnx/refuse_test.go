package onnx

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/kernel/infinite"
	"github.com/parametric-machines/machines/model"
	"github.com/parametric-machines/machines/ode"
	"github.com/parametric-machines/machines/tabular"
	"gonum.org/v1/gonum/mat"
)

// TestKernelRefuses checks that what cannot be exported gets an error
// naming the part at fault.
func TestKernelRefuses(t *testing.T) {
	machine := func(comb kernel.Combine, outputs int) *tabular.Machine {
		return &tabular.Machine{Machine: &kernel.Machine{
			Architecture: kernel.Architecture{Dims: []int{2, outputs}, Kernel: comb},
			A:            mat.NewDense(2+outputs, 2, nil),
			C:            mat.NewDense(outputs, 3, nil),
			Anchors:      mat.NewDense(3, 2, nil),
		}}
	}
	// withSum returns machine(kernel.Additive, 1) with m in its sum.
	withSum := func(m *kernel.Machine) *tabular.Machine {
		out := machine(kernel.Additive, 1)
		out.Sum = []*kernel.Machine{m}
		return out
	}
	for _, tc := range []struct {
		name string
		km   kernelModel
		want string
	}{
		{"no machine", kernelModel{Features: []string{"a", "b"}}, "no machine"},
		{"sum's kernel", kernelModel{Machine: withSum(machine(kernel.Combine(7), 1).Machine), Features: []string{"a", "b"}}, "sum[0]: kernel Combine(7)"},
		{"sum's outputs", kernelModel{Machine: withSum(machine(kernel.Additive, 2).Machine), Features: []string{"a", "b"}}, "sum[0]: 2 inputs and 2 outputs for a machine of 2 and 1"},
		{"unknown kernel", kernelModel{Machine: machine(kernel.Combine(7), 1), Features: []string{"a", "b"}}, "kernel Combine(7)"},
		{"features", kernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"a"}}, "1 features for a machine of 2 inputs"},
		{"classes", kernelModel{Machine: machine(kernel.Additive, 2), Features: []string{"a", "b"}, Classes: []string{"x", "y", "z"}}, "3 classes for a machine of 2 outputs"},
		{"regression outputs", kernelModel{Machine: machine(kernel.Additive, 2), Features: []string{"a", "b"}}, "regression machine of 2 outputs"},
		{"output name", kernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"a", "prediction"}}, `feature "prediction" has the name of an output`},
		{"internal name", kernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"machines/1", "b"}}, `feature "machines/1"`},
		{"twice", kernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"a", "a"}}, `feature "a" is listed twice`},
		{"interval of classes", kernelModel{Machine: machine(kernel.Additive, 2), Features: []string{"a", "b"}, Classes: []string{"x", "y"}, HalfWidth: []float64{1, 1}},
			"prediction intervals are for regressions"},
		{"half widths", kernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"a", "b"}, HalfWidth: []float64{1, 2}}, "2 interval half widths for 1 outputs"},
		{"infinite half width", kernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"a", "b"}, HalfWidth: []float64{math.Inf(1)}}, "half width +Inf"},
		{"interval name", kernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"a", "upper"}, HalfWidth: []float64{1}}, `feature "upper" has the name of an output`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := kernelGraph(tc.km)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// A machine that can be exported, to show that the cases above fail
	// for their own reason.
	if _, err := kernelGraph(kernelModel{Machine: machine(kernel.Additive, 1), Features: []string{"a", "b"}}); err != nil {
		t.Errorf("a valid machine: %v", err)
	}
}

// goLayer is a layer written in Go, which no export knows.
type goLayer struct{}

func (goLayer) Init(_ *ad.Scope[float32], in [][]int) ([][]int, error) { return in, nil }

func (goLayer) Apply(_ *ad.Scope[float32], x []*ad.Node[float32]) ([]*ad.Node[float32], error) {
	return x, nil
}

// otherField is a neural ODE's field that is not an ode.MLP.
type otherField struct{ ode.MLP }

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
	// one is a model of the layer l on vectors of 2 values.
	one := func(l ad.Layer[float32]) *model.Model[float32] {
		m := model.New[float32](nil)
		m.Add("L", l, m.Input("x", 2))
		if err := m.Err(); err != nil {
			t.Fatal(err)
		}
		return m
	}
	inner, err := hypergraph.New(hypergraph.Config[float32]{
		Hypergraph: &hypergraph.Hypergraph{Vertices: []string{"a", "b"}, Edges: []hypergraph.Edge{{Name: "E", Sources: []int{0}, Targets: []int{1}}}},
		Spaces:     []hypergraph.Space{{Shape: []int{2}}, {Shape: []int{2}}},
		Layers:     []ad.Layer[float32]{goLayer{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Two ODEs of different sizes under one scope: the second finds the
	// first's theta.
	shared, err := hypergraph.New(hypergraph.Config[float32]{
		Hypergraph: &hypergraph.Hypergraph{Vertices: []string{"a", "b", "c"}, Edges: []hypergraph.Edge{
			{Name: "E1", Sources: []int{0}, Targets: []int{1}}, {Name: "E2", Sources: []int{1}, Targets: []int{2}}}},
		Spaces: []hypergraph.Space{{Shape: []int{2}}, {Shape: []int{2}}, {Shape: []int{2}}},
		Layers: []ad.Layer[float32]{ode.Layer[float32]{Field: ode.MLP{Hidden: 2}, Steps: 1}, ode.Layer[float32]{Field: ode.MLP{Hidden: 3}, Steps: 1}},
		Shared: []string{"f", "f"},
	})
	if err != nil {
		t.Fatal(err)
	}
	flow := infinite.Layer[float32]{Architecture: infinite.Architecture{Anchors: 2, MaxFreq: 1, Tol: 1e-3}}
	for _, tc := range []struct {
		name string
		m    *model.Model[float32]
		want string
	}{
		{"go layer", goModel, "layer E: a layer of type onnx.goLayer is not exported"},
		{"nested go layer", one(inner), "layer L: layer E: a layer of type onnx.goLayer is not exported"},
		{"input and output", spec([]string{"x"}, []string{"x", "y"}, "x"), `space "x" is both an input and an output`},
		{"internal name", spec(nil, nil, "machines/x"), `space "machines/x": names starting with "machines/"`},
		{"adaptive infinite", one(flow), "layer L: an infinite-depth layer solved adaptively (Tol 0.001) is not exported: Dormand-Prince chooses its step sizes from the data"},
		{"adaptive ode", one(ode.Layer[float32]{}), "layer L: a neural ODE solved adaptively (Steps 0: Dormand-Prince) is not exported: its step sizes depend on the data"},
		{"shared theta", one(shared), "layer L: layer E2: no theta of 20 values, an MLP's of 3 hidden units on vectors of 2, in the parameters"},
		{"ode field", one(ode.Layer[float32]{Field: otherField{ode.MLP{Hidden: 2}}, Steps: 2}), "layer L: a neural ODE whose field is a onnx.otherField is not exported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Model(tc.m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// Models like those above that can be exported, to show that the
	// cases above fail for their own reason.
	flow.Tol = 0
	for name, m := range map[string]*model.Model[float32]{
		"spec":     spec(nil, nil, "x"),
		"infinite": one(flow),
		"ode":      one(ode.Layer[float32]{Field: ode.MLP{Hidden: 2}, Steps: 2}),
	} {
		if _, err := Model(m); err != nil {
			t.Errorf("a valid model (%s): %v", name, err)
		}
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
