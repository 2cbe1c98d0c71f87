package tabular

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/internal/jsonfile"
	"gonum.org/v1/gonum/mat"
)

// The version of the model file this package writes and the kind of
// model it holds. Version 1 files hold numeric features only and no
// encoder; version 2 adds the encoder, the id column and the fit record;
// version 3 the intervals and the calibration; version 4 the shallow
// machine's input block and a classifier's intercepts; version 5 is the
// first in the module's envelope ("format": "machines", "kind":
// "kernel-machine"), where the earlier ones have "format":
// "machines-model"; version 6 gives a classifier intervals: the held-out
// scores of its prediction sets; version 7 the machine's sum of further
// machines (Machine.Sum); version 8 a numeric column's codes in the
// encoder and a classifier's class biases in the fit record; version 9
// the machine of the inputs' other encoding averaged with it
// (Machine.Other); version 10 the linear machine averaged with it
// (Machine.Linear); version 11 the training mean averaged with it
// (Machine.Mean); version 12 each numeric column's training range in the
// encoder, against which predict judges new values, and the fit record's
// held-out scores measured again where the relevance weights are kept;
// version 13 the shallow machine's Laplacian kernel ("laplacian" in the
// machines) and the fit record's kernel losses.
const (
	Version      = 13
	Kind         = "kernel-machine"
	LegacyFormat = "machines-model"
)

// format is the model file's format; Load reads every version up to the
// one Save writes.
var format = jsonfile.Format{Name: jsonfile.Envelope, Kind: Kind, What: "a model file of machines fit",
	Oldest: 1, Newest: Version, Legacy: LegacyFormat, LegacyNewest: 4}

// The tasks a model can be fitted for.
const (
	Regression     = "regression"
	Classification = "classification"
)

// Model is a fitted table model: the columns it reads, the encoder that
// turns them into the machine's inputs, the machine, and what its
// predictions need besides (classes, calibration, intervals). Its JSON
// form is the model file that machines fit writes and every command
// reads.
type Model struct {
	Format   string   `json:"format"`
	Version  int      `json:"version"`
	Kind     string   `json:"kind"`
	Task     string   `json:"task"`
	Features []string `json:"features"` // the input columns of the data file
	Target   string   `json:"target"`
	// Targets lists a regression's target columns when there are
	// several, in the order of the machine's outputs; Target is then the
	// first.
	Targets []string `json:"targets,omitempty"`
	ID      string   `json:"id,omitempty"`
	Classes []string `json:"classes,omitempty"`
	// Encoder turns the feature columns into the machine's inputs; nil
	// in version 1 files, whose features are numbers used as they are.
	Encoder *dataset.Encoder `json:"encoder,omitempty"`
	// Fit records how the machine was fitted; predict does not need it.
	Fit *FitRecord `json:"fit,omitempty"`
	// Intervals holds what prediction intervals and sets need; nil when
	// the fit chose no settings by cross-validation, in files before
	// version 3, and for classifiers before version 6.
	Intervals *IntervalRecord `json:"intervals,omitempty"`
	Machine   *Machine        `json:"machine"`
}

// IntervalRecord holds, for each regression target, the absolute
// held-out residuals of the chosen setting, sorted, on the scale the
// machine fits (Calibration.Residuals); for a classifier one list,
// the held-out scores 1 - p of the true classes (Calibration.Scores).
// Each is thinned to at most maxResiduals evenly spaced order statistics.
type IntervalRecord struct {
	Residuals [][]float64 `json:"residuals"`
}

// maxResiduals bounds the residuals a model file keeps per target: beyond
// a thousand, more order statistics move a 90% interval by less than the
// rows' own noise.
const maxResiduals = 1000

// checkTargets reports a regression's targets that do not match its
// machine.
func (md *Model) checkTargets() error {
	m := md.Machine
	if md.Classes != nil {
		return errors.New("a regression model lists classes")
	}
	if m.Outputs() != len(md.TargetNames()) {
		return fmt.Errorf("the machine has %d outputs for the %d targets %q", m.Outputs(), len(md.TargetNames()), md.TargetNames())
	}
	if md.Targets != nil && (len(md.Targets) < 2 || md.Targets[0] != md.Target) {
		return fmt.Errorf("targets %q: want several, the first the target %q", md.Targets, md.Target)
	}
	return nil
}

