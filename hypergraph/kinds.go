package hypergraph

import (
	"fmt"
	"slices"

	"github.com/parametric-machines/machines/ad"
)

// Linear is the layer of the spec kinds linear and dense: a linear map
// from the direct sum of its inputs to that of its outputs, all vectors.
// It holds a weight [Out[t], D_s] for each pair of output t and input s
// (the blocks of one matrix on the direct sums), called "weight" when
// there is one input and one output and "weight.t.s" otherwise, and with
// Bias a bias [Out[t], 1] per output, "bias" or "bias.t". Weights start
// uniform in ±sqrt(6 / (fan-in + fan-out)) over the whole map (Glorot),
// biases at zero.
type Linear[T ad.Float] struct {
	// Out holds the size of each output.
	Out  []int
	Bias bool
}

// Init implements ad.Layer.
func (l Linear[T]) Init(s *ad.Scope[T], in [][]int) ([][]int, error) {
	out, _, err := l.plan(in, nil)
	if err == nil {
		mixInit(s, in, l.Out, l.Bias, 1)
	}
	return out, err
}

// plan returns the shapes of the outputs and the number of parameters
// for inputs of the given shapes, called names in messages (nil for
// "input 0", ...).
func (l Linear[T]) plan(in [][]int, names []string) ([][]int, int, error) {
	for i, shape := range in {
		if len(shape) != 1 {
			return nil, 0, fmt.Errorf("%s has shape %v, want a vector [D]", nameOf(names, i), shape)
		}
	}
	return mixPlan(in, l.Out, l.Bias, 1, func(d int) []int { return []int{d} })
}

// Apply implements ad.Layer.
func (l Linear[T]) Apply(s *ad.Scope[T], x []*ad.Node[T]) ([]*ad.Node[T], error) {
	return mixApply(s, x, len(l.Out), l.Bias, x[0].Value.Shape[0], l.outShape)
}

func (l Linear[T]) applyEmpty(s *ad.Scope[T], n int) ([]*ad.Node[T], error) {
	return mixApply(s, nil, len(l.Out), l.Bias, n, l.outShape)
}

func (l Linear[T]) outShape(t, n int) []int { return []int{n, l.Out[t]} }

// Conv is the layer of the spec kind conv3x3: a bias-free 3x3
// convolution with same padding from the stacked channels of its inputs
// to those of its outputs, all images [C, H, W] of one height and
// width. Out holds the channels of each output. Its kernels [Out[t], C_s,
// 3, 3] are named and drawn as Linear's weights are.
type Conv[T ad.Float] struct {
	Out []int
}

// Init implements ad.Layer.
func (l Conv[T]) Init(s *ad.Scope[T], in [][]int) ([][]int, error) {
	out, _, err := l.plan(in, nil)
	if err == nil {
		mixInit(s, in, l.Out, false, 9)
	}
	return out, err
}

// plan is Linear's plan for a convolution.
func (l Conv[T]) plan(in [][]int, names []string) ([][]int, int, error) {
	if len(in) == 0 {
		return nil, 0, fmt.Errorf("a convolution needs an input to take height and width from")
	}
	for i, shape := range in {
		if len(shape) != 3 {
			return nil, 0, fmt.Errorf("%s has shape %v, want an image [C H W]", nameOf(names, i), shape)
		}
		if shape[1] != in[0][1] || shape[2] != in[0][2] {
			return nil, 0, fmt.Errorf("%s is %dx%d but %s is %dx%d; a 3x3 convolution keeps height and width",
				nameOf(names, i), shape[1], shape[2], nameOf(names, 0), in[0][1], in[0][2])
		}
	}
	hw := in[0][1:]
	return mixPlan(in, l.Out, false, 9, func(c int) []int { return []int{c, hw[0], hw[1]} })
}

