package sculpt

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/internal/parallel"
	"github.com/parametric-machines/machines/model"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/train"
)

// Config holds the settings of a sculpting run. Zero fields mean the
// defaults given with each.
type Config struct {
	// Nodes is the number of hidden nodes of the generous architecture
	// (DefaultNodes) and Channels their width (DefaultChannels).
	Nodes, Channels int
	// Epochs is the number of passes over the training images; zero
	// means as many as make about DefaultSteps minibatch steps (7 on
	// Fashion-MNIST), so that the penalty means the same on any data set
	// (see the package documentation).
	Epochs int
	// Batch is the minibatch size (train.DefaultBatch) and LR the Adam
	// learning rate (optim.DefaultAdamLR).
	Batch int
	LR    float64
	// Lambda weighs the group-lasso penalty (0.085); NoPenalty turns it
	// off. Tol is the norm below which an edge is pruned (DefaultTol); it
	// cannot be zero, which means the default, so an edge is pruned only
	// once its norm is below a positive tolerance.
	Lambda, Tol float64
	NoPenalty   bool
	// Finetune is the number of final epochs of the budget that train
	// the sculpted machine without the penalty, to undo the shrinkage
	// of the surviving weights (3/7 of Epochs, rounded, and at most
	// Epochs-1, so that at least one epoch applies the penalty);
	// NoFinetune means none. With the penalty on it must be smaller than
	// Epochs. A run
	// resumed before its fine-tuning began follows the new Epochs and
	// Finetune; one resumed after fine-tunes to its new end (see
	// Settings.FinetuneFrom).
	Finetune   int
	NoFinetune bool
	// Plain adds the penalty's subgradient to the loss gradient instead
	// of taking a proximal step after each update.
	Plain bool
	// Seed seeds the initial weights and the order of the minibatches.
	Seed uint64
	// Workers is the number of goroutines a minibatch is split over;
	// zero means GOMAXPROCS, one per core, or Batch if that is smaller.
	// A run is reproducible for a given seed and number of workers, but
	// its weights depend on the number: each worker sums the gradient of
	// its share of the minibatch, in float32, before the shares are
	// summed.
	Workers int
	// Out is the directory of the checkpoint and the results; empty
	// means no checkpoint and no files.
	Out string
	// Resume continues from the checkpoint in Out.
	Resume bool
	// Progress, if not nil, receives a progress bar during each epoch
	// and a line after it, and before the first the warnings of data
	// that make a poor machine or a misleading test accuracy: classes
	// without a training image or a test image, classes of more than
	// ten times the training images of another, images smaller than 8
	// pixels on a side.
	Progress io.Writer
	// Warnings are the caller's warnings about the data, such as
	// dataset.ImageFolder.Warnings, which the report carries before the
	// run's own.
	Warnings []string
	// MaxTrain and MaxTest, if positive, use only the first images of
	// each split, for a quick run.
	MaxTrain, MaxTest int
	// Path, if not empty, lists the penalties of a regularisation path,
	// increasing, which Run trains along instead of the fixed schedule
	// (see the package documentation); DefaultPath is the command's.
	Path []float64
	// PathTolerance is how far below the best point's validation
	// accuracy the chosen point may be (0.005, half a point), or the
	// standard error of that accuracy if it is larger, on a path or
	// among the epochs a run whose penalty pruned every edge goes back
	// to; Budget, if
	// positive, ends the path at the first point with at most that many
	// live edges, which is then chosen.
	PathTolerance float64
	Budget        int
	// Validation is the fraction of the training images held out, by a
	// draw from Seed, to measure the accuracy after every epoch; zero
	// means DefaultValidation, at most MaxValidation images. The test
	// images are classified once, at the end: nothing is chosen on them.
	Validation float64
	// Paper trains under the authors' protocol instead (see the package
	// documentation): plain SGD, Epochs PaperEpochs, Batch PaperBatch,
	// LR PaperLR and Lambda PaperLambda where they are zero, the
	// penalty Lambda times their coefficients times the RMS norms of
	// the edges, added as a subgradient and not scaled to the data
	// size, Tol a bound on the RMS norm, and no fine-tuning unless
	// Finetune asks for it.
	Paper bool
}

// The generous architecture's size and the pruning threshold when the
// fields of Config are zero.
const (
	DefaultNodes    = 10
	DefaultChannels = 4
	DefaultTol      = 1e-6
)

// DefaultValidation and MaxValidation size the validation split when
// Config.Validation is zero.
const (
	DefaultValidation = 0.1
	MaxValidation     = 5000
)

// DefaultSteps is the training budget, in minibatch steps, when
// Config.Epochs is zero: 7 epochs of the 55,000 Fashion-MNIST training
// images that the validation split leaves, at minibatches of 32.
const DefaultSteps = 12000

