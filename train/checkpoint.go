package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/checkpoint"
	"github.com/parametric-machines/machines/internal/jsonfile"
)

// CheckpointKind and CheckpointVersion are the "kind" and "version" of
// the checkpoint files of Run in the module's envelope ("format":
// "machines"). CheckpointFormat is the "format" of the checkpoints
// written before the envelope (version 1), which a run resumes from too.
const (
	CheckpointKind    = "train-checkpoint"
	CheckpointVersion = 2
	CheckpointFormat  = "machines-train-checkpoint"
)

var checkpointFormat = jsonfile.Format{Name: jsonfile.Envelope, Kind: CheckpointKind, What: "a training checkpoint",
	Oldest: 1, Newest: CheckpointVersion, Legacy: CheckpointFormat, LegacyNewest: 1}

// state is the state of a run after an epoch. The settings that decide
// which steps the run takes are kept to refuse resuming a different run.
type state struct {
	jsonfile.Header
	Examples   int             `json:"examples"`
	Batch      int             `json:"batch"`
	Seed       uint64          `json:"seed"`
	Validation float64         `json:"validation"`
	Names      []string        `json:"names"`
	Values     []float64       `json:"values"`
	Best       []float64       `json:"best,omitempty"`
	BestLoss   *float64        `json:"best_loss,omitempty"`
	Bad        int             `json:"bad"`
	Optimizer  json.RawMessage `json:"optimizer"`
	Result     *Result         `json:"result"`
}

func (r *runner[T]) settings() state {
	return state{Examples: len(r.train) + len(r.val), Batch: r.c.Batch, Seed: r.c.Seed, Validation: r.c.Validation, Names: r.p.Names()}
}

// attach resumes the run from its checkpoint, if the file exists, and
// attaches the checkpoint to the loop's end of every epoch.
func (r *runner[T]) attach() error {
	f := checkpoint.File{Path: r.c.Checkpoint, Format: checkpointFormat}
	var st state
	found, err := f.Load(&st)
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if found {
		if err := r.restore(&st); err != nil {
			return fmt.Errorf("train: checkpoint %s: %w", f.Path, err)
		}
		if r.c.Progress != nil {
			fmt.Fprintf(r.c.Progress, "train: resuming from %s after epoch %d\n", f.Path, len(r.res.Epochs))
		}
	}
	hook := checkpoint.Hook[Epoch](f, r.snapshot)
	r.save = func(e Epoch) error {
		if err := hook(e); err != nil {
			return fmt.Errorf("train: %w", err)
		}
		return nil
	}
	return nil
}

// snapshot returns the state of the run.
func (r *runner[T]) snapshot() (checkpoint.State, error) {
	opt, ok := r.c.Optimizer.(json.Marshaler)
	if !ok {
		return nil, fmt.Errorf("optimiser %T cannot be saved (it does not implement json.Marshaler)", r.c.Optimizer)
	}
	optState, err := opt.MarshalJSON()
	if err != nil {
		return nil, err
	}
	st := r.settings()
	st.Values, st.Optimizer, st.Result, st.Bad = widen(r.p.Values()), optState, r.res, r.bad
	if r.best != nil {
		st.Best, st.BestLoss = widen(r.best), &r.bestLoss
	}
	return &st, nil
}

// restore sets the run to the state st read from its checkpoint, after
// checking that a run of these settings and this model wrote it.
func (r *runner[T]) restore(st *state) error {
	want := r.settings()
	switch {
	case st.Examples != want.Examples || st.Batch != want.Batch || st.Seed != want.Seed || st.Validation != want.Validation:
		return fmt.Errorf("written by a run of %d examples, minibatch %d, seed %d, validation %v; this one has %d, %d, %d, %v (delete the file to start afresh)",
			st.Examples, st.Batch, st.Seed, st.Validation, want.Examples, want.Batch, want.Seed, want.Validation)
	case !slices.Equal(st.Names, want.Names):
		return fmt.Errorf("written for parameters %v, the model has %v", st.Names, want.Names)
	case len(st.Values) != r.p.Len():
		return fmt.Errorf("%d parameter values, the model has %d", len(st.Values), r.p.Len())
	case (st.Best == nil) != (st.BestLoss == nil):
		return errors.New(`"best" and "best_loss" must come together`)
	case st.Best != nil && len(st.Best) != r.p.Len():
		return fmt.Errorf("%d best parameter values, the model has %d", len(st.Best), r.p.Len())
	case st.Result == nil:
		return errors.New(`missing field "result"`)
	case len(st.Result.Epochs) > r.c.Epochs:
		return fmt.Errorf("%d epochs done, more than the %d asked for", len(st.Result.Epochs), r.c.Epochs)
	}
	for i, v := range slices.Concat(st.Values, st.Best) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("parameter value %d is %v", i%r.p.Len(), v)
		}
	}
	opt, ok := r.c.Optimizer.(json.Unmarshaler)
	if !ok {
		return fmt.Errorf("optimiser %T cannot be restored (it does not implement json.Unmarshaler)", r.c.Optimizer)
	}
	if err := opt.UnmarshalJSON(st.Optimizer); err != nil {
		return err
	}
	// An optimiser's state for another number of parameters would fail
	// at the first step, far from the file at fault.
	if s, ok := r.c.Optimizer.(interface{ StateLen() int }); ok && s.StateLen() != 0 && s.StateLen() != r.p.Len() {
		return fmt.Errorf("the optimiser's state is for %d parameters, the model has %d (delete the file to start afresh)", s.StateLen(), r.p.Len())
	}
	narrow(r.p.Values(), st.Values)
	if st.Best != nil {
		r.best = make([]T, len(st.Best))
		narrow(r.best, st.Best)
		r.bestLoss = *st.BestLoss
	}
	r.bad = st.Bad
	st.Result.Train, st.Result.Validation = r.res.Train, r.res.Validation
	st.Result.Resumed = len(st.Result.Epochs)
	r.res = st.Result
	return nil
}

func widen[T ad.Float](x []T) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

func narrow[T ad.Float](dst []T, x []float64) {
	for i, v := range x {
		dst[i] = T(v)
	}
}
