package train

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/optim"
	"gonum.org/v1/gonum/mat"
)

// linear is least-squares regression y = w.x + b on fixed data, written
// with the engine: a minimal real model.
type linear[T ad.Float] struct {
	params ad.Params[T]
	x, y   [][]float64
	g      ad.Graph[T]
	in, tg *ad.Tensor[T]
	loss   *ad.Node[T]
	batch  int
}

func newLinear[T ad.Float](x, y [][]float64, batch int) *linear[T] {
	d := len(x[0])
	m := &linear[T]{x: x, y: y, batch: batch}
	m.in, m.tg = ad.NewTensor[T](batch, d), ad.NewTensor[T](batch, 1)
	w := m.params.Use(&m.g, "w", ad.NewTensor[T](1, d))
	b := m.params.Use(&m.g, "b", ad.NewTensor[T](1, 1))
	pred := m.g.AddRow(m.g.MatMul(m.g.Input(m.in), w, false, true), b)
	m.loss = m.g.MSE(pred, m.g.Input(m.tg))
	return m
}

func (m *linear[T]) Params() *ad.Params[T] { return &m.params }

// Loss evaluates full minibatches only, so that the graph keeps one
// shape; the tests use sizes that divide evenly.
func (m *linear[T]) Loss(batch []int, backward bool) (float64, error) {
	if len(batch) != m.batch {
		return 0, errors.New("uneven minibatch")
	}
	d := len(m.x[0])
	for j, i := range batch {
		for r := range d {
			m.in.Data[j*d+r] = T(m.x[i][r])
		}
		m.tg.Data[j] = T(m.y[i][0])
	}
	m.g.Forward()
	if backward {
		m.g.Backward(m.loss)
	}
	return float64(m.loss.Scalar()), nil
}

// regressionData returns n points of y = 2 x0 - x1 + 0.5 + noise.
func regressionData(n int, seed uint64) (x, y [][]float64) {
	rnd := rand.New(rand.NewPCG(seed, 1))
	for range n {
		a, b := rnd.NormFloat64(), rnd.NormFloat64()
		x = append(x, []float64{a, b})
		y = append(y, []float64{2*a - b + 0.5 + 0.1*rnd.NormFloat64()})
	}
	return x, y
}

// leastSquares returns the exact minimiser [w0, w1, b].
func leastSquares(x, y [][]float64) []float64 {
	a := mat.NewDense(len(x), 3, nil)
	v := mat.NewVecDense(len(x), nil)
	for i := range x {
		a.SetRow(i, []float64{x[i][0], x[i][1], 1})
		v.SetVec(i, y[i][0])
	}
	var sol mat.VecDense
	if err := sol.SolveVec(a, v); err != nil {
		panic(err)
	}
	return sol.RawVector().Data
}

// TestRunConverges checks that the loop steps the optimiser over every
// minibatch: SGD on a linear model reaches the least-squares solution.
func TestRunConverges(t *testing.T) {
	x, y := regressionData(64, 1)
	m := newLinear[float64](x, y, 16)
	res, err := Run[float64](m, 64, Config{Epochs: 200, Batch: 16, Optimizer: &optim.SGD{LR: 0.05}})
	if err != nil {
		t.Fatal(err)
	}
	want := leastSquares(x, y)
	got := m.params.Values()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 0.02 {
			t.Errorf("parameters %v, want the least-squares %v", got, want)
			break
		}
	}
	if len(res.Epochs) != 200 || res.Best != 200 || res.Train != 64 || res.Validation != 0 {
		t.Errorf("%d epochs, best %d, %d+%d examples; want 200, 200, 64+0", len(res.Epochs), res.Best, res.Train, res.Validation)
	}
	if first, last := res.Epochs[0].TrainLoss, res.Epochs[199].TrainLoss; !(last < first/10) {
		t.Errorf("training loss went from %v to %v", first, last)
	}
}

// TestRunSeeded checks that a seed fixes the run and another seed
// changes it.
func TestRunSeeded(t *testing.T) {
	x, y := regressionData(48, 2)
	run := func(seed uint64) []float32 {
		m := newLinear[float32](x, y, 8)
		if _, err := Run[float32](m, 48, Config{Epochs: 3, Batch: 8, Seed: seed, Optimizer: &optim.Adam{LR: 0.05}}); err != nil {
			t.Fatal(err)
		}
		return m.params.Values()
	}
	a, b, c := run(1), run(1), run(2)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, parameters %v and %v", a, b)
	}
	if reflect.DeepEqual(a, c) {
		t.Error("seeds 1 and 2 gave the same parameters: the shuffle ignores the seed")
	}
}

