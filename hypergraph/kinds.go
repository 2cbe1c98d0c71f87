package hypergraph

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/ad"
)

// port is a source or target of an edge, as a map kind sees it.
type port struct {
	name  string
	shape []int
}

// kind is a map kind of the spec format. A kind either mixes all its
// sources into all its targets, as a linear map on the direct sums does,
// or applies one function to each source and sends the result to the
// target in the same position.
type kind struct {
	// mix, for a mixing kind, checks the shapes of the sources and
	// targets and returns the shapes of the parameters.
	mix func(src, tgt []port) ([][]int, error)
	// pair, for a kind applied position by position, returns the target
	// shape the source shape s maps to.
	pair func(s []int) ([]int, error)
}

// kinds are the map kinds of the spec format; the shape rules of the
// image kinds are in kinds_image.go.
var kinds = map[string]kind{
	"linear":   {mix: vectorMix(false)},
	"dense":    {mix: vectorMix(true)},
	"conv3x3":  {mix: convMix},
	"identity": {pair: same},
	"relu":     {pair: same},
	"relu6":    {pair: same},
	"tanh":     {pair: same},
	"sigmoid":  {pair: same},
	"maxpool":  {pair: halve},
	"upsample": {pair: double},
	"flatten":  {pair: flatten},
}

// kindNames returns the known kinds, sorted.
func kindNames() string { return strings.Join(slices.Sorted(maps.Keys(kinds)), ", ") }

func same(s []int) ([]int, error) { return s, nil }

// vectorMix is the shape rule of linear and dense maps: vectors in and
// out, a weight matrix per pair of target and source (the blocks of one
// matrix on the direct sums) and, with bias, a bias per target.
func vectorMix(bias bool) func(src, tgt []port) ([][]int, error) {
	return func(src, tgt []port) ([][]int, error) {
		for _, list := range [][]port{src, tgt} {
			for _, p := range list {
				if len(p.shape) != 1 {
					return nil, fmt.Errorf("vertex %s has shape %v, want a vector [D]", p.name, p.shape)
				}
			}
		}
		var params [][]int
		for _, t := range tgt {
			for _, s := range src {
				params = append(params, []int{t.shape[0], s.shape[0]})
			}
		}
		if bias {
			for _, t := range tgt {
				params = append(params, []int{t.shape[0], 1})
			}
		}
		return params, nil
	}
}

// edgeKind is a compiled edge of a spec: its kind and the shapes of its
// sources and targets.
type edgeKind struct {
	name     string // the kind's name
	src, tgt []port
	params   [][]int
}

// checkKind checks that kind name can map src to tgt.
func checkKind(name string, src, tgt []port) (edgeKind, error) {
	k, ok := kinds[name]
	if !ok {
		return edgeKind{}, fmt.Errorf("unknown kind %q (known kinds: %s)", name, kindNames())
	}
	ek := edgeKind{name: name, src: src, tgt: tgt}
	if k.mix != nil {
		var err error
		ek.params, err = k.mix(src, tgt)
		return ek, err
	}
	if len(src) != len(tgt) {
		return ek, fmt.Errorf("kind %s maps each source to the target in the same position, but there are %d sources and %d targets", name, len(src), len(tgt))
	}
	for i, s := range src {
		want, err := k.pair(s.shape)
		if err != nil {
			return ek, fmt.Errorf("source %s: %v", s.name, err)
		}
		if !slices.Equal(want, tgt[i].shape) {
			return ek, fmt.Errorf("source %s of shape %v gives shape %v, but target %s has shape %v", s.name, s.shape, want, tgt[i].name, tgt[i].shape)
		}
	}
	return ek, nil
}

// specMap is the Map of an edge of a spec.
type specMap[T ad.Float] struct {
	edgeKind
	init []*ad.Tensor[T]
}

// newSpecMap returns the map of a compiled edge with random initial
// weights, uniform in ±sqrt(6 / (fan-in + fan-out)) over the whole map
// from the direct sum of the sources to that of the targets (Glorot), and
// zero biases.
func newSpecMap[T ad.Float](ek edgeKind, rnd *rand.Rand) *specMap[T] {
	m := &specMap[T]{edgeKind: ek}
	fan := 0
	for _, list := range [][]port{ek.src, ek.tgt} {
		for _, p := range list {
			fan += p.shape[0]
		}
	}
	weights := len(ek.src) * len(ek.tgt)
	for i, s := range ek.params {
		t := ad.NewTensor[T](s...)
		if i < weights {
			receptive := t.Len() / (s[0] * s[1]) // kernel size of a convolution, 1 for a matrix
			limit := math.Sqrt(6 / float64(fan*receptive))
			for j := range t.Data {
				t.Data[j] = T(limit * (2*rnd.Float64() - 1))
			}
		}
		m.init = append(m.init, t)
	}
	return m
}

func (m *specMap[T]) Params() []*ad.Tensor[T] { return m.init }

func (m *specMap[T]) Build(g *ad.Graph[T], n int, params, x []*ad.Node[T]) []*ad.Node[T] {
	y := make([]*ad.Node[T], len(m.tgt))
	switch m.name {
	case "linear", "dense", "conv3x3":
		weights := len(m.src) * len(m.tgt)
		for i, t := range m.tgt {
			var acc *ad.Node[T]
			for j := range m.src {
				w := params[i*len(m.src)+j]
				var z *ad.Node[T]
				if m.name == "conv3x3" {
					z = g.Conv2D(x[j], w, 1)
				} else {
					z = g.MatMul(x[j], w, false, true) // samples x sources times W'

				}
				if acc == nil {
					acc = z
				} else {
					acc = g.Add(acc, z)
				}
			}
			if acc == nil {
				acc = g.Input(ad.NewTensor[T](batched(t.shape, n)...))
			}
			if m.name == "dense" {
				// The bias is stored as a column, the shape of saved
				// machines; it is added to every sample's row.
				acc = g.AddRow(acc, g.Reshape(params[weights+i], 1, t.shape[0]))
			}
			y[i] = acc
		}
	default:
		for i := range m.tgt {
			y[i] = pairOp(g, m.name, x[i], m.tgt[i].shape)
		}
	}
	return y
}

// pairOp applies the position-by-position kind name to x; shape is the
// target's shape.
func pairOp[T ad.Float](g *ad.Graph[T], name string, x *ad.Node[T], shape []int) *ad.Node[T] {
	switch name {
	case "identity":
		return x
	case "relu":
		return g.ReLU(x)
	case "tanh":
		return g.Tanh(x)
	case "sigmoid":
		return g.Sigmoid(x)
	case "relu6":
		return g.ReLU6(x)
	case "maxpool":
		return g.MaxPool2(x)
	case "upsample":
		return g.Upsample2(x)
	case "flatten":
		// [n C H W] -> [n, C*H*W], a row per sample.
		return g.Reshape(x, x.Value.Shape[0], shape[0])
	}
	panic(fmt.Sprintf("hypergraph: internal error: no operation for kind %q", name))
}
