package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/parametric-machines/machines/bench"
	"github.com/parametric-machines/machines/internal/atomicfile"
)

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	jsonPath := fs.String("json", "", "also write the results to this JSON file")
	runs := fs.Int("runs", 9, "timed samples per workload; the median is reported")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *runs < 1 {
		return usagef("-runs %d: want at least 1", *runs)
	}
	var results []bench.Result
	fmt.Fprintf(stdout, "%-22s %-8s %12s  %-26s %10s  %s\n", "name", "dtype", "median", "per", "target", "prototype")
	for _, w := range bench.Workloads() {
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
	}
	if *jsonPath == "" {
		return nil
	}
	return atomicfile.WriteFile(*jsonPath, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Workloads []bench.Result `json:"workloads"`
		}{results})
	})
}
