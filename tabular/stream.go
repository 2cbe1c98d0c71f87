package tabular

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/budget"
	"github.com/parametric-machines/machines/internal/parallel"
)

// Source opens a table for reading from its first row; a fit that
// streams the table calls it twice.
type Source func() (*dataset.TableReader, error)

// FileSource returns the Source of the table at path, a CSV, Parquet or
// Arrow file or a glob pattern of such files, read as dataset.OpenTable
// reads it.
func FileSource(path string) Source {
	return func() (*dataset.TableReader, error) { return dataset.OpenTable(path, dataset.FrameOptions{}) }
}

// StreamRows is the number of rows above which FitSource streams a
// table: it fits the plan (NewPlan) on a seeded sample of StreamRows
// rows, then adds up the whole table's rows a chunk at a time, so that
// its memory does not grow with the rows. Smaller tables are read whole
// and fitted by Fit.
const StreamRows = 20000

// streamRows is StreamRows, which tests lower.
var streamRows = StreamRows

// Anchors of a streamed fit: StreamAnchors gives their number for a
// table's rows.
const (
	// streamAnchorsMin and streamAnchorsMax bound StreamAnchors.
	streamAnchorsMin = ShallowAnchors
	streamAnchorsMax = 400
)

// StreamAnchors returns the number of anchors at which a streamed fit
// of n rows fits its sample when Options.Anchors is 0, the fewest it
// may have: the square root of n, as Nystrom approximations need to
// keep their error below the noise, between ShallowAnchors and 400,
// beyond which the Gram matrix's time (rows times the square of the
// anchors) outgrows what more anchors gain on millions of rows.
func StreamAnchors(n int) int {
	return max(streamAnchorsMin, min(streamAnchorsMax, int(math.Round(math.Sqrt(float64(n))))))
}

// streamCounts returns the counts of anchors among which Solve chooses
// for a streamed fit of n rows whose sample was fitted at base anchors:
// base, then those of ShallowAnchors's doublings above it while n
// times the square of the count is at most streamWork (on more than
// StreamRows rows, at most 1,600, as many as a fit in memory grows to);
// nil for none beyond base, and for n below 1. Stats add up the features of the last, and
// the others' are prefixes of them.
func streamCounts(n, base int) []int {
	counts := []int{base}
	for m := 2 * ShallowAnchors; n > 0 && float64(n)*float64(m)*float64(m) <= streamWork; m *= 2 {
		if m > base {
			counts = append(counts, m)
		}
	}
	if len(counts) == 1 {
		return nil
	}
	return counts
}

// streamWork bounds the work of the add phase of a streamed fit, its
// rows times the square of its anchors, at what the default's 400
// anchors cost on 10^6 rows (docs/large.md), so that a table of fewer
// rows may sum the features of more anchors in no more time. Tests
// lower it.
var streamWork = 1e6 * float64(streamAnchorsMax*streamAnchorsMax)

// streamChunk is the number of rows a streamed fit reads at a time.
const streamChunk = 4096

// FitFile fits the table at path, a CSV, Parquet or Arrow file or a glob
// pattern of such files; see FitSource.
func FitFile(path string, targets []string, opts Options) (*Model, *Report, error) {
	return FitSource(FileSource(path), targets, opts)
}

