package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/cmd/machines/internal/experiment"
)

func runExperiment(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("experiment", "usage: machines experiment [flags] NAME [flags]\n\nNAME is one of: "+strings.Join(experiment.Names(), ", "))
	out := fs.String("out", "out", "`directory` for the JSON report and the figures")
	seed := fs.Uint64("seed", 1, "`seed` of the data, the initial parameters and the folds")
	quick := fs.Bool("quick", false, "run fewer iterations, for a fast look")
	data := fs.String("data", "", "`directory` of the IDX data set (oneshot), or of the IDX data set or image folders (sculpt)")
	maxFreqs, shots := intList{what: "maxfreq"}, intList{what: "shots"}
	fs.Var(&shots, "shots", "comma-separated `list` of training images per class, a run each (oneshot; default 1,5,10)")
	var costs costList
	fs.Var(&maxFreqs, "maxfreq", "comma-separated `list` of Fourier component counts, each at least 1 (oneshot; default 2,5,10,20)")
	fs.Var(&costs, "cost", "comma-separated `list` of regularisation costs, each at least 0 (oneshot; default 0,0.001,0.01,0.1,1)")
	conv := fs.Bool("conv", false, "oneshot: the kernel machine's convolutional augmenter (16 channels) rather than the linear one")
	sine := fs.Bool("sine", false, "oneshot: sines beside the cosines of the kernel machine's Fourier basis")
	tol := fs.Float64("tol", 0, "oneshot: solve the kernel machine by adaptive Dormand-Prince at this `tolerance`, with the adjoint (0: RK4)")
	protocol := fs.String("protocol", "fair", "whose `protocol`: fair, every model choosing its settings without the test set, or paper, the authors' (sine, oneshot)")
	draws := fs.Int("draws", 1, "sine -protocol paper: `number` of independent draws of the data")
	names, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	var name string
	switch len(names) {
	case 0:
		return usagef("missing experiment name (one of %s)", strings.Join(experiment.Names(), ", "))
	case 1:
		name = names[0]
	default:
		return usagef("want one experiment name, got %q", names)
	}
	if !slices.Contains(experiment.Names(), name) {
		return usagef("unknown experiment %q (one of %s)", name, strings.Join(experiment.Names(), ", "))
	}
	if name == "oneshot" && *data == "" {
		return usagef("oneshot needs -data DIR, the directory of an IDX data set")
	}
	if *tol < 0 || math.IsNaN(*tol) || math.IsInf(*tol, 0) {
		return usagef("-tol: tolerance %v, want a finite value >= 0 (0 for RK4)", *tol)
	}
	if err := checkOutDir("out", *out); err != nil {
		return err
	}
	if err := checkOverwrites([]pathFlag{{"data", *data}}, []pathFlag{{"out", *out}}); err != nil {
		return err
	}
	proto, err := experimentProtocol(name, *protocol, *draws, len(costs), len(shots.v), maxFreqs.v)
	if err != nil {
		return err
	}
	r, err := experiment.Run(name, experiment.Config{Out: *out, Seed: *seed, Quick: *quick, Progress: stderr,
		Data: *data, MaxFreqs: maxFreqs.v, Costs: costs, Shots: shots.v, Conv: *conv, Sine: *sine, Tol: *tol,
		Protocol: proto, Draws: *draws})
	if err != nil {
		return err
	}
	printReport(stdout, r, *out)
	return nil
}

// printReport writes the table of report r, written to directory out,
// on stdout: the runs of oneshot, or the models of the other
// experiments.
func printReport(stdout io.Writer, r *experiment.Report, out string) {
	name := r.Experiment
	if rep := r.OneShotPaper; rep != nil {
		printOneShotPaper(stdout, rep)
		fmt.Fprintf(stdout, "%.1fs; wrote %s/%s.json and %d figure files\n", rep.Seconds, out, name, len(r.Figures))
		return
	}
	if rep := r.SinePaper; rep != nil {
		printSinePaper(stdout, rep)
		fmt.Fprintf(stdout, "%.1fs; wrote %s/%s.json and %d figure files\n", rep.Seconds, out, name, len(r.Figures))
		return
	}
	if rep := r.OneShot; rep != nil {
		for _, o := range rep.Runs {
			fmt.Fprintf(stdout, "%d-shot, %d validation images per class, %d seeds; test accuracy of the setting chosen on validation:\n",
				o.Shots, o.ValidationPerClass, len(o.Seeds))
			anchors := "the training images"
			if o.Anchors > 0 {
				anchors = fmt.Sprintf("%d learned", o.Anchors)
			}
			fmt.Fprintf(stdout, "kernel machine: state %d, anchors %s, %s augmenter, %s, %s, %d Adam steps\n",
				o.Dim, anchors, o.Augmenter, o.Basis, o.Solver, o.Iterations)
			for _, m := range o.Models {
				fmt.Fprintf(stdout, "%-22s %.4f ± %.4f\n", m.Name, m.AccuracyMean, m.AccuracyStd)
			}
			for _, p := range o.Comparisons {
				best := ""
				if p.Baseline == o.BestBaseline {
					best = " (best baseline)"
				}
				fmt.Fprintf(stdout, "kernel machine − %s%s: %+.4f, %g%% CI [%+.4f, %+.4f]; wins %d, losses %d, ties %d, sign test p %.3g\n",
					p.Baseline, best, p.Mean, 100*p.Level, p.CILow, p.CIHigh, p.Wins, p.Losses, p.Ties, p.SignP)
			}
		}
		fmt.Fprintf(stdout, "%.1fs; wrote %s/%s.json and %d figure files\n", rep.Seconds, out, name, len(r.Figures))
		return
	}
	for _, m := range r.Models {
		fmt.Fprintf(stdout, "%-28s params %4d  train MSE %.4g  test MSE %.4g  %5d iterations  %.2fs\n",
			m.Name, m.Params, m.TrainMSE, m.TestMSE, m.Iterations, m.FitSeconds)
	}
	fmt.Fprintf(stdout, "wrote %s/%s.json and %d figure files\n", out, name, len(r.Figures))
}

