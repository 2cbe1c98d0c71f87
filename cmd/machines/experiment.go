package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/parametric-machines/machines/experiment"
)

func runExperiment(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("experiment", flag.ContinueOnError)
	out := fs.String("out", "out", "directory for the JSON report and the figures")
	seed := fs.Uint64("seed", 1, "seed of the data, the initial parameters and the folds")
	quick := fs.Bool("quick", false, "run fewer iterations, for a fast look")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: machines experiment NAME [-out DIR] [-seed N] [-quick]\n\nNAME is one of: %s\n\n",
			strings.Join(experiment.Names(), ", "))
		fs.PrintDefaults()
	}
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if name == "" {
		return usagef("missing experiment name (one of %s)", strings.Join(experiment.Names(), ", "))
	}
	r, err := experiment.Run(name, experiment.Config{Out: *out, Seed: *seed, Quick: *quick, Progress: stderr})
	if err != nil {
		if strings.Contains(err.Error(), "unknown experiment") {
			return usagef("%v", err)
		}
		return err
	}
	for _, m := range r.Models {
		fmt.Fprintf(stdout, "%-28s params %4d  train MSE %.4g  test MSE %.4g  %5d iterations  %.2fs\n",
			m.Name, m.Params, m.TrainMSE, m.TestMSE, m.Iterations, m.FitSeconds)
	}
	fmt.Fprintf(stdout, "wrote %s/%s.json and %d figure files\n", *out, name, len(r.Figures))
	return nil
}