// FitSource fits a model to the table of src as Fit does. A table of at
// most StreamRows rows is read whole and fitted by Fit. A larger one is
// read twice, a chunk at a time: the first pass draws a seeded sample
// of StreamRows rows (and, for a classification, the first row of each
// class that it lacks: see dataset.Sample.Cover), on which NewPlan chooses the shallow machine's
// settings at StreamAnchors anchors, and more anchors where they pay on
// the sample (see streamCounts); the second adds up every row's Stats,
// from which Solve fits the machine, choosing among the counts of
// anchors on the rows held out. Its memory then does not
// grow with the rows. Options that ask for the deep machine (Family
// Deep, Dims, Costs, Bandwidths) or Balance read a large table whole,
// as Fit does.
// Progress receives the rows read, their rate and the time left about
// once a second; the Report records each phase's time.
func FitSource(src Source, targets []string, opts Options) (*Model, *Report, error) {
	if err := opts.Check(targets); err != nil {
		return nil, nil, err
	}
	begin, cpu := time.Now(), cpuSeconds()
	fr, first, err := openFirst(src)
	if err != nil {
		return nil, nil, err
	}
	defer fr.Close()
	if first.Len() <= streamRows {
		return fitWhole(first, targets, opts, begin)
	}
	if opts.Family == Deep || opts.Dims != nil || opts.Costs != nil || opts.Bandwidths != nil || opts.Balance {
		opts.log("%s: more than %d rows, read whole for the deep machine", fr.Name(), streamRows)
		whole, err := readWhole(src)
		if err != nil {
			return nil, nil, err
		}
		return fitWhole(whole, targets, opts, begin)
	}
	st := &stream{opts: opts, begin: begin, last: begin, cpu: cpu}
	sample, err := st.sample(fr, first, classes(first, targets, opts.Task))
	if err != nil {
		return nil, nil, err
	}
	fr.Close()
	anchors, more := opts.Anchors, ""
	if anchors == 0 {
		anchors = StreamAnchors(st.rows)
		if counts := streamCounts(st.rows, anchors); counts != nil {
			more = fmt.Sprintf(" (up to %d where more pay on its held-out rows)", counts[len(counts)-1])
		}
	}
	opts.log("%s: %d rows; fitting the shallow machine with %d anchors on a sample of %d rows%s, then adding up every row", fr.Name(), st.rows, anchors, sample.Len(), more)
	plan, err := NewStreamPlan(sample, targets, opts, st.rows)
	if err != nil {
		return nil, nil, err
	}
	if n := plan.Anchors(); n > plan.base() {
		opts.log("more anchors pay on the sample's held-out rows: adding up every row at %d anchors, whose count the table's held-out rows choose", n)
	}
	st.phase("plan")
	acc, err := st.add(src, plan)
	if err != nil {
		return nil, nil, err
	}
	if acc.Dropped > 0 {
		logDropped(&opts, fr.Name(), acc.Dropped, st.rows, targets)
	}
	md, rep, err := plan.Solve(acc)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range rep.Warnings {
		opts.log("warning: %s", w)
	}
	st.phase("solve")
	md.Fit.Data, md.Fit.Seconds = fr.Name(), time.Since(begin).Seconds()
	rep.Result.Seconds, rep.Phases, md.Fit.Phases = md.Fit.Seconds, st.phases, st.phases
	return md, rep, nil
}

// openFirst opens the table of src and reads its first StreamRows+1
// rows, or all of them if it has fewer; the caller closes the reader.
func openFirst(src Source) (*dataset.TableReader, *dataset.Frame, error) {
	fr, err := src()
	if err != nil {
		return nil, nil, err
	}
	first, err := fr.ReadRows(streamRows + 1)
	if err == io.EOF {
		err = &dataset.ParseError{File: fr.Name(), Err: dataset.ErrNoRows}
	}
	if err != nil {
		fr.Close()
		return nil, nil, err
	}
	return fr, first, nil
}

// readWhole reads the whole table of src.
func readWhole(src Source) (*dataset.Frame, error) {
	fr, err := src()
	if err != nil {
		return nil, err
	}
	defer fr.Close()
	return fr.ReadAll()
}

// fitWhole fits the table f, read whole since begin, with Fit.
func fitWhole(f *dataset.Frame, targets []string, opts Options, begin time.Time) (*Model, *Report, error) {
	read := time.Since(begin).Seconds()
	md, rep, err := Fit(f, targets, opts)
	if err != nil {
		return nil, nil, err
	}
	rep.Phases = []Phase{{Name: "read", Seconds: read}, {Name: "fit", Seconds: time.Since(begin).Seconds() - read}}
	md.Fit.Phases = rep.Phases
	return md, rep, nil
}

