package tabular

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/parametric-machines/machines/internal/budget"
	"gonum.org/v1/gonum/mat"
)

// What fit refuses and announces. A fit whose estimate exceeds the
// memory available, or maxFitTime, cannot finish on this machine in any
// useful sense; one beyond announceTime of processor time is announced
// with its size, so that its user can stop it and choose smaller
// settings.
const (
	maxFitTime   = 24 * time.Hour
	announceTime = 5 * time.Second
)

// The cost model of a fit: the processor time and the peak memory of
// its parts, from the shape of the table and the settings. The shallow
// machine's pipeline (the choice of the inputs' scale, of their
// relevance and of the dates' cycles, each a pass of the shallow machine
// over the selection's rows with anchors drawn from all rows, then its
// bandwidths and costs) is counted in rows x inputs x anchors and in the
// cube of its bases' size; the deep machine in the floating-point
// operations and float64 values of machineCost. The constants were
// fitted to the CPU time and peak resident memory of default fits of
// tables of 1,000 to 20,000 rows and 3 to 480 inputs as encoded (the
// shallow machine's, which the default fit races the deep machine on
// none of), and of the deep machine fitted alone: fitCostTables in cost_test.go
// lists them, and BenchmarkFitEstimate measures the ratios again.
const (
	// lbfgsCopies is the number of copies of the parameters that an
	// L-BFGS fit holds: gonum's history of 15 pairs, the objective's
	// values and gradients, and the line search's points.
	lbfgsCopies = 42
	// selectionIters and finalIters are typical iteration counts of a
	// fit of the selection, which stops at 50, and of the final fit,
	// which starts from the minimum on a part of the rows when they are
	// many.
	selectionIters = 50
	finalIters     = 60
	// anchorIterPower is how the final fit's iterations grow with its
	// anchors beyond DeepAnchors: as their ratio to the power.
	anchorIterPower = 0.4
	// evalsPerIter is the number of loss evaluations per iteration,
	// line searches included; lbfgsFlops the work per iteration on each
	// value of the optimiser's history, which memory bandwidth bounds.
	evalsPerIter = 1.3
	lbfgsFlops   = 8

	// baseSeconds is the time of starting; cellSeconds that of reading
	// and encoding each cell of the table; anchorSeconds the time per
	// row, input and anchor of a shallow pass (drawing the anchors, the
	// rows' distances to them); basisSeconds the time per cubed size of a
	// bandwidth's basis; growSeconds the time per row and squared feature
	// of a basis on all the rows at a count of anchors that growAnchors
	// tries; selectionSeconds and finalSeconds the time per
	// operation of the deep machine's selection and final fit.
	baseSeconds      = 0.26
	cellSeconds      = 0.94e-6
	anchorSeconds    = 4.9e-9
	basisSeconds     = 1.5e-9
	growSeconds      = 0.51e-9
	selectionSeconds = 1.1e-10
	finalSeconds     = 2.7e-10

	// baseBytes is the memory of the program itself; cellBytes that of
	// each cell of the table as read; encodedCopies and anchorCopies the
	// copies of the encoded inputs (rows x inputs) and of the rows'
	// kernels at the shallow machine's anchors (rows x anchors) held at
	// the peak, growCopies those of the features of a basis on all the
	// rows (rows x (inputs + anchors)) that growAnchors tries, which the deep machine's live values
	// (machineCost.liveBytes) replace in its final fit.
	baseBytes     = 40e6
	cellBytes     = 43
	encodedCopies = 8.4
	anchorCopies  = 6.2
	growCopies    = 8
)

// fitShape is what fit knows of its data before it starts.
type fitShape struct {
	rows, inputs, outputs int // rows with a target, encoded inputs, outputs
	cells                 int // of the table as read
	// classify is set for a classification, whose inputs' scale and
	// relevance are not chosen; cycles when the dates' cycles are weighed
	// by the shallow machine first; countLike for regression targets
	// that AutoScale also tries on the log scale (countLike),
	// which doubles the settings the selections score.
	classify, cycles, countLike bool
	// codes is the number of numeric columns tried by their codes (see
	// codeColumns).
	codes int
	// levels are the blocks of the inputs' levels, which racesDeep counts
	// as one input each (see raceInputs).
	levels []levelBlock
}