// checkIntervals reports intervals that predict -interval cannot use.
func (md *Model) checkIntervals() error {
	if md.Intervals == nil {
		return nil
	}
	n := md.Machine.Outputs()
	if md.Task == Classification {
		if md.Version < 6 {
			return errors.New("a classification model has intervals")
		}
		n = 1
	}
	if len(md.Intervals.Residuals) != n {
		return fmt.Errorf("the intervals hold residuals of %d targets, the model has %d", len(md.Intervals.Residuals), n)
	}
	for j, r := range md.Intervals.Residuals {
		for i, v := range r {
			if !(v >= 0) || math.IsInf(v, 0) || (i > 0 && v < r[i-1]) || (md.Task == Classification && v > 1) {
				return fmt.Errorf("interval residual %d of target %d is %v: want finite values >= 0 in increasing order", i, j+1, v)
			}
		}
	}
	return nil
}

// thinResiduals returns at most maxResiduals of the sorted residuals r:
// the ceil(i n/m)-th smallest for i = 1..m, so that the k-th of them is
// at least the residual of the same rank in r.
func thinResiduals(r []float64) []float64 {
	n := len(r)
	if n <= maxResiduals {
		return r
	}
	out := make([]float64, maxResiduals)
	for i := range out {
		out[i] = r[(n*(i+1)+maxResiduals-1)/maxResiduals-1]
	}
	return out
}

// FitRecord is what fit stores about the fit: the data, the settings it
// used and how it chose them, and how the optimiser ended.
type FitRecord struct {
	Data    string `json:"data"`
	Rows    int    `json:"rows"`
	Dropped int    `json:"dropped_rows"`
	Seed    uint64 `json:"seed"`
	// Weight, Balance, Group and Time are fit's flags of those names:
	// the columns of the weights, the groups and the times, and whether
	// the classes were balanced; Budget its -budget.
	Weight  string `json:"weight,omitempty"`
	Balance bool   `json:"balance,omitempty"`
	Group   string `json:"group,omitempty"`
	Time    string `json:"time,omitempty"`
	Budget  string `json:"budget,omitempty"`
	// Shallow says the machine is the shallow one of Shallow.
	Shallow   bool    `json:"shallow,omitempty"`
	Dims      []int   `json:"dims"`
	Cost      float64 `json:"cost"`
	Bandwidth float64 `json:"bandwidth"`
	LogTarget bool    `json:"log_target,omitempty"`
	// InputScale and InputLosses are Result's: whether the inputs
	// were mapped through their quantiles, and the held-out losses that
	// chose.
	InputScale  string    `json:"input_scale,omitempty"`
	InputLosses []float64 `json:"input_losses,omitempty"`
	// OtherWeight is Result's: the weight of the machine of the
	// inputs' other encoding in the average, 0 for none.
	OtherWeight float64 `json:"other_weight,omitempty"`
	// LinearWeight is Result's: the weight of the linear machine of the
	// inputs as they are in the average, 0 for none.
	LinearWeight float64 `json:"linear_weight,omitempty"`
	// MeanWeight is the weight of the training mean (Machine.Mean) in
	// the average, 0 for none: model files written by the fits of
	// 2026-11-30 may record it; the default fit no longer sets it.
	MeanWeight float64 `json:"mean_weight,omitempty"`
	// Relevance, RelevanceLosses and RelevanceEvidence are Result's:
	// the weights of the standardised inputs, if they were weighed, the
	// held-out losses without and with them, and the negative log
	// evidence per row without and with them where it chose.
	Relevance         []float64 `json:"relevance,omitempty"`
	RelevanceLosses   []float64 `json:"relevance_losses,omitempty"`
	RelevanceEvidence []float64 `json:"relevance_evidence,omitempty"`
	// HeldOut is Result's: where the weights were kept, the chosen
	// setting's held-out scores with each fold's weights measured on its
	// training rows alone, whose residuals the intervals hold.
	HeldOut *Candidate `json:"held_out,omitempty"`
	// CycleLosses are the shallow machine's lowest held-out losses with
	// the phases of the dates' cycles and without, which chose whether
	// the encoder keeps them.
	CycleLosses []float64 `json:"cycle_losses,omitempty"`
	// CodeLosses are the shallow machine's lowest held-out losses
	// without numeric columns by their codes and with the best of those
	// tried, which chose whether the encoder keeps them.
	// KernelLosses are Result's: the held-out losses of the fits with
	// the Gaussian and the Laplacian kernel, where Fit chose between
	// them.
	KernelLosses []float64  `json:"kernel_losses,omitempty"`
	CodeLosses   []float64  `json:"code_losses,omitempty"`
	Anchors      int        `json:"anchors"`
	Starts       int        `json:"starts,omitempty"` // initial points of the final fit
	Start        int        `json:"start,omitempty"`  // the one kept, from 0
	Iterations   int        `json:"iterations"`
	CoarseRows   int        `json:"coarse_rows,omitempty"` // rows of the coarse fit that started the final one
	Converged    bool       `json:"converged"`
	Status       string     `json:"status"`
	Seconds      float64    `json:"seconds"`
	Phases       []Phase    `json:"phases,omitempty"` // the steps of FitSource and their times
	Selection    *Selection `json:"selection,omitempty"`
	// Calibration is the logit scale or the shrinkage that the chosen
	// setting's held-out predictions gave the machine.
	Calibration *Calibration `json:"calibration,omitempty"`
}