// defaultEpochs returns the number of epochs that make about
// DefaultSteps steps of minibatches of batch images out of n.
func defaultEpochs(n, batch int) int {
	stepsPerEpoch := max(n/batch, 1)
	return max(1, int(math.Round(float64(DefaultSteps)/float64(stepsPerEpoch))))
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if c.Paper {
		c.paperDefaults()
	}
	def(&c.Nodes, DefaultNodes)
	def(&c.Channels, DefaultChannels)
	def(&c.Batch, train.DefaultBatch)
	if c.Epochs > 0 {
		c.defaultFinetune()
	}
	def(&c.Workers, min(runtime.GOMAXPROCS(0), c.Batch))
	if c.LR == 0 {
		c.LR = optim.DefaultAdamLR
	}
	switch {
	case c.NoPenalty:
		c.Lambda = 0
	case c.Lambda == 0:
		c.Lambda = DefaultLambda
	}
	if c.PathTolerance == 0 {
		c.PathTolerance = DefaultPathTolerance
	}
	if c.Tol == 0 {
		c.Tol = DefaultTol
	}
	return c
}

// defaultFinetune sets a zero Finetune to 3/7 of Epochs, the share of
// the fine-tuning epochs in the 7 of a Fashion-MNIST run, keeping at
// least one epoch with the penalty, or to none with NoFinetune.
func (c *Config) defaultFinetune() {
	switch {
	case c.NoFinetune:
		c.Finetune = 0
	case c.Finetune == 0:
		c.Finetune = min(int(math.Round(float64(c.Epochs)*3/7)), c.Epochs-1)
	}
}

// DefaultLambda is the weight of the group-lasso penalty when Config
// leaves it zero.
const DefaultLambda = 0.085

// check returns an error for settings no run can use.
func (c Config) check() error {
	switch {
	case c.Finetune < 0:
		return fmt.Errorf("sculpt: %d fine-tuning epochs, want at least 0 (NoFinetune means none)", c.Finetune)
	case c.Nodes < 1 || c.Channels < 1 || c.Epochs < 0 || c.Batch < 1 || c.Workers < 1:
		return fmt.Errorf("sculpt: nodes %d, channels %d, epochs %d, batch %d and workers %d must be at least 1",
			c.Nodes, c.Channels, c.Epochs, c.Batch, c.Workers)
	case !(c.LR > 0) || math.IsInf(c.LR, 0):
		return fmt.Errorf("sculpt: learning rate %g, want a positive number", c.LR)
	case !(c.Lambda >= 0) || math.IsInf(c.Lambda, 0):
		return fmt.Errorf("sculpt: lambda %g, want a finite number of at least 0 (NoPenalty turns the penalty off)", c.Lambda)
	case !(c.Tol > 0) || math.IsInf(c.Tol, 0):
		return fmt.Errorf("sculpt: tolerance %g, want a finite positive number", c.Tol)
	case !(c.PathTolerance >= 0) || c.Budget < 0:
		return fmt.Errorf("sculpt: path tolerance %g and budget %d, want both at least 0", c.PathTolerance, c.Budget)
	case !pathIncreasing(c.Path):
		return fmt.Errorf("sculpt: path %v, want finite penalties, at least 0 and increasing", c.Path)
	case !(c.Validation >= 0 && c.Validation < 1):
		return fmt.Errorf("sculpt: validation fraction %g, want one in [0, 1)", c.Validation)
	case c.Lambda > 0 && c.Epochs > 0 && c.Finetune >= c.Epochs:
		return fmt.Errorf("sculpt: %d fine-tuning epochs of %d leave none for the penalty; want finetune smaller than epochs", c.Finetune, c.Epochs)
	case c.Batch < c.Workers:
		return fmt.Errorf("sculpt: batch %d smaller than the %d workers", c.Batch, c.Workers)
	}
	return c.checkPaper()
}

// run is a sculpting run in progress.
type run struct {
	cfg              Config
	arch             *Arch
	train, val, test *dataset.Images
	st               *state
	// warnings are the run's warnings about the data (see warnData).
	warnings []string
	// finetuneFrom is the index of the first epoch without the penalty.
	finetuneFrom int
	// pathLambda, on a regularisation path, is the penalty of the
	// current epoch, before lambdaScale; it overrides the schedule.
	pathLambda *float64
	// pathPoints, chosen and threshold record the path.
	pathPoints []PathPoint
	chosen     int
	threshold  float64
	// fallbacks are the epochs a run without a path may go back to if
	// its penalty prunes every edge, and fellBack the one it went back
	// to, from 1 (0 if none): see fallBack.
	fallbacks []fallback
	fellBack  int
	// ckpt is the checkpoint file, if any, and l the model train.Run
	// trains.
	ckpt string
	l    *learner
}

// Run sculpts the generous architecture (see Generous) on the training
// images, less a validation split on which it measures the accuracy
// after each epoch, and tests the final machine once on the test
// images; with
// Config.Out set it writes a checkpoint after each epoch and, at the end,
// the report ReportFile, the final machine ModelFile (a saved hypergraph
// machine) and the Graphviz files sculpt-start.dot and sculpt-end.dot of the
// architecture at the start and the end; Report.Files lists all but the
// report.
func Run(train, test *dataset.Images, c Config) (*Report, error) {
	return RunValid(train, nil, test, c)
}

