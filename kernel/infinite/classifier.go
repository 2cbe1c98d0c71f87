package infinite

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/numeric"
	"github.com/parametric-machines/machines/internal/parallel"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/train"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Defaults used for the zero fields of Config.
const (
	DefaultDim         = 32
	DefaultIterations  = 200
	DefaultLR          = 0.04
	DefaultWeightDecay = 0.01
)

// Augmenter is the map from an input to the initial condition ψ of its
// state.
type Augmenter int

const (
	// Linear is ψ = A·x + b.
	Linear Augmenter = iota
	// Conv is the authors' convolutional augmenter: a 3×3 convolution of
	// the image with stride 2 and padding 1 (Config.Channels channels,
	// with a bias per channel), a ReLU, then ψ = A·features + b.
	Conv
)

// Config sets up and trains a Classifier. Zero fields mean the defaults,
// except MaxFreq, which must be given.
type Config struct {
	// Dim is the state dimension n; zero means DefaultDim. It must be at
	// least the number of classes, whose scores are the last coordinates
	// of the final state.
	Dim int
	// MaxFreq is the number of Fourier components of the cⱼ, at least 1.
	MaxFreq int
	// Cost weighs the regulariser |f|²_H + |A|² of the loss, A being
	// every weight of the augmenter (not its biases); it must be at
	// least 0.
	Cost float64
	// Gamma, Steps, Sine and Tol are as in Architecture.
	Gamma float64
	Steps int
	Sine  bool
	Tol   float64
	// Anchors is the number of anchors: zero anchors the machine at every
	// training input, the representer theorem's machine, whose cost
	// grows with the square of the training set; a positive number
	// anchors it instead at that many learned points (see Layer), at
	// most the number of training inputs, which start at the ψ of
	// training inputs taken class by class in turn.
	Anchors int
	// Augmenter maps the inputs to ψ. Conv needs Height and Width, the
	// sides of the images, whose pixels are the inputs row by row;
	// Channels is its number of channels, zero meaning the authors'
	// 8·MaxFreq.
	Augmenter     Augmenter
	Height, Width int
	Channels      int
	// Iterations is the number of Adam steps, each on the whole training
	// set; zero means DefaultIterations.
	Iterations int
	// LR and WeightDecay are those of Adam (decoupled weight decay, on
	// every parameter); zero means DefaultLR and DefaultWeightDecay, and
	// NoWeightDecay turns the decay off. The defaults are the authors'.
	LR, WeightDecay float64
	NoWeightDecay   bool
	// Seed seeds the initial augmenter.
	Seed uint64
	// Observe, if not nil, is called before the first Adam step and
	// after every step with the number of steps taken so far, the
	// training loss and the coefficients after that many steps, which it
	// must not keep or modify.
	Observe func(iter int, loss float64, coef []float64)
}

func (c Config) check(inputs, rows, classes int) error {
	if c.Dim < 0 {
		return fmt.Errorf("infinite: state dimension %d, want at least 1 (or 0 for the default)", c.Dim)
	}
	if c.MaxFreq < 1 {
		return fmt.Errorf("infinite: maxfreq %d, want at least 1 Fourier component", c.MaxFreq)
	}
	if c.Cost < 0 || math.IsNaN(c.Cost) || math.IsInf(c.Cost, 0) {
		return fmt.Errorf("infinite: cost %v, want a finite value >= 0", c.Cost)
	}
	if c.Iterations < 0 {
		return fmt.Errorf("infinite: %d iterations, want at least 1 (or 0 for the default)", c.Iterations)
	}
	if !(c.LR >= 0) || math.IsInf(c.LR, 0) || !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 0) {
		return fmt.Errorf("infinite: learning rate %v and weight decay %v, want finite values >= 0", c.LR, c.WeightDecay)
	}
	if classes < 2 {
		return fmt.Errorf("infinite: %d classes, want at least 2", classes)
	}
	if c.dim() < classes {
		return fmt.Errorf("infinite: state dimension %d is less than the %d classes it must hold", c.dim(), classes)
	}
	if rows < 1 || inputs < 1 {
		return fmt.Errorf("infinite: %d×%d training inputs, want at least one row and column", rows, inputs)
	}
	if c.Anchors < 0 || c.Anchors > rows {
		return fmt.Errorf("infinite: %d anchors for %d training inputs, want 0 (every input) up to %d", c.Anchors, rows, rows)
	}
	switch c.Augmenter {
	case Linear:
	case Conv:
		if c.Height < 1 || c.Width < 1 || c.Height*c.Width != inputs {
			return fmt.Errorf("infinite: convolutional augmenter on %d×%d images, want sides whose product is the %d inputs", c.Height, c.Width, inputs)
		}
		if c.Channels < 0 {
			return fmt.Errorf("infinite: %d channels, want at least 1 (or 0 for 8·maxfreq)", c.Channels)
		}
	default:
		return fmt.Errorf("infinite: unknown augmenter %d", c.Augmenter)
	}
	return c.architecture(1).Check()
}