// inputs returns the machine's inputs for the given rows of f (nil: all
// rows) and the encoder's warnings about them.
func (md *Model) inputs(f *dataset.Frame, rows []int) (*mat.Dense, []dataset.Warning, error) {
	if md.Encoder == nil {
		x, err := numericColumns(f, md.Features, rows)
		return x, nil, err
	}
	return md.Encoder.Transform(f, rows)
}

// inputsEach encodes a table that comes in parts: it calls next for each
// part until next returns io.EOF, and each with the part and its inputs.
// It returns the encoder's warnings about the whole table.
func (md *Model) inputsEach(next func() (*dataset.Frame, error), each func(f *dataset.Frame, x *mat.Dense) error) ([]dataset.Warning, error) {
	if md.Encoder != nil {
		return md.Encoder.TransformEach(next, each)
	}
	for {
		f, err := next()
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		x, err := numericColumns(f, md.Features, nil)
		if err != nil {
			return nil, err
		}
		if err := each(f, x); err != nil {
			return nil, err
		}
	}
}

// numericColumns reads the named columns of the given rows of f (nil: all
// rows) as numbers, as version 1 model files expect.
func numericColumns(f *dataset.Frame, names []string, rows []int) (*mat.Dense, error) {
	if rows == nil {
		rows = make([]int, f.Len())
		for i := range rows {
			rows[i] = i
		}
	}
	x := mat.NewDense(len(rows), len(names), nil)
	for j, name := range names {
		c, err := f.Column(name)
		if err != nil {
			return nil, err
		}
		for i, r := range rows {
			v, err := f.Number(r, c)
			if err != nil {
				return nil, err
			}
			x.Set(i, j, v)
		}
	}
	return x, nil
}

// Save checks md and writes it to path, replacing the file atomically.
// The header fields come one per line, the machine last on a single line,
// so that the head of the file tells what it holds.
func (md *Model) Save(path string) error {
	if err := md.check(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// The outer Machine field, left nil, hides md's.
	head, err := json.MarshalIndent(struct {
		*Model
		Machine *Machine `json:"machine,omitempty"`
	}{Model: md}, "", "  ")
	if err != nil {
		return err
	}
	body, err := md.Machine.MarshalJSON() // compact, as json.Marshal would leave it
	if err != nil {
		return err
	}
	// head is "{\n  ...\n}": reopen it to append the machine.
	head = bytes.TrimSuffix(head, []byte("\n}"))
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%s,\n  \"machine\": %s\n}\n", head, body)
		return err
	})
}

