package baseline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/optim"
	"gonum.org/v1/gonum/mat"
)

// CNN is a small convolutional classifier of one-channel images: blocks
// of a 3x3 convolution ("same" padding, no bias), ReLU and 2x2 max
// pooling, then a ReLU hidden layer and a linear layer to the logits.
type CNN struct {
	Rows, Cols int
	// Kernels[l] is block l's kernel, [out in 3 3].
	Kernels []*ad.Tensor[float64]
	// Hidden and Out are the dense layers, outputs x inputs, with biases.
	Hidden, Out   *mat.Dense
	HiddenB, OutB []float64
}

// CNNSettings configures FitCNN.
type CNNSettings struct {
	// Channels are the output channels of the convolution blocks; each
	// block halves the image, so Rows and Cols must divide by
	// 2^len(Channels).
	Channels []int
	// Hidden is the width of the hidden dense layer.
	Hidden int
	// WeightDecay adds WeightDecay * |W|^2 over all weights (biases
	// excluded) to the mean softmax cross-entropy.
	WeightDecay float64
	Seed        uint64
	// MaxIter bounds the L-BFGS iterations; 0 means 1000.
	MaxIter int
}

// CNNParams returns the number of weights and biases of a CNN.
func CNNParams(rows, cols, classes int, s CNNSettings) int {
	n, in := 0, 1
	for _, c := range s.Channels {
		n += c * in * 9
		in = c
		rows, cols = rows/2, cols/2
	}
	features := in * rows * cols
	return n + (features+1)*s.Hidden + (s.Hidden+1)*classes
}

// CNNHiddenForParams returns the hidden width, at least 1, that brings
// the number of parameters of a CNN with the given channels closest to
// target.
func CNNHiddenForParams(rows, cols, classes int, channels []int, target int) int {
	best, bestDiff := 1, math.MaxInt
	for w := 1; ; w++ {
		p := CNNParams(rows, cols, classes, CNNSettings{Channels: channels, Hidden: w})
		if d := max(p-target, target-p); d < bestDiff {
			best, bestDiff = w, d
		}
		if p >= target {
			return best
		}
	}
}

// cnnGraph is a CNN recorded on a graph over a batch of images, in
// float32: faster than float64, and CNNs are commonly trained in single
// precision.
type cnnGraph struct {
	g       ad.Graph[float32]
	params  []*ad.Node[float32]
	weights []*ad.Node[float32] // the decayed ones
	logits  *ad.Node[float32]
}

// record builds the CNN on the rows of x (n images of rows x cols) with
// parameter tensors taken from flat, and their gradients from grad if
// not nil, in the order kernels, hidden weight, hidden bias, output
// weight, output bias.
func recordCNN(x []float32, n, rows, cols, classes int, s CNNSettings, flat, grad []float32) *cnnGraph {
	c := new(cnnGraph)
	off := 0
	param := func(shape ...int) *ad.Node[float32] {
		size := 1
		for _, v := range shape {
			size *= v
		}
		var gt *ad.Tensor[float32]
		if grad != nil {
			gt = ad.View(grad[off:off+size], shape...)
		}
		p := c.g.Param(ad.View(flat[off:off+size], shape...), gt)
		off += size
		c.params = append(c.params, p)
		return p
	}
	h := c.g.Input(ad.View(x, n, 1, rows, cols))
	in := 1
	for _, ch := range s.Channels {
		k := param(ch, in, 3, 3)
		c.weights = append(c.weights, k)
		h = c.g.MaxPool2(c.g.ReLU(c.g.Conv2D(h, k, 1)))
		in, rows, cols = ch, rows/2, cols/2
	}
	features := in * rows * cols
	h = c.g.Reshape(h, n, features)
	w1 := param(s.Hidden, features)
	b1 := param(1, s.Hidden)
	w2 := param(classes, s.Hidden)
	b2 := param(1, classes)
	c.weights = append(c.weights, w1, w2)
	h = c.g.ReLU(c.g.AddRow(c.g.MatMul(h, w1, false, true), b1))
	c.logits = c.g.AddRow(c.g.MatMul(h, w2, false, true), b2)
	return c
}

// FitCNN fits a CNN to the rows of x, images of rows x cols pixels in
// row-major order, and their labels in [0, classes), by L-BFGS on the
// mean softmax cross-entropy plus weight decay, from Glorot-uniform
// weights and zero biases. The network computes in float32, L-BFGS in
// float64.
func FitCNN(x mat.Matrix, rows, cols int, labels []int, classes int, s CNNSettings) (*CNN, optim.Result, error) {
	if err := checkCNN(x, rows, cols, labels, classes, s); err != nil {
		return nil, optim.Result{}, err
	}
	n, _ := x.Dims()
	flat := make([]float32, CNNParams(rows, cols, classes, s))
	grad := make([]float32, len(flat))
	c := recordCNN(float32Rows(x, 0, n), n, rows, cols, classes, s, flat, grad)
	c.initWeights(s.Seed)
	loss := c.loss(labels, s.WeightDecay)
	f := func(params, dst []float64) float64 {
		for i, v := range params {
			flat[i] = float32(v)
		}
		c.g.Forward()
		c.g.Backward(loss)
		for i, v := range grad {
			dst[i] = float64(v)
		}
		return float64(loss.Scalar())
	}
	x0 := make([]float64, len(flat))
	for i, v := range flat {
		x0[i] = float64(v)
	}
	r, err := optim.Minimize(f, x0, optim.Settings{MaxIter: s.MaxIter})
	if err != nil {
		return nil, r, fmt.Errorf("baseline: %w", err)
	}
	return c.model(r.X, rows, cols), r, nil
}

