package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/atomicfile"
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

// checkpoint is the state of a run after an epoch. The settings that
// decide which steps the run takes are kept to refuse resuming a
// different run.
type checkpoint struct {
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

func (r *runner[T]) settings() checkpoint {
	return checkpoint{Header: checkpointFormat.Header(), Examples: len(r.train) + len(r.val),
		Batch: r.c.Batch, Seed: r.c.Seed, Validation: r.c.Validation, Names: r.p.Names()}
}

func (r *runner[T]) save() error {
	opt, ok := r.c.Optimizer.(json.Marshaler)
	if !ok {
		return fmt.Errorf("train: checkpoint %s: optimiser %T cannot be saved (it does not implement json.Marshaler)", r.c.Checkpoint, r.c.Optimizer)
	}
	state, err := opt.MarshalJSON()
	if err != nil {
		return fmt.Errorf("train: checkpoint %s: %w", r.c.Checkpoint, err)
	}
	ck := r.settings()
	ck.Values, ck.Optimizer, ck.Result, ck.Bad = widen(r.p.Values()), state, r.res, r.bad
	if r.best != nil {
		ck.Best, ck.BestLoss = widen(r.best), &r.bestLoss
	}
	err = atomicfile.WriteFile(r.c.Checkpoint, func(w io.Writer) error { return json.NewEncoder(w).Encode(ck) })
	if err != nil {
		return fmt.Errorf("train: checkpoint: %w", err)
	}
	return nil
}

// resume restores the run from its checkpoint file, if there is one.
func (r *runner[T]) resume() error {
	path := r.c.Checkpoint
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if err := r.restore(data); err != nil {
		return fmt.Errorf("train: checkpoint %s: %w", path, err)
	}
	if r.c.Progress != nil {
		fmt.Fprintf(r.c.Progress, "train: resuming from %s after epoch %d\n", path, len(r.res.Epochs))
	}
	return nil
}

func (r *runner[T]) restore(data []byte) error {
	var ck checkpoint
	if err := checkpointFormat.Decode(data, &ck); err != nil {
		return err
	}
	want := r.settings()
	switch {
	case ck.Examples != want.Examples || ck.Batch != want.Batch || ck.Seed != want.Seed || ck.Validation != want.Validation:
		return fmt.Errorf("written by a run of %d examples, minibatch %d, seed %d, validation %v; this one has %d, %d, %d, %v (delete the file to start afresh)",
			ck.Examples, ck.Batch, ck.Seed, ck.Validation, want.Examples, want.Batch, want.Seed, want.Validation)
	case !slices.Equal(ck.Names, want.Names):
		return fmt.Errorf("written for parameters %v, the model has %v", ck.Names, want.Names)
	case len(ck.Values) != r.p.Len():
		return fmt.Errorf("%d parameter values, the model has %d", len(ck.Values), r.p.Len())
	case (ck.Best == nil) != (ck.BestLoss == nil):
		return errors.New(`"best" and "best_loss" must come together`)
	case ck.Best != nil && len(ck.Best) != r.p.Len():
		return fmt.Errorf("%d best parameter values, the model has %d", len(ck.Best), r.p.Len())
	case ck.Result == nil:
		return errors.New(`missing field "result"`)
	case len(ck.Result.Epochs) > r.c.Epochs:
		return fmt.Errorf("%d epochs done, more than the %d asked for", len(ck.Result.Epochs), r.c.Epochs)
	}
	for i, v := range slices.Concat(ck.Values, ck.Best) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("parameter value %d is %v", i%r.p.Len(), v)
		}
	}
	opt, ok := r.c.Optimizer.(json.Unmarshaler)
	if !ok {
		return fmt.Errorf("optimiser %T cannot be restored (it does not implement json.Unmarshaler)", r.c.Optimizer)
	}
	if err := opt.UnmarshalJSON(ck.Optimizer); err != nil {
		return err
	}
	// An optimiser's state for another number of parameters would fail
	// at the first step, far from the file at fault.
	if s, ok := r.c.Optimizer.(interface{ StateLen() int }); ok && s.StateLen() != 0 && s.StateLen() != r.p.Len() {
		return fmt.Errorf("the optimiser's state is for %d parameters, the model has %d (delete the file to start afresh)", s.StateLen(), r.p.Len())
	}
	narrow(r.p.Values(), ck.Values)
	if ck.Best != nil {
		r.best = make([]T, len(ck.Best))
		narrow(r.best, ck.Best)
		r.bestLoss = *ck.BestLoss
	}
	r.bad = ck.Bad
	ck.Result.Train, ck.Result.Validation = r.res.Train, r.res.Validation
	ck.Result.Resumed = len(ck.Result.Epochs)
	r.res = ck.Result
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
