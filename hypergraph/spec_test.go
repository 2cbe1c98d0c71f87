package hypergraph

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/optim"
)

// loadMachine builds the machine of the spec at path and initialises its
// parameters as FromSpec did before the layer contract, for seed.
func loadMachine[T ad.Float](t *testing.T, path string, seed uint64) (*Machine[T], *ad.Params[T]) {
	t.Helper()
	s, err := LoadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := FromSpec[T](s)
	if err != nil {
		t.Fatal(err)
	}
	return m, initParams(t, m, SpecRand(seed))
}

// apply applies m, whose parameters ps holds, to the inputs x on g.
func apply[T ad.Float](t *testing.T, g *ad.Graph[T], m *Machine[T], ps *ad.Params[T], x ...*ad.Node[T]) []*ad.Node[T] {
	t.Helper()
	out, err := m.Apply(ad.NewScope(g, ps, "", nil), x)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// adam runs steps Adam updates of the parameters ps on the loss of g and
// returns the loss before and after them.
func adam[T ad.Float](g *ad.Graph[T], loss *ad.Node[T], ps *ad.Params[T], steps int, lr float64) (first, last float64) {
	opt := &optim.Adam{LR: lr}
	step := func(x, g []T) { opt.Step(any(x).([]float64), any(g).([]float64)) }
	if _, single := any(ps.Values()).([]float32); single {
		step = func(x, g []T) { opt.Step32(any(x).([]float32), any(g).([]float32)) }
	}
	for k := range steps {
		g.Forward()
		if k == 0 {
			first = float64(loss.Scalar())
		}
		g.Backward(loss)
		step(ps.Values(), ps.Grads())
	}
	g.Forward()
	return first, float64(loss.Scalar())
}

// classes returns n samples of d standard normal features, a row each,
// labelled by the largest of k fixed random linear functions.
func classes[T ad.Float](rnd *rand.Rand, d, k, n int) (*ad.Tensor[T], []int) {
	a := make([]float64, k*d)
	for i := range a {
		a[i] = rnd.NormFloat64()
	}
	x := ad.NewTensor[T](n, d)
	for i := range x.Data {
		x.Data[i] = T(rnd.NormFloat64())
	}
	labels := make([]int, n)
	for j := range n {
		best := math.Inf(-1)
		for c := range k {
			s := 0.0
			for i := range d {
				s += a[c*d+i] * float64(x.Data[j*d+i])
			}
			if s > best {
				best, labels[j] = s, c
			}
		}
	}
	return x, labels
}

// images returns n random 8x8 one-channel images, their masks (1 where
// the pixel is positive) and a label per image (1 if its mean is
// positive).
func images[T ad.Float](rnd *rand.Rand, n int) (x, mask *ad.Tensor[T], labels []int) {
	x, mask = ad.NewTensor[T](n, 1, 8, 8), ad.NewTensor[T](n, 1, 8, 8)
	labels = make([]int, n)
	for j := range n {
		shift := rnd.NormFloat64()
		sum := 0.0
		for i := range 64 {
			v := shift + rnd.NormFloat64()
			x.Data[j*64+i] = T(v)
			if v > 0 {
				mask.Data[j*64+i] = 1
			}
			sum += v
		}
		if sum > 0 {
			labels[j] = 1
		}
	}
	return x, mask, labels
}

func TestVectorSpecs(t *testing.T) {
	for _, test := range []struct {
		file   string
		layers int
	}{
		{"perceptron.json", 3},
		// stem, block 1 in, block 1 out with its shortcut, block 2 in,
		// block 2 out with its shortcut, the head with the long shortcut.
		{"resnet.json", 6},
	} {
		t.Run(test.file, func(t *testing.T) {
			path := filepath.Join("testdata", test.file)
			m, ps := loadMachine[float64](t, path, 1)
			if got := len(m.Layers()); got != test.layers {
				t.Errorf("%d layers, want %d", got, test.layers)
			}
			rnd := rand.New(rand.NewPCG(1, 2))
			x, _ := classes[float64](rnd, 4, 3, 3)
			init := make([]*ad.Tensor[float64], len(m.spaces))
			init[m.Inputs()[0]] = x
			checkAgainstIterate(t, m, ps, init)
			checkGradient(t, m, ps, init, rnd, 1e-6)

			for _, seed := range []uint64{1, 2} {
				m, ps := loadMachine[float64](t, path, seed)
				x, labels := classes[float64](rnd, 4, 3, 64)
				var g ad.Graph[float64]
				out := apply(t, &g, m, ps, g.Input(x))
				loss := g.SoftmaxCrossEntropy(out[0], labels)
				first, last := adam(&g, loss, ps, 100, 0.01)
				t.Logf("seed %d: cross-entropy %.4g -> %.4g", seed, first, last)
				if !(last < 0.5*first) {
					t.Errorf("seed %d: cross-entropy from %.4g to %.4g in 100 Adam steps", seed, first, last)
				}
			}
		})
	}
}

func TestUNetSpec(t *testing.T) {
	path := filepath.Join("testdata", "unet.json")
	m, ps := loadMachine[float64](t, path, 1)
	rnd := rand.New(rand.NewPCG(3, 4))
	x, _, _ := images[float64](rnd, 2)
	init := make([]*ad.Tensor[float64], len(m.spaces))
	init[m.Inputs()[0]] = x
	checkAgainstIterate(t, m, ps, init)
	checkGradient(t, m, ps, init, rnd, 1e-5)

	// Train in float32, the type for image models.
	m32, ps32 := loadMachine[float32](t, path, 1)
	x32, mask, labels := images[float32](rnd, 16)
	var g ad.Graph[float32]
	out := apply(t, &g, m32, ps32, g.Input(x32))
	if got, want := out[0].Value.Shape, []int{16, 1, 8, 8}; !slices.Equal(got, want) {
		t.Fatalf("mask shape %v, want %v", got, want)
	}
	if got, want := out[1].Value.Shape, []int{16, 2}; !slices.Equal(got, want) {
		t.Fatalf("logits shape %v, want %v", got, want)
	}
	loss := g.Add(g.MSE(out[0], g.Input(mask)), g.SoftmaxCrossEntropy(out[1], labels))
	first, last := adam(&g, loss, ps32, 60, 0.01)
	t.Logf("loss %.4g -> %.4g", first, last)
	if !(last < 0.5*first) {
		t.Errorf("loss from %.4g to %.4g in 60 Adam steps", first, last)
	}
}

// TestEmptySourcesAndTargets checks a dense edge without sources (a
// learned constant), one without targets, and a vertex that nothing
// writes and that is not an input (not an output either: see
// TestSpecRefusals).
func TestEmptySourcesAndTargets(t *testing.T) {
	s, err := ReadSpec(strings.NewReader(`{
		"format": "machines-hypergraph", "version": 1,
		"inputs": ["x"], "outputs": ["h"],
		"vertices": [{"name": "x", "shape": [2]}, {"name": "h", "shape": [3]}, {"name": "z", "shape": [2]}],
		"edges": [
			{"name": "bias", "kind": "dense", "sources": [], "targets": ["h"]},
			{"name": "lin", "kind": "linear", "sources": ["x"], "targets": ["h"]},
			{"name": "sink", "kind": "dense", "sources": ["h"], "targets": []}
		]}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := FromSpec[float64](s)
	if err != nil {
		t.Fatal(err)
	}
	ps := initParams(t, m, rand.New(rand.NewPCG(1, 1)))
	if got, want := ps.Names(), []string{"bias.bias", "lin.weight"}; !slices.Equal(got, want) {
		t.Fatalf("parameters %v, want %v", got, want)
	}
	b, w := ps.Value("bias.bias"), ps.Value("lin.weight")
	copy(b.Data, []float64{1, 2, 3})
	var g ad.Graph[float64]
	x := ad.Matrix(2, 2, []float64{1, 2, 3, 4}) // two samples, a row each
	out := apply(t, &g, m, ps, g.Input(x))
	for i := range 3 {
		for j := range 2 {
			want := b.Data[i] + w.At(i, 0)*x.At(j, 0) + w.At(i, 1)*x.At(j, 1)
			if got := out[0].Value.At(j, i); !equalWithin(got, want, 1e-14) {
				t.Errorf("h[%d,%d] = %v, want %v", i, j, got, want)
			}
		}
	}
}

// TestSpecRefusals checks that a spec is refused, with an error that
// names what is wrong, for keys that are not its fields' exact names
// and for outputs that no path of edges reaches from the inputs.
func TestSpecRefusals(t *testing.T) {
	const vertices = `"vertices": [{"name": "x", "shape": [2]}, {"name": "h", "shape": [3]}, {"name": "z", "shape": [2]}]`
	const edges = `"edges": [{"name": "lin", "kind": "linear", "sources": ["x"], "targets": ["h"]}]`
	for _, tc := range []struct{ name, spec, want string }{
		{"miscased top-level key", `{"formAt": "machines-hypergraph", "format": "machines-hypergraph", "version": 1, ` + vertices + `, ` + edges + `}`,
			`the spec: field "format", not "formAt"`},
		{"miscased list", `{"format": "machines-hypergraph", "version": 1, "vertiCes": [{"name": "x", "shape": [2]}, {"name": "h", "shape": [3]}], ` + edges + `}`,
			`the spec: field "vertices", not "vertiCes"`},
		{"miscased vertex key", `{"format": "machines-hypergraph", "version": 1, "vertices": [{"name": "x", "Shape": [2]}, {"name": "h", "shape": [3]}], ` + edges + `}`,
			`vertices 0: field "shape", not "Shape"`},
		{"miscased edge key", `{"format": "machines-hypergraph", "version": 1, ` + vertices + `, "edges": [{"name": "lin", "kind": "linear", "Sources": ["x"], "targets": ["h"]}]}`,
			`edges 0: field "sources", not "Sources"`},
		{"unreachable output", `{"format": "machines-hypergraph", "version": 1, "inputs": ["x"], "outputs": ["h", "z"], ` + vertices + `, ` + edges + `}`,
			`outputs "z" are not reached from the inputs`},
		{"output reached from a constant only", `{"format": "machines-hypergraph", "version": 1, "inputs": ["x"], "outputs": ["h", "z"], ` + vertices +
			`, "edges": [{"name": "lin", "kind": "linear", "sources": ["x"], "targets": ["h"]}, {"name": "c", "kind": "dense", "sources": [], "targets": ["z"]}]}`,
			`outputs "z" are not reached from the inputs`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadSpec(strings.NewReader(tc.spec))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestDefaultInputsOutputs(t *testing.T) {
	s, err := LoadSpec(filepath.Join("testdata", "unet.json"))
	if err != nil {
		t.Fatal(err)
	}
	s.Inputs, s.Outputs = nil, nil
	m, err := FromSpec[float32](s)
	if err != nil {
		t.Fatal(err)
	}
	names := func(list []int) []string {
		var out []string
		for _, v := range list {
			out = append(out, m.Hypergraph().Vertices[v])
		}
		return out
	}
	if got, want := names(m.Inputs()), []string{"image"}; !slices.Equal(got, want) {
		t.Errorf("inputs %v, want %v", got, want)
	}
	if got, want := names(m.Outputs()), []string{"mask", "logits"}; !slices.Equal(got, want) {
		t.Errorf("outputs %v, want %v", got, want)
	}
}

func TestSaveSpec(t *testing.T) {
	s, err := LoadSpec(filepath.Join("testdata", "resnet.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "copy.json")
	if err := SaveSpec(path, s); err != nil {
		t.Fatal(err)
	}
	back, err := LoadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	// A spec of the format before the envelope is saved in the envelope.
	if back.Format != "machines" || back.Kind != SpecKind || back.Version != SpecVersion {
		t.Errorf("saved with header %q %q %d, want the envelope's", back.Format, back.Kind, back.Version)
	}
	want := s.clone()
	want.setHeader()
	if !reflect.DeepEqual(back, want) {
		t.Errorf("spec changed in a round trip:\n%+v\nwant\n%+v", back, want)
	}
	bad := s.clone()
	bad.Edges[0].Kind = "dense2"
	if err := SaveSpec(path, bad); err == nil || !strings.Contains(err.Error(), `edge stem: unknown kind "dense2"`) {
		t.Errorf("SaveSpec of an invalid spec: %v", err)
	}
}

func TestSpecFileErrors(t *testing.T) {
	for _, test := range []struct {
		file, want string
	}{
		{"cyclic.json", "hypergraph: testdata/cyclic.json: cycle v1 -E2-> v3 -E4-> v1"},
		{"version2.json", "hypergraph: testdata/version2.json: machines-hypergraph version 2 is newer than this program reads (version 1)"},
		{"not_a_spec.json", `hypergraph: testdata/not_a_spec.json: not a hypergraph spec (format "machines-model", want "machines" with "kind": "hypergraph-spec")`},
		{"missing.json", "no such file"},
	} {
		t.Run(test.file, func(t *testing.T) {
			_, err := LoadSpec("testdata/" + test.file)
			if err == nil || !strings.Contains(err.Error(), test.want) {
				t.Errorf("error %v, want it to contain %q", err, test.want)
			}
		})
	}
	_, err := LoadSpec("testdata/cyclic.json")
	var ce *CycleError
	if !errors.As(err, &ce) || len(ce.Path.Edges) != 2 {
		t.Errorf("error %v does not wrap the *CycleError", err)
	}
}

func TestSpecErrors(t *testing.T) {
	const head = `"format": "machines-hypergraph", "version": 1, `
	vec := func(name string, d int) string { return `{"name": "` + name + `", "shape": [` + strconv.Itoa(d) + `]}` }
	for _, test := range []struct {
		name, json, want string
	}{
		{"invalid JSON", `{"format": "machines-hypergraph",`, "invalid JSON at byte"},
		{"not an object", `[1, 2]`, "not a hypergraph spec"},
		{"no format", `{"version": 1}`, `not a hypergraph spec (no "format": "machines" with "kind": "hypergraph-spec")`},
		{"saved machine", `{"format": "machines-hypergraph-machine", "version": 1}`, `hypergraph: not a hypergraph spec (format "machines-hypergraph-machine", want "machines" with "kind": "hypergraph-spec")`},
		{"no version", `{"format": "machines-hypergraph"}`, `missing "version"`},
		{"bad version", `{"format": "machines-hypergraph", "version": 1.5}`, "version 1.5, want a whole number from 1"},
		{"version 0", `{"format": "machines-hypergraph", "version": 0}`, "version 0, want a whole number from 1"},
		{"unknown field", `{` + head + `"vertices": [], "edges": [{"name": "E", "kind": "dense", "sourcs": []}]}`, `unknown field "sourcs"`},
		{"trailing data", `{` + head + `"vertices": [], "edges": []} {}`, "invalid character '{' after top-level value"},
		{"vertex without name", `{` + head + `"vertices": [{"shape": [2]}], "edges": []}`, "vertex 0 has no name"},
		{"duplicate vertex", `{` + head + `"vertices": [` + vec("a", 2) + `, ` + vec("a", 3) + `], "edges": []}`, `vertex name "a" used twice`},
		{"no shape", `{` + head + `"vertices": [{"name": "a"}], "edges": []}`, "vertex a has no shape"},
		{"zero dimension", `{` + head + `"vertices": [{"name": "a", "shape": [3, 0, 2]}], "edges": []}`, "vertex a: shape [3 0 2], want dimensions of at least 1"},
		{"unknown activation", `{` + head + `"vertices": [{"name": "a", "shape": [2], "activation": "gelu"}], "edges": []}`, `vertex a: unknown activation "gelu"`},
		{"edge without name", `{` + head + `"vertices": [` + vec("a", 2) + `], "edges": [{"kind": "relu"}]}`, "edge 0 has no name"},
		{"duplicate edge", `{` + head + `"vertices": [` + vec("a", 2) + `], "edges": [{"name": "E", "kind": "relu"}, {"name": "E", "kind": "relu"}]}`, `edge name "E" used twice`},
		{"unknown kind", `{` + head + `"vertices": [` + vec("a", 2) + `], "edges": [{"name": "E", "kind": "conv5x5"}]}`, `edge E: unknown kind "conv5x5" (known kinds: conv3x3, dense, flatten, identity, linear, maxpool, relu, relu6, sigmoid, tanh, upsample)`},
		{"unknown source", `{` + head + `"vertices": [` + vec("a", 2) + `], "edges": [{"name": "E", "kind": "dense", "sources": ["b"], "targets": ["a"]}]}`, `edge E: unknown source vertex "b"`},
		{"unknown target", `{` + head + `"vertices": [` + vec("a", 2) + `], "edges": [{"name": "E", "kind": "dense", "sources": ["a"], "targets": ["c"]}]}`, `edge E: unknown target vertex "c"`},
		{"source twice", `{` + head + `"vertices": [` + vec("a", 2) + `, ` + vec("b", 2) + `], "edges": [{"name": "E", "kind": "dense", "sources": ["a", "a"], "targets": ["b"]}]}`, `edge E: source vertex "a" listed twice`},
		{"unknown input", `{` + head + `"inputs": ["x"], "vertices": [` + vec("a", 2) + `], "edges": []}`, `inputs: unknown vertex "x"`},
		{"unknown output", `{` + head + `"outputs": ["y"], "vertices": [` + vec("a", 2) + `], "edges": []}`, `outputs: unknown vertex "y"`},
		{"no input", `{` + head + `"vertices": [` + vec("a", 2) + `, ` + vec("b", 2) + `], "edges": [{"name": "E", "kind": "dense", "sources": ["a"], "targets": ["b"]}, {"name": "F", "kind": "dense", "sources": [], "targets": ["a"]}]}`, "hypergraph: no input vertex"},
		{"no vertex", `{` + head + `"vertices": [], "edges": []}`, "hypergraph: no input vertex"},
		{"self-loop", `{` + head + `"vertices": [` + vec("a", 2) + `], "edges": [{"name": "E", "kind": "tanh", "sources": ["a"], "targets": ["a"]}]}`, "hypergraph: cycle a -E-> a"},
		{"dense on an image", `{` + head + `"vertices": [{"name": "img", "shape": [1, 4, 4]}, ` + vec("h", 2) + `], "edges": [{"name": "E", "kind": "dense", "sources": ["img"], "targets": ["h"]}]}`, "edge E (dense): source img has shape [1 4 4], want a vector [D]"},
		{"identity of another shape", `{` + head + `"vertices": [` + vec("a", 4) + `, ` + vec("b", 5) + `], "edges": [{"name": "skip", "kind": "identity", "sources": ["a"], "targets": ["b"]}]}`, "edge skip (identity): source a of shape [4] gives shape [4], but target b has shape [5]"},
		{"pairing", `{` + head + `"vertices": [` + vec("a", 4) + `, ` + vec("b", 4) + `, ` + vec("c", 4) + `], "edges": [{"name": "E", "kind": "relu", "sources": ["a", "b"], "targets": ["c"]}]}`, "edge E (relu): kind relu maps each source to the target in the same position, but there are 2 sources and 1 targets"},
		{"convolution size", `{` + head + `"vertices": [{"name": "a", "shape": [1, 8, 8]}, {"name": "b", "shape": [2, 4, 4]}], "edges": [{"name": "c", "kind": "conv3x3", "sources": ["a"], "targets": ["b"]}]}`, "edge c (conv3x3): target b has shape [2 4 4], but the sources give [2 8 8]"},
		{"convolution of a vector", `{` + head + `"vertices": [` + vec("a", 4) + `, {"name": "b", "shape": [2, 4, 4]}], "edges": [{"name": "c", "kind": "conv3x3", "sources": ["a"], "targets": ["b"]}]}`, "edge c (conv3x3): source a has shape [4], want an image [C H W]"},
		{"odd pooling", `{` + head + `"vertices": [{"name": "a", "shape": [1, 5, 4]}, {"name": "b", "shape": [1, 2, 2]}], "edges": [{"name": "p", "kind": "maxpool", "sources": ["a"], "targets": ["b"]}]}`, "edge p (maxpool): source a: shape [1 5 4]: max-pooling needs an even height and width"},
		{"pooling size", `{` + head + `"vertices": [{"name": "a", "shape": [1, 4, 4]}, {"name": "b", "shape": [1, 4, 4]}], "edges": [{"name": "p", "kind": "maxpool", "sources": ["a"], "targets": ["b"]}]}`, "edge p (maxpool): source a of shape [1 4 4] gives shape [1 2 2], but target b has shape [1 4 4]"},
		{"upsampling size", `{` + head + `"vertices": [{"name": "a", "shape": [1, 4, 4]}, {"name": "b", "shape": [1, 4, 4]}], "edges": [{"name": "u", "kind": "upsample", "sources": ["a"], "targets": ["b"]}]}`, "edge u (upsample): source a of shape [1 4 4] gives shape [1 8 8], but target b has shape [1 4 4]"},
		{"flatten size", `{` + head + `"vertices": [{"name": "a", "shape": [2, 2, 2]}, ` + vec("b", 4) + `], "edges": [{"name": "f", "kind": "flatten", "sources": ["a"], "targets": ["b"]}]}`, "edge f (flatten): source a of shape [2 2 2] gives shape [8], but target b has shape [4]"},
		{"huge vertex", `{` + head + `"vertices": [{"name": "a", "shape": [65536, 65536, 65536, 65536]}], "edges": []}`, "vertex a: shape [65536 65536 65536 65536] has 1.84e+19 elements, more than the 16777216 (MaxParams)"},
		{"too many parameters", `{` + head + `"vertices": [` + vec("a", 100000) + `, ` + vec("b", 100000) + `], "edges": [{"name": "E", "kind": "dense", "sources": ["a"], "targets": ["b"]}]}`, "edge E (dense): 1e+10 parameters, 37.3 GiB in float32, more than the 16777216 (MaxParams)"},
		// The audit's spec of 185 bytes, which once allocated 3 GiB.
		{"2^28 parameters", `{` + head + `"vertices": [` + vec("a", 16384) + `, ` + vec("b", 16383) + `], "edges": [{"name": "E", "kind": "dense", "sources": ["a"], "targets": ["b"]}]}`, "2.68e+08 parameters, 1 GiB in float32"},
		{"two edges over MaxParams", `{` + head + `"vertices": [` + vec("a", 4096) + `, ` + vec("b", 2048) + `, ` + vec("c", 2048) + `], "edges": [{"name": "E", "kind": "dense", "sources": ["a"], "targets": ["b"]}, {"name": "F", "kind": "dense", "sources": ["a"], "targets": ["c"]}]}`, "edge F (dense): with it the spec has 1.68e+07 parameters, 64 MiB in float32"},
		{"just over MaxParams", `{` + head + `"vertices": [` + vec("a", 4096) + `, ` + vec("b", 4096) + `], "edges": [{"name": "E", "kind": "dense", "sources": ["a"], "targets": ["b"]}]}`, "1.68e+07 parameters, 64 MiB in float32"},
		{"flatten a vector", `{` + head + `"vertices": [` + vec("a", 4) + `, ` + vec("b", 4) + `], "edges": [{"name": "f", "kind": "flatten", "sources": ["a"], "targets": ["b"]}]}`, "edge f (flatten): source a: shape [4] is not an image [C H W]"},
	} {
		t.Run(test.name, func(t *testing.T) {
			_, err := ReadSpec(strings.NewReader(test.json))
			if err == nil || !strings.Contains(err.Error(), test.want) {
				t.Errorf("error %v,\nwant it to contain %q", err, test.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "hypergraph: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

// TestTestdataIsSpecs keeps the fixtures honest: every file in testdata
// is a spec that loads or one of the fixtures for errors; testdata/fuzz
// holds the fuzz corpus.
func TestTestdataIsSpecs(t *testing.T) {
	bad := []string{"cyclic.json", "not_a_spec.json", "version2.json"}
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		_, err := LoadSpec(filepath.Join("testdata", e.Name()))
		if got, want := err != nil, slices.Contains(bad, e.Name()); got != want {
			t.Errorf("%s: error %v", e.Name(), err)
		}
	}
}
