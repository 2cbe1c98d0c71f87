package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/cmd/machines/internal/figure"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/sculpt"
	"github.com/parametric-machines/machines/train"
)

func runSculpt(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sculpt", "usage: machines sculpt -data DIR [-size N|WxH] [-split F] [-nodes 10] [-channels 4] [-epochs E] [-finetune F] [-lambda L] [-tol T] [-validation V] [-path [-tolerance T] [-budget EDGES]] [-out DIR] [-seed N] [-resume] [-plain] [-lr LR] [-batch B]")
	f := addSculptFlags(fs)
	if err := parseCommand(fs, args, stderr); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	if err := checkOutDir("out", *f.out); err != nil {
		return err
	}
	if err := checkOverwrites([]pathFlag{{"data", *f.data}}, []pathFlag{{"out", *f.out}}); err != nil {
		return err
	}
	set := setFlags(fs)
	cfg, err := f.config(set)
	if err != nil {
		return err
	}
	// The architecture the images' shape asks for is checked before
	// their pixels are read, which for large images takes long.
	opt := dataset.FolderOptions{Rows: f.size.rows, Cols: f.size.cols, Seed: *f.seed, Check: func(channels, rows, cols, classes, _ int) error {
		return cfg.CheckShape(channels, rows, cols, classes)
	}}
	if set["split"] {
		opt.Split = *f.split
	}
	data, err := dataset.LoadImages(*f.data, opt)
	if errors.Is(err, dataset.ErrImageSize) {
		return fmt.Errorf("%w (-size)", err)
	}
	if err != nil {
		return err
	}
	if data.Valid != nil && set["validation"] {
		return usagef("-validation %g, but %s has a folder of validation images: leave -validation out to use them, or move them", *f.validation, *f.data)
	}
	for _, w := range data.Warnings {
		fmt.Fprintf(stderr, "machines sculpt: warning: %s\n", w)
	}
	cfg.Progress, cfg.Warnings = stderr, data.Warnings
	rep, err := sculpt.RunValid(data.Train, data.Valid, data.Test, cfg)
	if err != nil {
		return err
	}
	figs, err := figure.Sculpt(*f.out, rep)
	if err != nil {
		return err
	}
	printSculpt(stdout, rep)
	fmt.Fprintf(stdout, "wrote %s and %d more files\n", filepath.Join(*f.out, sculpt.ReportFile), len(rep.Files)+len(figs))
	return allPruned(rep)
}

// allPruned returns an error for a run whose every edge is pruned: its
// machine predicts one class whatever the image, a failed run that
// must not exit as a success. It names the epoch of best validation
// accuracy, which a smaller penalty keeps.
func allPruned(rep *sculpt.Report) error {
	if rep.EdgesLive > 0 || len(rep.History) == 0 {
		return nil
	}
	best := 0
	for i, e := range rep.History {
		if e.ValidationAccuracy > rep.History[best].ValidationAccuracy {
			best = i
		}
	}
	return fmt.Errorf("every edge was pruned by epoch %d, so that the machine predicts one class (validation accuracy %.4f at epoch %d, with %d edges live): "+
		"-lambda %g at -lr %g prunes too much of these images (an edge the data do not need dies after about its norm over lr times lambda steps); "+
		"-path chooses the penalty on the validation images, and a smaller -lambda prunes less",
		len(rep.History), rep.History[best].ValidationAccuracy, best+1, rep.History[best].EdgesLive, rep.Settings.Lambda, rep.Settings.LR)
}

// sculptFlags are the flags of sculpt.
type sculptFlags struct {
	data, out, protocol                           *string
	size                                          imageSize
	split, validation, lambda, tol, lr, tolerance *float64
	nodes, channels, epochs, finetune, batch      *int
	budget                                        *int
	plain, resume, path                           *bool
	seed                                          *uint64
}

