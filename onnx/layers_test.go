package onnx

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/kernel/infinite"
	"github.com/parametric-machines/machines/model"
	"github.com/parametric-machines/machines/ode"
)

// everyKind returns a model with a layer of every kind that Model
// exports: finite machines (2-D and 1-D convolutional, recurrent and
// dense; scaled per entry and per channel; inputs with fewer and more
// channels than the first block, and a z0), kernel machines (additive
// and multiplicative), an infinite-depth layer, neural ODEs (the default
// field and an MLP), hypergraph machines as layers (one spec-built, one
// whose edges are other families' layers, unless nested is false, for a
// model that can be saved), a shortcut, and two outputs.
func everyKind[T ad.Float](t *testing.T, nested bool) *model.Model[T] {
	t.Helper()
	m := model.New[T](rand.New(rand.NewPCG(3, 1)))
	h := m.Add("conv2d", finite.Layer[T]{Kind: finite.Conv, Dims: []int{3, 2, 2}, Pad: []int{1, 1}, Activation: ad.ReLU6, Scale: finite.ScalePerEntry},
		m.Input("image", 2, 5, 4))
	sig := m.Add("signal", hypergraph.Reshape[T]{Shape: []int{7, -1}}, h)
	h = m.Add("conv1d", finite.Layer[T]{Kind: finite.Conv, Dims: []int{7, 2}, Pad: []int{2}, Activation: ad.Sigmoid}, sig)
	h = m.Add("recur", finite.Layer[T]{Kind: finite.Recur, Dims: []int{9, 2, 2}, Pad: []int{3}, TimeBlock: 2, Activation: ad.Tanh, Scale: finite.ScalePerChannel}, h, sig)
	v := m.Add("down", hypergraph.Linear[T]{Out: []int{8}, Bias: true}, m.Add("flat", hypergraph.Flatten[T](), h))
	z0 := m.Add("z0", hypergraph.Linear[T]{Out: []int{4}}, v)
	v = m.Add("dense", finite.Layer[T]{Kind: finite.Dense, Dims: []int{4, 3, 3}, Activation: ad.Tanh, Scale: finite.ScalePerChannel}, v, z0)
	k := m.Add("kadd", kernel.Layer[T]{Architecture: kernel.Architecture{Dims: []int{4, 3, 2}, Bandwidth: 2}, Anchors: 7}, v)
	km := m.Add("kmul", kernel.Layer[T]{Architecture: kernel.Architecture{Dims: []int{3, 2, 2, 4}, Kernel: kernel.Multiplicative}, Anchors: 5}, v)
	flow := m.Add("flow", infinite.Layer[T]{Architecture: infinite.Architecture{Anchors: 5, MaxFreq: 3, Sine: true, Gamma: 0.3, Steps: 3}}, k)
	o := m.Add("ode", ode.Layer[T]{Steps: 3, End: 0.7}, flow)
	km = m.Add("ode-mlp", ode.Layer[T]{Field: ode.MLP{Hidden: 3, Activation: ad.ReLU}, Steps: 2}, km)
	spec, err := hypergraph.ReadSpec(strings.NewReader(oddSpec))
	if err != nil {
		t.Fatal(err)
	}
	odd, err := hypergraph.FromSpec[T](spec)
	if err != nil {
		t.Fatal(err)
	}
	y := m.Add("odd", odd, m.Add("three", hypergraph.Linear[T]{Out: []int{3}}, o))
	if nested {
		m.Add("nested", nestedMachine[T](t), o)
		m.Into("nested", "shortcut", hypergraph.Linear[T]{Out: []int{3}}, km)
		m.Output("nested", y)
	} else {
		m.Output(y, km)
	}
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// nestedMachine returns a hypergraph machine from [2] to [3] whose edges
// are a finite machine, a kernel machine and a linear map, two of them
// into one vertex.
func nestedMachine[T ad.Float](t *testing.T) *hypergraph.Machine[T] {
	t.Helper()
	h := &hypergraph.Hypergraph{Vertices: []string{"a", "b", "c"}, Edges: []hypergraph.Edge{
		{Name: "machine", Sources: []int{0}, Targets: []int{1}},
		{Name: "head", Sources: []int{1}, Targets: []int{2}},
		{Name: "skip", Sources: []int{0}, Targets: []int{2}},
	}}
	mc, err := hypergraph.New(hypergraph.Config[T]{Hypergraph: h,
		Spaces: []hypergraph.Space{{Shape: []int{2}}, {Shape: []int{5}, Activation: ad.Tanh}, {Shape: []int{3}}},
		Layers: []ad.Layer[T]{
			finite.Layer[T]{Kind: finite.Dense, Dims: []int{2, 3}, Activation: ad.Sigmoid},
			kernel.Layer[T]{Architecture: kernel.Architecture{Dims: []int{4, 3}}, Anchors: 4},
			hypergraph.Linear[T]{Out: []int{3}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return mc
}

// perturb changes every parameter of m at random: one that is zero to a
// normal draw of standard deviation 0.3, and the others by a normal
// factor of 1 ± 0.3, so that no layer keeps its initial form (an
// infinite-depth layer starts as the identity) and the scales stay
// those of the initial values.
func perturb[T ad.Float](m *model.Model[T], seed uint64) {
	rnd := rand.New(rand.NewPCG(seed, 2))
	ps := m.Params()
	for _, name := range ps.Names() {
		v := ps.Value(name)
		for i, x := range v.Data {
			if x == 0 {
				v.Data[i] = T(0.3 * rnd.NormFloat64())
			} else {
				v.Data[i] = x * T(1+0.3*rnd.NormFloat64())
			}
		}
	}
}

// anchorOnData moves the anchors of the kernel and infinite-depth layers
// listed, in order, near the inputs that the batch x gives them (anchor
// i to sample i modulo the batch, plus noise), as training does: anchors
// drawn at random lie so far from the data in a space of a few
// dimensions that their Gaussians vanish. in names each layer's input
// space.
func anchorOnData[T ad.Float](t *testing.T, m *model.Model[T], x []*ad.Tensor[T], layers, in []string) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(4, 4))
	outputs, _ := m.Outputs()
	for i, layer := range layers {
		m.Output(in[i])
		y, err := m.Predict(x...)
		if err != nil {
			t.Fatal(err)
		}
		anchors := m.Params().Value(layer + ".anchors")
		n, d := y[0].Shape[0], anchors.Cols()
		for j := range anchors.Rows() {
			for r := range d {
				anchors.Data[j*d+r] = y[0].Data[(j%n)*d+r] + T(0.1*rnd.NormFloat64())
			}
		}
	}
	m.Output(outputs...)
}

// mixedShaped returns a model of the kinds and shapes of
// examples/mixed: a hypergraph convolutional front end, a finite
// convolutional machine, an infinite-depth kernel layer and a kernel
// head, on 28x28 images.
func mixedShaped[T ad.Float]() *model.Model[T] {
	m := model.New[T](nil)
	h := m.Add("front", hypergraph.Conv[T]{Out: []int{16}}, m.Input("image", 1, 28, 28))
	h = m.Add("pool1", hypergraph.Each[T]{Kind: "maxpool"}, m.Add("relu", hypergraph.Each[T]{Kind: "relu"}, h))
	h = m.Add("machine", finite.Layer[T]{Kind: finite.Conv, Dims: []int{16, 16}, Pad: []int{1, 1}, Activation: ad.Tanh}, h)
	h = m.Add("down", hypergraph.Linear[T]{Out: []int{16}, Bias: true}, m.Add("flat", hypergraph.Flatten[T](), m.Add("pool2", hypergraph.Each[T]{Kind: "maxpool"}, h)))
	h = m.Add("flow", infinite.Layer[T]{Architecture: infinite.Architecture{Anchors: 16, MaxFreq: 2, Steps: 4}}, h)
	m.Add("logits", kernel.Layer[T]{Architecture: kernel.Architecture{Dims: []int{16, 16, 10}}, Anchors: 32}, h)
	return m
}

// TestLayerAgreement exports models with layers of every family, with
// perturbed parameters, and compares ONNX Runtime's outputs on random
// inputs with the library's, in float32 and float64: everyKind, as
// built and as saved and loaded, and the model of examples/mixed.
func TestLayerAgreement(t *testing.T) {
	var cases []agreementCase
	cases = append(cases, layerCases[float32](t)...)
	cases = append(cases, layerCases[float64](t)...)
	runAgreement(t, cases)
}

func layerCases[T ad.Float](t *testing.T) []agreementCase {
	elem := "float64"
	if elemType[T]() == elemType[float32]() {
		elem = "float32"
	}
	every := everyKind[T](t, true)
	perturb(every, 1)
	x := randomInputs(every, 6, 1)
	anchors, in := []string{"kadd", "kmul", "flow"}, []string{"dense", "dense", "kadd"}
	anchorOnData(t, every, x, anchors, in)
	// The nested machine of other families cannot be saved; a model
	// without it can.
	saveable := everyKind[T](t, false)
	perturb(saveable, 1)
	anchorOnData(t, saveable, x, anchors, in)
	path := filepath.Join(t.TempDir(), "model.json")
	if err := saveable.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := model.Load[T](path)
	if err != nil {
		t.Fatal(err)
	}
	mixed := mixedShaped[T]()
	perturb(mixed, 2)
	images := randomInputs(mixed, 8, 1)
	for i, v := range images[0].Data {
		images[0].Data[i] = (v + 1) / 2 // in [0, 1), as pixels
	}
	anchorOnData(t, mixed, images, []string{"flow", "logits"}, []string{"down", "flow"})
	return []agreementCase{
		modelCase(t, "every-kind/"+elem, every, x),
		modelCase(t, "loaded/"+elem, loaded, x),
		modelCase(t, "mixed/"+elem, mixed, images),
	}
}
