package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/tabular"
)

// Job is a fit on Beam: the flags of machines-beam, named as machines
// fit's.
type Job struct {
	// Data is a glob of CSV, Parquet or Arrow files with the same
	// columns, read as one table in the order of their names.
	Data string
	// Target names the column to predict, or comma-separated columns of a
	// regression.
	Target string
	// Model is the model file to write, on this machine.
	Model string
	// Seed seeds the sample, the folds and the anchors, as in machines fit.
	Seed uint64
	// Anchors is the number of anchors; 0 is tabular.StreamAnchors of the
	// table's rows, and more where they pay, as in machines fit.
	Anchors int
	// Stats is where the pipeline writes the summed statistics for the
	// solve: a path that the workers and the driver both reach. "" is a
	// temporary file beside Model.
	Stats string
	// Log, if not nil, receives the fit's notes, one line each.
	Log io.Writer
}

// Result is what a fit on Beam did besides writing the model.
type Result struct {
	Shards int
	Report *tabular.Report
}

// Check reports the errors in job that need no data, naming the flag.
func (job *Job) Check() error {
	switch {
	case job.Data == "":
		return errors.New("-data: missing: a glob of CSV, Parquet or Arrow files")
	case job.Target == "":
		return errors.New("-target: missing: the column to predict")
	case job.Model == "":
		return errors.New("-model: missing: the model file to write")
	case job.Anchors < 0:
		return fmt.Errorf("-anchors %d: want a number >= 0", job.Anchors)
	}
	return atomicfile.Check(job.Model)
}

// Fit fits the table of job.Data as machines fit streams a large table,
// with the rows added up on Beam: this process reads the shards once for
// a seeded sample, on which tabular.NewStreamPlan chooses the shallow machine;
// the pipeline's workers add up their shards' tabular.Stats and a
// combiner sums them; the solve runs here, and the model is written to
// job.Model. The model is the one machines fit writes of the same glob
// with the same seed and anchors, up to rounding.
func Fit(ctx context.Context, job Job) (*tabular.Model, *Result, error) {
	if err := job.Check(); err != nil {
		return nil, nil, err
	}
	begin := time.Now()
	paths, err := Shards(ctx, job.Data)
	if err != nil {
		return nil, nil, err
	}
	targets := strings.Split(job.Target, ",")
	opts := tabular.Options{Seed: job.Seed, Anchors: job.Anchors, Log: job.logf}
	if err := opts.Check(targets); err != nil {
		return nil, nil, err
	}
	var phases []tabular.Phase
	mark := begin
	phase := func(name string) {
		now := time.Now()
		phases = append(phases, tabular.Phase{Name: name, Seconds: now.Sub(mark).Seconds()})
		mark = now
	}
	plan, shards, rows, err := job.plan(ctx, paths, opts)
	if err != nil {
		return nil, nil, err
	}
	phase("plan")
	acc, err := job.add(ctx, shards, plan, rows)
	if err != nil {
		return nil, nil, err
	}
	phase("beam")
	md, rep, err := plan.Solve(acc)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range rep.Warnings {
		job.logf("warning: " + w.String())
	}
	phase("solve")
	md.Fit.Data, md.Fit.Seconds = job.Data, time.Since(begin).Seconds()
	rep.Result.Seconds, rep.Phases, md.Fit.Phases = md.Fit.Seconds, phases, phases
	if err := md.Save(job.Model); err != nil {
		return nil, nil, err
	}
	return md, &Result{Shards: len(shards), Report: rep}, nil
}

// plan reads the shards once for a seeded sample of tabular.StreamRows
// rows, as machines fit does, and chooses the plan on it. It returns the
// plan, the shards with the columns they must have, and the table's
// rows.
func (job *Job) plan(ctx context.Context, paths []string, opts tabular.Options) (*tabular.Plan, []shard, int, error) {
	s := dataset.NewSample(tabular.StreamRows, job.Seed)
	add := func(f *dataset.Frame) error { s.Add(f); return nil }
	shards := make([]shard, len(paths))
	var columns []string
	for i, path := range paths {
		shards[i] = shard{Path: path, Columns: columns}
		read, _, err := readShard(ctx, shards[i], add)
		if err != nil {
			return nil, nil, 0, err
		}
		columns = read
	}
	for i := range shards {
		shards[i].Columns = columns
	}
	if s.Seen() == 0 {
		return nil, nil, 0, &dataset.ParseError{File: job.Data, Err: dataset.ErrNoRows}
	}
	anchors, more := opts.Anchors, ""
	if anchors == 0 {
		anchors = tabular.StreamAnchors(s.Seen())
		if s.Seen() > tabular.StreamRows {
			more = " (more where they pay on its held-out rows)"
		}
	}
	sample := s.Frame()
	job.logf(fmt.Sprintf("%s: %d rows in %d shards; fitting the shallow machine with %d anchors on a sample of %d rows%s, then adding up every row on Beam",
		job.Data, s.Seen(), len(shards), anchors, sample.Len(), more))
	plan, err := tabular.NewStreamPlan(sample, strings.Split(job.Target, ","), opts, s.Seen())
	if err != nil {
		return nil, nil, 0, err
	}
	if md, _ := plan.Sample(); plan.Anchors() > md.Fit.Anchors {
		job.logf(fmt.Sprintf("more anchors pay on the sample's held-out rows: adding up every row at %d anchors, whose count the table's held-out rows choose", plan.Anchors()))
	}
	return plan, shards, s.Seen(), nil
}

// add runs the pipeline over the shards and returns their summed stats,
// which must count the rows that the sample counted.
func (job *Job) add(ctx context.Context, shards []shard, plan *tabular.Plan, rows int) (*tabular.Stats, error) {
	b, err := json.Marshal(plan)
	if err != nil {
		return nil, err
	}
	path := job.Stats
	if path == "" {
		dir, err := os.MkdirTemp(filepath.Dir(job.Model), ".machines-beam-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "stats.json")
	}
	acc, err := run(ctx, shards, b, path)
	if err == nil && acc.Rows+acc.Dropped != rows {
		err = fmt.Errorf("-data %q: %d rows in the pipeline, %d in the sample's reading: the shards changed while they were read", job.Data, acc.Rows+acc.Dropped, rows)
	}
	return acc, err
}

// logf sends a note to Log.
func (job *Job) logf(line string) {
	if job.Log != nil {
		fmt.Fprintln(job.Log, line)
	}
}
