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
	"sync"
	"sync/atomic"
	"time"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/optim"
)

// Config holds the settings of a sculpting run. Zero fields mean the
// defaults given with each.
type Config struct {
	// Nodes is the number of hidden nodes of the generous architecture
	// (10) and Channels their width (4).
	Nodes, Channels int
	// Epochs is the number of passes over the training images; zero
	// means as many as make about DefaultSteps minibatch steps (7 on
	// Fashion-MNIST), so that the penalty means the same on any data set
	// (see the package documentation).
	Epochs int
	// Batch is the minibatch size (32) and LR the Adam learning rate
	// (1e-3).
	Batch int
	LR    float64
	// Lambda weighs the group-lasso penalty (0.085); a negative value
	// turns it off. Tol is the norm below which an edge is pruned (1e-6);
	// it cannot be zero, which means the default, so an edge is pruned
	// only once its norm is below a positive tolerance.
	Lambda, Tol float64
	// Finetune is the number of final epochs of the budget that train
	// the sculpted machine without the penalty, to undo the shrinkage
	// of the surviving weights (3/7 of Epochs, rounded, and at most
	// Epochs-1, so that at least one epoch applies the penalty); a
	// negative value means none. With the penalty on it must be smaller than Epochs. A run
	// resumed before its fine-tuning began follows the new Epochs and
	// Finetune; one resumed after fine-tunes to its new end (see
	// Settings.FinetuneFrom).
	Finetune int
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
	// and a line after it.
	Progress io.Writer
	// MaxTrain and MaxTest, if positive, use only the first images of
	// each split, for a quick run.
	MaxTrain, MaxTest int
	// Path, if not empty, lists the penalties of a regularisation path,
	// increasing, which Run trains along instead of the fixed schedule
	// (see the package documentation); DefaultPath is the command's.
	Path []float64
	// PathTolerance is how far below the first point's validation
	// accuracy the chosen point may be (0.005, half a point); Budget, if
	// positive, ends the path at the first point with at most that many
	// live edges, which is then chosen.
	PathTolerance float64
	Budget        int
	// Validation is the fraction of the training images held out, by a
	// draw from Seed, to measure the accuracy after every epoch; zero
	// means DefaultValidation, at most MaxValidation images. The test
	// images are classified once, at the end: nothing is chosen on them.
	Validation float64
}

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
	def(&c.Nodes, 10)
	def(&c.Channels, 4)
	def(&c.Batch, 32)
	if c.Epochs > 0 {
		c.defaultFinetune()
	}
	def(&c.Workers, min(runtime.GOMAXPROCS(0), c.Batch))
	if c.LR == 0 {
		c.LR = 1e-3
	}
	switch {
	case c.Lambda == 0:
		c.Lambda = DefaultLambda
	case c.Lambda < 0:
		c.Lambda = 0
	}
	if c.PathTolerance == 0 {
		c.PathTolerance = DefaultPathTolerance
	}
	if c.Tol == 0 {
		c.Tol = 1e-6
	}
	return c
}

// defaultFinetune sets a zero Finetune to 3/7 of Epochs, the share of
// the fine-tuning epochs in the 7 of a Fashion-MNIST run, keeping at
// least one epoch with the penalty, and a negative one to none.
func (c *Config) defaultFinetune() {
	if c.Finetune == 0 {
		c.Finetune = min(int(math.Round(float64(c.Epochs)*3/7)), c.Epochs-1)
	}
	c.Finetune = max(c.Finetune, 0)
}

// DefaultLambda is the weight of the group-lasso penalty when Config
// leaves it zero.
const DefaultLambda = 0.085