// shape returns the shape of the fit that run makes.
func (run *fitRun) shape() fitShape {
	classify := run.task == Classification
	return fitShape{
		rows: len(run.t.Rows), inputs: run.enc.Width(), outputs: run.outputs,
		cells:    run.f.Len() * len(run.f.Columns()),
		classify: classify, cycles: run.enc.WithoutCycles().Width() != run.enc.Width(),
		countLike: !classify && countLike(mat.NewDense(len(run.t.Rows), run.outputs, run.t.Values)),
		codes:     len(codeColumns(run.enc, run.x)),
		levels:    levelBlocks(run.enc),
	}
}

// estimate is the processor time and the peak memory of a fit.
type estimate struct {
	seconds, bytes float64
}

// fitSize is what a fit will take, estimated from the shape of the
// table and the settings before it starts.
type fitSize struct {
	dims   []int
	params int // of the final deep machine
	// shallow is the fit when the shallow machine is chosen, deep when
	// the deep machine is; zero for a family the fit does not consider.
	// Both include every count of anchors that growAnchors may try
	// (growTries); shallowFirst and deepFirst are the same fits when it
	// stops at the first, which the shape does not tell.
	shallow, deep           estimate
	shallowFirst, deepFirst estimate
	selection               int // deep fits of the cross-validation; 0 without one
	// folds and selectionRows are the cross-validation's folds and rows.
	folds, selectionRows int
	// span bounds the dimension that the states of a block of the final
	// machine can span: the inputs, as encoded, plus the anchors.
	span int
}

// worst returns the larger time and memory of the families considered.
func (z fitSize) worst() estimate {
	return estimate{math.Max(z.shallow.seconds, z.deep.seconds), math.Max(z.shallow.bytes, z.deep.bytes)}
}

// sizeFit estimates the size of fitting a table of that shape with
// settings s, both when growAnchors tries every count of anchors that
// growTries lists and when it stops at the first.
func sizeFit(shape fitShape, s Settings) fitSize {
	tries := growTries(shape, s)
	size := sizeGrowing(shape, s, tries)
	size.shallowFirst, size.deepFirst = size.shallow, size.deep
	if len(tries) > 1 {
		first := sizeGrowing(shape, s, tries[:1])
		size.shallowFirst, size.deepFirst = first.shallow, first.deep
	}
	return size
}

// sizeGrowing estimates the size of fitting a table of that shape with
// settings s, when growAnchors tries the bases tries. It mirrors
// kernel's fit: the shallow machine's passes, unless the deep machine
// alone is fitted; a cross-validation of the deep machine, unless the
// cost and the bandwidth are both fixed or the shallow machine alone is
// fitted (as the default fit does on tables that racesDeep leaves to
// it), on at most SelectionRows rows, repeated on small sets; then the
// final fit of the machine chosen on all rows, for the deep machine from
// s.Starts initial points.
func sizeGrowing(shape fitShape, s Settings, tries []estimate) fitSize {
	rows, inputs := shape.rows, shape.inputs
	dims := s.Dims
	if dims == nil {
		dims = append(DefaultHidden(), shape.outputs)
	}
	anchors := func(n int) int {
		if s.Anchors > 0 {
			return min(n, s.Anchors)
		}
		return min(n, DeepAnchors)
	}
	final := machineCost{dims: dims, inputs: inputs, rows: rows, anchors: anchors(rows)}
	size := fitSize{dims: dims, params: final.params(), span: inputs + final.anchors}
	common := estimate{seconds: baseSeconds + cellSeconds*float64(shape.cells),
		bytes: baseBytes + cellBytes*float64(shape.cells) + encodedCopies*8*float64(rows)*float64(inputs)}
	deepSettings := s.Dims != nil || s.Costs != nil || s.Bandwidths != nil
	shallowOnly := s.Family == Shallow || s.Weights != nil || (s.Family == AutoFamily && !deepSettings && !racesDeep(rows, raceInputs(inputs, shape.levels)))
	deepOnly := !shallowOnly && (s.Family == Deep || deepSettings)
	variants := 1 // the scales of the targets that the selections try
	if shape.countLike && s.TargetScale == AutoScale {
		variants = 2
	}
	if !deepOnly || len(s.Costs) != 1 || len(s.Bandwidths) != 1 {
		// A selection, whose folds split at most SelectionRows rows.
		size.selectionRows = min(rows, SelectionRows)
		size.folds = s.FoldsFor(size.selectionRows)
	}
	var passes estimate // the shallow machine's
	if !deepOnly {
		passes = shallowCost(shape, s, variants, tries)
		size.shallow = estimate{common.seconds + passes.seconds, common.bytes + passes.bytes}
	}
	if shallowOnly {
		return size
	}
	// The deep machine's final fit holds its values once the shallow
	// machine's passes are done.
	size.deep = estimate{size.shallow.seconds, common.bytes + math.Max(passes.bytes, final.liveBytes())}
	if deepOnly {
		size.deep.seconds = common.seconds
	}
	costs, bandwidths := len(s.Costs), len(s.Bandwidths)
	if s.Costs == nil {
		costs = len(DefaultCosts())
	}
	if s.Bandwidths == nil {
		bandwidths = len(DefaultBandwidths())
	}
	if costs > 1 || bandwidths > 1 {
		n, folds := size.selectionRows, size.folds
		train := n - n/folds
		fold := machineCost{dims: dims, inputs: inputs, rows: train, anchors: anchors(train)}
		repeats := min(3, max(1, 300/n))
		size.selection = costs * bandwidths * folds * repeats * variants
		work := float64(size.selection) * (selectionIters*fold.flopsPerIter() + fold.spanFlops())
		size.deep.seconds += selectionSeconds * work
		// The selection's fits run while the shallow machine's scores
		// are held.
		if !deepOnly {
			size.shallow.seconds += selectionSeconds * work
		}
	}
	iters := float64(finalIters)
	if s.MaxIter > 0 {
		iters = math.Min(iters, float64(s.MaxIter))
	}
	more := math.Pow(math.Max(1, float64(final.anchors)/DeepAnchors), anchorIterPower)
	size.deep.seconds += finalSeconds * float64(max(1, s.Starts)) * (more*iters*final.flopsPerIter() + final.spanFlops())
	return size
}