func (c Config) dim() int {
	if c.Dim == 0 {
		return DefaultDim
	}
	return c.Dim
}

// architecture returns the architecture of the machine with m anchors.
func (c Config) architecture(m int) Architecture {
	return Architecture{Dim: c.dim(), Anchors: m, MaxFreq: c.MaxFreq, Gamma: c.Gamma, Steps: c.Steps, Sine: c.Sine, Tol: c.Tol}
}

// NumParams returns the number of parameters of the Classifier that
// Fit fits with c to rows inputs of the given length: the augmenter's,
// the coefficients and any learned anchors. It panics on invalid
// settings, as Fit returns an error for them.
func (c Config) NumParams(rows, inputs int) int {
	if err := c.check(inputs, rows, 2); err != nil {
		panic(fmt.Errorf("%w: %w", ad.ErrValue, err))
	}
	a := newAugmenter(c, inputs)
	n := a.a.Len() + a.b.Len()
	if a.conv {
		n += a.convW.Len() + a.convB.Len()
	}
	m := rows
	if c.Anchors > 0 {
		m = c.Anchors
		n += m * c.dim()
	}
	return n + m*c.architecture(m).Basis()*c.dim()
}

func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// Classifier is an infinite-depth kernel machine for classification: an
// augmenter ψ(x) into ℝⁿ, the machine, anchored at the training inputs
// or at learned points, and the last Classes coordinates of the final
// state u(1) as the class scores (a fixed read-out, so that the machine
// itself must carry an input to its class), turned into probabilities by
// the softmax.
type Classifier struct {
	// Classes is the number of classes, the size of the read-out.
	Classes int
	// Params holds every parameter: the augmenter's ("conv.w", "conv.b"
	// for Conv, then "input.a", the n×features matrix A, and "input.b"),
	// the machine's coefficients ("machine.coef") and, with learned
	// anchors, their ψⱼ ("machine.anchors").
	Params ad.Params[float64]
	// Machine holds the coefficients, viewing Params, and Anchors its
	// stable state for the anchors, against which new inputs are
	// queried.
	Machine *Machine
	Anchors *Trajectory

	cfg Config
	aug *augmenter
}

// augmenter is the map x ↦ ψ of a Classifier, on the engine.
type augmenter struct {
	conv     bool
	h, w     int
	channels int
	// convW (channels×1×3×3) and convB (1×channels) are the convolution,
	// expand copies a channel's bias to its every output, and keep lists
	// the outputs of the stride-1 convolution that stride 2 keeps.
	convW, convB, expand *ad.Tensor[float64]
	keep                 []int
	// a is A, n×features, and b is the offset, 1×n.
	a, b *ad.Tensor[float64]
}

func newAugmenter(c Config, inputs int) *augmenter {
	a := &augmenter{conv: c.Augmenter == Conv}
	features := inputs
	if a.conv {
		a.h, a.w, a.channels = c.Height, c.Width, c.Channels
		if a.channels == 0 {
			a.channels = 8 * c.MaxFreq
		}
		ho, wo := (a.h+1)/2, (a.w+1)/2
		a.convW, a.convB = ad.NewTensor[float64](a.channels, 1, 3, 3), ad.NewTensor[float64](1, a.channels)
		a.expand = ad.NewTensor[float64](a.channels, a.channels*ho*wo)
		for ch := range a.channels {
			for i := range ho {
				for j := range wo {
					a.expand.Data[ch*a.channels*ho*wo+ch*ho*wo+i*wo+j] = 1
					a.keep = append(a.keep, ch*a.h*a.w+2*i*a.w+2*j)
				}
			}
		}
		features = a.channels * ho * wo
	}
	a.a, a.b = ad.NewTensor[float64](c.dim(), features), ad.NewTensor[float64](1, c.dim())
	return a
}