// addSculptFlags defines the flags of sculpt.
func addSculptFlags(fs *flag.FlagSet) *sculptFlags {
	f := &sculptFlags{}
	f.data = fs.String("data", "", "`directory` of the IDX data set (train and t10k splits) or of image folders (CLASS/*.png or train/CLASS and test/CLASS)")
	fs.Var(&f.size, "size", "resize the images of a folder to a `size` of N x N or W x H pixels (N or WxH); without it they must be of one size")
	f.split = fs.Float64("split", dataset.DefaultSplit, "`fraction` of each class held out for testing, for a folder without train and test folders")
	f.nodes = fs.Int("nodes", sculpt.DefaultNodes, "`number` of hidden nodes of the generous architecture")
	f.channels = fs.Int("channels", sculpt.DefaultChannels, "`number` of channels of each node")
	f.epochs = fs.Int("epochs", 0, fmt.Sprintf("`number` of epochs in all; 0 means about %d minibatch steps (7 epochs of Fashion-MNIST)", sculpt.DefaultSteps))
	f.finetune = fs.Int("finetune", 0, "`number` of final epochs that train without the penalty, 0 for none (default 3/7 of the epochs)")
	f.validation = fs.Float64("validation", 0, fmt.Sprintf("`fraction` of the training images held out to measure each epoch; 0 means %g, at most %d images", sculpt.DefaultValidation, sculpt.MaxValidation))
	f.lambda = fs.Float64("lambda", sculpt.DefaultLambda, "`weight` of the group-lasso penalty (0 turns it off)")
	f.tol = fs.Float64("tol", sculpt.DefaultTol, "prune an edge when its weight norm falls below this `norm` (> 0)")
	f.lr = fs.Float64("lr", optim.DefaultAdamLR, "Adam learning `rate`")
	f.batch = fs.Int("batch", train.DefaultBatch, "minibatch `size`")
	f.plain = fs.Bool("plain", false, "subgradient of the penalty instead of the proximal step")
	f.out = fs.String("out", "out", "`directory` for the checkpoint, the report and the pictures")
	f.seed = fs.Uint64("seed", 1, "`seed` of the initial weights and the minibatch order")
	f.resume = fs.Bool("resume", false, "continue from the checkpoint in -out")
	f.path = fs.Bool("path", false, "train along a regularisation path of increasing penalties (-lambda/2 to 4 -lambda by half octaves, then up to\nthree points between the kept one and the next sparser), keep the sparsest machine within -tolerance of the best point's\nvalidation accuracy, and test it once")
	f.tolerance = fs.Float64("tolerance", sculpt.DefaultPathTolerance, "with -path, or when the penalty prunes every edge and the run goes back to an earlier epoch: `accuracy` the kept machine\nmay lose on the validation split, below the best point's (or the standard error of that accuracy, if larger)")
	f.budget = fs.Int("budget", 0, "with -path: stop at the first point with at most this `number` of live edges and keep it")
	f.protocol = fs.String("protocol", "fair", "`protocol`: fair, or paper: the authors' protocol, plain SGD (-lr 3e-3, -batch 128) for 100 epochs (-epochs may shorten it),\nwithout fine-tuning, the penalty -lambda 1 times the incoming edges beyond 3 of each node times each edge's RMS norm, -tol on the RMS norm")
	return f
}

// check refuses the flags' values that are out of range on their own.
func (f *sculptFlags) check() error {
	switch {
	case *f.data == "":
		return usagef("missing -data DIR, the directory of an IDX data set or of image folders")
	case !(*f.split > 0 && *f.split < 1):
		return usagef("-split %g, want a fraction between 0 and 1", *f.split)
	case *f.nodes < 1 || *f.channels < 1 || *f.batch < 1:
		return usagef("-nodes %d, -channels %d and -batch %d must be at least 1", *f.nodes, *f.channels, *f.batch)
	case *f.epochs < 0 || *f.finetune < 0:
		return usagef("-epochs %d and -finetune %d, want at least 0", *f.epochs, *f.finetune)
	case !(*f.validation >= 0 && *f.validation < 1):
		return usagef("-validation %g, want a fraction in [0, 1)", *f.validation)
	case *f.lambda > 0 && *f.epochs > 0 && *f.finetune >= *f.epochs:
		return usagef("-finetune %d of -epochs %d leaves no epoch for the penalty; want fewer", *f.finetune, *f.epochs)
	case !(*f.lambda >= 0) || math.IsInf(*f.lambda, 0):
		return usagef("-lambda %g, want a finite number of at least 0", *f.lambda)
	case !(*f.tol > 0) || math.IsInf(*f.tol, 0):
		return usagef("-tol %g: tol must be > 0 (and finite)", *f.tol)
	case !(*f.lr > 0) || math.IsInf(*f.lr, 0):
		return usagef("-lr %g, want a positive number", *f.lr)
	}
	return nil
}

// config returns the sculpt.Config of the flags, set being the flags
// given on the command line: it reads -protocol and -path, and maps the
// command's -lambda 0 and -finetune 0 to sculpt.Config's.
func (f *sculptFlags) config(set map[string]bool) (sculpt.Config, error) {
	paper, err := sculptProtocol(*f.protocol, set, *f.path || *f.plain, f.lr, f.batch, f.lambda)
	if err != nil {
		return sculpt.Config{}, err
	}
	var lambdas []float64
	switch {
	case *f.path && *f.lambda == 0:
		return sculpt.Config{}, usagef("-path needs a penalty; -lambda 0 turns it off")
	case *f.path:
		for _, v := range sculpt.DefaultPath() {
			lambdas = append(lambdas, v/sculpt.DefaultLambda**f.lambda)
		}
	case *f.budget != 0:
		return sculpt.Config{}, usagef("-budget applies to -path only")
	case !(*f.tolerance >= 0):
		return sculpt.Config{}, usagef("-tolerance %g, want at least 0", *f.tolerance)
	}
	// -lambda 0 and -finetune 0 turn them off, where sculpt.Config's zero
	// values mean the defaults; -lambda left at its default under the
	// authors' protocol takes theirs.
	noPenalty := *f.lambda == 0 && (!paper || set["lambda"])
	noFinetune := set["finetune"] && *f.finetune == 0
	return sculpt.Config{Nodes: *f.nodes, Channels: *f.channels, Epochs: *f.epochs, Finetune: *f.finetune, NoFinetune: noFinetune,
		Batch: *f.batch, LR: *f.lr, Lambda: *f.lambda, NoPenalty: noPenalty, Tol: *f.tol, Plain: *f.plain, Seed: *f.seed, Out: *f.out, Resume: *f.resume, Validation: *f.validation,
		Path: lambdas, PathTolerance: *f.tolerance, Budget: *f.budget, Paper: paper}, nil
}