// counter is a model of one parameter that SGD with learning rate 1
// raises by one per minibatch; its validation loss is a function of the
// parameter, so that a test scripts the validation curve.
type counter struct {
	params ad.Params[float64]
	val    func(p float64) float64
	seen   []int // every training example given, in order
}

func newCounter(val func(float64) float64) *counter {
	c := &counter{val: val}
	c.params.Add("p", ad.NewTensor[float64](1, 1))
	return c
}

func (c *counter) Params() *ad.Params[float64] { return &c.params }

func (c *counter) Loss(batch []int, backward bool) (float64, error) {
	p := c.params.Values()[0]
	if !backward {
		return c.val(p), nil
	}
	c.seen = append(c.seen, batch...)
	c.params.Grads()[0] = -1
	return p, nil
}

// TestEarlyStopping: 20 examples, 4 for validation, minibatches of 4,
// so the parameter rises by 4 an epoch. The validation loss is lowest
// at p = 12 (epoch 3); with patience 2 the run stops after epoch 5 and
// restores p = 12.
func TestEarlyStopping(t *testing.T) {
	m := newCounter(func(p float64) float64 { return math.Abs(p - 12) })
	res, err := Run[float64](m, 20, Config{Epochs: 50, Batch: 4, Validation: 0.2, Patience: 2, Optimizer: &optim.SGD{LR: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Epochs) != 5 || !res.EarlyStop || res.Best != 3 {
		t.Errorf("%d epochs, early stop %v, best %d; want 5, true, 3", len(res.Epochs), res.EarlyStop, res.Best)
	}
	if p := m.params.Values()[0]; p != 12 {
		t.Errorf("parameter %v at the end, want the best epoch's 12", p)
	}
	if res.Train != 16 || res.Validation != 4 {
		t.Errorf("%d training and %d validation examples, want 16 and 4", res.Train, res.Validation)
	}
	// Validation examples never reach a training step, and every epoch
	// visits each training example once.
	count := map[int]int{}
	for _, i := range m.seen {
		count[i]++
	}
	if len(count) != 16 {
		t.Errorf("%d distinct examples trained on, want 16", len(count))
	}
	for i, k := range count {
		if k != 5 {
			t.Errorf("example %d trained on %d times in 5 epochs", i, k)
		}
	}
}

// TestNoEarlyStop: the run of TestEarlyStopping trains every epoch when
// told not to stop early, and a negative patience is refused.
func TestNoEarlyStop(t *testing.T) {
	m := newCounter(func(p float64) float64 { return math.Abs(p - 12) })
	res, err := Run[float64](m, 20, Config{Epochs: 8, Batch: 4, Validation: 0.2, Patience: 2, NoEarlyStop: true, Optimizer: &optim.SGD{LR: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Epochs) != 8 || res.EarlyStop {
		t.Errorf("%d epochs, early stop %v; want 8, false", len(res.Epochs), res.EarlyStop)
	}
	_, err = Run[float64](newCounter(func(p float64) float64 { return p }), 20, Config{Patience: -1})
	if err == nil || !strings.Contains(err.Error(), "patience -1") {
		t.Errorf("negative patience: %v", err)
	}
}

// TestResume checks that a run interrupted after an epoch and resumed
// from its checkpoint ends exactly where an uninterrupted run ends.
func TestResume(t *testing.T) {
	x, y := regressionData(40, 3)
	cfg := func(path string) Config {
		return Config{Epochs: 6, Batch: 8, Seed: 4, Validation: 0.2, NoEarlyStop: true, Optimizer: &optim.Adam{LR: 0.02}, Checkpoint: path}
	}
	whole := newLinear[float64](x, y, 8)
	want, err := Run[float64](whole, 40, cfg(""))
	if err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(t.TempDir(), "ck.json")
	stop := errors.New("interrupted")
	first := newLinear[float64](x, y, 8)
	c := cfg(path)
	c.AfterEpoch = func(e Epoch) error {
		if e.Epoch == 2 {
			return stop
		}
		return nil
	}
	if _, err := Run[float64](first, 40, c); !errors.Is(err, stop) {
		t.Fatalf("interrupted run returned %v", err)
	}
	second := newLinear[float64](x, y, 8)
	got, err := Run[float64](second, 40, cfg(path))
	if err != nil {
		t.Fatal(err)
	}
	if got.Resumed != 2 {
		t.Errorf("resumed after %d epochs, want 2", got.Resumed)
	}
	if !reflect.DeepEqual(second.params.Values(), whole.params.Values()) {
		t.Errorf("resumed run ends at %v, uninterrupted at %v", second.params.Values(), whole.params.Values())
	}
	for i := range want.Epochs {
		if got.Epochs[i].TrainLoss != want.Epochs[i].TrainLoss || *got.Epochs[i].ValidationLoss != *want.Epochs[i].ValidationLoss {
			t.Errorf("epoch %d: resumed %+v, uninterrupted %+v", i+1, got.Epochs[i], want.Epochs[i])
		}
	}
	if got.Best != want.Best {
		t.Errorf("best epoch %d, uninterrupted %d", got.Best, want.Best)
	}

	// Another run's settings must not resume from this file.
	other := cfg(path)
	other.Batch = 4
	if _, err := Run[float64](newLinear[float64](x, y, 4), 40, other); err == nil || !strings.Contains(err.Error(), "minibatch 8") {
		t.Errorf("resuming with another minibatch size: %v", err)
	}
}

func TestRunErrors(t *testing.T) {
	x, y := regressionData(8, 5)
	for _, tc := range []struct {
		name string
		n    int
		c    Config
		want string
	}{
		{"no examples", 0, Config{}, "0 examples"},
		{"negative epochs", 8, Config{Epochs: -1}, "epochs"},
		{"validation 1", 8, Config{Validation: 1}, "validation fraction 1"},
		{"validation takes all", 1, Config{Validation: 0.5}, "leaves none"},
		{"no whole minibatch", 8, Config{Batch: 5, Validation: 0.5, DropLast: true}, "fewer than one minibatch of 5"},
		{"first epoch past the last", 8, Config{Epochs: 2, FirstEpoch: 3}, "first epoch 3 of 2"},
		{"first epoch and checkpoint", 8, Config{Epochs: 2, FirstEpoch: 2, Checkpoint: "ck.json"}, "checkpoint decides"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run[float64](newLinear[float64](x, y, 8), tc.n, tc.c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	nan := newCounter(nil)
	nan.params.Values()[0] = math.NaN()
	_, err := Run[float64](nan, 8, Config{Batch: 4, Optimizer: &optim.SGD{LR: 1}})
	if err == nil || !strings.Contains(err.Error(), "epoch 1, minibatch 1: the loss is NaN") {
		t.Errorf("NaN loss gave %v", err)
	}
	if _, err := Run[float32](newLinear[float32](x, y, 8), 8, Config{Optimizer: stepOnly{}}); err == nil || !strings.Contains(err.Error(), "float32") {
		t.Errorf("float64-only optimiser on float32 parameters gave %v", err)
	}
	ck := filepath.Join(t.TempDir(), "ck.json")
	if _, err := Run[float64](newLinear[float64](x, y, 8), 8, Config{Epochs: 1, Batch: 8, Optimizer: stepOnly{}, Checkpoint: ck}); err == nil || !strings.Contains(err.Error(), "cannot be saved") {
		t.Errorf("checkpointing an optimiser without state encoding gave %v", err)
	}
}

type stepOnly struct{}

func (stepOnly) Step(x, grad []float64) {}

// TestDropLastFirstEpoch checks the options of a caller that keeps its
// own state between epochs: DropLast trains only whole minibatches,
// BeforeEpoch runs before each epoch with its number, and a run that
// starts at FirstEpoch takes the steps the same epochs take in one run.
func TestDropLastFirstEpoch(t *testing.T) {
	run := func(first int) (*counter, []int, *Result) {
		m := newCounter(nil)
		var before []int
		res, err := Run[float64](m, 10, Config{Epochs: 3, FirstEpoch: first, Batch: 4, DropLast: true, Seed: 7,
			Optimizer: &optim.SGD{LR: 1}, BeforeEpoch: func(e int) error { before = append(before, e); return nil }})
		if err != nil {
			t.Fatal(err)
		}
		return m, before, res
	}
	whole, before, res := run(0)
	if len(whole.seen) != 3*8 || whole.params.Values()[0] != 6 {
		t.Errorf("%d examples in 3 epochs and parameter %v, want 24 (two minibatches of 4 of 10 an epoch) and 6",
			len(whole.seen), whole.params.Values()[0])
	}
	if !reflect.DeepEqual(before, []int{1, 2, 3}) {
		t.Errorf("BeforeEpoch called with %v, want 1, 2, 3", before)
	}
	for _, e := range res.Epochs {
		// The loss of a minibatch is the parameter before its step.
		if want := float64(2*(e.Epoch-1)) + 0.5; e.Examples != 8 || e.TrainLoss != want {
			t.Errorf("epoch %d: %d examples, loss %v; want 8 and %v", e.Epoch, e.Examples, e.TrainLoss, want)
		}
	}
	later, before, res := run(2)
	if !reflect.DeepEqual(later.seen, whole.seen[8:]) || !reflect.DeepEqual(before, []int{2, 3}) || len(res.Epochs) != 2 {
		t.Errorf("from epoch 2: examples %v, BeforeEpoch %v, %d epochs; want %v, [2 3], 2",
			later.seen, before, len(res.Epochs), whole.seen[8:])
	}

	stop := errors.New("stop")
	m := newCounter(nil)
	_, err := Run[float64](m, 10, Config{Epochs: 3, Batch: 4, Optimizer: &optim.SGD{LR: 1},
		BeforeEpoch: func(e int) error {
			if e == 2 {
				return stop
			}
			return nil
		}})
	if !errors.Is(err, stop) || len(m.seen) != 10 {
		t.Errorf("BeforeEpoch failing in epoch 2: error %v after %d examples, want %v after 10", err, len(m.seen), stop)
	}
}

// TestRestoreOptimizerLength checks that a checkpoint whose optimiser
// state has another length than the model's parameters is refused when
// it is read, not at the first step, for Adam and for SGD with momentum.
func TestRestoreOptimizerLength(t *testing.T) {
	x, y := regressionData(16, 6)
	for _, tc := range []struct {
		name  string
		opt   func() optim.Stepper
		field string // of the optimiser's state, lengthened by one
	}{
		{"Adam", func() optim.Stepper { return &optim.Adam{} }, "m v"},
		{"SGD", func() optim.Stepper { return &optim.SGD{Momentum: 0.9} }, "velocity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ck.json")
			cfg := Config{Epochs: 1, Batch: 8, Optimizer: tc.opt(), Checkpoint: path}
			if _, err := Run[float64](newLinear[float64](x, y, 8), 16, cfg); err != nil {
				t.Fatal(err)
			}
			var ck map[string]any
			readJSON(t, path, &ck)
			state := ck["optimizer"].(map[string]any)
			for _, f := range strings.Fields(tc.field) {
				state[f] = append(state[f].([]any), 0.5)
			}
			writeJSON(t, path, ck)
			cfg.Epochs, cfg.Optimizer = 2, tc.opt()
			_, err := Run[float64](newLinear[float64](x, y, 8), 16, cfg)
			if err == nil || !strings.Contains(err.Error(), "state is for 4 parameters, the model has 3") {
				t.Errorf("optimiser state of 4 values for 3 parameters: %v", err)
			}
		})
	}
}

// TestNotFiniteCause checks that a loss that is not finite before the
// run's first step blames the parameters it starts from, and one after
// steps the learning rate.
func TestNotFiniteCause(t *testing.T) {
	x, y := regressionData(16, 7)
	start := newLinear[float64](x, y, 8)
	start.params.Values()[0] = math.Inf(1)
	_, err := Run[float64](start, 16, Config{Batch: 8, Optimizer: &optim.SGD{LR: 0.01}})
	if err == nil || !strings.Contains(err.Error(), "before any step") {
		t.Errorf("an infinite starting parameter gave %v", err)
	}
	_, err = Run[float64](newLinear[float64](x, y, 8), 16, Config{Epochs: 100, Batch: 8, Optimizer: &optim.SGD{LR: 1000}})
	if err == nil || !strings.Contains(err.Error(), "try a smaller learning rate") || strings.Contains(err.Error(), "minibatch 1:") {
		t.Errorf("a diverging learning rate gave %v", err)
	}
	// From a checkpoint whose parameters give an infinite loss.
	path := filepath.Join(t.TempDir(), "ck.json")
	cfg := Config{Epochs: 1, Batch: 8, Optimizer: &optim.Adam{}, Checkpoint: path}
	if _, err := Run[float64](newLinear[float64](x, y, 8), 16, cfg); err != nil {
		t.Fatal(err)
	}
	var ck map[string]any
	readJSON(t, path, &ck)
	ck["values"].([]any)[0] = 1e300
	writeJSON(t, path, ck)
	cfg.Epochs = 2
	_, err = Run[float64](newLinear[float64](x, y, 8), 16, cfg)
	if err == nil || !strings.Contains(err.Error(), "epoch 2, minibatch 1: the loss is +Inf before any step") {
		t.Errorf("a resumed run from parameters of 1e300 gave %v", err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestShuffleEveryEpoch checks that every epoch sees every training
// example once, in an order of its own, and that the seed fixes the
// orders.
func TestShuffleEveryEpoch(t *testing.T) {
	orders := func(seed uint64) []int {
		m := newCounter(nil)
		if _, err := Run[float64](m, 30, Config{Epochs: 3, Batch: 5, Seed: seed, Optimizer: &optim.SGD{}}); err != nil {
			t.Fatal(err)
		}
		return m.seen
	}
	a, b := orders(9), orders(9)
	if !slices.Equal(a, b) {
		t.Errorf("the same seed gave the orders %v and %v", a, b)
	}
	for e := range 3 {
		epoch := slices.Sorted(slices.Values(a[30*e : 30*(e+1)]))
		if !slices.Equal(epoch, seq(30)) {
			t.Errorf("epoch %d saw %v, want every example once", e+1, epoch)
		}
	}
	if slices.Equal(a[:30], a[30:60]) || slices.Equal(a[30:60], a[60:]) {
		t.Errorf("epochs in the same order: %v", a)
	}
	if slices.Equal(a, orders(10)) {
		t.Error("seeds 9 and 10 gave the same orders")
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestTrainLossIsMean checks that an epoch's training loss is the mean
// over its examples when the last minibatch is short: 10 examples in
// minibatches of 4, 4 and 2, each minibatch's loss the parameter before
// its step, are (4·0 + 4·1 + 2·2)/10 = 0.8 in the first epoch and
// (4·3 + 4·4 + 2·5)/10 = 3.8 in the second, not their sums over 12.
func TestTrainLossIsMean(t *testing.T) {
	m := newCounter(nil)
	res, err := Run[float64](m, 10, Config{Epochs: 2, Batch: 4, Optimizer: &optim.SGD{LR: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{0.8, 3.8} {
		if e := res.Epochs[i]; e.Examples != 10 || math.Abs(e.TrainLoss-want) > 1e-12 {
			t.Errorf("epoch %d: %d examples, training loss %v; want 10 and %v", i+1, e.Examples, e.TrainLoss, want)
		}
	}
}

// TestValidationLossIsMean checks that an epoch's validation loss is the
// mean of the model's loss over the validation examples, as minibatches
// of uneven size weigh them: with the counter, whose loss on any example
// is val(p), it is val(p) whatever the minibatches.
func TestValidationLossIsMean(t *testing.T) {
	m := newCounter(func(p float64) float64 { return 2*p + 1 })
	res, err := Run[float64](m, 30, Config{Epochs: 2, Batch: 4, Validation: 0.3, NoEarlyStop: true, Optimizer: &optim.SGD{LR: 1}})
	if err != nil {
		t.Fatal(err)
	}
	// 21 training examples in minibatches of 4: 6 steps of +1 an epoch.
	for i, e := range res.Epochs {
		got := math.NaN()
		if e.ValidationLoss != nil {
			got = *e.ValidationLoss
		}
		if want := 2*6*float64(i+1) + 1; got != want {
			t.Errorf("epoch %d: validation loss %v, want %v", i+1, got, want)
		}
	}
}
