package ad

import (
	"math"
	"math/rand/v2"
)

// GlorotUniform fills w with values drawn from rnd uniformly on [-r, r],
// r = sqrt(6/(fanIn+fanOut)) (Glorot and Bengio, 2010): the initial
// weights of the layers of every family, so that a layer's outputs start
// at the scale of its inputs.
func GlorotUniform[T Float](w []T, fanIn, fanOut int, rnd *rand.Rand) {
	limit := math.Sqrt(6 / float64(fanIn+fanOut))
	for i := range w {
		w[i] = T(limit * (2*rnd.Float64() - 1))
	}
}
