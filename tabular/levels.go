package tabular

import (
	"math"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/mat"
)

// A categorical column enters the machine as one 0/1 column per level.
// Standardised one by one, a level of frequency p moves a row by
// 1/sqrt(p(1-p)) along its column: two rows of rare levels lie farther
// apart than any two rows of common ones, and a column of k levels
// weighs as much as k numeric columns in a Gaussian kernel's distances.
// The learner scales the levels of a column together instead: each by
// the same factor, so that two rows of different levels are the same
// distance apart whichever levels they are (an overlap kernel on the
// column), and two rows drawn at random are as far apart on average as
// on one standardised numeric column. Of two levels, this is the
// standardisation itself.

// levelBlock is the span of the encoded columns of one categorical
// column of three levels or more: its first column and their number.
type levelBlock struct{ start, width int }

// levelBlocks returns the blocks of the one-hot levels of the categorical
// columns of enc of three levels or more.
func levelBlocks(enc *dataset.Encoder) []levelBlock {
	var blocks []levelBlock
	start := 0
	widths := enc.Widths()
	for i, r := range enc.Rules() {
		if r.Kind == "categorical" && len(r.Levels) >= 3 {
			blocks = append(blocks, levelBlock{start, len(r.Levels)})
		}
		start += widths[i]
	}
	return blocks
}

// scaleLevels sets in in, the scaler fitted to the inputs x, the scale
// of the columns of each block of levels to sqrt(1 - sum p^2), p the
// frequencies of the levels in x: the probability that two rows drawn at
// random differ in that column. Rows of different levels are then
// 2/(1 - sum p^2) apart in squared distance, and two random rows 2 on
// average. A block whose rows all share a level is left as it is.
func scaleLevels(in *scale.Scaler, x mat.Matrix, blocks []levelBlock) {
	n, _ := x.Dims()
	for _, b := range blocks {
		var same float64
		for j := b.start; j < b.start+b.width; j++ {
			var p float64
			for i := range n {
				p += x.At(i, j)
			}
			p /= float64(n)
			same += p * p
		}
		if differ := 1 - same; differ > 0 {
			for j := b.start; j < b.start+b.width; j++ {
				in.Scale[j] = math.Sqrt(differ)
			}
		}
	}
}