// shallowPasses is the number of passes of the shallow machine in a fit
// of that shape with settings s: one for a classification or fixed
// inputs, three for a regression whose inputs' scale and relevance are
// chosen, two for a classification whose inputs' scale is chosen or
// whose quantiles may be averaged in (see classQuantileRows and blends),
// two more when the dates' cycles are weighed, and
// one more than the columns tried by their codes, when there are any.
func shallowPasses(shape fitShape, s Settings) int {
	passes := 1
	switch {
	case s.Raw || s.InputScale != AutoInputs:
	case !shape.classify:
		passes += 2
	case shallowRows(shape.rows, shallowWidth(shape.rows, shape.inputs, s)) >= classQuantileRows, blendable(shape.rows, s):
		passes++
	}
	if shape.cycles {
		passes += 2
	}
	if shape.codes > 0 && !s.Raw && s.InputScale == AutoInputs {
		passes += shape.codes + 1
	}
	return passes
}

// shallowCost is the time and memory that the shallow machine's passes
// add to a fit of that shape with settings s, scoring that many scales of
// the targets, and its final fit's tries of more anchors: each pass draws
// its anchors among all rows, and builds and scores the basis of each
// bandwidth on shallowRows rows, of the size of the rows or of the
// inputs and the anchors, whichever is smaller.
func shallowCost(shape fitShape, s Settings, variants int, tries []estimate) estimate {
	passes := shallowPasses(shape, s)
	rows, inputs := float64(shape.rows), float64(shape.inputs)
	anchors := float64(min(shape.rows, ShallowAnchors))
	basis := math.Min(float64(shallowRows(shape.rows, shallowWidth(shape.rows, shape.inputs, s))), inputs+anchors)
	bases := float64(len(shallowBandwidths()))
	grow := growCost(tries)
	return estimate{
		seconds: float64(passes)*(anchorSeconds*rows*inputs*anchors+float64(variants)*basisSeconds*bases*basis*basis*basis) + grow.seconds,
		bytes:   math.Max(anchorCopies*8*rows*anchors, grow.bytes),
	}
}

// growCost is the time and memory of the final fit's bases on all the
// rows at the counts of anchors whose tries are given: the time of all
// of them, the memory of the largest.
func growCost(tries []estimate) estimate {
	var e estimate
	for _, t := range tries {
		e.seconds += t.seconds
		e.bytes = math.Max(e.bytes, t.bytes)
	}
	return e
}