// Apply implements ad.Layer.
func (l Conv[T]) Apply(s *ad.Scope[T], x []*ad.Node[T]) ([]*ad.Node[T], error) {
	shape := x[0].Value.Shape
	return mixApply(s, x, len(l.Out), false, shape[0], func(t, n int) []int { return []int{n, l.Out[t], shape[2], shape[3]} })
}

// WeightName and BiasName name the parameters of Linear and Conv layers
// with the given numbers of inputs and outputs: the weight from input s
// to output t, and the bias of output t.
func WeightName(t, s, inputs, outputs int) string {
	if inputs == 1 && outputs == 1 {
		return "weight"
	}
	return fmt.Sprintf("weight.%d.%d", t, s)
}

// BiasName: see WeightName.
func BiasName(t, outputs int) string {
	if outputs == 1 {
		return "bias"
	}
	return fmt.Sprintf("bias.%d", t)
}

// mixPlan returns the output shapes of a mixing layer, which shape
// gives each output size, and its number of parameters: [out, in, k...]
// per pair with receptive field size k (1 or 9), and the biases. It
// refuses more than MaxParams.
func mixPlan(in [][]int, out []int, bias bool, k int, shape func(int) []int) ([][]int, int, error) {
	shapes := make([][]int, len(out))
	n := 0
	for t, d := range out {
		if d < 1 || d > MaxParams {
			return nil, 0, fmt.Errorf("output %d of size %d, want 1 to %d", t, d, MaxParams)
		}
		for _, src := range in {
			if src[0] > MaxParams/(d*k) || n+src[0]*d*k > MaxParams {
				return nil, 0, tooManyParams(float64(n) + float64(d)*float64(src[0])*float64(k))
			}
			n += src[0] * d * k
		}
		if bias {
			n += d
		}
		shapes[t] = shape(d)
	}
	return shapes, n, nil
}

// mixInit registers the weights and biases of a mixing layer whose
// plan passed, drawing the weights from s.Rand.
func mixInit[T ad.Float](s *ad.Scope[T], in [][]int, out []int, bias bool, k int) {
	fanIn, fanOut := 0, 0
	for _, d := range in {
		fanIn += d[0]
	}
	for _, d := range out {
		fanOut += d
	}
	for t, d := range out {
		for j, src := range in {
			wshape := []int{d, src[0]}
			if k == 9 {
				wshape = append(wshape, 3, 3)
			}
			w := s.NewParam(WeightName(t, j, len(in), len(out)), wshape...)
			ad.GlorotUniform(w.Data, fanIn*k, fanOut*k, s.Rand)
		}
	}
	if bias {
		for t, d := range out {
			s.NewParam(BiasName(t, len(out)), d, 1)
		}
	}
}

// mixApply adds a mixing layer for a batch of n: output t is the sum over
// inputs of their products with its weights, plus its bias; outShape
// gives its batched shape, for an output without inputs.
func mixApply[T ad.Float](s *ad.Scope[T], x []*ad.Node[T], outputs int, bias bool, n int, outShape func(t, n int) []int) ([]*ad.Node[T], error) {
	g := s.Graph
	y := make([]*ad.Node[T], outputs)
	for t := range outputs {
		var acc *ad.Node[T]
		for j, xj := range x {
			w := s.Param(WeightName(t, j, len(x), outputs))
			var z *ad.Node[T]
			if len(w.Value.Shape) == 4 {
				z = g.Conv2D(xj, w, 1)
			} else {
				z = g.MatMul(xj, w, false, true) // samples x sources times W'
			}
			if acc == nil {
				acc = z
			} else {
				acc = g.Add(acc, z)
			}
		}
		if acc == nil {
			acc = g.Input(ad.NewTensor[T](outShape(t, n)...))
		}
		if bias {
			// The bias is stored as a column, the shape of saved
			// machines; it is added to every sample's row.
			b := s.Param(BiasName(t, outputs))
			acc = g.AddRow(acc, g.Reshape(b, 1, b.Value.Shape[0]))
		}
		y[t] = acc
	}
	return y, nil
}