// check returns an error for settings no run can use.
func (c Config) check() error {
	switch {
	case c.Nodes < 1 || c.Channels < 1 || c.Epochs < 0 || c.Batch < 1 || c.Workers < 1:
		return fmt.Errorf("sculpt: nodes %d, channels %d, epochs %d, batch %d and workers %d must be at least 1",
			c.Nodes, c.Channels, c.Epochs, c.Batch, c.Workers)
	case !(c.LR > 0) || math.IsInf(c.LR, 0):
		return fmt.Errorf("sculpt: learning rate %g, want a positive number", c.LR)
	case !(c.Lambda >= 0) || math.IsInf(c.Lambda, 0):
		return fmt.Errorf("sculpt: lambda %g, want a finite number", c.Lambda)
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
	return nil
}

// group is an edge with weights of the live machine, as a range of its
// parameter vector.
type group struct {
	name   string
	lo, hi int
	lasso  optim.GroupLasso // the edge's own penalty, weight λ·sqrt(size)
	frozen bool             // pruned during this epoch
	// justFrozen marks an edge pruned in the last step, and saved holds
	// the weights a frozen edge is kept at.
	justFrozen bool
	saved      []float32
}

// run is a sculpting run in progress.
type run struct {
	cfg              Config
	arch             *Arch
	train, val, test *dataset.Images
	st               *state
	// finetuneFrom is the index of the first epoch without the penalty.
	finetuneFrom int
	// pathLambda, on a regularisation path, is the penalty of the
	// current epoch, before lambdaScale; it overrides the schedule.
	pathLambda *float64
	// pathPoints and chosen record the path.
	pathPoints []PathPoint
	chosen     int
}

// Run sculpts the generous architecture (see Generous) on the training
// images, less a validation split on which it measures the accuracy
// after each epoch, and tests the final machine once on the test
// images; with
// Config.Out set it writes a checkpoint after each epoch and, at the end,
// the report ReportFile, the final machine ModelFile (a saved hypergraph
// machine), the Graphviz files sculpt-start.dot and sculpt-end.dot of the
// architecture at the start and the end, and the pictures
// sculpt-architecture.png and .svg (Figure 2a-c); Report.Files lists all
// but the report.
func Run(c Config, train, test *dataset.Images) (*Report, error) {
	c = c.withDefaults()
	if err := c.check(); err != nil {
		return nil, err
	}
	if train.N == 0 || test.N == 0 {
		return nil, errors.New("sculpt: no training or no test images")
	}
	if train.NumChannels() != test.NumChannels() || train.Rows != test.Rows || train.Cols != test.Cols {
		return nil, fmt.Errorf("sculpt: training images are %dx%dx%d but test images %dx%dx%d (channels x rows x columns)",
			train.NumChannels(), train.Rows, train.Cols, test.NumChannels(), test.Rows, test.Cols)
	}
	classes := max(train.Classes, test.Classes)
	if classes < 1 {
		return nil, fmt.Errorf("sculpt: %d classes, want at least 1", classes)
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
			return nil, fmt.Errorf("sculpt: %d %s labels for %d images", len(split.im.Labels), split.name, split.im.N)
		}
		for i, y := range split.im.Labels {
			if y < 0 || y >= classes {
				return nil, fmt.Errorf("sculpt: %s image %d has label %d, want one of the %d classes 0 to %d", split.name, i, y, classes, classes-1)
			}
		}
	}
	train, val := splitValidation(train, c.Validation, c.Seed)
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
	r := &run{cfg: c, arch: Generous(train.NumChannels(), train.Rows, train.Cols, classes, c.Nodes, c.Channels), train: train, val: val, test: test,
		finetuneFrom: c.Epochs - c.Finetune}
	ckpt := ""
	if c.Out != "" {
		if err := os.MkdirAll(c.Out, 0o755); err != nil {
			return nil, fmt.Errorf("sculpt: %w", err)
		}
		ckpt = filepath.Join(c.Out, CheckpointFile)
	}
	if c.Resume {
		if ckpt == "" {
			return nil, errors.New("sculpt: resuming needs an output directory")
		}
		st, from, err := readCheckpoint(ckpt, r.arch, r.settings())
		if err != nil {
			return nil, err
		}
		r.st = st
		if done := len(st.History); done > from {
			// Fine-tuning has begun: it goes on to the end, however
			// long the run now is, rather than the penalty coming back.
			r.finetuneFrom = from
		} else {
			// The epochs done all had the penalty; the new schedule
			// applies from here.
			r.finetuneFrom = max(r.finetuneFrom, done)
		}
		r.logf("resuming %s after epoch %d of %d\n", ckpt, len(st.History), c.Epochs)
	} else {
		r.st = r.initial()
	}
	if len(c.Path) > 0 {
		if c.Resume {
			return nil, errors.New("sculpt: a regularisation path cannot be resumed; start it anew")
		}
		if err := r.path(); err != nil {
			return nil, err
		}
	}
	for len(c.Path) == 0 && len(r.st.History) < c.Epochs {
		if err := r.epoch(); err != nil {
			return nil, err
		}
		if ckpt != "" {
			if err := writeCheckpoint(ckpt, r.arch, r.settings(), r.st); err != nil {
				return nil, err
			}
		}
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

// settings are the parts of the configuration a checkpoint must agree on.
func (r *run) settings() Settings {
	c := r.cfg
	mode := "prox"
	if c.Plain {
		mode = "plain"
	}
	return Settings{Nodes: c.Nodes, Channels: c.Channels, Batch: c.Batch, LR: c.LR, Lambda: c.Lambda, Tol: c.Tol,
		FinetuneFrom: r.finetuneFrom, Penalty: mode, Optimizer: "adam", Seed: c.Seed,
		TrainImages: r.train.N, ValidationImages: r.val.N, TestImages: r.test.N}
}

// initial returns the state before training: the generous machine's
// random weights.
func (r *run) initial() *state {
	m, err := hypergraph.FromSpec[float32](r.arch.Spec(nil), r.cfg.Seed)
	if err != nil {
		panic(fmt.Sprintf("sculpt: internal error: generous architecture: %v", err))
	}
	st := &state{Weights: map[string][]float32{}, Pruned: map[string]bool{}}
	storeWeights(st.Weights, m)
	return st
}

// storeWeights copies the weights of every edge of m that has some into
// w, by edge name.
func storeWeights(w map[string][]float32, m *hypergraph.Machine[float32]) {
	for e, E := range m.Hypergraph().Edges {
		if ps := m.EdgeParams(e); len(ps) == 1 {
			w[E.Name] = slices.Clone(ps[0].Data)
		}
	}
}

// machine builds the machine of the architecture without the edges in
// pruned and gives it the weights in w.
func machine(a *Arch, pruned map[string]bool, w map[string][]float32) *hypergraph.Machine[float32] {
	m, err := hypergraph.FromSpec[float32](a.Spec(pruned), 0)
	if err != nil {
		panic(fmt.Sprintf("sculpt: internal error: pruned architecture: %v", err))
	}
	for e, E := range m.Hypergraph().Edges {
		if ps := m.EdgeParams(e); len(ps) == 1 {
			copy(ps[0].Data, w[E.Name])
		}
	}
	return m
}

// groups returns the edges with weights of m as ranges of Params, in the
// order the machine lays them out.
func groups(m *hypergraph.Machine[float32], lambda float64) []group {
	var gs []group
	off := 0
	for e, E := range m.Hypergraph().Edges {
		for _, t := range m.EdgeParams(e) {
			n := t.Len()
			gs = append(gs, group{name: E.Name, lo: off, hi: off + n,
				lasso: optim.GroupLasso{Lambda: lambda * math.Sqrt(float64(n)), Groups: [][2]int{{off, off + n}}}})
			off += n
		}
	}
	if off != len(m.Params()) {
		panic("sculpt: internal error: parameter layout")
	}
	return gs
}

// replica is one copy of the training graph, for a share of a minibatch.
type replica struct {
	g      ad.Graph[float32]
	x      *ad.Tensor[float32]
	labels []int
	loss   *ad.Node[float32]
	grad   []float32
}

// newGraph builds the machine onto g for a batch of n images of the shape
// of those of im and returns the input tensor and the logits.
func newGraph(g *ad.Graph[float32], m *hypergraph.Machine[float32], n int, grad []float32, im *dataset.Images) (*ad.Tensor[float32], *ad.Node[float32]) {
	x := ad.NewTensor[float32](n, im.NumChannels(), im.Rows, im.Cols)
	logits := m.Build(g, m.ParamNodesInto(g, grad), []*ad.Node[float32]{g.Input(x)})[0]
	return x, logits
}

func newReplica(m *hypergraph.Machine[float32], n int, im *dataset.Images) *replica {
	r := &replica{labels: make([]int, n), grad: make([]float32, len(m.Params()))}
	x, logits := newGraph(&r.g, m, n, r.grad, im)
	r.x = x
	r.loss = r.g.SoftmaxCrossEntropy(logits, r.labels)
	return r
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

// epoch trains for one epoch, prunes, and tests.
func (r *run) epoch() error {
	c, st := r.cfg, r.st
	k := len(st.History)
	start := time.Now()
	m := machine(r.arch, st.Pruned, st.Weights)
	lambda := r.lambda(k)
	gs := groups(m, lambda)
	u := &update{params: m.Params(), gs: gs, reps: make([]*replica, c.Workers), shards: shards(gs, c.Workers, c.LR),
		lambda: lambda, lr: c.LR, tol: c.Tol, plain: c.Plain}
	for w := range u.reps {
		// The minibatch is split as evenly as the workers allow.
		u.reps[w] = newReplica(m, c.Batch/c.Workers+btoi(w < c.Batch%c.Workers), r.train)
	}
	if c.Workers > 1 {
		u.grad = make([]float32, len(u.params))
	}
	batches := dataset.NewBatches(r.train.N, c.Batch, rand.New(rand.NewPCG(c.Seed, uint64(k)+1)))
	batches.DropLast = true
	nb := batches.Len()
	lossSum, steps := 0.0, 0
	var newlyPruned []string
	lastShown := time.Time{}
	workers := newGang(c.Workers)
	defer workers.stop()
	for step := 0; ; step++ {
		idx, ok := batches.Next()
		if !ok {
			break
		}
		workers.run(func(w int) {
			rp := u.reps[w]
			lo := 0
			for _, q := range u.reps[:w] {
				lo += len(q.labels)
			}
			r.stepReplica(rp, idx[lo:lo+len(rp.labels)])
		})
		loss := 0.0
		for _, rp := range u.reps {
			loss += float64(u.share(rp)) * float64(rp.loss.Scalar())
		}
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return fmt.Errorf("sculpt: epoch %d, step %d: the loss is %v; try a smaller learning rate", k+1, step+1, loss)
		}
		lossSum += loss
		steps++
		workers.run(func(w int) { u.step(&u.shards[w]) })
		for i := range gs {
			if g := &gs[i]; g.justFrozen {
				g.justFrozen = false
				st.Pruned[g.name] = true
				newlyPruned = append(newlyPruned, g.name)
			}
		}
		if c.Progress != nil && (time.Since(lastShown) > 500*time.Millisecond || step == nb-1) {
			lastShown = time.Now()
			live, _, _ := r.arch.Count(st.Pruned)
			r.bar(k, step+1, nb, float64((step+1)*c.Batch)/time.Since(start).Seconds(), lossSum/float64(steps), live)
		}
	}
	storeWeights(st.Weights, m)
	trainSeconds := time.Since(start).Seconds()
	acc := accuracy(machine(r.arch, st.Pruned, st.Weights), r.val, c.Workers)
	live, _, flops := r.arch.Count(st.Pruned)
	e := Epoch{ValidationAccuracy: acc, TrainLoss: lossSum / float64(steps), Penalty: r.penalty(lambda),
		EdgesLive: live, FLOPsLive: flops, Pruned: newlyPruned,
		Seconds: time.Since(start).Seconds(), ImagesPerSecond: float64(steps*c.Batch) / trainSeconds}
	st.History = append(st.History, e)
	r.logf("\nepoch %d/%d: validation accuracy %.4f, loss %.4f + penalty %.4f, live edges %d/%d, %.1fs\n",
		k+1, c.Epochs, acc, e.TrainLoss, e.Penalty, live, len(r.arch.Edges), e.Seconds)
	return nil
}

// gang runs a function on n workers, the caller as the last one and
// n-1 goroutines that live as long as the gang. A step of an epoch has
// two parts, the replicas and the update, of a few milliseconds or less
// each; a goroutine started for each would wait some 100µs for the
// runtime to wake a thread, so the gang's goroutines wait for work, and
// the caller for them, spinning a while before they sleep.
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

// update is the step that follows the replicas' gradients: their sum,
// Adam, the penalty and the pruning. The parameters are split into
// shards of whole groups, one per worker, each updated on its own
// goroutine; every parameter's update is the same whatever the split.
type update struct {
	params []float32
	// grad is the minibatch's gradient, the replicas' weighted sum
	// (nil with a single replica, whose gradient is used as it is).
	grad            []float32
	gs              []group
	reps            []*replica
	shards          []shard
	lambda, lr, tol float64
	plain           bool
}

// shard is a worker's share of the update: the groups gs[g0:g1], which
// hold the parameters [lo, hi), with their own Adam.
type shard struct {
	g0, g1, lo, hi int
	adam           optim.Adam
	norms          [1]float64
	_              [64]byte // no false sharing between the shards' states
}

// shards splits the groups gs into n runs of consecutive groups with
// about the same number of parameters each.
func shards(gs []group, n int, lr float64) []shard {
	total := 0
	if len(gs) > 0 {
		total = gs[len(gs)-1].hi
	}
	s := make([]shard, n)
	g := 0
	for w := range s {
		s[w].g0, s[w].lo = g, 0
		if g < len(gs) {
			s[w].lo = gs[g].lo
		} else if g > 0 {
			s[w].lo = gs[g-1].hi
		}
		// Take groups while their end is nearer the shard's share of
		// the parameters than their start is.
		end := (w + 1) * total / n
		for g < len(gs) && (w == n-1 || gs[g].hi-end <= end-gs[g].lo) {
			g++
		}
		s[w].g1, s[w].hi = g, s[w].lo
		if g > s[w].g0 {
			s[w].hi = gs[g-1].hi
		}
		s[w].adam.LR = lr
	}
	return s
}

// share returns the weight of a replica's mean loss in the minibatch's.
func (u *update) share(rp *replica) float32 {
	n := 0
	for _, q := range u.reps {
		n += len(q.labels)
	}
	return float32(len(rp.labels)) / float32(n)
}

// step updates the parameters of shard s.
func (u *update) step(s *shard) {
	params := u.params
	var grad []float32
	if u.grad == nil {
		grad = u.reps[0].grad[s.lo:s.hi]
	} else {
		grad = u.grad[s.lo:s.hi]
		for w, rp := range u.reps {
			share := u.share(rp)
			g := rp.grad[s.lo:s.hi]
			if w == 0 {
				for i, v := range g {
					grad[i] = share * v
				}
				continue
			}
			for i, v := range g {
				grad[i] += share * v
			}
		}
	}
	gs := u.gs[s.g0:s.g1]
	if u.plain && u.lambda > 0 {
		for _, g := range gs {
			if g.frozen {
				continue
			}
			if n := g.lasso.Norms(s.norms[:], params)[0]; n > 0 {
				f := float32(g.lasso.Lambda / n)
				for i := g.lo; i < g.hi; i++ {
					grad[i-s.lo] += f * params[i]
				}
			}
		}
	}
	s.adam.Step32(params[s.lo:s.hi], grad)
	for i := range gs {
		g := &gs[i]
		if g.frozen {
			copy(params[g.lo:g.hi], g.saved)
			continue
		}
		if !u.plain && u.lambda > 0 {
			g.lasso.Prox(params, u.lr)
		}
		if g.lasso.Norms(s.norms[:], params)[0] < u.tol {
			g.frozen, g.justFrozen = true, true
			g.saved = slices.Clone(params[g.lo:g.hi])
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// stepReplica computes the loss and gradient of a replica on the images
// idx.
func (r *run) stepReplica(rp *replica, idx []int) {
	load(rp.x, rp.labels, r.train, idx)
	rp.g.Forward()
	rp.g.Backward(rp.loss)
}

// bar draws the progress bar of an epoch.
func (r *run) bar(epoch, step, steps int, rate, loss float64, live int) {
	const width = 30
	done := width * step / steps
	bar := make([]byte, width)
	for i := range bar {
		switch {
		case i < done:
			bar[i] = '='
		case i == done:
			bar[i] = '>'
		default:
			bar[i] = ' '
		}
	}
	r.logf("\repoch %d/%d [%s] %3d%%  %6.0f images/s  loss %.4f  live edges %d/%d ",
		epoch+1, r.cfg.Epochs, bar, 100*step/steps, rate, loss, live, len(r.arch.Edges))
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
	return r.cfg.Lambda * lambdaScale(r.train.N)
}

// ReferenceImages is the training-set size at which Config.Lambda is
// the weight of the penalty as given: the Fashion-MNIST training images
// less the default validation split.
const ReferenceImages = 55000

// lambdaScale is the factor by which Config.Lambda is multiplied for a
// training set of n images, (ReferenceImages/n)^(1/4): a smaller set is
// fitted more closely by the end of its steps, so the edges it does not
// need keep consistent gradients longer and need a stronger pull to die.
// The exponent was measured (see the package documentation).
func lambdaScale(n int) float64 {
	return math.Pow(ReferenceImages/float64(n), 0.25)
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
			l := optim.GroupLasso{Lambda: lambda * math.Sqrt(float64(len(w))), Groups: [][2]int{{0, len(w)}}}
			s += l.Lambda * l.Norms(norms[:], w)[0]
		}
	}
	return s
}

// evalBatch is the size of the batches accuracy evaluates.
const evalBatch = 250

// accuracy returns the fraction of the images that m classifies right,
// split over workers goroutines.
func accuracy(m *hypergraph.Machine[float32], im *dataset.Images, workers int) float64 {
	chunks := (im.N + evalBatch - 1) / evalBatch
	right := make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			graphs := map[int]*evalGraph{}
			for ch := w; ch < chunks; ch += workers {
				lo, hi := ch*evalBatch, min((ch+1)*evalBatch, im.N)
				eg := graphs[hi-lo]
				if eg == nil {
					eg = &evalGraph{}
					eg.x, eg.logits = newGraph(&eg.g, m, hi-lo, nil, im)
					graphs[hi-lo] = eg
				}
				load(eg.x, nil, im, seq(hi)[lo:])
				eg.g.Forward()
				right[w] += eg.count(im.Labels[lo:hi])
			}
		}()
	}
	wg.Wait()
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

// count returns how many rows of the logits (a row per image) have their
// maximum at the label.
func (eg *evalGraph) count(labels []int) int {
	z := eg.logits.Value
	k := z.Cols()
	right := 0
	for j, y := range labels {
		row := z.Data[j*k : (j+1)*k]
		best := 0
		for c, v := range row {
			if v > row[best] {
				best = c
			}
		}
		if best == y {
			right++
		}
	}
	return right
}