// growTries is the time and memory of the final fit's basis at each
// count of anchors that growAnchors may try, in order, none when the
// selection runs on all the rows or the count is set: each has rows x
// (inputs + anchors) features, whose Gram matrix and eigenbasis take
// the time. The inputs count the levels of the columns tried by their
// codes, at most one per codeRowsPerValue rows each, which the final fit
// may keep.
func growTries(shape fitShape, s Settings) []estimate {
	rows := shape.rows
	if s.Anchors != 0 || shallowRows(rows, shallowWidth(rows, shape.inputs, s)) >= rows {
		return nil
	}
	inputs := shape.inputs + shape.codes*rows/codeRowsPerValue(rows)
	var tries []estimate
	for _, m := range anchorGrowth(rows, inputs) {
		p := float64(inputs + m)
		tries = append(tries, estimate{seconds: growSeconds * float64(rows) * p * p, bytes: growCopies * 8 * float64(rows) * p})
	}
	return tries
}

// shallowWidth is the number of features of the shallow machine's basis
// on rows rows of that many inputs with settings s: its inputs and
// anchors.
func shallowWidth(rows, inputs int, s Settings) int {
	return inputs + anchorCount(rows, s.Anchors, ShallowAnchors)
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

// checkFitSize sizes the fit of a table of that shape with settings s,
// before it starts. It refuses a hidden block of -dims larger than the
// inputs plus the anchors: a block's states are the augmenter's image of
// the inputs plus the coefficients' combination of the anchors' kernels,
// and span at most that many dimensions, so that a larger block only
// costs; and a fit whose estimated memory exceeds what the machine has
// available, or whose time exceeds maxFitTime, saying what it would take.
// It announces in the log a fit that may take more than announceTime,
// with the range of what it will take (describeEstimate).
func checkFitSize(shape fitShape, s Settings, o *Options) error {
	size := sizeFit(shape, s)
	for i, d := range size.dims[:len(size.dims)-1] {
		if d > size.span {
			return optionf("-dims %s: block %d has %d dimensions, but its states span at most %d, the %d inputs as encoded plus the %d anchors: "+
				"a larger block only costs; want at most %d", joinInts(size.dims), i+1, d, size.span, shape.inputs, size.span-shape.inputs, size.span)
		}
	}
	if size.folds > size.selectionRows {
		return optionf("-folds %d: the cross-validation runs on %d rows; want at most %d", size.folds, size.selectionRows, size.selectionRows)
	}
	what := "the shallow machine"
	if size.deep.seconds > 0 {
		what = fmt.Sprintf("a deep machine of %s parameters", groupDigits(size.params))
		if size.shallow.seconds > 0 {
			what = "the shallow machine or " + what
		}
	}
	if size.selection > 0 {
		what += fmt.Sprintf(", %s fits to choose its settings", groupDigits(size.selection))
	}
	worst := size.worst()
	if avail, ok := budget.Available(); ok && worst.bytes > float64(avail) {
		return fmt.Errorf("the fit would need about %s of memory (%s), and %s are available; "+
			"ask for smaller -dims, fewer -anchors or fewer input columns", budget.DecimalBytes(worst.bytes), what, budget.DecimalBytes(float64(avail)))
	}
	if worst.seconds > maxFitTime.Seconds() {
		return fmt.Errorf("the fit would take about %s of processor time here (%s); ask for smaller -dims, fewer -anchors or -starts, "+
			"or fix -cost and -bandwidth to skip the selection", formatSeconds(worst.seconds), what)
	}
	if worst.seconds > announceTime.Seconds() {
		o.log("this fit will take about %s (%s)", describeEstimate(size), what)
	}
	return nil
}

// describeEstimate says what the fit will take: for each family it may
// end with, its processor time and peak memory, from the fit that stops
// growing its anchors at the first count it tries to the fit that tries
// every one, where they differ.
func describeEstimate(size fitSize) string {
	say := func(first, all estimate) string {
		return fmt.Sprintf("%s of processor time and %s of memory",
			between(formatSeconds(first.seconds), formatSeconds(all.seconds)), between(budget.DecimalBytes(first.bytes), budget.DecimalBytes(all.bytes)))
	}
	switch {
	case size.deep.seconds == 0:
		return say(size.shallowFirst, size.shallow)
	case size.shallow.seconds == 0:
		return say(size.deepFirst, size.deep)
	}
	return say(size.shallowFirst, size.shallow) + ", or " + say(size.deepFirst, size.deep) + " if the deep machine wins the selection"
}

// between writes the range from the amount least to most, each a
// number and its unit, the unit once where they share it, or one of
// them where they are written alike.
func between(least, most string) string {
	if least == most {
		return least
	}
	l, unit, _ := strings.Cut(least, " ")
	if m, mostUnit, _ := strings.Cut(most, " "); unit == mostUnit {
		return l + " to " + m + " " + unit
	}
	return least + " to " + most
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