// Load reads and checks the model file at path, of any version up to
// Version. Its errors name the file.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	md, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return md, nil
}

// Decode reads and checks the content of a model file.
func Decode(data []byte) (*Model, error) {
	md := new(Model)
	if err := format.Decode(data, md); err != nil {
		return nil, err
	}
	if err := md.check(); err != nil {
		return nil, err
	}
	return md, nil
}

// check reports what makes md unusable for predictions. The machine itself
// has been checked by its decoder, or is checked by its encoder.
func (md *Model) check() error {
	if md.Kind != Kind {
		return fmt.Errorf("unknown model kind %q; this machines knows %q", md.Kind, Kind)
	}
	if md.Task != Regression && md.Task != Classification {
		return fmt.Errorf("unknown task %q, want %q or %q", md.Task, Regression, Classification)
	}
	if md.Target == "" {
		return errors.New("missing field \"target\"")
	}
	if len(md.Features) == 0 {
		return errors.New("missing field \"features\"")
	}
	for i, f := range md.Features {
		switch {
		case f == "":
			return fmt.Errorf("feature %d has an empty name", i)
		case slices.Contains(md.TargetNames(), f):
			return fmt.Errorf("the target %q is also a feature", f)
		case slices.Contains(md.Features[:i], f):
			return fmt.Errorf("feature %q is listed twice", f)
		}
	}
	m := md.Machine
	if m == nil {
		return errors.New("missing field \"machine\"")
	}
	if m.Machine == nil || m.A == nil {
		// Only a machine built in code, not a decoded one, lacks A.
		return errors.New("the machine has no matrix a")
	}
	if md.Encoder == nil {
		if md.Version > 1 {
			return errors.New("missing field \"encoder\"")
		}
		if m.Inputs() != len(md.Features) {
			return fmt.Errorf("the machine has %d inputs for the %d features %q", m.Inputs(), len(md.Features), md.Features)
		}
	} else {
		if !slices.Equal(md.Encoder.Features(), md.Features) {
			return fmt.Errorf("the encoder reads the columns %q, the model lists the features %q", md.Encoder.Features(), md.Features)
		}
		if n := len(md.Encoder.Names()); m.Inputs() != n {
			return fmt.Errorf("the machine has %d inputs for the %d columns of the encoder", m.Inputs(), n)
		}
	}
	if err := md.checkIntervals(); err != nil {
		return err
	}
	if md.ID != "" && (slices.Contains(md.TargetNames(), md.ID) || slices.Contains(md.Features, md.ID)) {
		return fmt.Errorf("the id column %q is also the target or a feature", md.ID)
	}
	if md.Task == Regression {
		return md.checkTargets()
	}
	return md.checkClasses()
}

// checkClasses reports what makes md unusable as a classifier.
func (md *Model) checkClasses() error {
	m := md.Machine
	if md.Targets != nil {
		return errors.New("a classification model lists several targets")
	}
	if len(md.Classes) < 2 {
		return fmt.Errorf("a classification model needs at least 2 classes, the file lists %d", len(md.Classes))
	}
	for i, c := range md.Classes {
		if slices.Contains(md.Classes[:i], c) {
			return fmt.Errorf("class %q is listed twice", c)
		}
	}
	if m.Outputs() != len(md.Classes) {
		return fmt.Errorf("the machine has %d outputs for %d classes", m.Outputs(), len(md.Classes))
	}
	if m.LogTarget {
		return errors.New("a classification machine has a log target")
	}
	if m.Range != nil {
		return errors.New("a classification machine has a range: it bounds a regression's predictions")
	}
	if m.Output != nil && slices.ContainsFunc(m.Output.Scale, func(v float64) bool { return v != 1 }) {
		return errors.New("a classification machine has an output scaler of scales other than 1: it adds its intercepts, and scales nothing")
	}
	return nil
}
