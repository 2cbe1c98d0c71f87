package hypergraph

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
)

// outputs returns the outputs of m on x, flattened.
func outputs[T ad.Float](m *Machine[T], x *ad.Tensor[T]) [][]T {
	var g ad.Graph[T]
	var out [][]T
	for _, y := range m.Build(&g, nil, []*ad.Node[T]{g.Input(x)}) {
		out = append(out, y.Value.Data)
	}
	return out
}

// perturb moves every parameter away from its initial value, so that a
// round trip cannot pass by re-initialising.
func perturb[T ad.Float](m *Machine[T], rnd *rand.Rand) {
	for i := range m.Params() {
		m.Params()[i] += T(0.1 * rnd.NormFloat64())
	}
}

func TestSaveLoad(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 7))
	dir := t.TempDir()
	t.Run("float64", func(t *testing.T) {
		m := loadMachine[float64](t, "testdata/resnet.json", 1)
		perturb(m, rnd)
		path := filepath.Join(dir, "resnet.machine.json")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := Load[float64](path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(back.Params(), m.Params()) {
			t.Error("parameters changed in a round trip")
		}
		x, _ := classes[float64](rnd, 4, 3, 5)
		if !slices.EqualFunc(outputs(back, x), outputs(m, x), slices.Equal) {
			t.Error("outputs changed in a round trip")
		}
		// Into a machine of the same architecture made otherwise.
		other := loadMachine[float64](t, "testdata/resnet.json", 2)
		if err := other.LoadParams(path); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(other.Params(), m.Params()) {
			t.Error("LoadParams did not load the parameters")
		}
	})
	t.Run("float32 to float64", func(t *testing.T) {
		m := loadMachine[float32](t, "testdata/unet.json", 1)
		perturb(m, rnd)
		path := filepath.Join(dir, "unet.machine.json")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		back32, err := Load[float32](path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(back32.Params(), m.Params()) {
			t.Error("float32 parameters changed in a round trip")
		}
		back64, err := Load[float64](path)
		if err != nil {
			t.Fatal(err)
		}
		x32, _, _ := images[float32](rnd, 3)
		x64 := ad.NewTensor[float64](x32.Shape...)
		for i, v := range x32.Data {
			x64.Data[i] = float64(v)
		}
		want, got := outputs(m, x32), outputs(back64, x64)
		for k := range want {
			for i := range want[k] {
				if math.Abs(got[k][i]-float64(want[k][i])) > 1e-4*(1+math.Abs(got[k][i])) {
					t.Fatalf("output %d[%d]: float64 %v, float32 %v", k, i, got[k][i], want[k][i])
				}
			}
		}
	})
}

// TestSavedFixture reads a saved machine written by hand, which pins the
// file format: y = W x + b, then tanh at y.
func TestSavedFixture(t *testing.T) {
	m, err := Load[float64]("testdata/tiny.machine.json")
	if err != nil {
		t.Fatal(err)
	}
	var g ad.Graph[float64]
	x := g.Input(ad.Matrix(1, 2, []float64{1, 2}))
	y := m.Build(&g, nil, []*ad.Node[float64]{x})[0].Value.Data
	if want := math.Tanh(0.5*1 - 1*2 + 0.25); !equalWithin(y[0], want, 1e-15) {
		t.Errorf("y = %v, want %v", y[0], want)
	}
}

func TestSaveErrors(t *testing.T) {
	dir := t.TempDir()
	rnd := rand.New(rand.NewPCG(8, 8))
	m := loadMachine[float64](t, "testdata/perceptron.json", 1)
	path := filepath.Join(dir, "perceptron.machine.json")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	// A machine that diverged is not saved, and the file is left alone.
	bad := loadMachine[float64](t, "testdata/perceptron.json", 1)
	bad.EdgeParams(1)[0].Data[3] = math.NaN()
	if err := bad.Save(path); err == nil || !strings.Contains(err.Error(), "edge layer2: parameter 0 holds NaN") {
		t.Errorf("Save of NaN: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("a failed Save changed the file")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the directory after a failed Save, want 1", len(entries))
	}

	// A machine made by New has no spec to save.
	h := build([]string{"a", "b"}, []testEdge{{"E", []string{"a"}, []string{"b"}}})
	plain, err := New(Config[float64]{Hypergraph: h, Spaces: []Space{{Shape: []int{2}}, {Shape: []int{2}}}, Maps: []Map[float64]{newTanhMap(rnd, []int{2}, []int{2})}})
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Save(path); err == nil || !strings.Contains(err.Error(), "not built from a spec") {
		t.Errorf("Save of a machine without spec: %v", err)
	}
	if err := plain.LoadParams(path); err == nil || !strings.Contains(err.Error(), "not built from a spec") {
		t.Errorf("LoadParams into a machine without spec: %v", err)
	}

	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	saved := string(before)
	// edit returns saved with old replaced by new once, failing if the
	// file has no old: the cases below must not pass by editing nothing.
	edit := func(old, new string) string {
		if !strings.Contains(saved, old) {
			t.Fatalf("saved file has no %q", old)
		}
		return strings.Replace(saved, old, new, 1)
	}
	i, j := strings.Index(saved, ",\n    {\"edge\": \"layer3\""), strings.LastIndex(saved, "\n  ]\n}")
	if i < 0 || j < i {
		t.Fatal("saved file without the entry of layer3")
	}
	withoutLayer3 := saved[:i] + saved[j:]
	for _, test := range []struct {
		name, path, want string
	}{
		{"spec, not machine", "testdata/perceptron.json", `testdata/perceptron.json: not a saved hypergraph machine (format "machines-hypergraph", want "machines-hypergraph-machine")`},
		{"newer version", write("v2.json", edit(`"version": 1`, `"version": 2`)), "machines-hypergraph-machine version 2 is newer than this program reads (version 1)"},
		{"other format", "testdata/not_a_spec.json", `not a saved hypergraph machine (format "machines-model", want "machines-hypergraph-machine")`},
		{"no spec", write("nospec.json", `{"format": "machines-hypergraph-machine", "version": 1, "params": []}`), `no "spec"`},
		{"newer spec inside", write("spec2.json", edit(`"version": 1,
    "inputs"`, `"version": 3,
    "inputs"`)), "spec: machines-hypergraph version 3 is newer"},
		{"bad spec inside", write("badspec.json", edit(`"kind":"dense"`, `"kind":"dens"`)), `spec: hypergraph: edge layer1: unknown kind "dens"`},
		{"tensor shape", write("shape.json", edit(`"shape": [16,4]`, `"shape": [4,16]`)), "edge layer1: parameter 0 has shape [4 16] and 64 values, want shape [16 4]"},
		{"unknown field", write("extra.json", edit(`"edge": "layer3"`, `"edge": "layer3", "x": 1`)), `unknown field "x"`},
		{"unknown edge", write("unknown.json", edit(`"edge": "layer3"`, `"edge": "layer4"`)), `parameters for edge "layer4", which the machine does not have`},
		{"missing edge", write("missing.json", withoutLayer3), "edge layer3: 0 parameter tensors, want 2"},
		{"edge twice", write("twice.json", edit(`"edge": "layer3"`, `"edge": "layer2"`)), `parameters of edge "layer2" given twice`},
		{"truncated", write("truncated.json", saved[:len(saved)/2]), "invalid JSON"},
	} {
		t.Run(test.name, func(t *testing.T) {
			if _, err := Load[float64](test.path); err == nil || !strings.Contains(err.Error(), test.want) {
				t.Errorf("Load: %v,\nwant it to contain %q", err, test.want)
			}
			keep := slices.Clone(m.Params())
			if err := m.LoadParams(test.path); err == nil || !strings.Contains(err.Error(), test.want) {
				t.Errorf("LoadParams: %v,\nwant it to contain %q", err, test.want)
			}
			if !slices.Equal(keep, m.Params()) {
				t.Error("a failed LoadParams changed the machine")
			}
		})
	}
}

// TestLoadOtherArchitecture loads a saved perceptron into machines of
// other architectures.
func TestLoadOtherArchitecture(t *testing.T) {
	dir := t.TempDir()
	m := loadMachine[float64](t, "testdata/perceptron.json", 1)
	path := filepath.Join(dir, "perceptron.machine.json")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	base, err := LoadSpec("testdata/perceptron.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		name   string
		modify func(s *Spec)
		want   string // "" if the architecture is the same
	}{
		{"same", func(*Spec) {}, ""},
		{"vertices reordered", func(s *Spec) { slices.Reverse(s.Vertices) }, ""},
		{"edges reordered", func(s *Spec) { slices.Reverse(s.Edges) }, ""},
		{"width", func(s *Spec) { s.Vertices[1].Shape = []int{8} }, `vertex "h1" has shape [16] in the file and [8] in the machine`},
		{"activation", func(s *Spec) { s.Vertices[2].Activation = Tanh }, `vertex "h2" has activation relu in the file and tanh in the machine`},
		{"kind", func(s *Spec) { s.Edges[2].Kind = "linear" }, `edge "layer3" has kind dense in the file and linear in the machine`},
		{"sources", func(s *Spec) { s.Edges[2].Sources = []string{"h1", "h2"} }, `edge "layer3" has sources [h2] in the file and [h1 h2] in the machine`},
		{"extra edge", func(s *Spec) {
			s.Edges = append(s.Edges, EdgeSpec{Name: "skip", Kind: "linear", Sources: []string{"x"}, Targets: []string{"logits"}})
		}, `edge "skip" is in the machine but not in the file`},
		{"fewer edges", func(s *Spec) { s.Edges = s.Edges[:2]; s.Outputs = []string{"h2"} }, `edge "layer3" is in the file but not in the machine`},
		{"extra vertex", func(s *Spec) { s.Vertices = append(s.Vertices, VertexSpec{Name: "z", Shape: []int{1}}) }, `vertex "z" is in the machine but not in the file`},
		{"outputs", func(s *Spec) { s.Outputs = []string{"logits", "h2"} }, "outputs are [logits] in the file and [logits h2] in the machine"},
	} {
		t.Run(test.name, func(t *testing.T) {
			s := base.clone()
			test.modify(s)
			other, err := FromSpec[float64](s, 5)
			if err != nil {
				t.Fatal(err)
			}
			err = other.LoadParams(path)
			if test.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				x, _ := classes[float64](rand.New(rand.NewPCG(1, 1)), 4, 3, 3)
				if !slices.EqualFunc(outputs(other, x), outputs(m, x), slices.Equal) {
					t.Error("outputs differ after loading the same architecture")
				}
				return
			}
			want := "hypergraph: " + path + ": architecture differs from the machine's: " + test.want
			if err == nil || err.Error() != want {
				t.Errorf("error %v,\nwant %s", err, want)
			}
		})
	}
}
