package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/internal/testutil"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/kernel/infinite"
	"github.com/parametric-machines/machines/ode"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/train"
)

// mixed returns a model with a layer of every kind a model file holds:
// hypergraph's own kinds, a nested spec-built machine, a finite machine,
// a reshape, a kernel machine, an infinite-depth kernel machine and a
// neural ODE, with a shortcut into one space.
func mixed[T ad.Float](t testing.TB) *Model[T] {
	t.Helper()
	spec, err := hypergraph.LoadSpec("../hypergraph/testdata/perceptron.json")
	if err != nil {
		t.Fatal(err)
	}
	nested, err := hypergraph.FromSpec[T](spec)
	if err != nil {
		t.Fatal(err)
	}
	m := New[T](rand.New(rand.NewPCG(1, 2)))
	x := m.Input("image", 1, 4, 4)
	h := m.Add("conv", hypergraph.Conv[T]{Out: []int{2}}, x)
	h = m.Add("relu", hypergraph.Each[T]{Kind: "relu"}, h)
	h = m.Add("machine", finite.Layer[T]{Kind: finite.Conv, Dims: []int{2, 2}, Activation: ad.Tanh, Pad: []int{1, 1}, Scale: ScaleChannel}, h)
	h = m.Add("pool", hypergraph.Each[T]{Kind: "maxpool"}, h)
	h = m.Add("flat", hypergraph.Reshape[T]{Shape: []int{-1}}, h)
	h = m.Add("down", hypergraph.Linear[T]{Out: []int{4}, Bias: true}, h)
	h = m.Add("flow", ode.Layer[T]{Field: ode.MLP{Hidden: 3}, Steps: 3}, h)
	h = m.Add("inf", infinite.Layer[T]{Architecture: infinite.Architecture{Anchors: 3, MaxFreq: 2, Steps: 4}, Cost: 0.01}, h)
	m.Into(h, "skip", hypergraph.Each[T]{Kind: "identity"}, "down")
	h = m.Add("mlp", nested, h)
	m.Add("logits", kernel.Layer[T]{Architecture: kernel.Architecture{Dims: []int{2, 3}}, Anchors: 4, Cost: 0.01}, h)
	if m.Err() != nil {
		t.Fatal(m.Err())
	}
	return m
}

// ScaleChannel keeps the table above on one line.
const ScaleChannel = finite.ScalePerChannel

func images[T ad.Float](n int, seed uint64) (*ad.Tensor[T], []int) {
	rnd := rand.New(rand.NewPCG(seed, 3))
	x := ad.NewTensor[T](n, 1, 4, 4)
	labels := make([]int, n)
	for i := range n {
		labels[i] = i % 3
		for k := range 16 {
			x.Data[i*16+k] = T(0.3*rnd.NormFloat64() + float64(labels[i]*(k%3)))
		}
	}
	return x, labels
}

// TestSaveLoad saves a model with a layer of every kind and loads it back,
// in both element types: the architecture, the parameters and the
// outputs are the same.
func TestSaveLoad(t *testing.T) {
	m := mixed[float64](t)
	x, _ := images[float64](5, 1)
	want, err := m.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	back, path := saveLoad(t, m)
	if !slices.Equal(back.Params().Names(), m.Params().Names()) {
		t.Errorf("parameters %v, want %v", back.Params().Names(), m.Params().Names())
	}
	got, err := back.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[0].Data, want[0].Data) {
		t.Errorf("loaded model predicts %v, the saved one %v", got[0].Data, want[0].Data)
	}
	// The same file in float32.
	m32, err := Load[float32](path)
	if err != nil {
		t.Fatal(err)
	}
	x32 := ad.NewTensor[float32](x.Shape...)
	for i, v := range x.Data {
		x32.Data[i] = float32(v)
	}
	got32, err := m32.Predict(x32)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got32[0].Data {
		if d := math.Abs(float64(v) - want[0].Data[i]); d > 1e-3*(1+math.Abs(want[0].Data[i])) {
			t.Errorf("output %d: %v in float32, %v in float64", i, v, want[0].Data[i])
		}
	}
	// A model built in code takes the parameters of its own file, and
	// refuses another architecture's.
	fresh := mixed[float64](t)
	for i := range fresh.Params().Values() {
		fresh.Params().Values()[i] = 0
	}
	if err := fresh.LoadParams(path); err != nil {
		t.Fatal(err)
	}
	if got, _ := fresh.Predict(x); !slices.Equal(got[0].Data, want[0].Data) {
		t.Error("LoadParams did not give the saved parameters")
	}
	other := New[float64](nil)
	other.Add("d", hypergraph.Linear[float64]{Out: []int{3}}, other.Input("x", 2))
	if err := other.LoadParams(path); err == nil || !strings.Contains(err.Error(), "architecture") {
		t.Errorf("LoadParams of another architecture: %v", err)
	}
}

