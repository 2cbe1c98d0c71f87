package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/kernel/infinite"
	"github.com/parametric-machines/machines/ode"
)

// The layers a model file can hold, each an edge of the spec with a kind
// and, for the families other than hypergraph's own kinds, the layer's
// settings as "config":
//
//	linear, dense, conv3x3, identity, relu, relu6, tanh, sigmoid,
//	maxpool, upsample, flatten
//	           hypergraph's kinds, their sizes from the targets' shapes
//	reshape    hypergraph.Reshape: {"shape": [...]}
//	hypergraph a spec-built hypergraph.Machine: its spec
//	finite     finite.Layer: {"kind", "dims", "activation", "pad",
//	           "timeblock", "scale"}
//	kernel     kernel.Layer: {"dims", "kernel", "bandwidth", "anchors",
//	           "cost"}
//	infinite   infinite.Layer: {"dim", "anchors", "maxfreq", "gamma",
//	           "steps", "sine", "tol", "cost"}
//	ode        ode.Layer with an ode.MLP field: {"hidden", "activation",
//	           "end", "steps", "rtol", "atol", "grad"}
type (
	reshapeConfig struct {
		Shape []int `json:"shape"`
	}
	finiteConfig struct {
		Kind       string        `json:"kind"`
		Dims       []int         `json:"dims"`
		Activation ad.Activation `json:"activation,omitempty"`
		Pad        []int         `json:"pad,omitempty"`
		TimeBlock  int           `json:"timeblock,omitempty"`
		Scale      string        `json:"scale,omitempty"`
	}
	kernelConfig struct {
		Dims      []int   `json:"dims"`
		Kernel    string  `json:"kernel"`
		Bandwidth float64 `json:"bandwidth,omitempty"`
		Anchors   int     `json:"anchors"`
		Cost      float64 `json:"cost,omitempty"`
	}
	infiniteConfig struct {
		Dim     int     `json:"dim"`
		Anchors int     `json:"anchors"`
		MaxFreq int     `json:"maxfreq"`
		Gamma   float64 `json:"gamma,omitempty"`
		Steps   int     `json:"steps,omitempty"`
		Sine    bool    `json:"sine,omitempty"`
		Tol     float64 `json:"tol,omitempty"`
		Cost    float64 `json:"cost,omitempty"`
	}
	odeConfig struct {
		Hidden     int           `json:"hidden"`
		Activation ad.Activation `json:"activation,omitempty"`
		End        float64       `json:"end,omitempty"`
		Steps      int           `json:"steps,omitempty"`
		RTol       float64       `json:"rtol,omitempty"`
		ATol       float64       `json:"atol,omitempty"`
		Grad       string        `json:"grad,omitempty"`
	}
)

// describe returns the kind and config of a layer a model file can hold.
func describe[T ad.Float](l ad.Layer[T]) (kind string, config any, err error) {
	switch l := l.(type) {
	case hypergraph.Linear[T]:
		if l.Bias {
			return "dense", nil, nil
		}
		return "linear", nil, nil
	case hypergraph.Conv[T]:
		return "conv3x3", nil, nil
	case hypergraph.Each[T]:
		return l.Kind, nil, nil
	case hypergraph.Reshape[T]:
		return "reshape", reshapeConfig{l.Shape}, nil
	case *hypergraph.Machine[T]:
		if l.Spec() == nil {
			return "", nil, fmt.Errorf("a hypergraph machine that was not built from a spec cannot be saved")
		}
		return "hypergraph", l.Spec(), nil
	case finite.Layer[T]:
		return "finite", finiteConfig{Kind: l.Kind.String(), Dims: l.Dims, Activation: l.Activation, Pad: l.Pad, TimeBlock: l.TimeBlock, Scale: l.Scale.String()}, nil
	case kernel.Layer[T]:
		return "kernel", kernelConfig{Dims: l.Dims, Kernel: l.Kernel.String(), Bandwidth: l.Bandwidth, Anchors: l.Anchors, Cost: l.Cost}, nil
	case infinite.Layer[T]:
		s := l.Architecture
		return "infinite", infiniteConfig{Dim: s.Dim, Anchors: s.Anchors, MaxFreq: s.MaxFreq, Gamma: s.Gamma, Steps: s.Steps, Sine: s.Sine, Tol: s.Tol, Cost: l.Cost}, nil
	case ode.Layer[T]:
		return describeODE(l)
	}
	return "", nil, fmt.Errorf("a layer of type %T cannot be saved in a model file", l)
}

func describeODE[T ad.Float](l ode.Layer[T]) (string, any, error) {
	f := ode.MLP{Hidden: ode.DefaultHidden}
	if l.Field != nil {
		var ok bool
		if f, ok = l.Field.(ode.MLP); !ok {
			return "", nil, fmt.Errorf("an ode layer whose field is a %T cannot be saved in a model file: only ode.MLP can", l.Field)
		}
	}
	c := odeConfig{Hidden: f.Hidden, Activation: f.Activation, End: l.End, Steps: l.Steps, Grad: l.Grad.String()}
	if l.Settings != (ode.Settings{RTol: l.Settings.RTol, ATol: l.Settings.ATol}) {
		return "", nil, fmt.Errorf("an ode layer's settings other than rtol and atol cannot be saved in a model file")
	}
	c.RTol, c.ATol = l.Settings.RTol, l.Settings.ATol
	return "ode", c, nil
}