// Each is the layer of the spec kinds that apply one function to each
// input and send the result to the output in the same position:
// identity, relu, relu6, tanh and sigmoid on any shape; maxpool ([C, H,
// W] to [C, H/2, W/2], the maximum of each 2x2 block) and upsample (to
// [C, 2H, 2W], each pixel repeated) on images; flatten to vectors. It
// has no parameters.
type Each[T ad.Float] struct {
	Kind string
}

// eachKinds are the kinds of Each, with the shape each gives an input.
var eachKinds = map[string]func(s []int) ([]int, error){
	"identity": same, "relu": same, "relu6": same, "tanh": same, "sigmoid": same,
	"maxpool": halve, "upsample": double, "flatten": flatten,
}

// Init implements ad.Layer.
func (l Each[T]) Init(_ *ad.Scope[T], in [][]int) ([][]int, error) {
	out, _, err := l.plan(in, nil)
	return out, err
}

// plan returns the shapes of the outputs; Each has no parameters.
func (l Each[T]) plan(in [][]int, names []string) ([][]int, int, error) {
	rule, ok := eachKinds[l.Kind]
	if !ok {
		return nil, 0, fmt.Errorf("unknown kind %q (known kinds: %s)", l.Kind, kindNames())
	}
	out := make([][]int, len(in))
	for i, s := range in {
		var err error
		if out[i], err = rule(s); err != nil {
			return nil, 0, fmt.Errorf("%s: %v", nameOf(names, i), err)
		}
	}
	return out, 0, nil
}

// Apply implements ad.Layer.
func (l Each[T]) Apply(s *ad.Scope[T], x []*ad.Node[T]) ([]*ad.Node[T], error) {
	g := s.Graph
	y := make([]*ad.Node[T], len(x))
	for i, xi := range x {
		switch l.Kind {
		case "maxpool":
			y[i] = g.MaxPool2(xi)
		case "upsample":
			y[i] = g.Upsample2(xi)
		case "flatten":
			y[i] = g.Reshape(xi, xi.Value.Shape[0], -1)
		default:
			y[i] = ad.Activate(g, ad.Activation(l.Kind), xi)
		}
	}
	return y, nil
}

func (l Each[T]) applyEmpty(*ad.Scope[T], int) ([]*ad.Node[T], error) { return nil, nil }

// Reshape is a layer that gives each input the shape Shape, which may
// hold one -1 for what the other dimensions leave; Flatten is Reshape to
// [-1]. It has no parameters.
type Reshape[T ad.Float] struct {
	Shape []int
}

// Flatten returns the layer that makes every input a vector.
func Flatten[T ad.Float]() Reshape[T] { return Reshape[T]{Shape: []int{-1}} }

// Init implements ad.Layer.
func (l Reshape[T]) Init(_ *ad.Scope[T], in [][]int) ([][]int, error) {
	out := make([][]int, len(in))
	for i, s := range in {
		n := 1
		for _, d := range s {
			n *= d
		}
		var err error
		if out[i], err = ad.ResolveShape(n, l.Shape); err != nil {
			return nil, fmt.Errorf("input %d of shape %v: %w", i, s, err)
		}
	}
	return out, nil
}

// Apply implements ad.Layer.
func (l Reshape[T]) Apply(s *ad.Scope[T], x []*ad.Node[T]) ([]*ad.Node[T], error) {
	y := make([]*ad.Node[T], len(x))
	for i, xi := range x {
		y[i] = s.Graph.Reshape(xi, append([]int{xi.Value.Shape[0]}, l.Shape...)...)
	}
	return y, nil
}

func same(s []int) ([]int, error) { return slices.Clone(s), nil }

// nameOf returns names[i], or "input i" without names.
func nameOf(names []string, i int) string {
	if names == nil {
		return fmt.Sprintf("input %d", i)
	}
	return names[i]
}
