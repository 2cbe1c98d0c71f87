// Command machines fits, runs and benchmarks parametric machines.
//
// Usage:
//
//	machines <command> [flags]
//
// The commands are:
//
//	experiment NAME   run one of the paper's experiments and write its JSON and figures
//	fit               fit a finite-depth kernel machine to a CSV file
//	predict           predict with a fitted model
//	bench             time the library's workloads
//	sculpt            sculpt a hypergraph architecture on an image data set
//
// Run "machines <command> -h" for the flags of a command.
//
// # Experiments
//
//	machines experiment NAME [-out DIR] [-seed N] [-quick]
//	machines experiment oneshot -data DIR [-maxfreq 2,5,10,20] [-cost 0,0.001,0.01,0.1,1]
//
// NAME is one of:
//
//	polynomial  fit p(x,y) = (2x-1)^2 + 2y + xy - 3 on the 6x6 grid of [0,1]^2 and
//	            test on the 101x101 grid: kernel machine, perceptron, kernel ridge
//	            (Figure 3a, 3b of the paper)
//	sine        100 noisy samples of sin(x^2/2) + U[0,1) on [0,8], tested against
//	            sin(x^2/2) + 0.5: kernel machine against ReLU and sigmoid
//	            perceptrons and kernel ridge (Figure 3c)
//	sine-cost   the sine task over a sweep of regularisation costs (Figure 3d)
//	oneshot     an infinite-depth kernel machine trained on one image per class
//	            of the IDX data set in -data DIR and tested on its whole test
//	            split, for each -maxfreq (at cost 0.1) and each -cost (at the
//	            largest maxfreq), against 1-nearest-neighbour, kernel ridge and a
//	            perceptron on the same images, over several seeds of the choice
//	            (Figure 4); it writes DIR/oneshot.json with "settings" (maxfreq,
//	            cost, accuracy_mean, accuracy_std, loss_mean, seeds), "baselines"
//	            (name, accuracy_mean, accuracy_std) and "seconds", and the
//	            figures oneshot-4a..4d. -maxfreq and -cost take comma lists
//	            (defaults 2,5,10,20 and 0,0.001,0.01,0.1,1); Fashion-MNIST is
//	            at /usr/share/datasets/fashion-mnist on Debian
//	shift       convolutional and recurrent machines of finite depth (dims 1,4,4,4)
//	            trained by Adam to predict a delayed sine from a noisy one; each
//	            model's held-out loss before and after training is in
//	            DIR/shift.json as initial_loss and final_loss
//	sculpt      a short sculpting run (see Sculpting below) on -data DIR,
//	            by default /usr/share/datasets/fashion-mnist
//	depth       a machine's stable state built up block by block: one picture
//	            per step of the solve of a conv and a recurrent machine
//
// Each writes DIR/NAME.json (default DIR is "out") with the experiment,
// the seed, and for every model its name, parameter count, train and
// test mean squared error, fit time, iterations and settings; and its
// figures as DIR/NAME-*.png and .svg. -quick runs fewer iterations.
//
// # Fitting your own data
//
//	machines fit -data train.csv -target COLUMN -task regression|classification \
//	    [-dims 3,3,3,1] [-kernel additive|multiplicative] [-bandwidth 1] \
//	    [-cost 0.001] [-anchors 0] [-standardize=true] [-seed 1] [-iters 1000] \
//	    -model model.json
//	machines predict -model model.json -data new.csv -out pred.csv
//
// The CSV files have a header row. fit reads every column of train.csv but
// the target as an input; for classification the target holds class
// labels, any text. It fits a finite-depth kernel machine with L-BFGS,
// reporting the loss on standard error about once a second, prints a
// one-line summary (rows, parameters, iterations, training error or
// accuracy, time) and writes the model.
//
// -dims lists the sizes of the blocks of the machine space, the input block
// first and the output block last; the last entry must be 1 for regression
// and the number of classes for classification, and fit says so if it is
// not. Without -dims the blocks are 3,3,3 and then the output block.
// -anchors M fits with M training rows, drawn at random, as anchor points
// (Nystrom) instead of all of them. -standardize scales the inputs, and
// regression targets, to mean 0 and standard deviation 1 for the fit; the
// model undoes it when it predicts.
//
// The model file is JSON: "format": "machines-model", "version": 1,
// "kind": "kernel-machine", the "task", the "features" and "target" column
// names, for classification the "classes" in order, and the "machine": its
// "dims", "kernel", "bandwidth", the matrices "a", "c" and "anchors" as
// arrays of rows, and the "input" and "output" scalers ("mean", "scale") if
// the fit standardised. It is written atomically: a temporary file renamed
// into place.
//
// predict reads the model's feature columns from new.csv by name, in any
// order, ignoring other columns, and writes pred.csv, also atomically, with
// one row per row of new.csv: for regression a column named after the
// target; for classification the predicted class, in a column named after
// the target, and then the probability of each class, in columns p_CLASS.
//
// # Sculpting
//
//	machines sculpt -data DIR [-nodes 10] [-channels 4] [-epochs 7] [-finetune N] \
//	    [-lambda 0.085] [-tol 1e-6] [-out out] [-seed 1] [-resume] [-plain] [-lr 0.001] [-batch 32]
//
// trains the generous hypergraph architecture of section 3.1 of the paper
// (Figure 2) on the train split of the IDX data set in DIR and prunes it
// while it trains. The architecture has -nodes hidden nodes of -channels
// channels, each a ReLU6 followed by a resampling (identity, max-pool or
// upsample; sizes between a half and a quarter of the input), a 3x3
// convolution from every earlier node of the size a node reads, and a
// linear head from every node into the class logits. The loss is the
// cross-entropy plus -lambda times the sum over edges of sqrt(weights) times
// the edge's weight norm (group lasso); Adam (-lr) takes the steps and a
// proximal step (block soft-thresholding) after each sets weak edges to
// exactly zero. -plain adds the penalty's subgradient to the gradient
// instead, which seldom drives a norm below -tol. An edge whose norm falls
// below -tol is pruned, and so is a node whose inputs or outputs are all
// pruned, with its edges; pruned edges are removed from the machine at
// the end of the epoch, so they cost nothing afterwards. The last
// -finetune of the -epochs (by default 3, or one fewer than -epochs for
// short runs; 0 for none) train the sculpted machine without the
// penalty, which undoes its shrinkage of the surviving weights. -tol
// must be greater than 0.
//
// It draws a progress bar on standard error (images/s, loss, live edges),
// prints the test accuracy on the t10k split after each epoch and writes
// a checkpoint, DIR/checkpoint.json of -out, after each, atomically; after
// an interruption, the same command with -resume continues after the last
// finished epoch and gives the same result as an uninterrupted run. A
// checkpoint of another architecture or other settings is refused; only
// -epochs may grow, and once fine-tuning has begun it goes on to the end. At the end it writes, in the -out directory,
// sculpt.json ("epochs", "test_accuracy" per epoch, "edges_initial",
// "edges_live", "flops_initial", "flops_live", "seconds_per_epoch", and
// "accuracy_pruned" against "accuracy_unpruned", the generous machine
// with the same weights), the final machine sculpt-model.json (a saved
// hypergraph machine), the architecture at the start and at the end as
// Graphviz files sculpt-start.dot and sculpt-end.dot, and the pictures
// sculpt-architecture.png and .svg. "machines experiment sculpt -quick"
// runs four epochs on a sixth of the training images with a larger
// penalty, a few seconds that still prune (by default Fashion-MNIST at
// /usr/share/datasets/fashion-mnist).
//
// # Benchmarks
//
//	machines bench [-suite default|machines] [-json FILE] [-runs N]
//
// times the workloads of the project's WORKLOADS.md single-threaded and
// prints the median time of each: W1 (matmul), W4, W4b and W4fit (the
// finite-depth kernel machine) and the Volterra solvers, general against
// fast, at 100 and 1000 time points. -suite machines times instead dense,
// conv and recurrent machines of package finite (workloads
// KIND-SIZE-PASS, float32, tanh) in three passes: forward (the forward
// solve), backward (the reversed solve, giving the cotangents of y0 and
// z0, as the authors time their backward pass) and gradient (the
// reversed solve and the weight gradient), and the reference layers
// KIND-medium-reference (one masked product or im2col convolution); it
// prints the backward/forward (goal 1), gradient/forward (goal 2) and
// forward/reference (goal 2) ratios, which the JSON also holds under
// "ratios".
//
// Errors in flags or arguments print the usage and exit with status 2;
// other failures exit with status 1.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// command is a subcommand: it parses its own flags from args.
type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"experiment", "run one of the paper's experiments", runExperiment},
		{"fit", "fit a kernel machine to a CSV file", runFit},
		{"predict", "predict with a fitted model", runPredict},
		{"bench", "time the library's workloads", runBench},
		{"sculpt", "sculpt a hypergraph architecture on an image data set", runSculpt},
	}
}

// usageError marks errors in the command line: they exit with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(args[1:], stdout, stderr)
		var ue *usageError
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "machines %s: %v\n", c.name, err)
			fmt.Fprintf(stderr, "run 'machines %s -h' for usage\n", c.name)
			return 2
		default:
			fmt.Fprintf(stderr, "machines %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "machines: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: machines <command> [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nrun 'machines <command> -h' for the flags of a command")
}

// parseFlags parses args with fs, turning flag errors and stray arguments
// into usage errors. fs must use flag.ContinueOnError.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	return nil
}
