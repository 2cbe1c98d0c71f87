package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

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
// operations done; the constants were fitted to the peak memory and the
// time of fits of this machine (see the tests of sizeFit).
const (
	// lbfgsCopies is the number of copies of the parameters that an
	// L-BFGS fit holds: gonum's history of 15 pairs, the objective's
	// values and gradients, and the line search's points.
	lbfgsCopies = 42
	// heapGrowth is the garbage collector's headroom: at the default
	// GOGC the heap grows to twice what is live before a collection.
	heapGrowth = 2
	// selectionIters and finalIters are typical iteration counts of a
	// fit of the selection, which stops at 50, and of the final fit.
	selectionIters = 50
	finalIters     = 300
	// evalsPerIter is the number of loss evaluations per iteration,
	// line searches included.
	evalsPerIter = 1.3
	// flopsPerSecond is the pace of one core on the model's operations.
	flopsPerSecond = 1e9
)

// fitSize is what a fit will take, estimated from the shape of the
// table and the settings before it starts.
type fitSize struct {
	params    int           // of the final machine
	bytes     float64       // peak memory
	seconds   float64 // typical time
	selection int           // fits of the cross-validation; 0 without one
}

// sizeFit estimates the size of fitting a machine with settings s to
// rows x inputs data with the given number of outputs. It mirrors
// kernel's fit: a cross-validation, unless the cost and the bandwidth are
// both fixed, on at most kernel.SelectionRows rows, its fits running on
// every core, then starts final fits on all rows.
func sizeFit(rows, inputs, outputs int, s kernel.Settings) fitSize {
	dims := s.Dims
	if dims == nil {
		dims = append(append([]int(nil), kernel.DefaultHidden...), outputs)
	}
	anchors := func(n int) int {
		if s.Anchors > 0 {
			return min(n, s.Anchors)
		}
		return min(n, kernel.AutoAnchors)
	}
	final := machineCost{dims: dims, inputs: inputs, rows: rows, anchors: anchors(rows)}
	size := fitSize{params: final.params()}
	starts := float64(max(1, s.Starts))
	iters := float64(finalIters)
	if s.MaxIter > 0 {
		iters = math.Min(iters, float64(s.MaxIter))
	}
	flops := starts * iters * final.flopsPerIter()
	size.bytes = final.bytes()

	costs, bandwidths := len(s.Costs), len(s.Bandwidths)
	if s.Costs == nil {
		costs = len(kernel.DefaultCosts)
	}
	if s.Bandwidths == nil {
		bandwidths = len(kernel.DefaultBandwidths)
	}
	if costs > 1 || bandwidths > 1 {
		folds := s.Folds
		if folds == 0 {
			folds = kernel.DefaultFolds
		}
		n := min(rows, kernel.SelectionRows)
		train := n - n/max(folds, 1)
		fold := machineCost{dims: dims, inputs: inputs, rows: train, anchors: anchors(train)}
		repeats := min(3, max(1, 300/max(n, 1)))
		size.selection = costs * bandwidths * folds * repeats
		workers := min(runtime.GOMAXPROCS(0), bandwidths*folds*repeats)
		size.bytes = math.Max(size.bytes, float64(workers)*fold.bytes())
		flops += float64(size.selection) * selectionIters * fold.flopsPerIter() / float64(workers)
	}
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

func (c machineCost) params() int {
	s := c.space()
	return s*c.inputs + (s-c.dims[0])*c.anchors
}

// bytes is the peak memory of the fit: the optimiser's copies of the
// parameters, and the values and gradients of the graph: the inputs, the
// augmented states (space x rows) and at each level a kernel matrix
// (anchors x rows).
func (c machineCost) bytes() float64 {
	n, m := float64(c.rows), float64(c.anchors)
	levels := float64(len(c.dims) - 1)
	values := lbfgsCopies*float64(c.params()) + float64(c.inputs)*n + 8*float64(c.space())*n + 4*levels*m*n
	return heapGrowth * 8 * values
}

// flopsPerIter is the work of one iteration: the optimiser's pass over
// its history, and the evaluations of the loss and its gradient, whose
// work is the augmenter's product and at each level the kernel's
// distances and exponentials and the product with the coefficients.
func (c machineCost) flopsPerIter() float64 {
	n, m := float64(c.rows), float64(c.anchors)
	eval := 4 * float64(c.space()*c.inputs) * n
	for l := 1; l < len(c.dims); l++ {
		eval += m * n * (6*float64(c.dims[l-1]) + 40 + 6*float64(c.dims[l]))
	}
	return 4*lbfgsCopies*float64(c.params()) + evalsPerIter*eval
}

// checkFitSize refuses a fit whose estimated memory exceeds what the
// machine has available or whose time exceeds maxFitTime, saying what it
// would take, and announces on stderr one that will take long.
func checkFitSize(size fitSize, stderr io.Writer) error {
	what := fmt.Sprintf("a machine of %s parameters", groupDigits(size.params))
	if size.selection > 0 {
		what += fmt.Sprintf(", %s fits to choose its settings", groupDigits(size.selection))
	}
	if avail, ok := availableMemory(); ok && size.bytes > float64(avail) {
		return fmt.Errorf("the fit would need about %s of memory (%s), and %s are available; "+
			"ask for smaller -dims, fewer -anchors or fewer input columns", formatBytes(size.bytes), what, formatBytes(float64(avail)))
	}
	if size.seconds > maxFitTime.Seconds() {
		return fmt.Errorf("the fit would take about %s here (%s); ask for smaller -dims, fewer -anchors or -starts, "+
			"or fix -cost and -bandwidth to skip the selection", formatSeconds(size.seconds), what)
	}
	if size.seconds > announceTime.Seconds() {
		fmt.Fprintf(stderr, "machines fit: this fit will take about %s (%s) and %s of memory\n",
			formatSeconds(size.seconds), what, formatBytes(size.bytes))
	}
	return nil
}

// availableMemory returns the memory this process may still use: the
// kernel's estimate of available memory, or the room left under the
// cgroup's limit if that is less. ok is false if neither is known.
func availableMemory() (avail int64, ok bool) {
	avail = math.MaxInt64
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if rest, found := strings.CutPrefix(sc.Text(), "MemAvailable:"); found {
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				if err == nil {
					avail, ok = kb<<10, true
				}
			}
		}
	}
	limit, errLimit := readInt("/sys/fs/cgroup/memory.max")
	used, errUsed := readInt("/sys/fs/cgroup/memory.current")
	if errLimit == nil && errUsed == nil {
		avail, ok = min(avail, limit-used), true
	}
	return avail, ok
}

// readInt reads a file holding one whole number, such as a cgroup's
// limit; "max" is not a number.
func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// formatBytes writes a number of bytes in MB, GB or TB.
func formatBytes(b float64) string {
	switch {
	case b >= 1e12:
		return fmt.Sprintf("%.3g TB", b/1e12)
	case b >= 1e9:
		return fmt.Sprintf("%.3g GB", b/1e9)
	}
	return fmt.Sprintf("%.3g MB", b/1e6)
}

// formatSeconds writes a time of s seconds to two significant figures
// in the largest unit that fits: seconds, minutes, hours, days or years.
func formatSeconds(s float64) string {
	for _, u := range []struct {
		name string
		secs float64
	}{{"years", 365 * 86400}, {"days", 86400}, {"hours", 3600}, {"minutes", 60}} {
		if s >= 2*u.secs {
			return fmt.Sprintf("%.2g %s", s/u.secs, u.name)
		}
	}
	return fmt.Sprintf("%.2g seconds", s)
}

// groupDigits writes n with commas between thousands.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