// features adds to g the features of the rows of x that A maps: x
// itself, or the ReLU of the strided convolution.
func (a *augmenter) features(g *ad.Graph[float64], ps *ad.Params[float64], x *ad.Node[float64]) *ad.Node[float64] {
	if !a.conv {
		return x
	}
	rows := x.Value.Rows()
	w, b := ps.Use(g, "conv.w", a.convW), ps.Use(g, "conv.b", a.convB)
	y := g.Conv2D(g.Reshape(x, rows, 1, a.h, a.w), w, 1)
	y = g.SelectCols(g.Reshape(y, rows, a.channels*a.h*a.w), a.keep)
	return g.ReLU(g.AddRow(y, g.MatMul(b, g.Input(a.expand), false, false)))
}

// apply adds to g the ψ of the rows of x and |A|², the sum of the
// squares of the augmenter's weights.
func (a *augmenter) apply(g *ad.Graph[float64], ps *ad.Params[float64], x *ad.Node[float64]) (psi, weights2 *ad.Node[float64]) {
	f := a.features(g, ps, x)
	am, bm := ps.Use(g, "input.a", a.a), ps.Use(g, "input.b", a.b)
	psi = g.AddRow(g.MatMul(f, am, false, true), bm)
	weights2 = g.Sum(g.Square(am))
	if a.conv {
		weights2 = g.Add(weights2, g.Sum(g.Square(ps.Node(g, "conv.w"))))
	}
	return psi, weights2
}

// init draws the convolution's weights with N(0, 2/9) entries (He's
// scale for 9 inputs) and A with N(0, 1) entries, rescaled so that the
// median squared distance between the ψ of the rows of x is 1/γ; the
// biases start at zero.
func (a *augmenter) init(ps *ad.Params[float64], x *ad.Tensor[float64], gamma float64, rnd *rand.Rand) {
	if a.conv {
		for i := range a.convW.Data {
			a.convW.Data[i] = math.Sqrt(2.0/9) * rnd.NormFloat64()
		}
	}
	for i := range a.a.Data {
		a.a.Data[i] = rnd.NormFloat64()
	}
	var g ad.Graph[float64]
	psi, _ := a.apply(&g, ps, g.Input(x))
	rows, n := psi.Value.Rows(), psi.Value.Cols()
	var d2 []float64
	for i := range rows {
		for j := range i {
			d2 = append(d2, sqDist(psi.Value.Data[i*n:(i+1)*n], psi.Value.Data[j*n:(j+1)*n]))
		}
	}
	if len(d2) == 0 {
		d2 = append(d2, floats.Dot(psi.Value.Data, psi.Value.Data))
	}
	slices.Sort(d2)
	med := d2[len(d2)/2]
	if med > 0 && !math.IsInf(med, 0) {
		floats.Scale(math.Sqrt(1/(gamma*med)), a.a.Data)
	}
}

// psi returns the ψ of the rows of x, a row per input.
func (cl *Classifier) psi(x *ad.Tensor[float64]) []float64 {
	var g ad.Graph[float64]
	psi, _ := cl.aug.apply(&g, &cl.Params, g.Input(x))
	return psi.Value.Data
}

// classifierModel is the training problem of a Classifier on fixed
// data as a train.Model: the graph of the loss on the whole set, which
// every call replays.
type classifierModel struct {
	cl    *Classifier
	g     ad.Graph[float64]
	loss  *ad.Node[float64]
	steps int // the Adam steps taken so far
}

