package sculpt

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/internal/budget"
)

// size is what the generous architecture holds, counted without building
// it, in float64, which neither overflows nor takes long for any flag
// value: the edges with weights, their weights, the forward FLOPs per
// image (as Arch.Count counts them) and the values a forward pass
// computes per image, the states of the nodes and the outputs of the
// edges.
type size struct {
	edges, params, flops, states float64
}

// generousSize counts Generous(channels, rows, cols, classes, nodes,
// width) in one pass over the nodes.
func generousSize(channels, rows, cols, classes, nodes, width int) size {
	c, w, k := float64(channels), float64(width), float64(classes)
	var s size
	// hidden counts the nodes so far by their output size.
	hidden := map[[2]int]float64{}
	input := [2]int{rows, cols}
	zigzag(rows, cols, nodes, func(_ int, n Node) {
		in, out := float64(n.In[0]*n.In[1]), float64(n.Out[0]*n.Out[1])
		convs := hidden[n.In]
		if n.In == input {
			s.edges++
			s.params += 9 * c * w
			s.flops += 2 * 9 * c * w * in
			s.states += 2 * w * in
		}
		s.edges += convs + 1 // and the head
		s.params += convs*9*w*w + k*w*out
		s.flops += 2*convs*9*w*w*in + 2*k*w*out
		// Each convolution's output and the sum it adds to, then the
		// node's activation and resampling; the head's logits.
		s.states += 2*convs*w*in + w*in + w*out + k
		hidden[n.Out]++
	})
	return s
}

// The constants of a run's cost (see cost), calibrated on one epoch of
// runs on this project's machine kind at GOGC=10, where the peak resident
// memory is about what is live; docs/results-paper.md gives the
// measurements.
const (
	// bytesPerWeight is the memory per weight of the generous
	// architecture, besides 4 bytes per worker for its share of the
	// gradient: the weights, their gradient and the run's copy of them
	// (4 bytes each), Adam's two moments (16), the machines built to
	// validate and save (8), and the JSON of the checkpoint with its
	// buffers (about 40).
	bytesPerWeight = 80
	// A state takes 4 bytes per image of a graph, 8 in training (its
	// value and gradient) for each image of the minibatch; validating and
	// testing hold a graph of evalBatch images (or as many as there are)
	// per worker. baseBytes is what a run holds besides (the program, the
	// runtime).
	baseBytes = 16 << 20
	// gcFactor is how far the heap grows beyond what is live before the
	// garbage collector runs (GOGC=100).
	gcFactor = 2
	// flopRate is the speed of training, in FLOPs of the forward passes
	// per second on two cores (training takes 3 per FLOP of a forward
	// pass, the backward pass adding 2). It varies with the data and the
	// channels, so a time estimate is good to a factor of a few.
	flopRate = 1e10
	// maxNodes bounds the nodes that generousSize counts, one at a time:
	// 2^20 nodes have over 10^11 edges, more than any machine holds.
	maxNodes = 1 << 20
)

// machineMemory is the memory a run may take; a variable so that tests
// can pretend to run on a small machine.
var machineMemory = budget.Memory

// cost returns what a run of c, its defaults set, would take on train,
// val and test: memory and time.
func (c Config) cost(s size, train, val, test *dataset.Images) budget.Cost {
	w := float64(c.Workers)
	pixels := float64(len(train.Pixels) + len(val.Pixels) + len(test.Pixels))
	eval := float64(min(evalBatch, max(val.N, test.N))) // images of an evaluation graph
	live := baseBytes + s.params*(bytesPerWeight+4*w) + s.states*(8*float64(c.Batch)+4*eval*w) + pixels
	epochs := float64(c.Epochs)
	if len(c.Path) > 0 {
		// Each point trains the epochs with the penalty and fine-tunes a
		// copy, which the path keeps besides the run's and the best.
		epochs *= float64(len(c.Path) + PathRefinements)
		live += 3 * 4 * s.params
	}
	flops := epochs*s.flops*(3*float64(train.N)+float64(val.N)) + 2*s.flops*float64(test.N)
	return budget.Cost{Bytes: gcFactor * live, Seconds: flops / flopRate}
}

// sizeRun returns the size of the generous architecture of a run on
// train, val and test with the given classes, or an error if the run
// would not fit the machine, saying what it would take.
func (c Config) sizeRun(train, val, test *dataset.Images, classes int) (size, error) {
	s, what, err := c.sizeArch(train.NumChannels(), train.Rows, train.Cols, classes)
	if err != nil {
		return s, err
	}
	if err := c.cost(s, train, val, test).Fits(machineMemory(), runtime.NumCPU()); err != nil {
		fix := "fewer nodes, channels or epochs"
		if errors.Is(err, budget.ErrMemory) {
			fix = "fewer nodes or channels, or a smaller batch"
		}
		return s, fmt.Errorf("%s has %.0f edges with %.0f weights, %.3g FLOPs per image; a run of %d epochs on %d images %v; use %s",
			what, s.edges, s.params, s.flops, c.Epochs, train.N, err, fix)
	}
	return s, nil
}

// sizeArch returns the size of the generous architecture on images of
// the given shape, with its description for errors, or an error if it
// has more weights than a machine may have.
func (c Config) sizeArch(channels, rows, cols, classes int) (s size, what string, err error) {
	what = fmt.Sprintf("sculpt: the generous architecture of %d hidden nodes of %d channels on %dx%dx%d images",
		c.Nodes, c.Channels, channels, rows, cols)
	if c.Nodes > maxNodes {
		return size{}, what, fmt.Errorf("%s has over 10^11 edges, more than any machine holds; use at most %d nodes (10 is the default)", what, maxNodes)
	}
	s = generousSize(channels, rows, cols, classes, c.Nodes, c.Channels)
	if s.params > hypergraph.MaxParams {
		return s, what, fmt.Errorf("%s has %.3g edges with %.3g weights, more than the %d a machine may have; use fewer nodes or channels, or smaller images",
			what, s.edges, s.params, hypergraph.MaxParams)
	}
	return s, what, nil
}

// CheckShape returns the error that Run would return for images of the
// given shape (channels, rows and columns) and number of classes before
// it trains, as far as their shape decides it: a configuration out of
// range, fewer than two classes, or a generous architecture of more
// weights than a machine may have. A caller may ask before it reads the
// images' pixels (see dataset.FolderOptions.Check); the memory and the
// time of a run, which the number of images decides too, are checked by
// Run.
func (c Config) CheckShape(channels, rows, cols, classes int) error {
	c = c.withDefaults()
	if err := c.check(); err != nil {
		return err
	}
	if err := checkClasses(classes); err != nil {
		return err
	}
	_, _, err := c.sizeArch(channels, rows, cols, classes)
	return err
}