// Phase is a step of a fit, its wall-clock time in seconds and, where
// the system tells, the process's CPU time over it (user and system, all
// threads), which a machine shared with other jobs does not inflate.
type Phase struct {
	Name       string  `json:"name"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
}

// stream is the state of a streamed fit: its rows, its phases and its
// progress.
type stream struct {
	opts        Options
	rows        int // the table's rows, once the first pass has counted them
	begin, last time.Time
	mark        time.Time // the end of the last phase
	cpu         float64   // the process's CPU seconds at the end of the last phase
	phases      []Phase
}

// phase records the time since the last phase as the phase name's.
func (st *stream) phase(name string) {
	start := st.mark
	if start.IsZero() {
		start = st.begin
	}
	st.mark = time.Now()
	cpu := cpuSeconds()
	st.phases = append(st.phases, Phase{Name: name, Seconds: st.mark.Sub(start).Seconds(), CPUSeconds: cpu - st.cpu})
	st.cpu = cpu
}

// cpuSeconds returns the CPU time the process has used so far, in
// seconds; 0 where the system does not tell.
func cpuSeconds() float64 {
	d, _ := budget.CPUTime()
	return d.Seconds()
}

// progress writes to Progress, at most once a second, the rows read of
// the pass, their rate, and the time left when the rows are known.
func (st *stream) progress(pass string, rows, of int, since time.Time) {
	now := time.Now()
	if st.opts.Progress == nil || now.Sub(st.last) < time.Second {
		return
	}
	st.last = now
	fmt.Fprintln(st.opts.Progress, progressLine(pass, rows, of, now.Sub(since)))
}

// progressLine says that rows of the pass, of of them (0: unknown), were
// read in the elapsed time.
func progressLine(pass string, rows, of int, elapsed time.Duration) string {
	rate := float64(rows) / elapsed.Seconds()
	left := ""
	if of > 0 {
		left = fmt.Sprintf(" of %d; %.0f s left", of, float64(of-rows)/rate)
	}
	return fmt.Sprintf("tabular: %s: %d rows%s (%.0f rows/s)", pass, rows, left, rate)
}

// classes returns the target of a classification, as its task or the
// first rows of the table tell it, "" for a regression.
func classes(first *dataset.Frame, targets []string, task string) string {
	if len(targets) > 1 || task == Regression {
		return ""
	}
	if task == "" {
		if task, _ = inferTask(first, targets[0]); task != Classification {
			return ""
		}
	}
	return targets[0]
}

// sample reads the table of fr after its first rows, counts its rows and
// returns a seeded sample of StreamRows of them, and, if classes names a
// column, a row of each of its values that the sample lacks, so that the
// plan knows every class of the table.
func (st *stream) sample(fr *dataset.TableReader, first *dataset.Frame, classes string) (*dataset.Frame, error) {
	s := dataset.NewSample(streamRows, st.opts.Seed)
	if classes != "" {
		s.Cover(classes)
	}
	err := drawSample(s, fr, first, func(seen int) {
		st.progress("reading a sample", seen, 0, st.begin)
	})
	if err != nil {
		return nil, err
	}
	st.rows = s.Seen()
	st.phase("sample")
	return s.Frame(), nil
}

// drawSample reads the table of fr to its end after its first rows, a
// chunk at a time, into the sample s; each, if not nil, is told the rows
// read after every chunk.
func drawSample(s *dataset.Sample, fr *dataset.TableReader, first *dataset.Frame, each func(seen int)) error {
	s.Add(first)
	for {
		f, err := fr.Read(streamChunk)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		s.Add(f)
		if each != nil {
			each(s.Seen())
		}
	}
}

// add reads the table of src again and returns the Stats of its rows,
// the chunks added up in parallel and summed in the table's order, so
// that the sums do not depend on the number of workers, with the
// warnings of reading them (Stats.Read), which Solve gives with those of
// encoding them.
func (st *stream) add(src Source, plan *Plan) (*Stats, error) {
	fr, err := src()
	if err != nil {
		return nil, err
	}
	defer fr.Close()
	start := time.Now()
	acc := plan.NewStats()
	workers := runtime.GOMAXPROCS(0)
	batch := make([]*dataset.Frame, 0, workers)
	parts := make([]*Stats, workers)
	var last *dataset.Frame // whose Warnings are the reader's, of every row read
	for done := false; !done; {
		batch = batch[:0]
		for len(batch) < workers {
			f, err := fr.Read(streamChunk)
			if err == io.EOF {
				done = true
				break
			}
			if err != nil {
				return nil, err
			}
			batch, last = append(batch, f), f
		}
		err := parallel.Run(len(batch), workers, func(i int) error {
			if parts[i] == nil {
				parts[i] = plan.NewStats()
			}
			parts[i].reset()
			return parts[i].Add(batch[i])
		})
		if err != nil {
			return nil, err
		}
		for _, part := range parts[:len(batch)] {
			if err := acc.Merge(part); err != nil {
				return nil, err
			}
		}
		st.progress("adding up the rows", acc.Rows+acc.Dropped, st.rows, start)
	}
	if acc.Rows+acc.Dropped != st.rows {
		return nil, fmt.Errorf("%s: %d rows on the second reading, %d on the first: the table changed while it was read", fr.Name(), acc.Rows+acc.Dropped, st.rows)
	}
	st.phase("add")
	if last != nil {
		acc.Read = last.Warnings()
	}
	return acc, nil
}