// newClassifier returns the untrained classifier of the rows of x and
// its training problem, or an error for bad settings or data.
func newClassifier(x *mat.Dense, labels []int, classes int, c Config) (*Classifier, *classifierModel, error) {
	rows, inputs := x.Dims()
	if err := c.check(inputs, rows, classes); err != nil {
		return nil, nil, err
	}
	if len(labels) != rows {
		return nil, nil, fmt.Errorf("infinite: %d labels for %d rows", len(labels), rows)
	}
	if err := numeric.CheckFinite("infinite: input", x); err != nil {
		return nil, nil, err
	}
	for i, l := range labels {
		if l < 0 || l >= classes {
			return nil, nil, fmt.Errorf("infinite: label %d of row %d outside [0, %d)", l, i, classes)
		}
	}
	cl := &Classifier{Classes: classes, cfg: c, aug: newAugmenter(c, inputs)}
	xt := ad.FromMatrix(x)
	s := c.architecture(rows)
	cl.aug.init(&cl.Params, xt, s.gamma(), rand.New(rand.NewPCG(c.Seed, 0x696e66)))
	m := &classifierModel{cl: cl}
	g := &m.g
	psi, weights2 := cl.aug.apply(g, &cl.Params, g.Input(xt))
	var out *ad.Node[float64]
	var penalty []*ad.Node[float64]
	if c.Anchors == 0 {
		coef := ad.NewTensor[float64](rows*s.Basis(), s.Dim)
		op := &representerOp{s: s, fail: g.Fail}
		out = g.Apply(op, psi.Value.Shape, psi, cl.Params.Use(g, "machine.coef", coef))
		norm := g.Apply(&normOp[float64]{main: &op.anchorState}, []int{1, 1}, psi, cl.Params.Node(g, "machine.coef"))
		penalty = []*ad.Node[float64]{g.Scale(norm, c.Cost)}
	} else {
		s.Anchors = c.Anchors
		layer := Layer[float64]{Architecture: s, Cost: c.Cost}
		scope := ad.NewScope(g, &cl.Params, "machine", nil)
		if _, err := layer.Init(scope, [][]int{{s.Dim}}); err != nil {
			return nil, nil, err
		}
		anchors := cl.Params.Value("machine.anchors")
		for j, i := range classRoundRobin(labels, classes)[:s.Anchors] {
			copy(anchors.Data[j*s.Dim:(j+1)*s.Dim], psi.Value.Data[i*s.Dim:(i+1)*s.Dim])
		}
		y, err := layer.Apply(scope, []*ad.Node[float64]{psi})
		if err != nil {
			return nil, nil, err
		}
		out, penalty = y[0], scope.Penalties()
	}
	cols := make([]int, classes)
	for i := range cols {
		cols[i] = s.Dim - classes + i
	}
	m.loss = g.SoftmaxCrossEntropy(g.SelectCols(out, cols), labels)
	if c.Cost > 0 {
		for _, p := range append(penalty, g.Scale(weights2, c.Cost)) {
			m.loss = g.Add(m.loss, p)
		}
	}
	cl.Params.Values() // packs the parameters into one vector, which the machine then views
	cl.Machine = &Machine{Architecture: s, Coef: cl.Params.Value("machine.coef").Data}
	return cl, m, nil
}

// classRoundRobin returns the indices of labels taking one of each class
// in turn, in order within a class.
func classRoundRobin(labels []int, classes int) []int {
	byClass := make([][]int, classes)
	for i, l := range labels {
		byClass[l] = append(byClass[l], i)
	}
	var out []int
	for len(out) < len(labels) {
		for cl, idx := range byClass {
			if len(idx) > 0 {
				out = append(out, idx[0])
				byClass[cl] = idx[1:]
			}
		}
	}
	return out
}