// saveLoad saves m to a new file and loads it back, returning the loaded
// model and the file.
func saveLoad[T ad.Float](t *testing.T, m *Model[T]) (*Model[T], string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.json")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := Load[T](path)
	if err != nil {
		t.Fatal(err)
	}
	return back, path
}

// TestSaveLoadDefaultODE checks that an ode layer of nil Field is saved
// as the field it runs: an MLP of ode.DefaultHidden units.
func TestSaveLoadDefaultODE(t *testing.T) {
	m := New[float64](rand.New(rand.NewPCG(3, 3)))
	m.Add("flow", ode.Layer[float64]{Steps: 2}, m.Input("x", 2))
	back, _ := saveLoad(t, m)
	want := ode.MLP{Hidden: ode.DefaultHidden}.NumParams(2)
	if got := back.Params().Value("flow.theta").Len(); got != want || m.Params().Value("flow.theta").Len() != want {
		t.Errorf("theta of %d values loaded, %d saved, want %d", got, m.Params().Value("flow.theta").Len(), want)
	}
}

// TestShortBatches checks the batch contract: a task given a minibatch
// shorter than one it has seen computes the loss of exactly its own
// samples, as a fresh model does, and train.Run's short last and
// validation batches train.
func TestShortBatches(t *testing.T) {
	m := mixed[float64](t)
	x, labels := images[float64](20, 2)
	task := m.Classifier(labels, x)
	if _, err := task.Loss(seq(0, 16), true); err != nil {
		t.Fatal(err)
	}
	short := []int{16, 17, 18}
	got, err := task.Loss(short, false)
	if err != nil {
		t.Fatal(err)
	}
	fresh := m.Classifier(labels[16:19], &ad.Tensor[float64]{Shape: []int{3, 1, 4, 4}, Data: x.Data[16*16 : 19*16]})
	want, err := fresh.Loss(seq(0, 3), false)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("loss of a short batch %v, of its samples alone %v", got, want)
	}
	res, err := train.Run[float64](task, task.Len(), train.Config{Epochs: 2, Batch: 8, Validation: 0.25, Optimizer: &optim.Adam{LR: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	// 15 training examples in batches of 8 and 7, 5 validation examples
	// in one batch of 5: three graph sizes beside those above.
	for _, n := range []int{8, 7, 5} {
		if _, ok := task.graphs[n]; !ok {
			t.Errorf("no graph for batches of %d after %+v", n, res)
		}
	}
}

// TestEvaluate checks Evaluate's accuracy and loss against Predict's
// outputs, counted and averaged here.
func TestEvaluate(t *testing.T) {
	m := mixed[float64](t)
	x, labels := images[float64](11, 3)
	score, err := m.Classifier(labels, x).Evaluate(4)
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	right, loss := 0, 0.0
	for i, l := range labels {
		row := out[0].Data[3*i : 3*i+3]
		best, sum, top := 0, 0.0, slices.Max(row)
		for j, v := range row {
			if v > row[best] {
				best = j
			}
			sum += math.Exp(v - top)
		}
		if best == l {
			right++
		}
		loss += top + math.Log(sum) - row[l]
	}
	if score.Samples != 11 || score.Accuracy != float64(right)/11 || math.Abs(score.Loss-loss/11) > 1e-12 {
		t.Errorf("score %+v, want accuracy %v and loss %v over 11 samples", score, float64(right)/11, loss/11)
	}
	if err := testutil.PanicError(func() { _, _ = m.Classifier(labels, x).Evaluate(-1) }); !errors.Is(err, ad.ErrValue) {
		t.Errorf("Evaluate(-1): panic %v, want ad.ErrValue", err)
	}
	// The training loss adds the penalties of the two kernel machines,
	// which have a cost.
	task := m.Classifier(labels, x)
	total, err := task.Loss(seq(0, 11), false)
	if err != nil {
		t.Fatal(err)
	}
	pen := task.graphs[11].penalties
	if len(pen) != 2 || !(pen[0].Scalar() >= 0 && pen[1].Scalar() > 0) { // the infinite machine starts at the identity, of norm 0
		t.Fatalf("penalties %v, want two, the kernel head's positive", pen)
	}
	if want := loss/11 + pen[0].Scalar() + pen[1].Scalar(); math.Abs(total-want) > 1e-12 {
		t.Errorf("training loss %v, want the data's %v plus the penalties", total, want)
	}
}

// TestTrainRegressor trains a small regression through the same tasks:
// the loss falls.
func TestTrainRegressor(t *testing.T) {
	m := New[float64](rand.New(rand.NewPCG(4, 4)))
	h := m.Add("in", hypergraph.Linear[float64]{Out: []int{8}, Bias: true}, m.Input("x", 2))
	m.Add("y", kernel.Layer[float64]{Architecture: kernel.Architecture{Dims: []int{4, 4, 1}}, Anchors: 8}, m.Add("tanh", hypergraph.Each[float64]{Kind: "tanh"}, h))
	rnd := rand.New(rand.NewPCG(5, 5))
	x, y := ad.NewTensor[float64](64, 2), ad.NewTensor[float64](64, 1)
	for i := range 64 {
		a, b := 2*rnd.Float64()-1, 2*rnd.Float64()-1
		x.Data[2*i], x.Data[2*i+1], y.Data[i] = a, b, math.Sin(2*a)*b
	}
	task := m.Regressor(y, x)
	before, err := task.Evaluate(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := train.Run[float64](task, task.Len(), train.Config{Epochs: 60, Batch: 16, Optimizer: &optim.Adam{LR: 0.02}}); err != nil {
		t.Fatal(err)
	}
	after, err := task.Evaluate(0)
	if err != nil {
		t.Fatal(err)
	}
	if !(after.Loss < before.Loss/3) || !math.IsNaN(after.Accuracy) {
		t.Errorf("mean squared error %v before training, %v after; accuracy %v", before.Loss, after.Loss, after.Accuracy)
	}
}

// TestLayerFailure checks that a layer's numerical failure comes back as
// the error of the step, naming the layer and the time.
func TestLayerFailure(t *testing.T) {
	m := New[float64](nil)
	m.Add("flow", ode.Layer[float64]{Field: ode.MLP{Hidden: 2}, Settings: ode.Settings{MaxSteps: 1, RTol: 1e-12, ATol: 1e-12}}, m.Input("x", 2))
	x := ad.Matrix(2, 2, []float64{1, 2, 3, 4})
	_, err := m.Regressor(ad.NewTensor[float64](2, 2), x).Loss([]int{0, 1}, true)
	var steps *ode.MaxStepsError
	if !errors.As(err, &steps) || !strings.Contains(err.Error(), "layer flow") {
		t.Errorf("error %v, want a MaxStepsError naming layer flow", err)
	}
	if _, err := m.Predict(x); err == nil || !strings.Contains(err.Error(), "layer flow") {
		t.Errorf("Predict: %v", err)
	}
}

// TestBuilderErrors checks the errors the builder keeps.
func TestBuilderErrors(t *testing.T) {
	lin := hypergraph.Linear[float64]{Out: []int{3}}
	for _, tc := range []struct {
		name  string
		build func(m *Model[float64])
		want  string
	}{
		{"space taken", func(m *Model[float64]) { m.Input("x", 2); m.Input("x", 2) }, `space name "x" is empty or taken`},
		{"bad shape", func(m *Model[float64]) { m.Input("x", 0) }, "input x of shape [0]"},
		{"unknown source", func(m *Model[float64]) { m.Add("a", lin, "nowhere") }, `layer a reads space "nowhere"`},
		{"layer taken", func(m *Model[float64]) { x := m.Input("x", 2); m.Add("a", lin, x); m.Add("a", lin, x) }, `layer name "a" is empty or taken`},
		{"nil layer", func(m *Model[float64]) { m.Add("a", nil, m.Input("x", 2)) }, "layer a is nil"},
		{"no output", func(m *Model[float64]) { m.Add("a", hypergraph.Linear[float64]{}, m.Input("x", 2)) }, "layer a returns no output"},
		{"init", func(m *Model[float64]) { m.Add("c", hypergraph.Conv[float64]{Out: []int{2}}, m.Input("x", 2)) }, "layer c: input 0 has shape [2], want an image"},
		{"into shape", func(m *Model[float64]) { x := m.Input("x", 2); m.Into(x, "s", lin, x) }, "layer s gives shapes [[3]], but space x has shape [2]"},
		{"output", func(m *Model[float64]) { m.Add("a", lin, m.Input("x", 2)); m.Output("b") }, `output "b" is not a space`},
		{"output twice", func(m *Model[float64]) { m.Add("a", lin, m.Input("x", 2)); m.Output("a", "a") }, `output "a" listed twice`},
		{"no layer", func(m *Model[float64]) { m.Input("x", 2) }, "a model needs an input and a layer"},
	} {
		m := New[float64](nil)
		tc.build(m)
		_, err := m.Machine()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	m := New[float64](nil)
	m.Add("a", lin, m.Input("x", 2))
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"input count", func() error { _, err := m.Predict(); return err }()},
		{"input shape", func() error { _, err := m.Predict(ad.NewTensor[float64](2, 3)); return err }()},
		{"labels", m.Classifier([]int{0}, ad.NewTensor[float64](2, 2)).err},
		{"label range", m.Classifier([]int{0, 3}, ad.NewTensor[float64](2, 2)).err},
		{"targets", m.Regressor(ad.NewTensor[float64](2, 2), ad.NewTensor[float64](2, 2)).err},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestLoadErrors checks that Load names what is wrong with a file, before
// allocating what the file could not hold.
func TestLoadErrors(t *testing.T) {
	m := mixed[float64](t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if err := m.Save(good); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// 9 million parameters: within hypergraph.MaxParams, but more than a
	// file of this size could hold.
	huge := `{"format": "machines", "kind": "model", "version": 1, "element": "float32", "spec": {"format": "machines-hypergraph", "version": 1,
	  "vertices": [{"name": "x", "shape": [3000]}, {"name": "y", "shape": [3000]}],
	  "edges": [{"name": "E", "kind": "linear", "sources": ["x"], "targets": ["y"]}]}, "params": []}`
	for _, tc := range []struct {
		name, content, want string
	}{
		{"not JSON", "{", "invalid JSON"},
		{"other kind", `{"format": "machines", "kind": "params", "version": 1}`, `kind "params", want "model"`},
		{"newer", strings.Replace(string(data), fmt.Sprintf(`"version": %d`, Version), `"version": 9`, 1), "newer than this program reads"},
		{"element", strings.Replace(string(data), `"element": "float64"`, `"element": "int8"`, 1), `element type "int8"`},
		{"unknown kind", strings.Replace(string(data), `"kind": "kernel"`, `"kind": "svm"`, 1), `unknown kind "svm"`},
		{"config field", strings.Replace(string(data), `"anchors": 4`, `"anchorz": 4`, 1), `unknown field "anchorz"`},
		{"params", strings.Replace(string(data), `"name": "logits.coef"`, `"name": "logits.coeff"`, 1), `parameter "logits.coeff"`},
		{"budget", huge, "more parameters than the file could hold"},
	} {
		path := filepath.Join(dir, tc.name+".json")
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load[float32](path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming the file and containing %q", tc.name, err, tc.want)
		}
	}
}

// TestLegacy loads a saved hypergraph machine of an earlier version: its
// parameters, by edge in the file, become the layers' named ones.
func TestLegacy(t *testing.T) {
	m, err := Load[float32]("testdata/legacy.machine.json")
	if err != nil {
		t.Fatal(err)
	}
	if m.NumParams() == 0 || len(m.Params().Names()) == 0 {
		t.Fatalf("a legacy machine of %d parameters", m.NumParams())
	}
	for _, name := range m.Params().Names() {
		if !strings.Contains(name, ".weight") && !strings.Contains(name, ".bias") {
			t.Errorf("parameter %q, want a layer's weight or bias", name)
		}
	}
}

// FuzzLoad feeds Load arbitrary files: it must refuse them with an
// error, never panic or allocate parameters the file does not hold, or
// return a model that saves and loads back with the same parameters.
// The seed corpus, in testdata/fuzz/FuzzLoad, holds a legacy machine and
// a small file whose spec calls for 2^28 parameters.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"testdata/legacy.machine.json", "testdata/sculpt-v1.json"} {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "m.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load[float32](path)
		if err != nil {
			return
		}
		again := filepath.Join(dir, "again.json")
		if err := m.Save(again); err != nil {
			t.Fatalf("a loaded model does not save: %v", err)
		}
		back, err := Load[float32](again)
		if err != nil {
			t.Fatalf("a saved model does not load: %v", err)
		}
		if !slices.Equal(back.Params().Values(), m.Params().Values()) {
			t.Fatal("the parameters changed in a round trip")
		}
	})
}

// TestMeta loads a model file of version 1, a machine that sculpt wrote
// (testdata/sculpt-v1.json, 1x8x8 images, 10 classes), which has no
// meta, saves it with one, and checks that it loads back and that a
// meta that does not fit the model is refused, on saving and loading.
func TestMeta(t *testing.T) {
	m, err := Load[float32]("testdata/sculpt-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	if m.Meta.Classes != nil || m.Meta.Pixels != nil {
		t.Errorf("meta %+v in a file of version 1", m.Meta)
	}
	classes := []string{"T-shirt", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"}
	good := Meta{Classes: map[string][]string{"logits": classes}, Pixels: map[string]Pixels{"x": {Scale: Byte255, Channels: PixelChannels(1)}}}
	dir := t.TempDir()
	path := filepath.Join(dir, "m.json")
	m.Meta = good
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := Load[float32](path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Meta, good) || !slices.Equal(back.Params().Values(), m.Params().Values()) {
		t.Errorf("meta %+v after a round trip, want %+v", back.Meta, good)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(md *Meta)
		want string
	}{
		{"too few classes", func(md *Meta) { md.Classes["logits"] = classes[:9] }, `9 classes of output "logits", of shape [10]`},
		{"classes of an input", func(md *Meta) { md.Classes = map[string][]string{"x": classes} }, `classes of "x", which is not an output space`},
		{"a class twice", func(md *Meta) { md.Classes["logits"] = append(slices.Clone(classes[:9]), "Bag") }, `class 9 of output "logits" is "Bag"`},
		{"an empty class", func(md *Meta) { md.Classes["logits"] = append(slices.Clone(classes[:9]), "") }, `class 9 of output "logits" is ""`},
		{"colour pixels of a grey input", func(md *Meta) { md.Pixels["x"] = Pixels{Scale: Byte255, Channels: PixelChannels(3)} }, `pixels of input "x", of shape [1 8 8]`},
		{"pixels of an output", func(md *Meta) { md.Pixels = map[string]Pixels{"logits": {Scale: 1, Channels: PixelChannels(1)}} }, `pixels of "logits", which is not an input space`},
		{"a scale of 0", func(md *Meta) { md.Pixels["x"] = Pixels{Channels: PixelChannels(1)} }, `scaled by 0`},
	} {
		md := Meta{Classes: maps.Clone(good.Classes), Pixels: maps.Clone(good.Pixels)}
		tc.edit(&md)
		m.Meta = md
		if err := m.Save(filepath.Join(dir, "bad.json")); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: saving: error %v, want one saying %s", tc.name, err, tc.want)
		}
		// The same in a file: Load refuses it.
		var f map[string]any
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		f["meta"] = md
		bad, _ := json.Marshal(f)
		if _, err := Decode[float32](bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: loading: error %v, want one saying %s", tc.name, err, tc.want)
		}
	}
	// A meta in a file of version 1, which had none.
	old := bytes.Replace(data, []byte(`"version": 2`), []byte(`"version": 1`), 1)
	if _, err := Decode[float32](bytes.NewReader(old)); err == nil || !strings.Contains(err.Error(), "version 1, which had none") {
		t.Errorf("a meta in a file of version 1: error %v", err)
	}
}
