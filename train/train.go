package train

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/optim"
)

// Model is what Run trains. A model.Task is one, for any model of
// package model.
//
// Run hands Loss batches of any size from 1 to Config.Batch: the last
// minibatch of an epoch is shorter when Batch does not divide the
// training examples (unless DropLast), and so are the validation
// batches, which DropLast does not touch. A model whose graph is built
// for one batch size must build one per size it meets, as model.Task
// does, never compute a short batch on a graph that still holds another
// batch's rows.
type Model[T ad.Float] interface {
	// Params returns the model's parameters, the same set at every call.
	// Run updates their values from their gradients.
	Params() *ad.Params[T]
	// Loss returns the mean loss over the examples listed in batch,
	// indices from 0 to the n given to Run, and, if backward, leaves its
	// gradient in Params().Grads(). An error stops the run.
	Loss(batch []int, backward bool) (float64, error)
}

// Defaults of Config's zero fields.
const (
	DefaultEpochs   = 10
	DefaultBatch    = 32
	DefaultPatience = 3
)

// Config configures Run. The zero value trains DefaultEpochs epochs of
// minibatches of DefaultBatch with Adam's defaults, without a
// validation split.
type Config struct {
	// Epochs is the number of passes over the training examples; 0 means
	// DefaultEpochs.
	Epochs int
	// Batch is the minibatch size; 0 means DefaultBatch. The last
	// minibatch of an epoch may be smaller, unless DropLast.
	Batch int
	// DropLast leaves out the last training minibatch of an epoch when it
	// is smaller than Batch, so that every step sees Batch examples. The
	// validation batches may still be shorter (see Model).
	DropLast bool
	// Optimizer steps the parameters after every minibatch; nil means
	// &optim.Adam{}. For float32 parameters it must have a Step32 method,
	// as optim.Adam and optim.SGD do. To checkpoint, it must also
	// implement json.Marshaler and json.Unmarshaler, as they do; an
	// optimiser with a StateLen method, as they have, has its restored
	// state checked against the number of parameters.
	Optimizer optim.Stepper
	// Seed seeds the validation split and the shuffles.
	Seed uint64
	// Validation is the fraction of the examples held out to measure the
	// validation loss after every epoch, in [0, 1); 0 means none.
	Validation float64
	// Patience is the number of epochs without a lower validation loss
	// after which the run stops early; 0 means DefaultPatience.
	// NoEarlyStop makes the run train every epoch. Neither has an effect
	// without a validation split.
	Patience    int
	NoEarlyStop bool
	// Checkpoint, if not empty, is a file where the run's state is saved
	// after every epoch. If it exists when Run starts, the run resumes
	// from it; it must have been written by a run of the same settings
	// and model.
	Checkpoint string
	// Progress, if not nil, receives a line about once a second and one
	// per epoch.
	Progress io.Writer
	// FirstEpoch is the number of the first epoch to train, 0 meaning 1,
	// for a caller that keeps its own state between calls and continues
	// a run by training its later epochs: they take the shuffles they
	// would have taken in one run. It cannot be combined with
	// Checkpoint, which decides by itself where a run resumes.
	FirstEpoch int
	// BeforeEpoch, if not nil, is called before every epoch with its
	// number, for a model that changes between epochs (a schedule of
	// penalties, a graph rebuilt for a smaller network); an error stops
	// the run and is returned.
	BeforeEpoch func(epoch int) error
	// AfterEpoch, if not nil, is called after every epoch with its
	// record; an error stops the run and is returned.
	AfterEpoch func(Epoch) error
}

// Epoch records one epoch.
type Epoch struct {
	Epoch     int     `json:"epoch"` // from 1
	TrainLoss float64 `json:"train_loss"`
	// ValidationLoss is the mean loss over the validation examples; nil
	// without a validation split.
	ValidationLoss *float64 `json:"validation_loss,omitempty"`
	// Seconds is the wall time of the epoch, training and validation;
	// Examples is the number of examples trained on, fewer than the
	// training examples when DropLast leaves some out.
	Seconds  float64 `json:"seconds"`
	Examples int     `json:"examples"`
}

// Result describes a run.
type Result struct {
	Epochs []Epoch `json:"epochs"` // every epoch, those of resumed runs included
	// Best is the number of the epoch whose parameters the model holds:
	// the one of lowest validation loss, or the last without a
	// validation split.
	Best int `json:"best"`
	// EarlyStop is set when the run stopped for lack of progress on the
	// validation examples before its last epoch.
	EarlyStop bool `json:"early_stop"`
	// Resumed is the number of epochs read from the checkpoint.
	Resumed int `json:"resumed"`
	// Train and Validation count the examples of each part.
	Train      int `json:"train"`
	Validation int `json:"validation"`
}

// Seed streams keep the uses of one seed apart.
const (
	splitStream   = 0x73706c6974
	shuffleStream = 0x73687566
)

