package bench

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/parametric-machines/machines/ad"
)

// W3 is a two-layer convolution on a batch of 32 one-channel 28x28
// images, NCHW: conv 3x3 with same padding from 1 to 4 channels, no bias,
// ReLU, conv 3x3 same from 4 to 4 channels, no bias, loss the sum of all
// outputs. One unit is the forward pass and the gradient with respect to
// both kernels, in float32; the images are a constant, so no gradient
// flows into them.
const (
	w3Batch    = 32
	w3Size     = 28
	w3Channels = 4
)

// conv3 returns the W3 graph's forward and backward pass on random
// images in [0, 1) and kernels uniform in +-sqrt(6/fanIn).
func conv3() (func(), error) {
	rnd := rand.New(rand.NewPCG(1, 1))
	uniform := func(scale float64, shape ...int) *ad.Tensor[float32] {
		t := ad.NewTensor[float32](shape...)
		for i := range t.Data {
			t.Data[i] = float32(scale * (2*rnd.Float64() - 1))
		}
		return t
	}
	x := ad.NewTensor[float32](w3Batch, 1, w3Size, w3Size)
	for i := range x.Data {
		x.Data[i] = rnd.Float32()
	}
	var g ad.Graph[float32]
	w1 := g.Param(uniform(math.Sqrt(6.0/9), w3Channels, 1, 3, 3), nil)
	w2 := g.Param(uniform(math.Sqrt(6.0/(9*w3Channels)), w3Channels, w3Channels, 3, 3), nil)
	h := g.ReLU(g.Conv2D(g.Input(x), w1, 1))
	loss := g.Sum(g.Conv2D(h, w2, 1))
	g.Backward(loss)
	if !loss.IsFinite() {
		return nil, fmt.Errorf("W3: loss %v", loss.Scalar())
	}
	return func() {
		g.Forward()
		g.Backward(loss)
	}, nil
}