// maxDraws bounds sine -protocol paper's -draws, as bench bounds -runs:
// a thousand draws take hours.
const maxDraws = 1000

// experimentProtocol reads -protocol for experiment name and checks the
// flags that depend on it: -draws, and the single cost, shot count and
// maxfreqs of at least 2 of the paper's protocols.
func experimentProtocol(name, protocol string, draws, costs, shots int, maxFreqs []int) (experiment.Protocol, error) {
	proto, err := experiment.ParseProtocol(protocol)
	paper := proto == experiment.Paper
	switch {
	case err != nil:
		return 0, usagef("-protocol %q, want fair or paper", protocol)
	case paper && !slices.Contains(experiment.PaperNames(), name):
		return 0, usagef("-protocol paper: %s has no paper protocol (%s have)", name, strings.Join(experiment.PaperNames(), " and "))
	case draws < 1 || draws > maxDraws:
		return 0, usagef("-draws %d, want 1 to %d (each draw fits three models by 3,000 calls of L-BFGS)", draws, maxDraws)
	case draws > 1 && !(name == "sine" && paper):
		return 0, usagef("-draws applies to sine -protocol paper only")
	case name == "sine" && paper && costs > 1:
		return 0, usagef("-cost: sine -protocol paper has one cost for all models, got %d", costs)
	case name == "oneshot" && paper && shots > 1:
		return 0, usagef("-shots: oneshot -protocol paper takes one shot count, got %d", shots)
	case name == "oneshot" && paper && slices.Min(append([]int{2}, maxFreqs...)) < 2:
		return 0, usagef("-maxfreq: oneshot -protocol paper reads the states at maxfreq times, want each at least 2")
	}
	return proto, nil
}

// intList is a flag of comma-separated counts of what, each at least 1.
type intList struct {
	what string
	v    []int
}

func (l *intList) String() string {
	if l == nil {
		return ""
	}
	parts := make([]string, len(l.v))
	for i, v := range l.v {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ",")
}

func (l *intList) Set(s string) error {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("%q is not an integer", f)
		}
		if v < 1 {
			return fmt.Errorf("%s %d, want at least 1", l.what, v)
		}
		out = append(out, v)
	}
	l.v = out
	return nil
}

// costList is a flag of comma-separated regularisation costs.
type costList []float64

func (l *costList) String() string {
	if l == nil {
		return ""
	}
	parts := make([]string, len(*l))
	for i, v := range *l {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

func (l *costList) Set(s string) error {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", f)
		}
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("cost %v, want a finite value >= 0", v)
		}
		out = append(out, v)
	}
	*l = out
	return nil
}

// printSinePaper writes the table of the sine experiment under the
// authors' protocol: each quantity's mean and standard deviation over
// the draws.
func printSinePaper(w io.Writer, rep *experiment.SinePaperReport) {
	fmt.Fprintf(w, "the authors' protocol: cost %g for all, %d L-BFGS calls of at most %d iterations, %d draws (mean ± std)\n",
		rep.Cost, rep.Rounds, rep.IterationsPerRound, len(rep.DrawSeeds))
	fmt.Fprintf(w, "%-20s %6s %17s %17s %17s %17s %17s\n", "model", "params", "penalised train", "penalised test", "train MSE", "test MSE", "MSE vs truth")
	for _, m := range rep.Models {
		fmt.Fprintf(w, "%-20s %6d", m.Name, m.Params)
		for _, s := range []experiment.DrawStat{m.TrainLoss, m.TestLoss, m.TrainMSE, m.TestMSE, m.TruthMSE} {
			fmt.Fprintf(w, " %8.4f ± %6.4f", s.Mean, s.Std)
		}
		fmt.Fprintln(w)
	}
}

// printOneShotPaper writes the table of the oneshot experiment under the
// authors' protocol: per machine, the accuracy at the epoch their
// checkpoint rule keeps and after the last epoch.
func printOneShotPaper(w io.Writer, rep *experiment.OneShotPaperReport) {
	fmt.Fprintf(w, "the authors' protocol: %d-shot (training images %v), %d epochs of Adam, %s; %d test images\n",
		rep.Shots, rep.TrainIndices, rep.Epochs, rep.Solver, rep.TestImages)
	fmt.Fprintf(w, "kept: %s\n", rep.Selection)
	fmt.Fprintf(w, "%-8s %-6s %7s %10s %15s %15s\n", "maxfreq", "cost", "params", "kept epoch", "accuracy there", "last epoch")
	for _, s := range rep.Settings {
		fmt.Fprintf(w, "%-8d %-6g %7d %10d %15.4f %15.4f\n", s.MaxFreq, s.Cost, s.Params, s.BestEpoch, s.BestAccuracy, s.FinalAccuracy)
	}
	fmt.Fprintf(w, "1-nearest-neighbour on the same images: %.4f\n", rep.NearestNeighbour)
}