// Run trains m on n examples, indexed 0 to n-1, as c says. It returns an
// error for bad settings, for a loss that is not finite (naming the
// epoch and minibatch), for a checkpoint that cannot be read or written,
// and for any error of the model; the model then holds the parameters
// of the last step.
func Run[T ad.Float](m Model[T], n int, c Config) (*Result, error) {
	c, err := c.withDefaults(n)
	if err != nil {
		return nil, err
	}
	p := m.Params()
	step, err := stepper[T](c.Optimizer)
	if err != nil {
		return nil, err
	}
	trainRows, valRows := split(n, c.Validation, c.Seed)
	r := &runner[T]{m: m, p: p, c: c, step: step, train: trainRows, val: valRows,
		res: &Result{Train: len(trainRows), Validation: len(valRows)}, bestLoss: math.Inf(1)}
	if c.Checkpoint != "" {
		if err := r.attach(); err != nil {
			return nil, err
		}
	}
	for e := max(c.FirstEpoch, len(r.res.Epochs)+1); e <= c.Epochs && !r.res.EarlyStop; e++ {
		if err := r.epoch(e); err != nil {
			return r.res, err
		}
	}
	if len(valRows) > 0 && r.best != nil {
		copy(p.Values(), r.best)
	}
	return r.res, nil
}

func (c Config) withDefaults(n int) (Config, error) {
	if c.Epochs == 0 {
		c.Epochs = DefaultEpochs
	}
	if c.Batch == 0 {
		c.Batch = DefaultBatch
	}
	if c.Patience == 0 {
		c.Patience = DefaultPatience
	}
	if c.Optimizer == nil {
		c.Optimizer = &optim.Adam{}
	}
	switch {
	case n < 1:
		return c, fmt.Errorf("train: %d examples, want at least 1", n)
	case c.Epochs < 0:
		return c, fmt.Errorf("train: %d epochs, want at least 1", c.Epochs)
	case c.Patience < 0:
		return c, fmt.Errorf("train: patience %d, want at least 1 (NoEarlyStop trains every epoch)", c.Patience)
	case c.Batch < 0:
		return c, fmt.Errorf("train: minibatch of %d, want at least 1", c.Batch)
	case !(c.Validation >= 0 && c.Validation < 1):
		return c, fmt.Errorf("train: validation fraction %v, want one in [0, 1)", c.Validation)
	case c.Validation > 0 && n-int(math.Ceil(c.Validation*float64(n))) < 1:
		return c, fmt.Errorf("train: a validation fraction of %v leaves none of the %d examples for training", c.Validation, n)
	case c.DropLast && n-int(math.Ceil(c.Validation*float64(n))) < c.Batch:
		return c, fmt.Errorf("train: %d training examples, fewer than one minibatch of %d, and DropLast leaves out a smaller one",
			n-int(math.Ceil(c.Validation*float64(n))), c.Batch)
	case c.FirstEpoch < 0 || c.FirstEpoch > c.Epochs:
		return c, fmt.Errorf("train: first epoch %d of %d", c.FirstEpoch, c.Epochs)
	case c.FirstEpoch > 1 && c.Checkpoint != "":
		return c, fmt.Errorf("train: first epoch %d with checkpoint %s: a checkpoint decides where the run resumes", c.FirstEpoch, c.Checkpoint)
	}
	return c, nil
}

// stepper returns the optimiser's update for parameters of type T.
func stepper[T ad.Float](opt optim.Stepper) (func(x, g []T), error) {
	var zero []T
	switch any(zero).(type) {
	case []float64:
		return func(x, g []T) { opt.Step(any(x).([]float64), any(g).([]float64)) }, nil
	case []float32:
		s32, ok := opt.(interface{ Step32(x, grad []float32) })
		if !ok {
			return nil, fmt.Errorf("train: optimiser %T cannot step float32 parameters (it has no Step32 method)", opt)
		}
		return func(x, g []T) { s32.Step32(any(x).([]float32), any(g).([]float32)) }, nil
	}
	return nil, fmt.Errorf("train: parameters of type %T: want float32 or float64", zero)
}

// split returns the training and validation examples: a seeded draw of
// ceil(fraction n) of them for validation, both sorted.
func split(n int, fraction float64, seed uint64) (train, val []int) {
	perm := rand.New(rand.NewPCG(seed, splitStream)).Perm(n)
	nv := int(math.Ceil(fraction * float64(n)))
	val, train = perm[:nv], perm[nv:]
	slices.Sort(val)
	slices.Sort(train)
	return train, val
}

type runner[T ad.Float] struct {
	m          Model[T]
	p          *ad.Params[T]
	c          Config
	step       func(x, g []T)
	train, val []int
	res        *Result

	best     []T // the parameters of the epoch of lowest validation loss
	bestLoss float64
	bad      int // epochs since the best

	// save is the checkpoint's hook, nil without a checkpoint.
	save func(Epoch) error
}

