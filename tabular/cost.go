package tabular

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/parametric-machines/machines/internal/budget"
	"github.com/parametric-machines/machines/kernel"
)

// What fit refuses and announces. A fit whose estimate exceeds the
// memory available, or maxFitTime, cannot finish on this machine in any
// useful sense; one beyond announceTime is announced with its size, so
// that its user can stop it and choose smaller settings.
const (
	maxFitTime   = 24 * time.Hour
	announceTime = time.Minute
)

// The cost model of a fit, in float64 values held and floating-point
// operations done. The constants were fitted to the peak memory and the
// time of fits on the project's machine (two cores shared with other
// work): 2,000 and 20,000 rows of 14 columns, 2,000 anchors, blocks of
// 1,000 dimensions. Its memory was 0.8 to 1.8 times the peaks measured,
// its time 0.6 to 7 times: the number of iterations a fit needs varies
// most. A table with more columns than rows is fitted in the span of its
// rows; on 20 rows of 10,000 columns the estimate was 0.2 s and 26 MB
// against 1.1 s of CPU time and a 53 MB peak measured, most of which
// reading the table took.
const (
	// lbfgsCopies is the number of copies of the parameters that an
	// L-BFGS fit holds: gonum's history of 15 pairs, the objective's
	// values and gradients, and the line search's points.
	lbfgsCopies = 42
	// heapGrowth is the garbage collector's headroom: at the default
	// GOGC the heap grows up to twice what is live before a collection,
	// as it did on a table of 10,000 columns whose selection leaves an
	// optimiser's history behind at every cost. runtimeBytes is the
	// memory of the program itself and its data before the fit.
	heapGrowth   = 2
	runtimeBytes = 20e6
	// selectionIters and finalIters are typical iteration counts of a
	// fit of the selection, which stops at 50, and of the final fit.
	selectionIters = 50
	finalIters     = 300
	// evalsPerIter is the number of loss evaluations per iteration,
	// line searches included; lbfgsFlops the work per iteration on each
	// value of the optimiser's history, which memory bandwidth bounds.
	evalsPerIter = 1.3
	lbfgsFlops   = 8
	// flopsPerSecond is the pace of the model's operations.
	flopsPerSecond = 2e9
)

// fitSize is what a fit will take, estimated from the shape of the
// table and the settings before it starts.
type fitSize struct {
	dims      []int
	params    int     // of the final machine
	bytes     float64 // peak memory
	seconds   float64 // typical time
	selection int     // fits of the cross-validation; 0 without one
	// folds and selectionRows are the cross-validation's folds and rows.
	folds, selectionRows int
	// span bounds the dimension that the states of a block of the final
	// machine can span: the inputs, as encoded, plus the anchors.
	span int
}

// sizeFit estimates the size of fitting a machine with settings s to
// rows x inputs data with the given number of outputs. It mirrors
// kernel's fit: a cross-validation, unless the cost and the bandwidth are
// both fixed, on at most kernel.SelectionRows rows, repeated on small
// sets, its fits running on every core; then starts final fits on all
// rows.
func sizeFit(rows, inputs, outputs int, s kernel.Settings) fitSize {
	dims := s.Dims
	if dims == nil {
		dims = append(kernel.DefaultHidden(), outputs)
	}
	anchors := func(n int) int {
		if s.Anchors > 0 {
			return min(n, s.Anchors)
		}
		return min(n, kernel.DeepAnchors)
	}
	final := machineCost{dims: dims, inputs: inputs, rows: rows, anchors: anchors(rows)}
	size := fitSize{dims: dims, params: final.params(), span: inputs + final.anchors}
	iters := float64(finalIters)
	if s.MaxIter > 0 {
		iters = math.Min(iters, float64(s.MaxIter))
	}
	flops := float64(max(1, s.Starts)) * (iters*final.flopsPerIter() + final.spanFlops())
	live := final.liveBytes()

	costs, bandwidths := len(s.Costs), len(s.Bandwidths)
	if s.Costs == nil {
		costs = len(kernel.DefaultCosts())
	}
	if s.Bandwidths == nil {
		bandwidths = len(kernel.DefaultBandwidths())
	}
	if costs > 1 || bandwidths > 1 {
		n := min(rows, kernel.SelectionRows)
		folds := s.FoldsFor(n)
		size.folds, size.selectionRows = folds, n
		train := n - n/folds
		fold := machineCost{dims: dims, inputs: inputs, rows: train, anchors: anchors(train)}
		repeats := min(3, max(1, 300/n))
		size.selection = costs * bandwidths * folds * repeats
		workers := min(runtime.GOMAXPROCS(0), bandwidths*folds*repeats)
		live = math.Max(live, float64(workers)*fold.liveBytes())
		flops += float64(size.selection) * (selectionIters*fold.flopsPerIter() + fold.spanFlops()) / float64(workers)
	}
	size.bytes = runtimeBytes + heapGrowth*live
	size.seconds = flops / flopsPerSecond
	return size
}

// machineCost is the cost of fitting one machine.
type machineCost struct {
	dims                  []int
	inputs, rows, anchors int
}