// sculptProtocol reads -protocol: whether the run is under the
// authors' protocol, whose -lr, -batch and -lambda, where the command
// line leaves them at their defaults, become zero so that sculpt.Config
// gives them the authors' values. The authors' protocol has no -path and
// always adds the penalty's subgradient (-plain).
func sculptProtocol(protocol string, set map[string]bool, pathOrPlain bool, lr *float64, batch *int, lambda *float64) (bool, error) {
	switch {
	case protocol == "fair":
		return false, nil
	case protocol != "paper":
		return false, usagef("-protocol %q, want fair or paper", protocol)
	case pathOrPlain:
		return false, usagef("-protocol paper has no -path and always adds the penalty's subgradient (-plain)")
	}
	if !set["lr"] {
		*lr = 0
	}
	if !set["batch"] {
		*batch = 0
	}
	if !set["lambda"] {
		*lambda = 0
	}
	return true, nil
}

// printSculpt writes the summary of a sculpting run.
func printSculpt(w io.Writer, rep *sculpt.Report) {
	for i, acc := range rep.ValidationAccuracy {
		fmt.Fprintf(w, "epoch %d: validation accuracy %.4f, live edges %d, %.1fs\n", i+1, acc, rep.History[i].EdgesLive, rep.SecondsPerEpoch[i])
	}
	fmt.Fprintf(w, "edges %d -> %d (%.0f%% pruned), nodes %d -> %d, FLOPs per image %d -> %d\n",
		rep.EdgesInitial, rep.EdgesLive, 100*float64(rep.EdgesInitial-rep.EdgesLive)/float64(rep.EdgesInitial),
		rep.NodesInitial, rep.NodesLive, rep.FLOPsInitial, rep.FLOPsLive)
	for i, p := range rep.Path {
		note := ""
		if p.Refined {
			note = " (refined)"
		}
		if i == rep.PathChosen {
			note += " (kept)"
		}
		fmt.Fprintf(w, "path: lambda %.3g: validation accuracy %.4f, live edges %d, FLOPs per image %d%s\n",
			p.Lambda, p.ValidationAccuracy, p.EdgesLive, p.FLOPsLive, note)
	}
	if rep.PathThreshold > 0 {
		fmt.Fprintf(w, "path: kept the sparsest point of validation accuracy at least %.4f\n", rep.PathThreshold)
	}
	if rep.FellBack > 0 {
		fmt.Fprintf(w, "every edge was pruned by epoch %d: went back to epoch %d, the sparsest within -tolerance of the best validation accuracy, and fine-tuned it (a smaller -lambda prunes less)\n",
			rep.Settings.FinetuneFrom, rep.FellBack)
	}
	fmt.Fprintf(w, "test accuracy pruned %.4f, unpruned (same weights) %.4f\n", rep.AccuracyPruned, rep.AccuracyUnpruned)
	if rep.Protocol == "paper" {
		fmt.Fprintf(w, "the authors' protocol: %d of their %d epochs, plain SGD at %g on minibatches of %d\n",
			rep.Epochs, rep.PaperEpochs, rep.Settings.LR, rep.Settings.Batch)
	}
}

// imageSize is the -size flag: N for N x N pixels, or WxH.
type imageSize struct{ rows, cols int }

func (s *imageSize) String() string {
	if s == nil || s.rows == 0 {
		return ""
	}
	return fmt.Sprintf("%dx%d", s.cols, s.rows)
}

func (s *imageSize) Set(v string) error {
	w, h, ok := strings.Cut(strings.ToLower(v), "x")
	if !ok {
		h = w
	}
	cols, err1 := strconv.Atoi(w)
	rows, err2 := strconv.Atoi(h)
	if err1 != nil || err2 != nil || cols < 1 || rows < 1 {
		return fmt.Errorf("%q is not a size: want N or WxH, positive whole numbers of pixels", v)
	}
	s.rows, s.cols = rows, cols
	return nil
}
