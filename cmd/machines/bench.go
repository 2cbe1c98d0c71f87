package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/parametric-machines/machines/cmd/machines/internal/bench"
)

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", "usage: machines bench [-suite NAME] [-runs N] [-json FILE] [-model FILE]\n\n"+
		"times the workloads of cmd/machines/internal/bench/WORKLOADS.md (single-threaded but for sculpt-epoch-all) and prints the median of each")
	jsonPath := fs.String("json", "", "also write the results to this JSON `file`")
	runs := fs.Int("runs", 9, "`number` of timed samples per workload; the median is reported")
	suite := fs.String("suite", "default", "the workloads to time, by `name`: "+strings.Join(bench.Suites(), " or "))
	model := fs.String("model", bench.SculptedModel, "the onnx suite: the sculpted machine to time, a sculpt-model.json `file`")
	if err := parseCommand(fs, args, stderr); err != nil {
		return err
	}
	if *runs < 1 || *runs > bench.MaxRuns {
		return usagef("-runs %d: want 1 to %d (each sample lasts 20 ms at least, and 1,000 of every workload take minutes)", *runs, bench.MaxRuns)
	}
	if err := checkOverwrites([]pathFlag{{"model", *model}}, []pathFlag{{"json", *jsonPath}}); err != nil {
		return err
	}
	bench.SculptedModel = *model
	if self, err := os.Executable(); err == nil {
		bench.Machines = self // the serve suite runs fit and serve
	}
	bench.ServeLog = stderr
	workloads, err := bench.Suite(*suite)
	if err != nil {
		return usagef("-suite %q: want one of %v", *suite, bench.Suites())
	}
	var results []bench.Result
	fmt.Fprintf(stdout, "%-22s %-8s %12s  %-26s %10s  %s\n", "name", "dtype", "median", "per", "target", "prototype")
	for _, w := range workloads {
		fmt.Fprintf(stderr, "bench: %s %s ...\n", w.Name, w.Dtype)
		r, err := bench.Run(w, *runs)
		if err != nil {
			return err
		}
		results = append(results, r)
		target := "-"
		if w.Target > 0 {
			target = w.Target.String()
			if !r.Met() {
				target += " MISSED"
			}
		}
		fmt.Fprintf(stdout, "%-22s %-8s %12v  %-26s %10s  %s\n", r.Name, r.Dtype, r.Median(), r.Unit, target, w.Reference)
		if r.PerSecond > 0 {
			fmt.Fprintf(stdout, "%-22s %.0f %s/s, GOMAXPROCS %d\n", "", r.PerSecond, r.Item, r.Procs)
		}
		if r.P99NS > 0 {
			fmt.Fprintf(stdout, "%-22s latency p99 %v\n", "", time.Duration(r.P99NS))
		}
	}
	ratios := bench.Ratios(results)
	if len(ratios) > 0 {
		fmt.Fprintf(stdout, "\n%-36s %8s %6s\n", "ratio", "value", "goal")
		for _, r := range ratios {
			goal := fmt.Sprintf("<= %g", r.Goal)
			if r.AtLeast {
				goal = fmt.Sprintf(">= %g", r.Goal)
			}
			if !r.Met() {
				goal += " MISSED"
			}
			fmt.Fprintf(stdout, "%-36s %8.2f %6s\n", r.Name, r.Value, goal)
		}
	}
	if *jsonPath == "" {
		return nil
	}
	return writeJSON(*jsonPath, bench.Report{Suite: *suite, Workloads: results, Ratios: ratios})
}
