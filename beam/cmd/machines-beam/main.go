// Command machines-beam fits the tabular learner's shallow machine to a
// table of CSV, Parquet or Arrow shards on Apache Beam: each worker adds
// up its rows' sufficient statistics, a combiner sums them, and the
// solve runs once, here, writing a model file that every command of
// machines reads.
//
// Usage:
//
//	machines-beam -data 'part-*.parquet' -target COLUMN -model FILE [-seed N] [Beam's flags]
//
// The in-process runner, prism, is the default: the command runs on one
// machine with no set-up. Beam's flags choose another runner (-runner
// flink, spark or dataflow, with -endpoint and -environment_type); then
// -stats must name a path that the workers and this command both reach.
// See beam/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/parametric-machines/machines/beam/pipeline"
)

func main() {
	os.Exit(run(flag.CommandLine, os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args with fs, on which Beam's packages have put their own
// flags in main, fits, and returns the exit status: 2 for a flag at
// fault, 1 for the rest.
func run(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	job := pipeline.Job{Log: stderr}
	fs.SetOutput(stderr)
	fs.StringVar(&job.Data, "data", "", "training data: a `glob` of CSV, Parquet or Arrow files with the same columns, read as one table in the order of their names (required)")
	fs.StringVar(&job.Target, "target", "", "the `column` to predict, or comma-separated columns of a regression (required)")
	fs.StringVar(&job.Model, "model", "", "write the fitted model to this JSON `file` (required)")
	fs.Uint64Var(&job.Seed, "seed", 0, "`seed` of the sample, the folds and the anchors")
	fs.IntVar(&job.Anchors, "anchors", 0, "number `M` of anchor points (default: the square root of the rows, between 100 and 400)")
	fs.StringVar(&job.Stats, "stats", "", "where the pipeline leaves the summed statistics for the solve: a `path` that the workers and this command both reach\n(default: a temporary file beside -model, removed after the fit)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	// On a remote runner's workers, Init runs the worker and never returns.
	beam.Init()
	if fs.NArg() > 0 {
		return fail(stderr, 2, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if err := job.Check(); err != nil {
		return fail(stderr, 2, err)
	}
	md, res, err := pipeline.Fit(context.Background(), job)
	if err != nil {
		return fail(stderr, 1, err)
	}
	for _, line := range res.Report.Summary(md) {
		fmt.Fprintf(stdout, "machines-beam: %s\n", line)
	}
	fmt.Fprintf(stdout, "machines-beam: %d rows in %d shards, %.3g s; wrote %s\n", md.Fit.Rows, res.Shards, md.Fit.Seconds, job.Model)
	return 0
}

// fail reports err on stderr and returns code: 2 for a flag at fault,
// with the usage, 1 for the rest.
func fail(stderr io.Writer, code int, err error) int {
	fmt.Fprintf(stderr, "machines-beam: %v\n", err)
	if code == 2 {
		fmt.Fprintln(stderr, "usage: machines-beam -data GLOB -target COLUMN -model FILE [-seed N] [Beam's flags, such as -runner]")
	}
	return code
}