// Fit fits a Classifier to the rows of x with the given labels in
// [0, classes). The loss is the mean softmax cross-entropy of the
// training inputs' scores plus Cost·(|f|²_H + |A|²), where |f|²_H is the
// squared RKHS norm of the machine (Trajectory.Norm) and |A|² the sum of
// the squares of the augmenter's weights, minimised by Adam (train.Run,
// every step on the whole set) over the augmenter, the coefficients and
// any learned anchors, from the augmenter's initial draw (see
// Augmenter), zero coefficients and learned anchors at the ψ of
// training inputs.
//
// Bad settings and data (labels out of range, a Dim below the number of
// classes, MaxFreq < 1) are errors, as is a loss that stops being finite.
func Fit(x *mat.Dense, labels []int, classes int, c Config) (*Classifier, error) {
	cl, m, err := newClassifier(x, labels, classes, c)
	if err != nil {
		return nil, err
	}
	rows, _ := x.Dims()
	wd := orDefault(c.WeightDecay, DefaultWeightDecay)
	if c.NoWeightDecay {
		wd = 0
	}
	iters := c.Iterations
	if iters == 0 {
		iters = DefaultIterations
	}
	// Every step sees the whole training set: the representer theorem's
	// anchors are the training inputs, which a minibatch cannot split,
	// and a few-shot set is small.
	_, err = train.Run[float64](m, rows, train.Config{Epochs: iters, Batch: rows,
		Optimizer: &optim.Adam{LR: orDefault(c.LR, DefaultLR), WeightDecay: wd}})
	if err != nil {
		return nil, fmt.Errorf("infinite: %w", err)
	}
	// The loss after the last step, for Observe.
	if _, err := m.Loss(nil, false); err != nil {
		return nil, err
	}
	// The anchors' trajectory at the final parameters, against which
	// new inputs are queried.
	anchors := cl.Params.Value("machine.anchors")
	var psi []float64
	if anchors != nil {
		psi = anchors.Data
	} else {
		psi = cl.psi(ad.FromMatrix(x))
	}
	if cl.Anchors, err = cl.Machine.Forward(psi); err != nil {
		return nil, err
	}
	return cl, nil
}

func (m *classifierModel) Params() *ad.Params[float64] { return &m.cl.Params }

// Loss returns the training loss on the whole set, whatever the batch,
// and reports it to Config.Observe before the step it leads to.
func (m *classifierModel) Loss(_ []int, backward bool) (float64, error) {
	m.g.Forward()
	loss := m.loss.Scalar()
	if err := m.g.Err(); err != nil {
		return math.NaN(), err
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, errNonFinite
	}
	if backward {
		m.g.Backward(m.loss)
		if err := m.g.Err(); err != nil {
			return math.NaN(), err
		}
	}
	if obs := m.cl.cfg.Observe; obs != nil {
		obs(m.steps, loss, m.cl.Machine.Coef)
	}
	if backward {
		m.steps++
	}
	return loss, nil
}

// representerOp is the machine anchored at its input rows ψ, whose
// final states it returns: Machine.Forward on the engine, with
// Trajectory.Backward, which also carries the norm, as its backward
// pass.
type representerOp struct {
	anchorState
	s    Architecture
	fail func(error)
}

func (o *representerOp) Forward(out *ad.Node[float64]) {
	in := out.Inputs()
	o.tr = nil
	tr, err := (&Machine{Architecture: o.s, Coef: in[1].Value.Data}).Forward(in[0].Value.Data)
	if err != nil {
		o.fail(fmt.Errorf("infinite: machine: %w", err))
		for i := range out.Value.Data {
			out.Value.Data[i] = math.NaN()
		}
		return
	}
	o.tr = tr
	tr.Final(out.Value.Data)
}

func (o *representerOp) Backward(out *ad.Node[float64]) {
	w := o.normWeight
	o.normWeight = 0
	if o.tr == nil {
		return
	}
	in := out.Inputs()
	var dpsi, dcoef []float64
	if in[0].Grad != nil {
		dpsi = make([]float64, len(in[0].Value.Data))
	}
	if in[1].Grad != nil {
		dcoef = make([]float64, len(in[1].Value.Data))
	}
	if err := o.tr.Backward(dpsi, dcoef, out.Grad.Data, w); err != nil {
		o.fail(fmt.Errorf("infinite: machine gradient: %w", err))
		return
	}
	addTo(in[0].Grad, dpsi)
	addTo(in[1].Grad, dcoef)
}

func sqDist(u, v []float64) float64 {
	var d float64
	for i, a := range u {
		e := a - v[i]
		d += e * e
	}
	return d
}