// RunValid is Run on validation images of their own, valid, rather than
// a split held out of the training images (Config.Validation must be
// zero); a nil valid holds one out, as Run does.
func RunValid(train, valid, test *dataset.Images, c Config) (*Report, error) {
	c = c.withDefaults()
	if err := c.check(); err != nil {
		return nil, err
	}
	if valid != nil && c.Validation != 0 {
		return nil, fmt.Errorf("sculpt: validation images of their own, and a validation fraction of %g to hold out of the training images: give one", c.Validation)
	}
	train, test, classes, err := c.images(train, test)
	if err != nil {
		return nil, err
	}
	var val *dataset.Images
	if valid == nil {
		train, val = splitValidation(train, c.Validation, c.Seed)
	} else if val, err = validImages(valid, train, classes); err != nil {
		return nil, err
	}
	if train.N < c.Batch {
		return nil, fmt.Errorf("sculpt: %d training images after holding out %d for validation, fewer than a batch of %d", train.N, val.N, c.Batch)
	}
	if c.Epochs == 0 {
		c.Epochs = defaultEpochs(train.N, c.Batch)
		c.defaultFinetune()
		if err := c.check(); err != nil {
			return nil, err
		}
	}
	s, err := c.sizeRun(train, val, test, classes)
	if err != nil {
		return nil, err
	}
	r := &run{cfg: c, arch: Generous(train.NumChannels(), train.Rows, train.Cols, classes, c.Nodes, c.Channels), train: train, val: val, test: test,
		finetuneFrom: c.Epochs - c.Finetune}
	r.logf("sculpt: %.0f edges, %.0f weights, %.3g FLOPs per image; %d epochs of %d images take %v\n",
		s.edges, s.params, s.flops, c.Epochs, train.N, c.cost(s, train, val, test))
	r.warnData()
	return r.execute()
}