func (r *runner[T]) epoch(e int) error {
	if r.c.BeforeEpoch != nil {
		if err := r.c.BeforeEpoch(e); err != nil {
			return err
		}
	}
	start := time.Now()
	loss, examples, err := r.trainEpoch(e, start)
	if err != nil {
		return err
	}
	rec := Epoch{Epoch: e, TrainLoss: loss, Examples: examples}
	note, err := r.validateEpoch(&rec)
	if err != nil {
		return err
	}
	rec.Seconds = time.Since(start).Seconds()
	r.res.Epochs = append(r.res.Epochs, rec)
	if r.c.Progress != nil {
		val := ""
		if rec.ValidationLoss != nil {
			val = fmt.Sprintf(", validation loss %.4g", *rec.ValidationLoss)
		}
		fmt.Fprintf(r.c.Progress, "train: epoch %d/%d: training loss %.4g%s%s, %.1fs\n", e, r.c.Epochs, rec.TrainLoss, val, note, rec.Seconds)
	}
	if r.save != nil {
		if err := r.save(rec); err != nil {
			return err
		}
	}
	if r.c.AfterEpoch != nil {
		return r.c.AfterEpoch(rec)
	}
	return nil
}

// trainEpoch steps the parameters on every minibatch of epoch e, in the
// epoch's shuffle, and returns the mean training loss and the number of
// examples trained on.
func (r *runner[T]) trainEpoch(e int, start time.Time) (float64, int, error) {
	order := slices.Clone(r.train)
	rand.New(rand.NewPCG(r.c.Seed, shuffleStream+uint64(e))).Shuffle(len(order), func(i, j int) {
		order[i], order[j] = order[j], order[i]
	})
	batches := (len(order) + r.c.Batch - 1) / r.c.Batch
	if r.c.DropLast {
		batches = len(order) / r.c.Batch
		order = order[:batches*r.c.Batch]
	}
	var sum float64
	last := start
	for b := range batches {
		batch := order[b*r.c.Batch : min((b+1)*r.c.Batch, len(order))]
		loss, err := r.m.Loss(batch, true)
		if err != nil {
			return 0, 0, fmt.Errorf("train: epoch %d, minibatch %d: %w", e, b+1, err)
		}
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return 0, 0, r.notFinite(e, b, loss)
		}
		r.step(r.p.Values(), r.p.Grads())
		sum += loss * float64(len(batch))
		if r.c.Progress != nil && time.Since(last) >= time.Second {
			last = time.Now()
			done := min((b+1)*r.c.Batch, len(order))
			fmt.Fprintf(r.c.Progress, "train: epoch %d/%d, minibatch %d/%d, loss %.4g, %.0f examples/s\n",
				e, r.c.Epochs, b+1, batches, sum/float64(done), float64(done)/time.Since(start).Seconds())
		}
	}
	return sum / float64(len(order)), len(order), nil
}

// validateEpoch puts the validation loss of the epoch of rec into it,
// keeps the parameters of the best epoch and decides on stopping early;
// it returns the note of the epoch's progress line.
func (r *runner[T]) validateEpoch(rec *Epoch) (string, error) {
	e := rec.Epoch
	if len(r.val) == 0 {
		r.res.Best = e
		return "", nil
	}
	v, err := r.validate()
	if err != nil {
		return "", fmt.Errorf("train: epoch %d, validation: %w", e, err)
	}
	rec.ValidationLoss = &v
	if v < r.bestLoss {
		r.bestLoss, r.bad, r.res.Best = v, 0, e
		r.best = append(r.best[:0], r.p.Values()...)
		return " (best)", nil
	}
	if r.bad++; !r.c.NoEarlyStop && r.bad >= r.c.Patience && e < r.c.Epochs {
		r.res.EarlyStop = true
		return fmt.Sprintf("; no better than epoch %d for %d epochs: stopping", r.res.Best, r.bad), nil
	}
	return "", nil
}

// notFinite returns the error for a loss that is not finite at minibatch
// b (from 0) of epoch e. Before the run's first step the learning rate
// cannot be the cause: the parameters it starts from, initial or
// restored, or the data are.
func (r *runner[T]) notFinite(e, b int, loss float64) error {
	first := r.c.FirstEpoch
	if r.res.Resumed > 0 {
		first = r.res.Resumed + 1
	}
	if e == max(first, 1) && b == 0 {
		return fmt.Errorf("train: epoch %d, minibatch 1: the loss is %v before any step: the parameters the run starts from, or the data, give it", e, loss)
	}
	return fmt.Errorf("train: epoch %d, minibatch %d: the loss is %v; try a smaller learning rate", e, b+1, loss)
}

// validate returns the mean loss over the validation examples, computed
// in minibatches.
func (r *runner[T]) validate() (float64, error) {
	var sum float64
	for lo := 0; lo < len(r.val); lo += r.c.Batch {
		batch := r.val[lo:min(lo+r.c.Batch, len(r.val))]
		loss, err := r.m.Loss(batch, false)
		if err != nil {
			return 0, err
		}
		sum += loss * float64(len(batch))
	}
	v := sum / float64(len(r.val))
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("the loss is not finite")
	}
	return v, nil
}