// checkCNN returns an error naming the first argument of FitCNN that is
// out of range.
func checkCNN(x mat.Matrix, rows, cols int, labels []int, classes int, s CNNSettings) error {
	n, d := x.Dims()
	if n == 0 || d != rows*cols || len(labels) != n || classes < 2 || s.Hidden < 1 || len(s.Channels) == 0 {
		return fmt.Errorf("baseline: CNN on %dx%d inputs as %dx%d images, %d labels, %d classes, hidden %d, channels %v",
			n, d, rows, cols, len(labels), classes, s.Hidden, s.Channels)
	}
	if f := 1 << len(s.Channels); rows%f != 0 || cols%f != 0 {
		return fmt.Errorf("baseline: %dx%d images do not halve %d times", rows, cols, len(s.Channels))
	}
	for i, l := range labels {
		if l < 0 || l >= classes {
			return fmt.Errorf("baseline: label %d of row %d outside [0, %d)", l, i, classes)
		}
	}
	if s.WeightDecay < 0 {
		return fmt.Errorf("baseline: weight decay %v, want >= 0", s.WeightDecay)
	}
	return nil
}

// float32Rows returns rows lo to hi of x, one after the other, in float32.
func float32Rows(x mat.Matrix, lo, hi int) []float32 {
	_, d := x.Dims()
	xs := make([]float32, 0, (hi-lo)*d)
	for i := lo; i < hi; i++ {
		for j := range d {
			xs = append(xs, float32(x.At(i, j)))
		}
	}
	return xs
}

// initWeights draws the decayed weights Glorot-uniform from seed; the
// biases stay zero.
func (c *cnnGraph) initWeights(seed uint64) {
	rnd := rand.New(rand.NewPCG(seed, 0x636e6e))
	for _, w := range c.weights {
		sh := w.Value.Shape
		fanOut, fanIn := sh[0], 1
		for _, v := range sh[1:] {
			fanIn *= v
		}
		if len(sh) == 4 {
			fanOut *= sh[2] * sh[3]
		}
		ad.GlorotUniform(w.Value.Data, fanIn, fanOut, rnd)
	}
}

// loss records the mean softmax cross-entropy of the logits against
// labels plus weightDecay times the squared norm of the weights.
func (c *cnnGraph) loss(labels []int, weightDecay float64) *ad.Node[float32] {
	loss := c.g.SoftmaxCrossEntropy(c.logits, append([]int(nil), labels...))
	if weightDecay > 0 {
		for _, w := range c.weights {
			loss = c.g.Add(loss, c.g.Scale(c.g.Dot(w, w), float32(weightDecay)))
		}
	}
	return loss
}

// model returns the CNN of images of rows x cols whose parameters, in
// the order of recordCNN, are those of the graph taken from params,
// L-BFGS's float64 optimum.
func (c *cnnGraph) model(params []float64, rows, cols int) *CNN {
	out := &CNN{Rows: rows, Cols: cols}
	np, off := len(c.params), 0
	next := func(p *ad.Node[float32]) []float64 {
		v := slices.Clone(params[off : off+p.Value.Len()])
		off += len(v)
		return v
	}
	for _, k := range c.params[:np-4] {
		out.Kernels = append(out.Kernels, ad.View(next(k), k.Value.Shape...))
	}
	dense := func(p *ad.Node[float32]) *mat.Dense {
		return mat.NewDense(p.Value.Shape[0], p.Value.Shape[1], next(p))
	}
	out.Hidden = dense(c.params[np-4])
	out.HiddenB = next(c.params[np-3])
	out.Out = dense(c.params[np-2])
	out.OutB = next(c.params[np-1])
	return out
}

// cnnChunk is the number of images classified at once: the activations
// of a whole test set would not fit in memory.
const cnnChunk = 256

// Classify returns the class of the largest logit for each row of x.
func (m *CNN) Classify(x mat.Matrix) []int {
	n, d := x.Dims()
	if d != m.Rows*m.Cols {
		panic(mat.ErrShape)
	}
	s := CNNSettings{Hidden: len(m.HiddenB)}
	var flat []float32
	add := func(v []float64) {
		for _, e := range v {
			flat = append(flat, float32(e))
		}
	}
	for _, k := range m.Kernels {
		s.Channels = append(s.Channels, k.Shape[0])
		add(k.Data)
	}
	add(m.Hidden.RawMatrix().Data)
	add(m.HiddenB)
	add(m.Out.RawMatrix().Data)
	add(m.OutB)
	classes := len(m.OutB)
	pred := make([]int, 0, n)
	for lo := 0; lo < n; lo += cnnChunk {
		hi := min(lo+cnnChunk, n)
		// Recording the graph computes it.
		c := recordCNN(float32Rows(x, lo, hi), hi-lo, m.Rows, m.Cols, classes, s, flat, nil)
		for i := range hi - lo {
			best, row := 0, c.logits.Value.Data[i*classes:(i+1)*classes]
			for j, v := range row {
				if v > row[best] {
					best = j
				}
			}
			pred = append(pred, best)
		}
	}
	return pred
}