// layerOf returns the layer of a spec's edge whose targets have the
// shapes tgt.
func layerOf[T ad.Float](e hypergraph.EdgeSpec, tgt [][]int) (ad.Layer[T], error) {
	switch e.Kind {
	case "reshape":
		var c reshapeConfig
		err := decodeConfig(e, &c)
		return hypergraph.Reshape[T]{Shape: c.Shape}, err
	case "hypergraph":
		var s hypergraph.Spec
		if err := decodeConfig(e, &s); err != nil {
			return nil, err
		}
		if err := s.Validate(); err != nil {
			return nil, err
		}
		return hypergraph.FromSpec[T](&s)
	case "finite":
		return finiteLayer[T](e)
	case "kernel":
		var c kernelConfig
		if err := decodeConfig(e, &c); err != nil {
			return nil, err
		}
		k, err := kernel.ParseCombine(c.Kernel)
		return kernel.Layer[T]{Architecture: kernel.Architecture{Dims: c.Dims, Kernel: k, Bandwidth: c.Bandwidth}, Anchors: c.Anchors, Cost: c.Cost}, err
	case "infinite":
		var c infiniteConfig
		err := decodeConfig(e, &c)
		return infinite.Layer[T]{Architecture: infinite.Architecture{Dim: c.Dim, Anchors: c.Anchors, MaxFreq: c.MaxFreq, Gamma: c.Gamma, Steps: c.Steps, Sine: c.Sine, Tol: c.Tol}, Cost: c.Cost}, err
	case "ode":
		return odeLayer[T](e)
	}
	l, err := hypergraph.SpecLayer[T](e.Kind, tgt)
	if err != nil {
		return nil, fmt.Errorf("unknown kind %q (known kinds: hypergraph's own, reshape, hypergraph, finite, kernel, infinite, ode)", e.Kind)
	}
	if len(e.Config) > 0 {
		return nil, fmt.Errorf("kind %s takes no config", e.Kind)
	}
	return l, nil
}

func finiteLayer[T ad.Float](e hypergraph.EdgeSpec) (ad.Layer[T], error) {
	var c finiteConfig
	if err := decodeConfig(e, &c); err != nil {
		return nil, err
	}
	l := finite.Layer[T]{Dims: c.Dims, Activation: c.Activation, Pad: c.Pad, TimeBlock: c.TimeBlock}
	var ok bool
	if l.Kind, ok = named(c.Kind, finite.Dense, finite.Conv, finite.Recur); !ok {
		return nil, fmt.Errorf("unknown finite machine kind %q (known: dense, conv, recur)", c.Kind)
	}
	if c.Scale == "" {
		c.Scale = finite.NoScale.String()
	}
	if l.Scale, ok = named(c.Scale, finite.NoScale, finite.ScalePerChannel, finite.ScalePerEntry); !ok {
		return nil, fmt.Errorf("unknown scaling %q (known: none, channel, entry)", c.Scale)
	}
	return l, nil
}

func odeLayer[T ad.Float](e hypergraph.EdgeSpec) (ad.Layer[T], error) {
	var c odeConfig
	if err := decodeConfig(e, &c); err != nil {
		return nil, err
	}
	l := ode.Layer[T]{Field: ode.MLP{Hidden: c.Hidden, Activation: c.Activation}, End: c.End, Steps: c.Steps,
		Settings: ode.Settings{RTol: c.RTol, ATol: c.ATol}}
	if c.Grad == "" {
		c.Grad = ode.Backprop.String()
	}
	var ok bool
	if l.Grad, ok = named(c.Grad, ode.Backprop, ode.Adjoint); !ok {
		return nil, fmt.Errorf("unknown gradient method %q (known: backprop, adjoint)", c.Grad)
	}
	if c.Hidden < 1 {
		return nil, fmt.Errorf("ode field with %d hidden units, want at least 1", c.Hidden)
	}
	return l, nil
}

// named returns the value among values whose String is name.
func named[K fmt.Stringer](name string, values ...K) (K, bool) {
	for _, v := range values {
		if v.String() == name {
			return v, true
		}
	}
	var zero K
	return zero, false
}

// decodeConfig decodes an edge's config into dst, refusing unknown
// fields.
func decodeConfig(e hypergraph.EdgeSpec, dst any) error {
	if len(e.Config) == 0 {
		return fmt.Errorf("kind %s needs a config", e.Kind)
	}
	dec := json.NewDecoder(bytes.NewReader(e.Config))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return fmt.Errorf("config of kind %s: %s", e.Kind, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}