// execute trains the run from its start or its checkpoint, along its
// path or its schedule, going back to an earlier epoch if its penalty
// prunes every edge, and reports it, writing its files to Config.Out.
func (r *run) execute() (*Report, error) {
	c := r.cfg
	ckpt := ""
	if c.Out != "" {
		if err := os.MkdirAll(c.Out, 0o755); err != nil {
			return nil, fmt.Errorf("sculpt: %w", err)
		}
		ckpt = filepath.Join(c.Out, CheckpointFile)
	}
	switch {
	case c.Resume && ckpt == "":
		return nil, errors.New("sculpt: resuming needs an output directory")
	case c.Resume && len(c.Path) > 0:
		return nil, errors.New("sculpt: a regularisation path cannot be resumed; start it anew")
	case c.Resume:
		if err := r.resume(ckpt); err != nil {
			return nil, err
		}
	default:
		r.st = r.initial()
	}
	r.ckpt = ckpt
	r.l = newLearner(r)
	defer r.l.gang.stop()
	if len(c.Path) > 0 {
		if err := r.path(); err != nil {
			return nil, err
		}
	} else if err := r.trainEpochs(c.Epochs - len(r.st.History)); errors.Is(err, errAllPruned) {
		if err := r.fallBack(); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	rep, err := r.report()
	if err != nil {
		return nil, err
	}
	if c.Out != "" {
		if err := writeResults(c.Out, r.arch, r.st, rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// resume continues the run from the checkpoint ckpt: its state, and the
// epoch its fine-tuning starts from.
func (r *run) resume(ckpt string) error {
	st, was, err := readCheckpoint(ckpt, r.arch, r.settings())
	if err != nil {
		return err
	}
	done := len(st.History)
	if done > r.cfg.Epochs {
		return fmt.Errorf("sculpt: checkpoint %s holds %d epochs, more than the %d of this run; ask for %d epochs or more to go on, or start anew without -resume",
			ckpt, done, r.cfg.Epochs, done)
	}
	r.st = st
	r.warnWorkers(was.Workers)
	if done > was.FinetuneFrom {
		// Fine-tuning has begun: it goes on to the end, however long
		// the run now is, rather than the penalty coming back.
		r.finetuneFrom = was.FinetuneFrom
	} else {
		// The epochs done all had the penalty; the new schedule applies
		// from here.
		r.finetuneFrom = max(r.finetuneFrom, done)
	}
	r.logf("resuming %s after epoch %d of %d\n", ckpt, done, r.cfg.Epochs)
	return nil
}

// images checks the training and test images of a run, takes the first
// MaxTrain and MaxTest of them, and returns them with the number of
// classes.
func (c Config) images(train, test *dataset.Images) (*dataset.Images, *dataset.Images, int, error) {
	if train.N == 0 || test.N == 0 {
		return nil, nil, 0, errors.New("sculpt: no training or no test images")
	}
	if train.NumChannels() != test.NumChannels() || train.Rows != test.Rows || train.Cols != test.Cols {
		return nil, nil, 0, fmt.Errorf("sculpt: training images are %dx%dx%d but test images %dx%dx%d (channels x rows x columns)",
			train.NumChannels(), train.Rows, train.Cols, test.NumChannels(), test.Rows, test.Cols)
	}
	classes := max(train.Classes, test.Classes)
	if err := checkClasses(classes); err != nil {
		return nil, nil, 0, err
	}
	if c.MaxTrain > 0 && c.MaxTrain < train.N {
		train = train.Subset(seq(c.MaxTrain))
	}
	if c.MaxTest > 0 && c.MaxTest < test.N {
		test = test.Subset(seq(c.MaxTest))
	}
	for _, split := range []struct {
		name string
		im   *dataset.Images
	}{{"training", train}, {"test", test}} {
		if len(split.im.Labels) != split.im.N {
			return nil, nil, 0, fmt.Errorf("sculpt: %d %s labels for %d images", len(split.im.Labels), split.name, split.im.N)
		}
		for i, y := range split.im.Labels {
			if y < 0 || y >= classes {
				return nil, nil, 0, fmt.Errorf("sculpt: %s image %d has label %d, want one of the %d classes 0 to %d", split.name, i, y, classes, classes-1)
			}
		}
	}
	return train, test, classes, nil
}

// validImages checks the validation images against the training images
// and takes the first MaxValidation of them.
func validImages(valid, train *dataset.Images, classes int) (*dataset.Images, error) {
	if valid.N == 0 || len(valid.Labels) != valid.N {
		return nil, fmt.Errorf("sculpt: %d validation images and %d labels, want at least one image and a label each", valid.N, len(valid.Labels))
	}
	if valid.NumChannels() != train.NumChannels() || valid.Rows != train.Rows || valid.Cols != train.Cols {
		return nil, fmt.Errorf("sculpt: training images are %dx%dx%d but validation images %dx%dx%d (channels x rows x columns)",
			train.NumChannels(), train.Rows, train.Cols, valid.NumChannels(), valid.Rows, valid.Cols)
	}
	for i, y := range valid.Labels {
		if y < 0 || y >= classes {
			return nil, fmt.Errorf("sculpt: validation image %d has label %d, want one of the %d classes 0 to %d", i, y, classes, classes-1)
		}
	}
	if valid.N > MaxValidation {
		valid = valid.Subset(seq(MaxValidation))
	}
	return valid, nil
}

// checkClasses refuses fewer than two classes: one would train a
// classifier that is always right and report its accuracy of 1 as if it
// had learned something.
func checkClasses(classes int) error {
	if classes < 2 {
		return fmt.Errorf("sculpt: classes %d, want at least 2 for a classifier to tell apart", classes)
	}
	return nil
}

// validationStream keeps the validation draw apart from the other uses
// of the seed.
const validationStream = 0x76616c

// splitValidation holds out a seeded draw of the images for validation:
// the given fraction of them (DefaultValidation, at most MaxValidation
// images, if it is zero), at least one. The rest train.
func splitValidation(im *dataset.Images, fraction float64, seed uint64) (train, val *dataset.Images) {
	n := int(math.Ceil(fraction * float64(im.N)))
	if fraction == 0 {
		n = min(int(math.Ceil(DefaultValidation*float64(im.N))), MaxValidation)
	}
	n = max(n, 1)
	perm := rand.New(rand.NewPCG(seed, validationStream)).Perm(im.N)
	held, rest := perm[:n], perm[n:]
	slices.Sort(held)
	slices.Sort(rest)
	return im.Subset(rest), im.Subset(held)
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func (r *run) logf(format string, args ...any) {
	if r.cfg.Progress != nil {
		fmt.Fprintf(r.cfg.Progress, format, args...)
	}
}

// warnf logs a warning about the data, a line, and keeps it for the
// report.
func (r *run) warnf(format string, args ...any) {
	w := fmt.Sprintf(format, args...)
	r.warnings = append(r.warnings, w)
	r.logf("sculpt: warning: %s\n", w)
}

// settings are the parts of the configuration a checkpoint must agree on.
func (r *run) settings() Settings {
	c := r.cfg
	return Settings{Nodes: c.Nodes, Channels: c.Channels, Batch: c.Batch, LR: c.LR, Lambda: c.Lambda, Tol: c.Tol,
		FinetuneFrom: r.finetuneFrom, Penalty: c.penaltyName(), Optimizer: c.optimizerName(), Seed: c.Seed,
		TrainImages: r.train.N, ValidationImages: r.val.N, TestImages: r.test.N, Workers: c.Workers}
}

// warnWorkers says how a run resumed from a checkpoint written with was
// workers differs from an uninterrupted one, if it does.
func (r *run) warnWorkers(was int) {
	switch now := r.cfg.Workers; {
	case was == 0:
		r.logf("sculpt: the checkpoint does not record its number of workers (it is of version 3); if it was not %d, "+
			"this run sums its gradients in another order from here and ends a little differently from an uninterrupted one\n", now)
	case was != now:
		r.logf("sculpt: the checkpoint was written with %d workers, this run has %d: it sums its gradients in another order from here, "+
			"so it ends a little differently from an uninterrupted run of %d workers (GOMAXPROCS=%d would reproduce that)\n", was, now, was, was)
	}
}

// initial returns the state before training: the generous machine's
// random weights.
func (r *run) initial() *state {
	m, err := model.FromSpec[float32](r.arch.Spec(nil), hypergraph.SpecRand(r.cfg.Seed))
	if err != nil {
		panic(fmt.Errorf("%w: sculpt: internal error: generous architecture: %v", ad.ErrState, err))
	}
	st := &state{Weights: map[string][]float32{}, Pruned: map[string]bool{}}
	for _, E := range r.arch.Spec(nil).Edges {
		if w := m.Params().Value(E.Name + ".weight"); w != nil {
			st.Weights[E.Name] = slices.Clone(w.Data)
		}
	}
	return st
}

// machine returns the model of the architecture without the edges in
// pruned, with the weights in w.
func machine(a *Arch, pruned map[string]bool, w map[string][]float32) *model.Model[float32] {
	m, err := model.FromSpec[float32](a.Spec(pruned), nil)
	if err != nil {
		panic(fmt.Errorf("%w: sculpt: internal error: pruned architecture: %v", ad.ErrState, err))
	}
	for name, v := range w {
		if t := m.Params().Value(name + ".weight"); t != nil {
			copy(t.Data, v)
		}
	}
	return m
}

// replica is one copy of the training graph, for a share of a minibatch.
type replica struct {
	g      ad.Graph[float32]
	x      *ad.Tensor[float32]
	labels []int
	loss   *ad.Node[float32]
	grad   []float32 // laid out like the learner's parameters
	lo     int       // the replica's first image in a minibatch
}

// newGraph builds the machine onto g for a batch of n images of the shape
// of those of im, reading the weights of ps, and returns the input
// tensor and the logits.
func newGraph(g *ad.Graph[float32], m *hypergraph.Machine[float32], ps *ad.Params[float32], n int, im *dataset.Images) (*ad.Tensor[float32], *ad.Node[float32]) {
	x := ad.NewTensor[float32](n, im.NumChannels(), im.Rows, im.Cols)
	out, err := m.Apply(ad.NewScope(g, ps, "", nil), []*ad.Node[float32]{g.Input(x)})
	if err != nil {
		panic(fmt.Errorf("%w: sculpt: internal error: %v", ad.ErrState, err))
	}
	return x, out[0]
}

// load copies the images idx of im into x and their labels into labels.
func load(x *ad.Tensor[float32], labels []int, im *dataset.Images, idx []int) {
	size := im.ImageLen()
	for i, j := range idx {
		im.Image32(x.Data[i*size:(i+1)*size], j)
		if labels != nil {
			labels[i] = im.Labels[j]
		}
	}
}

// learner is the model that train.Run trains: the weights of every edge
// of the generous architecture, in one ad.Params under the edges' names,
// and the graphs of the epoch's live machine, one replica per worker,
// whose parameter nodes read those weights and write their gradients to
// the replica's own vector (the set's, with one worker). Each epoch
// rebuilds the graphs without the edges pruned so far, so that they cost
// nothing, and a fresh update: Adam, the penalty of the epoch and the
// edges' pruning (see update).
type learner struct {
	r      *run
	ps     ad.Params[float32]
	offset map[string]int // where each edge's weights start in ps's vector
	gang   *gang
	reps   []*replica
	u      *update
	start  time.Time // of the epoch
}

func newLearner(r *run) *learner {
	l := &learner{r: r, offset: map[string]int{}, gang: newGang(r.cfg.Workers)}
	generous := machine(r.arch, nil, nil).Params()
	off := 0
	for _, name := range generous.Names() {
		t := generous.Value(name)
		l.ps.Add(name, ad.NewTensor[float32](t.Shape...))
		l.offset[strings.TrimSuffix(name, ".weight")] = off
		off += t.Len()
	}
	l.reps = make([]*replica, r.cfg.Workers)
	lo := 0
	for w := range l.reps {
		// The minibatch is split as evenly as the workers allow.
		n := r.cfg.Batch/r.cfg.Workers + btoi(w < r.cfg.Batch%r.cfg.Workers)
		rp := &replica{labels: make([]int, n), lo: lo, grad: l.ps.Grads()}
		if r.cfg.Workers > 1 {
			rp.grad = make([]float32, l.ps.Len())
		}
		l.reps[w] = rp
		lo += n
	}
	l.u = &update{gang: l.gang, lr: r.cfg.LR, plain: r.cfg.Plain, st: r.st}
	return l
}

func (l *learner) Params() *ad.Params[float32] { return &l.ps }

// Loss runs the replicas on their shares of the minibatch and returns
// the mean loss; backward, the gradient is the replicas' gradients
// weighted by their shares, summed in float32 on the workers, each over
// its shard of the edges.
func (l *learner) Loss(batch []int, backward bool) (float64, error) {
	if len(batch) != l.r.cfg.Batch {
		panic(fmt.Errorf("%w: sculpt: internal error: minibatch of %d images, the graphs take %d", ad.ErrState, len(batch), l.r.cfg.Batch))
	}
	l.gang.run(func(w int) {
		rp := l.reps[w]
		load(rp.x, rp.labels, l.r.train, batch[rp.lo:rp.lo+len(rp.labels)])
		rp.g.Forward()
		if backward {
			rp.g.Backward(rp.loss)
		}
	})
	loss := 0.0
	for _, rp := range l.reps {
		loss += float64(l.share(rp)) * float64(rp.loss.Scalar())
	}
	if backward && len(l.reps) > 1 {
		grad := l.ps.Grads()
		l.gang.run(func(w int) {
			for _, g := range l.u.gs[l.u.shards[w].g0:l.u.shards[w].g1] {
				sum := grad[g.lo:g.hi]
				for i, rp := range l.reps {
					share := l.share(rp)
					part := rp.grad[g.lo:g.hi]
					if i == 0 {
						for j, v := range part {
							sum[j] = share * v
						}
						continue
					}
					for j, v := range part {
						sum[j] += share * v
					}
				}
			}
		})
	}
	return loss, nil
}

// share returns the weight of a replica's mean loss in the minibatch's.
func (l *learner) share(rp *replica) float32 {
	return float32(len(rp.labels)) / float32(l.r.cfg.Batch)
}

// beforeEpoch builds the graphs of the live machine for epoch e (from 1)
// and a fresh update with the epoch's penalty.
func (l *learner) beforeEpoch(e int) error {
	r := l.r
	m, err := hypergraph.FromSpec[float32](r.arch.Spec(r.st.Pruned))
	if err != nil {
		panic(fmt.Errorf("%w: sculpt: internal error: pruned architecture: %v", ad.ErrState, err))
	}
	lambda := r.lambda(e - 1)
	var gs []group
	for _, E := range m.Hypergraph().Edges {
		if t := l.ps.Value(E.Name + ".weight"); t != nil {
			lo := l.offset[E.Name]
			gs = append(gs, group{name: E.Name, lo: lo, hi: lo + t.Len(), step: r.newStepper(), tol: r.pruneNorm(t.Len()),
				lasso: optim.GroupLasso{Lambda: r.edgeCoef(r.arch.Edge(E.Name), t.Len(), lambda), Groups: [][2]int{{lo, lo + t.Len()}}}})
		}
	}
	l.u.reset(gs, lambda, len(l.reps))
	for _, rp := range l.reps {
		rp.g = ad.Graph[float32]{}
		var logits *ad.Node[float32]
		rp.x, logits = newGraph(&rp.g, m, l.ps.WithGrads(rp.grad), len(rp.labels), r.train)
		rp.loss = rp.g.SoftmaxCrossEntropy(logits, rp.labels)
	}
	l.start = time.Now()
	return nil
}

// afterEpoch records epoch rec: it stores the weights in the run's
// state, measures the validation accuracy, and writes the checkpoint
// (not on a regularisation path, which cannot be resumed).
func (l *learner) afterEpoch(rec train.Epoch) error {
	r, st := l.r, l.r.st
	for name, w := range st.Weights {
		copy(w, l.ps.Value(name+".weight").Data)
	}
	acc := accuracy(machine(r.arch, st.Pruned, st.Weights), r.val, r.cfg.Workers)
	live, _, flops := r.arch.Count(st.Pruned)
	e := Epoch{ValidationAccuracy: acc, TrainLoss: rec.TrainLoss, Penalty: r.penalty(l.u.lambda),
		EdgesLive: live, FLOPsLive: flops, Pruned: l.u.pruned,
		Seconds: time.Since(l.start).Seconds(), ImagesPerSecond: float64(rec.Examples) / rec.Seconds}
	st.History = append(st.History, e)
	r.logf("epoch %d/%d: validation accuracy %.4f, loss %.4f + penalty %.4f, live edges %d/%d, %.0f images/s, %.1fs\n",
		rec.Epoch, r.cfg.Epochs, acc, e.TrainLoss, e.Penalty, live, len(r.arch.Edges), e.ImagesPerSecond, e.Seconds)
	if len(r.cfg.Path) > 0 {
		return nil
	}
	if rec.Epoch <= r.finetuneFrom { // only a penalty epoch can prune every edge
		r.keepFallback(rec.Epoch, acc, live, flops)
	}
	if r.ckpt != "" {
		if err := writeCheckpoint(r.ckpt, r.arch, r.settings(), st); err != nil {
			return err
		}
	}
	if live == 0 && (rec.Epoch < r.cfg.Epochs || len(r.fallbacks) > 0) {
		r.logf("sculpt: every edge is pruned after epoch %d: the penalty is too strong for these data, and no later epoch can change the machine; "+
			"stopping its penalty here (a smaller lambda prunes less)\n", rec.Epoch)
		return errAllPruned
	}
	return nil
}

// errAllPruned stops a run whose every edge is pruned.
var errAllPruned = errors.New("every edge is pruned")

// trainEpochs trains the next epochs epochs from the weights of the
// run's state, with train.Run; it stops early with errAllPruned (wrapped)
// once every edge is pruned.
func (r *run) trainEpochs(epochs int) error {
	if epochs < 1 {
		return nil
	}
	for name, w := range r.st.Weights {
		copy(r.l.ps.Value(name+".weight").Data, w)
	}
	done := len(r.st.History)
	_, err := train.Run[float32](r.l, r.train.N, train.Config{Epochs: done + epochs, FirstEpoch: done + 1,
		Batch: r.cfg.Batch, DropLast: true, Optimizer: r.l.u, Seed: r.cfg.Seed, Progress: r.cfg.Progress,
		BeforeEpoch: r.l.beforeEpoch, AfterEpoch: r.l.afterEpoch})
	if errors.Is(err, errAllPruned) {
		return err
	}
	if err != nil {
		return fmt.Errorf("sculpt: %w", err)
	}
	return nil
}

// gang runs a function on n workers, the caller as the last one and
// n-1 goroutines that live as long as the gang. A step of an epoch has
// two short parts, the replicas and the update. A goroutine started for
// each would wait for the runtime to wake a thread, so the gang's
// goroutines wait for work, and the caller for them, spinning a while
// before they sleep. It is the one
// pool of the module that is not internal/parallel's, for that latency.
type gang struct {
	f     func(w int)
	start []chan struct{} // one token per job for each goroutine
	left  atomic.Int64    // workers yet to finish the current job
	done  chan struct{}   // one token per job, from the last to finish
}

// spinFor is how long a gang's worker polls for work, and its caller
// for the end of a job, before sleeping.
const spinFor = 200 * time.Microsecond

func newGang(n int) *gang {
	g := &gang{start: make([]chan struct{}, n-1), done: make(chan struct{}, 1)}
	for w := range g.start {
		g.start[w] = make(chan struct{}, 1)
		go func() {
			for wait(g.start[w]) {
				g.f(w)
				g.finish()
			}
		}()
	}
	return g
}

// run calls f(0), ..., f(n-1) on the gang's workers and returns when all
// have returned.
func (g *gang) run(f func(w int)) {
	g.f = f
	g.left.Store(int64(len(g.start) + 1))
	for _, ch := range g.start {
		ch <- struct{}{}
	}
	f(len(g.start))
	g.finish()
	wait(g.done)
}

func (g *gang) finish() {
	if g.left.Add(-1) == 0 {
		g.done <- struct{}{}
	}
}

// stop ends the gang's goroutines.
func (g *gang) stop() {
	for _, ch := range g.start {
		close(ch)
	}
}

// wait receives from ch, polling for spinFor before it blocks, and
// reports whether it received a token rather than ch being closed.
func wait(ch chan struct{}) bool {
	deadline := time.Now().Add(spinFor)
	for i := 1; ; i++ {
		select {
		case _, ok := <-ch:
			return ok
		default:
		}
		if i%64 == 0 {
			if time.Now().After(deadline) {
				break
			}
			runtime.Gosched()
		}
	}
	_, ok := <-ch
	return ok
}

// update is the optimiser of the learner: after each minibatch, Adam,
// the penalty and the pruning, on the edges of the live machine. The
// edges are split into shards of whole edges, one per worker, each
// updated on its own goroutine; every weight's update is the same
// whatever the split. Adam is elementwise, so each edge has its own.
type update struct {
	gang       *gang
	gs         []group
	shards     []shard
	lambda, lr float64
	plain      bool
	// pruned names the edges pruned in this epoch, in order.
	pruned []string
	st     *state
}

// group is an edge with weights of the live machine, as a range of the
// learner's parameter vector.
type group struct {
	name   string
	lo, hi int
	step   stepper32
	lasso  optim.GroupLasso // the edge's own penalty, weight λ·sqrt(size) (see edgeCoef)
	tol    float64          // the norm below which it is pruned
	frozen bool             // pruned during this epoch
	// justFrozen marks an edge pruned in the last step, and saved holds
	// the weights a frozen edge is kept at.
	justFrozen bool
	saved      []float32
}

// shard is a worker's share of the update: the groups gs[g0:g1].
type shard struct {
	g0, g1 int
	norms  [1]float64
	_      [64]byte // no false sharing between the shards' states
}

// reset starts the update of an epoch on the groups gs with penalty
// lambda, shared among n workers.
func (u *update) reset(gs []group, lambda float64, n int) {
	u.gs, u.shards, u.lambda, u.pruned = gs, shards(gs, n), lambda, nil
}

// shards splits the groups gs into n runs of consecutive groups with
// about the same number of parameters each.
func shards(gs []group, n int) []shard {
	total := 0
	for _, g := range gs {
		total += g.hi - g.lo
	}
	s := make([]shard, n)
	g, done := 0, 0
	for w := range s {
		s[w].g0 = g
		// Take groups while their end is nearer the shard's share of
		// the parameters than their start is.
		end := (w + 1) * total / n
		for g < len(gs) && (w == n-1 || done+gs[g].hi-gs[g].lo-end <= end-done) {
			done += gs[g].hi - gs[g].lo
			g++
		}
		s[w].g1 = g
	}
	return s
}

// Step panics: the update steps float32 weights, with Step32.
func (u *update) Step(x, grad []float64) {
	panic(fmt.Errorf("%w: sculpt: internal error: float64 step of the float32 update", ad.ErrState))
}

// Step32 updates the weights x from their gradient grad on the workers,
// and records the edges it prunes.
func (u *update) Step32(x, grad []float32) {
	u.gang.run(func(w int) { u.step(&u.shards[w], x, grad) })
	for i := range u.gs {
		if g := &u.gs[i]; g.justFrozen {
			g.justFrozen = false
			u.st.Pruned[g.name] = true
			u.pruned = append(u.pruned, g.name)
		}
	}
}

// step updates the weights of shard s.
func (u *update) step(s *shard, params, grad []float32) {
	for i := s.g0; i < s.g1; i++ {
		g := &u.gs[i]
		x, d := params[g.lo:g.hi], grad[g.lo:g.hi]
		if u.plain && u.lambda > 0 && !g.frozen {
			if n := g.lasso.Norms(s.norms[:], params)[0]; n > 0 {
				f := float32(g.lasso.Lambda / n)
				for j, v := range x {
					d[j] += f * v
				}
			}
		}
		g.step.Step32(x, d)
		if g.frozen {
			copy(x, g.saved)
			continue
		}
		if !u.plain && u.lambda > 0 {
			g.lasso.Prox(params, u.lr)
		}
		if g.lasso.Norms(s.norms[:], params)[0] < g.tol {
			g.frozen, g.justFrozen = true, true
			g.saved = slices.Clone(x)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lambda returns the weight of the penalty in epoch k (from 0): zero
// once fine-tuning has begun.
func (r *run) lambda(k int) float64 {
	if r.pathLambda != nil {
		return *r.pathLambda * lambdaScale(r.train.N)
	}
	if k >= r.finetuneFrom {
		return 0
	}
	return r.cfg.Lambda * r.lambdaScale()
}

// ReferenceImages is the training-set size at which Config.Lambda is
// the weight of the penalty as given: the Fashion-MNIST training images
// less the default validation split.
const ReferenceImages = 55000

// lambdaScale is the factor by which Config.Lambda is multiplied for a
// training set of n images, (ReferenceImages/n)^(1/4): a smaller set is
// fitted more closely by the end of its steps, so the edges it does not
// need keep consistent gradients longer and need a stronger pull to die.
// docs/results-paper.md gives the runs that chose the exponent.
func lambdaScale(n int) float64 {
	return math.Pow(ReferenceImages/float64(n), 0.25)
}

// lambdaScale is the run's factor: lambdaScale of its training images,
// or 1 under the authors' protocol, whose coefficient is fixed.
func (r *run) lambdaScale() float64 {
	if r.cfg.Paper {
		return 1
	}
	return lambdaScale(r.train.N)
}

// penalty returns the group-lasso penalty, with weight lambda, of the
// live edges of the architecture: those neither pruned nor hanging on a
// dead node.
func (r *run) penalty(lambda float64) float64 {
	if lambda == 0 {
		return 0
	}
	live, _ := r.arch.Live(r.st.Pruned)
	s := 0.0
	var norms [1]float64
	for i, e := range r.arch.Edges {
		if live[i] {
			w := r.st.Weights[e.Name]
			l := optim.GroupLasso{Lambda: r.edgeCoef(i, len(w), lambda), Groups: [][2]int{{0, len(w)}}}
			s += l.Lambda * l.Norms(norms[:], w)[0]
		}
	}
	return s
}

// evalBatch is the size of the batches accuracy evaluates.
const evalBatch = 250

// accuracy returns the fraction of the images that m classifies right,
// split over workers goroutines.
func accuracy(m *model.Model[float32], im *dataset.Images, workers int) float64 {
	mc, err := m.Machine()
	if err != nil {
		panic(fmt.Errorf("%w: sculpt: internal error: %v", ad.ErrState, err))
	}
	ps := m.Params().WithGrads(nil)
	chunks := (im.N + evalBatch - 1) / evalBatch
	right := make([]int, workers)
	parallel.Run(workers, workers, func(w int) error {
		graphs := map[int]*evalGraph{}
		for ch := w; ch < chunks; ch += workers {
			lo, hi := ch*evalBatch, min((ch+1)*evalBatch, im.N)
			eg := graphs[hi-lo]
			if eg == nil {
				eg = &evalGraph{}
				eg.x, eg.logits = newGraph(&eg.g, mc, ps, hi-lo, im)
				graphs[hi-lo] = eg
			}
			load(eg.x, nil, im, seq(hi)[lo:])
			eg.g.Forward()
			right[w] += ad.Correct(eg.logits.Value, im.Labels[lo:hi])
		}
		return nil
	})
	total := 0
	for _, n := range right {
		total += n
	}
	return float64(total) / float64(im.N)
}

type evalGraph struct {
	g      ad.Graph[float32]
	x      *ad.Tensor[float32]
	logits *ad.Node[float32]
}
