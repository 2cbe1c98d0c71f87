package onnx

import (
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/internal/testutil"
	"github.com/parametric-machines/machines/model"
	"github.com/parametric-machines/machines/onnx/onnxpb"
	"github.com/parametric-machines/machines/sculpt"
)

// tolSingle is the relative difference from the library allowed in
// float32.
const tolSingle = 1e-5

// oddSpec exercises the corners of the export: a vertex that is neither
// an input nor written (zero), a dense map from two sources into two
// targets, and an edge into a vertex no output depends on (dead).
const oddSpec = `{
  "format": "machines-hypergraph", "version": 1,
  "inputs": ["x"], "outputs": ["y", "s"],
  "vertices": [
    {"name": "x", "shape": [3]},
    {"name": "zero", "shape": [2]},
    {"name": "h", "shape": [4], "activation": "tanh"},
    {"name": "y", "shape": [2], "activation": "sigmoid"},
    {"name": "s", "shape": [4]},
    {"name": "dead", "shape": [5]}
  ],
  "edges": [
    {"name": "mix", "kind": "dense", "sources": ["x", "zero"], "targets": ["h", "y"]},
    {"name": "out", "kind": "linear", "sources": ["h"], "targets": ["y"]},
    {"name": "squash", "kind": "relu6", "sources": ["h"], "targets": ["s"]},
    {"name": "unused", "kind": "dense", "sources": ["x"], "targets": ["dead"]}
  ]
}`

// TestHypergraphAgreement exports spec-built machines with random weights
// and compares ONNX Runtime's outputs on random inputs with the
// library's, in float32 and float64.
func TestModelAgreement(t *testing.T) {
	specs := map[string]*hypergraph.Spec{}
	for _, name := range []string{"perceptron", "resnet", "unet"} {
		s, err := hypergraph.LoadSpec(filepath.Join("..", "hypergraph", "testdata", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		specs[name] = s
	}
	odd, err := hypergraph.ReadSpec(strings.NewReader(oddSpec))
	if err != nil {
		t.Fatal(err)
	}
	specs["odd"] = odd
	specs["sculpt-generous"] = sculpt.Generous(1, 8, 8, 3, 6, 2).Spec(map[string]bool{"c1.2": true, "h3": true})
	var cases []agreementCase
	for _, name := range slices.Sorted(maps.Keys(specs)) {
		m32, err := model.FromSpec[float32](specs[name], hypergraph.SpecRand(1))
		if err != nil {
			t.Fatal(err)
		}
		m64, err := model.FromSpec[float64](specs[name], hypergraph.SpecRand(1))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases,
			modelCase(t, name+"/float32", m32, randomInputs(m32, 7, 1)),
			modelCase(t, name+"/float64", m64, randomInputs(m64, 7, 1)))
	}
	runAgreement(t, cases)
}

// TestHypergraphLiveEdges checks that only the edges on a path to an
// output are exported: the dead edge of oddSpec leaves no node.
func TestModelLiveEdges(t *testing.T) {
	s, err := hypergraph.ReadSpec(strings.NewReader(oddSpec))
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.FromSpec[float32](s, nil)
	if err != nil {
		t.Fatal(err)
	}
	proto, err := Model(m)
	if err != nil {
		t.Fatal(err)
	}
	matmuls := 0
	for _, n := range proto.GetGraph().GetNode() {
		if n.GetOpType() == "MatMul" {
			matmuls++
		}
	}
	// mix: x and zero into h and y, four products; out: one; unused: none.
	if matmuls != 5 {
		t.Errorf("%d MatMul nodes, want 5: the dead edge must not be exported", matmuls)
	}
}

// TestHypergraphSculpted sculpts a machine on Fashion-MNIST, briefly,
// and compares ONNX Runtime's logits on test images with the library's.
func TestModelSculpted(t *testing.T) {
	if testing.Short() {
		t.Skip("sculpts a machine")
	}
	dir := "/usr/share/datasets/fashion-mnist"
	train, err := dataset.LoadIDX(dir, "train")
	if err != nil {
		testutil.Missing(t, "Fashion-MNIST (Debian package dataset-fashion-mnist)", err)
	}
	test, err := dataset.LoadIDXClasses(dir, "t10k", train.Classes)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	// A penalty that prunes some edges within two short epochs.
	rep, err := sculpt.Run(train, test, sculpt.Config{Epochs: 2, NoFinetune: true, Lambda: 0.3, MaxTrain: 2000, MaxTest: 10, Seed: 1, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if rep.EdgesLive == 0 || rep.EdgesLive == rep.EdgesInitial {
		t.Fatalf("%d of %d edges live: want a machine with some pruned", rep.EdgesLive, rep.EdgesInitial)
	}
	m, err := model.Load[float32](filepath.Join(out, sculpt.ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	const batch = 64
	x := make([]float32, 0, batch*test.ImageLen())
	for i := range batch {
		x = append(x, test.Image32(nil, i)...)
	}
	in := ad.View(x, batch, 1, test.Rows, test.Cols)
	t.Logf("%d test images, %d of %d edges live", batch, rep.EdgesLive, rep.EdgesInitial)
	runAgreement(t, []agreementCase{modelCase(t, "sculpted", m, []*ad.Tensor[float32]{in})})
}

// randomInputs returns a batch of n inputs of m, uniform in [-1, 1).
func randomInputs[T ad.Float](m *model.Model[T], n int, seed uint64) []*ad.Tensor[T] {
	rnd := rand.New(rand.NewPCG(seed, 1))
	var xs []*ad.Tensor[T]
	_, shapes := m.Inputs()
	for _, shape := range shapes {
		x := ad.NewTensor[T](append([]int{n}, shape...)...)
		for i := range x.Data {
			x.Data[i] = T(2*rnd.Float64() - 1)
		}
		xs = append(xs, x)
	}
	return xs
}

// agreementCase is a model exported to a file, the inputs to run it on
// in ONNX Runtime, and how far its outputs may differ from the library's.
type agreementCase struct {
	name   string
	path   string
	inputs map[string]tensorJSON
	tol    float64
	// diff returns the largest relative difference of the runtime's
	// outputs from the library's (see outputDiff).
	diff func(t *testing.T, got map[string]tensorJSON) float64
}

// runAgreement checks the cases' files and runs them in one process of
// ONNX Runtime, then checks each case's outputs in a subtest.
func runAgreement(t *testing.T, cases []agreementCase) {
	t.Helper()
	paths := make([]string, len(cases))
	jobs := make([]runJob, len(cases))
	for i, c := range cases {
		paths[i], jobs[i] = c.path, runJob{Model: c.path, Inputs: c.inputs}
	}
	checkModel(t, paths...)
	needRuntime(t)
	outputs := runModels(t, jobs)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.diff(t, outputs[i])
			t.Logf("max relative difference %.3g", d)
			if !(d <= c.tol) {
				t.Errorf("max relative difference %.3g, want at most %g", d, c.tol)
			}
		})
	}
}

// tolerance returns the relative difference allowed in T.
func tolerance[T ad.Float]() float64 {
	if elemType[T]() == elemType[float32]() {
		return tolSingle
	}
	return tolDouble
}

// writeModel writes model to a new file and returns its path.
func writeModel(t *testing.T, model *onnxpb.ModelProto) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.onnx")
	if err := Write(path, model); err != nil {
		t.Fatal(err)
	}
	return path
}

// modelCase exports m and compares the runtime's outputs on the inputs
// xs with those of m.Predict.
func modelCase[T ad.Float](t *testing.T, name string, m *model.Model[T], xs []*ad.Tensor[T]) agreementCase {
	t.Helper()
	proto, err := Model(m)
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]tensorJSON{}
	names, _ := m.Inputs()
	for i, name := range names {
		in[name] = realJSON(xs[i])
	}
	want, err := m.Predict(xs...)
	if err != nil {
		t.Fatal(err)
	}
	outs, _ := m.Outputs()
	diff := func(t *testing.T, got map[string]tensorJSON) float64 {
		worst := 0.0
		for i, name := range outs {
			o, ok := got[name]
			if !ok {
				t.Fatalf("no output %q from ONNX Runtime", name)
			}
			if !slices.Equal(o.Dims, want[i].Shape) {
				t.Fatalf("output %q of shape %v, want %v", name, o.Dims, want[i].Shape)
			}
			worst = math.Max(worst, outputDiff(o.doubles(), float64s(want[i].Data)))
		}
		return worst
	}
	return agreementCase{name: name, path: writeModel(t, proto), inputs: in, tol: tolerance[T](), diff: diff}
}