// crossEntropy returns -log softmax(scores)[label] and sets
// dst = scale·(softmax(scores) - onehot(label)).
func crossEntropy(dst, scores []float64, label int, scale float64) float64 {
	mx := slices.Max(scores)
	var z float64
	for _, s := range scores {
		z += math.Exp(s - mx)
	}
	lz := mx + math.Log(z)
	if dst != nil {
		for k, s := range scores {
			dst[k] = scale * math.Exp(s-lz)
		}
		dst[label] -= scale
	}
	return lz - scores[label]
}

// chunk is the number of inputs Scores solves together; a variable so
// that a test can make it small.
var chunk = 250

// Scores sets dst (allocated if nil) to the class scores of the rows of
// x, one row of Classes per input: the last coordinates of the stable
// state of each input, queried against the anchors. The rows are solved
// in batches on all processors.
func (cl *Classifier) Scores(dst *mat.Dense, x mat.Matrix) (*mat.Dense, error) {
	if cl.Anchors == nil {
		panic(fmt.Errorf("%w: infinite: Scores of an untrained classifier", ad.ErrState))
	}
	rows, cols := x.Dims()
	if in := cl.inputs(); cols != in {
		panic(fmt.Errorf("%w: infinite: %d input columns, want %d", ad.ErrShape, cols, in))
	}
	if dst == nil {
		dst = mat.NewDense(rows, cl.Classes, nil)
	} else if r, c := dst.Dims(); r != rows || c != cl.Classes {
		panic(fmt.Errorf("%w: infinite: scores into a %dx%d matrix, want %dx%d", ad.ErrShape, r, c, rows, cl.Classes))
	}
	if err := numeric.CheckFinite("infinite: input", x); err != nil {
		return nil, err
	}
	n := cl.Machine.Dim
	chunks := (rows + chunk - 1) / chunk
	err := parallel.Run(chunks, 0, func(c int) error {
		lo := c * chunk
		hi := min(lo+chunk, rows)
		var sub mat.Matrix = x
		if d, ok := x.(*mat.Dense); ok {
			sub = d.Slice(lo, hi, 0, cols)
		} else {
			sub = subRows{x, lo, hi}
		}
		final, err := cl.Anchors.Query(nil, cl.psi(ad.FromMatrix(sub)))
		if err != nil {
			return err
		}
		for i := lo; i < hi; i++ {
			off := (i - lo + 1) * n
			dst.SetRow(i, final[off-cl.Classes:off])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return dst, nil
}

// inputs returns the number of inputs the classifier takes.
func (cl *Classifier) inputs() int {
	if cl.aug.conv {
		return cl.aug.h * cl.aug.w
	}
	return cl.aug.a.Cols()
}

// subRows is rows [lo, hi) of a matrix.
type subRows struct {
	m      mat.Matrix
	lo, hi int
}

func (s subRows) Dims() (int, int) {
	_, c := s.m.Dims()
	return s.hi - s.lo, c
}
func (s subRows) At(i, j int) float64 { return s.m.At(s.lo+i, j) }
func (s subRows) T() mat.Matrix       { return mat.Transpose{Matrix: s} }

// Evaluate returns the accuracy and the mean cross-entropy of the
// classifier on the rows of x with the given labels.
func (cl *Classifier) Evaluate(x mat.Matrix, labels []int) (accuracy, loss float64, err error) {
	rows, _ := x.Dims()
	if len(labels) != rows {
		panic(fmt.Errorf("%w: infinite: %d labels for %d rows", ad.ErrShape, len(labels), rows))
	}
	scores, err := cl.Scores(nil, x)
	if err != nil {
		return 0, 0, err
	}
	correct := 0
	for i, l := range labels {
		row := scores.RawRowView(i)
		loss += crossEntropy(nil, row, l, 1)
		if floats.MaxIdx(row) == l {
			correct++
		}
	}
	return float64(correct) / float64(rows), loss / float64(rows), nil
}

// Predict returns the class of highest score of each row of x.
func (cl *Classifier) Predict(x mat.Matrix) ([]int, error) {
	scores, err := cl.Scores(nil, x)
	if err != nil {
		return nil, err
	}
	rows, _ := scores.Dims()
	out := make([]int, rows)
	for i := range out {
		out[i] = floats.MaxIdx(scores.RawRowView(i))
	}
	return out, nil
}
