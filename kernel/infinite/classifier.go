package infinite

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/parametric-machines/machines/ad"
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

// Config sets up and trains a Classifier. Zero fields mean the defaults,
// except MaxFreq, which must be given.
type Config struct {
	// Dim is the state dimension n; zero means DefaultDim. It must be at
	// least the number of classes, whose scores are the last coordinates
	// of the final state.
	Dim int
	// MaxFreq is the number of Fourier components of the cⱼ, at least 1.
	MaxFreq int
	// Cost weighs the regulariser |f|²_H + |A|² of the loss; it must be
	// at least 0.
	Cost float64
	// Gamma and Steps are as in Settings.
	Gamma float64
	Steps int
	// Iterations is the number of Adam steps, each on the whole training
	// set; zero means DefaultIterations.
	Iterations int
	// LR and WeightDecay are those of Adam (decoupled weight decay, on
	// every parameter); zero means DefaultLR and DefaultWeightDecay, a
	// negative WeightDecay none. The defaults are the authors'.
	LR, WeightDecay float64
	// Seed seeds the initial input map.
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
	if c.LR < 0 || math.IsNaN(c.LR) || math.IsInf(c.LR, 0) || math.IsNaN(c.WeightDecay) || math.IsInf(c.WeightDecay, 0) {
		return fmt.Errorf("infinite: learning rate %v and weight decay %v, want finite values, the rate >= 0", c.LR, c.WeightDecay)
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
	return nil
}

func (c Config) dim() int {
	if c.Dim == 0 {
		return DefaultDim
	}
	return c.Dim
}

func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// Classifier is an infinite-depth kernel machine for classification: a
// linear input map ψ(x) = A·x + b into ℝⁿ, the machine, with the
// training inputs as anchors, and the last Classes coordinates of the
// final state u(1) as the class scores (a fixed read-out, so that the
// machine itself must carry an input to its class), turned into
// probabilities by the softmax.
type Classifier struct {
	// Classes is the number of classes, the size of the read-out.
	Classes int
	// A is the Dim×inputs input map and B its offset.
	A *mat.Dense
	B []float64
	// Machine holds the coefficients and Anchors its stable state for the
	// training inputs.
	Machine *Machine
	Anchors *Trajectory
}

// problem is the training objective of a Classifier on fixed data.
type problem struct {
	x      *mat.Dense
	labels []int
	cfg    Config
	cl     *Classifier
	// scratch
	psi *mat.Dense
}

// Train fits a Classifier to the rows of x with the given labels in
// [0, classes): every row is an anchor. The loss is the mean softmax
// cross-entropy of the anchors' scores plus Cost·(|f|²_H + |A|²_F), where
// |f|²_H is the squared RKHS norm of the machine (Trajectory.Norm),
// minimised by Adam over A, b and the coefficients, from A with Gaussian
// entries scaled so that the median squared distance between the
// training inputs' ψ is 1/γ, and b = 0, c = 0.
//
// Bad settings and data (labels out of range, a Dim below the number of
// classes, MaxFreq < 1) are errors, as is a loss that stops being finite.
func Train(x *mat.Dense, labels []int, classes int, c Config) (*Classifier, error) {
	rows, inputs := x.Dims()
	if err := c.check(inputs, rows, classes); err != nil {
		return nil, err
	}
	if len(labels) != rows {
		return nil, fmt.Errorf("infinite: %d labels for %d rows", len(labels), rows)
	}
	for i, l := range labels {
		if l < 0 || l >= classes {
			return nil, fmt.Errorf("infinite: label %d of row %d outside [0, %d)", l, i, classes)
		}
	}
	n := c.dim()
	s := Settings{Dim: n, Anchors: rows, MaxFreq: c.MaxFreq, Gamma: c.Gamma, Steps: c.Steps}
	mc, err := New(s)
	if err != nil {
		return nil, err
	}
	cl := &Classifier{Classes: classes, A: mat.NewDense(n, inputs, nil), B: make([]float64, n), Machine: mc}
	cl.initInput(x, rand.New(rand.NewPCG(c.Seed, 0x696e66)))
	m := newClassifierModel(&problem{x: x, labels: labels, cfg: c, cl: cl})
	wd := orDefault(c.WeightDecay, DefaultWeightDecay)
	iters := c.Iterations
	if iters == 0 {
		iters = DefaultIterations
	}
	// Every step sees the whole training set: the anchors are the
	// training inputs, which a minibatch cannot split.
	_, err = train.Run[float64](m, rows, train.Config{Epochs: iters, Batch: rows,
		Optimizer: &optim.Adam{LR: orDefault(c.LR, DefaultLR), WeightDecay: max(wd, 0)}})
	if err != nil {
		return nil, fmt.Errorf("infinite: %w", err)
	}
	// The loss at the final parameters also solves the anchors' final
	// trajectory, which the classifier keeps.
	if _, err := m.Loss(nil, false); err != nil {
		return nil, err
	}
	return cl, nil
}

// classifierModel is the training problem of a Classifier as a
// train.Model: its parameters A, b and the coefficients, registered by
// name, with the classifier's matrices viewing the set's vector.
type classifierModel struct {
	p      *problem
	params ad.Params[float64]
	steps  int // the Adam steps taken so far
}

func newClassifierModel(p *problem) *classifierModel {
	m := &classifierModel{p: p}
	cl := p.cl
	n, inputs := cl.A.Dims()
	m.params.Add("input.a", ad.View(cl.A.RawMatrix().Data, n, inputs))
	m.params.Add("input.b", ad.View(cl.B, 1, n))
	m.params.Add("machine.coef", ad.View(cl.Machine.Coef, len(cl.Machine.Coef)))
	m.params.Values() // packs the three into one vector, which the classifier then views
	cl.A = mat.NewDense(n, inputs, m.params.Value("input.a").Data)
	cl.B = m.params.Value("input.b").Data
	cl.Machine.Coef = m.params.Value("machine.coef").Data
	return m
}

func (m *classifierModel) Params() *ad.Params[float64] { return &m.params }

// Loss returns the training loss on the whole set, whatever the batch,
// and reports it to Config.Observe before the step it leads to.
func (m *classifierModel) Loss(_ []int, backward bool) (float64, error) {
	var grad []float64
	if backward {
		grad = m.params.Grads()
	}
	loss, err := m.p.lossGrad(grad)
	if err != nil {
		return loss, err
	}
	if obs := m.p.cfg.Observe; obs != nil {
		obs(m.steps, loss, m.p.cl.Machine.Coef)
	}
	if backward {
		m.steps++
	}
	return loss, nil
}

// initInput draws A with N(0, 1) entries, rescaled so that the median
// squared distance between the ψ of the training rows is 1/γ.
func (cl *Classifier) initInput(x *mat.Dense, rnd *rand.Rand) {
	raw := cl.A.RawMatrix().Data
	for i := range raw {
		raw[i] = rnd.NormFloat64()
	}
	var psi mat.Dense
	psi.Mul(x, cl.A.T())
	rows, _ := psi.Dims()
	var d2 []float64
	for i := range rows {
		for j := range i {
			d2 = append(d2, sqDist(psi.RawRowView(i), psi.RawRowView(j)))
		}
	}
	if len(d2) == 0 {
		d2 = append(d2, mat.Norm(&psi, 2)*mat.Norm(&psi, 2))
	}
	slices.Sort(d2)
	med := d2[len(d2)/2]
	if med > 0 && !math.IsInf(med, 0) {
		cl.A.Scale(math.Sqrt(1/(cl.Machine.gamma()*med)), cl.A)
	}
}

func sqDist(u, v []float64) float64 {
	var d float64
	for i, a := range u {
		e := a - v[i]
		d += e * e
	}
	return d
}

// lossGrad solves the anchors at the current parameters, stores their
// trajectory in the classifier and returns the training loss and its
// gradient with respect to (A, b, coef).
func (p *problem) lossGrad(grad []float64) (float64, error) {
	cl := p.cl
	n := cl.Machine.Dim
	rows, _ := p.x.Dims()
	psi := cl.psi(p.psi, p.x)
	p.psi = psi
	tr, err := cl.Machine.Forward(psi.RawMatrix().Data)
	if err != nil {
		return math.NaN(), err
	}
	cl.Anchors = tr
	final := tr.Final(nil)
	dfinal := make([]float64, len(final))
	var loss float64
	for i := range rows {
		scores := final[(i+1)*n-cl.Classes : (i+1)*n]
		loss += crossEntropy(dfinal[(i+1)*n-cl.Classes:(i+1)*n], scores, p.labels[i], 1/float64(rows))
	}
	loss /= float64(rows)
	a := cl.A.RawMatrix().Data
	cost := p.cfg.Cost
	if cost > 0 {
		var a2 float64
		for _, v := range a {
			a2 += v * v
		}
		loss += cost * (tr.Norm() + a2)
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, errNonFinite
	}
	if grad == nil {
		return loss, nil
	}
	dpsi := make([]float64, len(final))
	na, nb := len(a), len(cl.B)
	if err := tr.Backward(dpsi, grad[na+nb:], dfinal, cost); err != nil {
		return math.NaN(), err
	}
	// ψ = X·Aᵀ + 1·bᵀ: dA = dΨᵀ·X, db = Σ rows of dΨ.
	dPsi := mat.NewDense(rows, n, dpsi)
	dA := mat.NewDense(n, len(a)/n, grad[:na])
	dA.Mul(dPsi.T(), p.x)
	db := grad[na : na+nb]
	clear(db)
	for i := range rows {
		for r, v := range dpsi[i*n : (i+1)*n] {
			db[r] += v
		}
	}
	for i, v := range a {
		grad[i] += 2 * cost * v
	}
	return loss, nil
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

// psi sets dst (allocated if nil) to the initial conditions of the rows
// of x, one row per input.
func (cl *Classifier) psi(dst *mat.Dense, x mat.Matrix) *mat.Dense {
	if dst == nil {
		r, _ := x.Dims()
		dst = mat.NewDense(r, cl.Machine.Dim, nil)
	}
	dst.Mul(x, cl.A.T())
	r, _ := dst.Dims()
	for i := range r {
		row := dst.RawRowView(i)
		for k, b := range cl.B {
			row[k] += b
		}
	}
	return dst
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
		panic("infinite: Scores of an untrained classifier")
	}
	rows, cols := x.Dims()
	if _, in := cl.A.Dims(); cols != in {
		panic(fmt.Sprintf("infinite: %d input columns, want %d", cols, in))
	}
	if dst == nil {
		dst = mat.NewDense(rows, cl.Classes, nil)
	} else if r, c := dst.Dims(); r != rows || c != cl.Classes {
		panic(fmt.Sprintf("infinite: scores into a %dx%d matrix, want %dx%d", r, c, rows, cl.Classes))
	}
	n := cl.Machine.Dim
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lo := range next {
				mu.Lock()
				failed := first != nil
				mu.Unlock()
				if failed {
					continue // drain the queue: the result is an error anyway
				}
				hi := min(lo+chunk, rows)
				var sub mat.Matrix = x
				if d, ok := x.(*mat.Dense); ok {
					sub = d.Slice(lo, hi, 0, cols)
				} else {
					sub = subRows{x, lo, hi}
				}
				psi := cl.psi(nil, sub)
				final, err := cl.Anchors.Query(nil, psi.RawMatrix().Data)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					continue
				}
				for i := lo; i < hi; i++ {
					off := (i - lo + 1) * n
					dst.SetRow(i, final[off-cl.Classes:off])
				}
			}
		}()
	}
	for lo := 0; lo < rows; lo += chunk {
		next <- lo
	}
	close(next)
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return dst, nil
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
		panic(fmt.Sprintf("infinite: %d labels for %d rows", len(labels), rows))
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