// outputDiff returns the largest difference between got and want
// relative to want's largest magnitude, or +Inf if only one is NaN at
// some place: outputs near zero are sums of larger terms that cancel, so
// only their absolute error means anything.
func outputDiff(got, want []float64) float64 {
	scale, worst := 0.0, 0.0
	for i, w := range want {
		if math.IsInf(relDiff(got[i], w), 1) {
			return math.Inf(1)
		}
		scale = math.Max(scale, math.Abs(w))
		if !math.IsNaN(w) {
			worst = math.Max(worst, math.Abs(got[i]-w))
		}
	}
	if worst == 0 {
		return 0
	}
	return worst / scale
}

// realJSON returns the tensor as run.js reads it.
func realJSON[T ad.Float](x *ad.Tensor[T]) tensorJSON {
	typ := "double"
	if elemType[T]() == elemType[float32]() {
		typ = "float"
	}
	data := make([]any, len(x.Data))
	for i, v := range x.Data {
		data[i] = float64(v)
	}
	return tensorJSON{Type: typ, Dims: slices.Clone(x.Shape), Data: data}
}

// TestModelMeta exports a sculpted machine (model's testdata, 1x8x8
// images, 10 classes) whose file names its classes and its pixels'
// scale, and checks that the ONNX model's metadata holds them.
func TestModelMeta(t *testing.T) {
	m, err := model.Load[float32](filepath.Join("..", "model", "testdata", "sculpt-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	classes := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	m.Meta = model.Meta{Classes: map[string][]string{"logits": classes},
		Pixels: map[string]model.Pixels{"x": {Scale: model.Byte255, Channels: model.PixelChannels(1)}}}
	mp, err := Model(m)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, kv := range mp.MetadataProps {
		got[kv.GetKey()] = kv.GetValue()
	}
	for key, want := range map[string]string{"classes.logits": "a\nb\nc\nd\ne\nf\ng\nh\ni\nj", "pixel_scale.x": "0.00392156862745098", "channels.x": "grey"} {
		if got[key] != want {
			t.Errorf("metadata %q is %q, want %q", key, got[key], want)
		}
	}
}