func (c machineCost) space() int {
	s := 0
	for _, d := range c.dims {
		s += d
	}
	return s
}

// params is the number of parameters of the machine.
func (c machineCost) params() int { return c.paramsOn(c.inputs) }

// paramsOn is the number of parameters of the machine on that many
// inputs.
func (c machineCost) paramsOn(inputs int) int {
	s := c.space()
	return s*inputs + (s-c.dims[0])*c.anchors
}

// fitted is the number of inputs the optimiser sees: kernel fits a table
// with more columns than rows on the rows' coordinates in their span, at
// most as many as the rows.
func (c machineCost) fitted() int { return min(c.inputs, c.rows) }

// liveBytes is the memory that the fit keeps live: the optimiser's
// copies of the parameters, and the values and gradients of the graph:
// the inputs, the augmented states (space x rows) and at each level a
// kernel matrix (anchors x rows).
func (c machineCost) liveBytes() float64 {
	n, m := float64(c.rows), float64(c.anchors)
	levels := float64(len(c.dims) - 1)
	return 8 * (lbfgsCopies*float64(c.paramsOn(c.fitted())) + float64(c.inputs)*n + 8*float64(c.space())*n + 4*levels*m*n)
}

// flopsPerIter is the work of one iteration: the optimiser's pass over
// its history, and the evaluations of the loss and its gradient, whose
// work is the augmenter's product and at each level the kernel's
// distances and exponentials and the product with the coefficients.
func (c machineCost) flopsPerIter() float64 {
	n, m := float64(c.rows), float64(c.anchors)
	eval := 4 * float64(c.space()*c.fitted()) * n
	for l := 1; l < len(c.dims); l++ {
		eval += m * n * (6*float64(c.dims[l-1]) + 40 + 6*float64(c.dims[l]))
	}
	return lbfgsFlops*lbfgsCopies*float64(c.paramsOn(c.fitted())) + evalsPerIter*eval
}

// spanFlops is the work of finding the span of the rows, once per fit,
// when the inputs outnumber them: their Gram matrix.
func (c machineCost) spanFlops() float64 {
	if c.inputs <= c.rows {
		return 0
	}
	return 2 * float64(c.rows*c.rows*c.inputs)
}

// checkFitSize sizes the fit of a machine with settings s to rows x
// inputs data with the given number of outputs, before it starts. It
// refuses a hidden block of -dims larger than the inputs plus the anchors:
// a block's states are the augmenter's image of the inputs plus the
// coefficients' combination of the anchors' kernels, and span at most
// that many dimensions, so that a larger block only costs; and a fit
// whose estimated memory exceeds what the machine has available, or
// whose time exceeds maxFitTime, saying what it would take. It announces
// in the log a fit that will take long.
func checkFitSize(rows, inputs, outputs int, s kernel.Settings, o *Options) error {
	size := sizeFit(rows, inputs, outputs, s)
	for i, d := range size.dims[:len(size.dims)-1] {
		if d > size.span {
			return optionf("-dims %s: block %d has %d dimensions, but its states span at most %d, the %d inputs as encoded plus the %d anchors: "+
				"a larger block only costs; want at most %d", joinInts(size.dims), i+1, d, size.span, inputs, size.span-inputs, size.span)
		}
	}
	if size.folds > size.selectionRows {
		return optionf("-folds %d: the cross-validation runs on %d rows; want at most %d", size.folds, size.selectionRows, size.selectionRows)
	}
	what := fmt.Sprintf("a machine of %s parameters", groupDigits(size.params))
	if size.selection > 0 {
		what += fmt.Sprintf(", %s fits to choose its settings", groupDigits(size.selection))
	}
	if avail, ok := budget.Available(); ok && size.bytes > float64(avail) {
		return fmt.Errorf("the fit would need about %s of memory (%s), and %s are available; "+
			"ask for smaller -dims, fewer -anchors or fewer input columns", budget.DecimalBytes(size.bytes), what, budget.DecimalBytes(float64(avail)))
	}
	if size.seconds > maxFitTime.Seconds() {
		return fmt.Errorf("the fit would take about %s here (%s); ask for smaller -dims, fewer -anchors or -starts, "+
			"or fix -cost and -bandwidth to skip the selection", formatSeconds(size.seconds), what)
	}
	if size.seconds > announceTime.Seconds() {
		o.log("this fit will take about %s (%s) and %s of memory",
			formatSeconds(size.seconds), what, budget.DecimalBytes(size.bytes))
	}
	return nil
}

// joinInts writes whole numbers separated by commas, as flags take them.
func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, d := range v {
		s[i] = strconv.Itoa(d)
	}
	return strings.Join(s, ",")
}

// formatSeconds writes a time of s seconds to two significant figures
// in the largest unit that fits: seconds, minutes, hours, days or years.
func formatSeconds(s float64) string {
	for _, u := range []struct {
		name string
		secs float64
	}{{"years", 365 * 86400}, {"days", 86400}, {"hours", 3600}, {"minutes", 60}} {
		if s >= 2*u.secs {
			return budget.Significant(s/u.secs) + " " + u.name
		}
	}
	return budget.Significant(s) + " seconds"
}

// groupDigits writes n with commas between thousands.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
