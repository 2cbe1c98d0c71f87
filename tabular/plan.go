package tabular

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/numeric"
	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Plan is what a seeded sample of a table decides of the shallow machine
// fitted to all of it: the encoding of the inputs, their scale, the
// anchors, the bandwidth and the cost, the target scale and the
// calibration. Its Stats add up the rows of the table a chunk at a time,
// on any number of workers, and Solve fits the machine from their sum,
// so that the memory of a fit does not grow with the rows.
//
// A Plan is read-only once made: workers may share one, or decode their
// own from its JSON (MarshalJSON).
type Plan struct {
	model  *Model
	weight string        // the column of sample weights, "" for none
	out    *scale.Scaler // the targets' standardisation on the fit scale; nil for a classifier or a raw fit
	shift  []float64     // the sample's mean features, about which Stats add up
	more   *mat.Dense    // anchors beyond the model's, in the order drawn (see moreAnchors); nil for none
	gamma  float64       // the kernel exp(-gamma d^2)
	toC    *mat.Dense    // the basis of the model's anchors (see anchorBasis)
	norms  []float64     // the squared norms of every anchor, the model's then more
	cal    calibration   // the sample's calibration
	report Report        // the sample's fit
	far    []*farBound   // each regression target's, nil where the sample gives none
	units  []string      // the units of a regression's targets in the sample (see chunkLabels)
}

// NewPlan fits the shallow machine to sample, a seeded sample of the rows
// of a table (or all of them), as Fit does with opts, and returns the plan
// of the fit of the whole table. Options that describe the deep machine
// (Family Deep, Dims, Costs, Bandwidths) are errors; so is Balance, whose weights depend on
// every row's class. Options.Anchors sets the number of anchors, drawn
// from the sample.
func NewPlan(sample *dataset.Frame, targets []string, opts Options) (*Plan, error) {
	return NewStreamPlan(sample, targets, opts, 0)
}

// NewStreamPlan is NewPlan for a table of the given rows, of which
// sample is a seeded sample, as FitSource streams it: for more than
// StreamRows rows, with opts.Anchors 0, it fits the sample at
// StreamAnchors(rows) anchors and, where more pay on the sample's
// held-out rows, draws the more anchors that streamCounts gives the
// table, among which Solve chooses the count on the rows that Stats
// hold out. A fit spread over machines makes its plan so to fit the
// model that FitSource fits.
func NewStreamPlan(sample *dataset.Frame, targets []string, opts Options, rows int) (*Plan, error) {
	grow := rows > streamRows && opts.Anchors == 0
	if rows > streamRows {
		opts.tableRows = rows
	}
	if grow {
		opts.Anchors = StreamAnchors(rows)
	}
	switch {
	case opts.Family == Deep || opts.Dims != nil || opts.Costs != nil || opts.Bandwidths != nil:
		return nil, optionf("-family deep, -dims, -cost and -bandwidth describe the deep machine: a plan fits the shallow one")
	case opts.Balance:
		return nil, optionf("-balance: a plan cannot weigh the classes, whose counts only the whole table knows; give a -weight column")
	case opts.ShallowKernel == LaplacianKernel:
		return nil, optionf("-shallow-kernel laplacian: a plan's sums are those of the Gaussian kernel; a streamed fit's kernel is the Gaussian")
	}
	opts.Family = Shallow
	md, run, err := fitFrame(sample, targets, opts)
	if err != nil {
		return nil, err
	}
	p := &Plan{model: md, weight: opts.Weight, report: *run.rep}
	if run.task == Regression {
		p.far = sampleBounds(run.t.Values, run.outputs)
		p.units = targetUnits(sample, run.names)
	}
	if run.task == Regression && !opts.Raw {
		y := mat.Matrix(mat.NewDense(len(run.t.Rows), run.outputs, run.t.Values))
		if md.Fit.LogTarget {
			if y, err = log1p(y); err != nil {
				return nil, err
			}
		}
		p.out = scale.FitScaler(y)
	}
	if err := p.init(); err != nil {
		return nil, err
	}
	p.shift = weightedMean(p.features(run.x, nil), nil, float64(len(run.t.Rows)))
	if !grow {
		return p, nil
	}
	if counts := streamCounts(rows, p.base()); len(counts) > 1 {
		// The anchors of the next count first, which moreAnchors then
		// draws again as the first of all of them.
		x := p.machineInputs(run.x)
		q := *p
		if q.more = moreAnchors(x, md.Machine.Anchors, counts[1]-p.base(), opts.Seed); q.more == nil {
			return p, nil
		}
		if pays, err := q.pays(sample, run.x); err != nil || !pays {
			return p, err
		}
		p.more = moreAnchors(x, md.Machine.Anchors, counts[len(counts)-1]-p.base(), opts.Seed)
		if err := p.init(); err != nil {
			return nil, err
		}
		p.shift = weightedMean(p.features(run.x, nil), nil, float64(len(run.t.Rows)))
	}
	return p, nil
}

// pays reports whether the plan's anchors, more than its model's, lower
// the squared error on the rows of the sample that Stats hold out,
// fitted to its other rows, below the model's count's by more than
// growMargin of it (see stepCounts); x are the sample's rows, encoded.
// Only then does a streamed fit add up the features of every count of
// streamCounts, whose time would otherwise be lost on the tables where
// the sample's count is enough.
func (p *Plan) pays(sample *dataset.Frame, x *mat.Dense) (bool, error) {
	if err := p.init(); err != nil {
		return false, err
	}
	p.shift = weightedMean(p.features(x, nil), nil, float64(x.RawMatrix().Rows))
	s := p.NewStats()
	if err := s.Add(sample); err != nil {
		return false, err
	}
	if h := s.HeldOut; h.Rows == 0 || s.Rows == h.Rows || !(h.Weight > 0) || !(s.Weight > h.Weight) {
		return false, nil
	}
	hc, _, err := p.chooseAnchors(s)
	if err != nil {
		return false, err
	}
	return hc.Anchors > p.base(), nil
}

// init derives from the plan's model what its stats and its solve use.
func (p *Plan) init() error {
	m := p.model.Machine
	if m == nil || m.Anchors == nil || len(m.Dims) != 2 || !m.InputBlock {
		return errors.New("tabular: the plan's model is not a shallow machine")
	}
	if m.Sum != nil || m.Hedges() != nil {
		return errors.New("tabular: the plan's model averages several machines; a plan refits one")
	}
	if p.more != nil {
		if _, d := p.more.Dims(); d != p.inputs() {
			return fmt.Errorf("tabular: %d inputs to the more anchors, %d to the model's", d, p.inputs())
		}
	}
	p.gamma = 1 / (2 * m.Bandwidth * m.Bandwidth)
	a := p.anchors()
	n, _ := a.Dims()
	p.norms = make([]float64, n)
	for i := range n {
		p.norms[i] = floats.Dot(a.RawRowView(i), a.RawRowView(i))
	}
	var err error
	if p.toC, err = p.basis(p.base()); err != nil {
		return err
	}
	p.cal = p.calibration()
	return nil
}

// anchors returns every anchor of the plan: the model's, then more.
func (p *Plan) anchors() *mat.Dense {
	a := p.model.Machine.Anchors
	if p.more == nil {
		return a
	}
	var all mat.Dense
	all.Stack(a, p.more)
	return &all
}

// base returns the number of the model's anchors, those of the sample's
// fit, which the plan's other anchors follow.
func (p *Plan) base() int {
	n, _ := p.model.Machine.Anchors.Dims()
	return n
}

// basis returns the basis (see anchorBasis) of the plan's first m
// anchors.
func (p *Plan) basis(m int) (*mat.Dense, error) {
	a := p.anchors()
	between := mat.NewDense(m, m, nil)
	for i := range m {
		for j := range m {
			between.Set(i, j, sqDistance(a.RawRowView(i), a.RawRowView(j)))
		}
	}
	return anchorBasis(between, p.gamma)
}

// calibration returns the calibration of the plan's model.
func (p *Plan) calibration() calibration {
	md := p.model
	k := md.Machine.Outputs()
	c := calibration{factor: make([]float64, k)}
	for j := range c.factor {
		c.factor[j] = 1
	}
	if md.Task == Classification {
		c.factor = c.factor[:1]
		if md.Fit.Calibration != nil {
			c.factor[0], c.bias = md.Fit.Calibration.LogitScale, md.Fit.Calibration.ClassBias
		}
		return c
	}
	c.residuals = [][]float64{} // a regression's, which the machine's intervals keep
	if md.Fit.Calibration != nil && md.Fit.Calibration.Shrinkage != nil {
		c.factor = slices.Clone(md.Fit.Calibration.Shrinkage)
	}
	return c
}

// Width returns the number of features each row adds to the plan's
// stats: the inputs, then the row's kernel function at each anchor.
func (p *Plan) Width() int { return p.inputs() + p.Anchors() }

// Outputs returns the number of columns of targets the plan fits: one
// per regression target, or one per class.
func (p *Plan) Outputs() int { return p.model.Machine.Outputs() }

// Anchors returns the number of the plan's anchors: those of the
// sample's fit, and the more among whose prefixes Solve chooses.
func (p *Plan) Anchors() int {
	n := p.base()
	if p.more != nil {
		m, _ := p.more.Dims()
		n += m
	}
	return n
}

// Sample returns the model fitted to the sample and the report of its
// fit.
func (p *Plan) Sample() (*Model, *Report) { return p.model, &p.report }

// features returns the features [x, k(x)] of the encoded rows x, on
// the machine's scale: the inputs as the machine sees them, then the
// kernel at each anchor. The solve maps k(x) to its coordinates psi(x)
// in the anchors' basis, which Stats need not compute for every row.
// The features are written to buf if it holds them (nil: a new
// matrix), so that chunk after chunk reuses one.
func (p *Plan) features(x *mat.Dense, buf []float64) *mat.Dense {
	x = p.machineInputs(x)
	n, d := x.Dims()
	a := p.anchors()
	na, _ := a.Dims()
	// The squared distances |x|^2 + |a|^2 - 2 x.a, the inner products
	// by the engine's matrix product, land in the kernel's columns.
	if cap(buf) < n*(d+na) {
		buf = make([]float64, n*(d+na))
	}
	u := mat.NewDense(n, d+na, buf[:n*(d+na)])
	mul(u.Slice(0, n, d, d+na).(*mat.Dense), x, a.T())
	for i := range n {
		row, xi := u.RawRowView(i), x.RawRowView(i)
		copy(row, xi)
		xx := floats.Dot(xi, xi)
		k := row[d:]
		for j, g := range k {
			k[j] = max(0, xx+p.norms[j]-2*g)
		}
		numeric.NegExp(k, p.gamma)
	}
	return u
}

// machineInputs returns the encoded rows x as the machine sees them:
// through its quantiles and its input scaler.
func (p *Plan) machineInputs(x *mat.Dense) *mat.Dense {
	m := p.model.Machine
	if m.Quantiles != nil {
		x = m.Quantiles.Transform(x)
	}
	if m.Input != nil {
		x = m.Input.Transform(x)
	}
	return x
}

// toBasis returns the map from the features of Stats of the first
// anchors, whose basis is toC, to the features that the machine's ridge
// regression fits, [x, psi(x)]: the identity on the inputs and the
// anchors' basis on the kernel.
func (p *Plan) toBasis(toC *mat.Dense) *mat.Dense {
	d := p.inputs()
	na, r := toC.Dims()
	t := mat.NewDense(d+na, d+r, nil)
	for i := range d {
		t.Set(i, i, 1)
	}
	t.Slice(d, d+na, d, d+r).(*mat.Dense).Copy(toC)
	return t
}

// planJSON is a Plan as JSON: its model, as a model file holds it, the
// targets' scale and the features' shift; the rest follows from them.
type planJSON struct {
	Model  json.RawMessage `json:"model"`
	Weight string          `json:"weight,omitempty"`
	Out    *scale.Scaler   `json:"out,omitempty"`
	Shift  []float64       `json:"shift"`
	// More are the anchors beyond the model's, row by row.
	More [][]float64 `json:"more,omitempty"`
	// Units are the units of a regression's targets in the sample;
	// plans written without them read plain numbers.
	Units []string `json:"units,omitempty"`
}

// MarshalJSON writes the plan, so that workers elsewhere can add up
// stats for it.
func (p *Plan) MarshalJSON() ([]byte, error) {
	md, err := json.Marshal(p.model)
	if err != nil {
		return nil, err
	}
	pj := planJSON{Model: md, Weight: p.weight, Out: p.out, Shift: p.shift, Units: p.units}
	if p.more != nil {
		n, _ := p.more.Dims()
		for i := range n {
			pj.More = append(pj.More, p.more.RawRowView(i))
		}
	}
	return json.Marshal(pj)
}

// UnmarshalJSON reads a plan that MarshalJSON wrote, and checks it.
func (p *Plan) UnmarshalJSON(data []byte) error {
	var pj planJSON
	if err := json.Unmarshal(data, &pj); err != nil {
		return fmt.Errorf("tabular: plan: %w", err)
	}
	md, err := Decode(pj.Model)
	if err != nil {
		return fmt.Errorf("tabular: plan: %w", err)
	}
	q := Plan{model: md, weight: pj.Weight, out: pj.Out, shift: pj.Shift, units: pj.Units}
	if pj.Units != nil && len(pj.Units) != len(md.TargetNames()) {
		return fmt.Errorf("tabular: plan: %d units for %d targets", len(pj.Units), len(md.TargetNames()))
	}
	if len(pj.More) > 0 && md.Machine != nil && md.Machine.Anchors != nil {
		_, d := md.Machine.Anchors.Dims()
		q.more = mat.NewDense(len(pj.More), d, nil)
		for i, row := range pj.More {
			if len(row) != d {
				return fmt.Errorf("tabular: plan: more anchor %d has %d inputs, want %d", i, len(row), d)
			}
			q.more.SetRow(i, row)
		}
	}
	if err := q.init(); err != nil {
		return fmt.Errorf("tabular: plan: %w", err)
	}
	k := q.Outputs()
	if len(q.shift) != q.Width() || (q.out != nil && (len(q.out.Mean) != k || len(q.out.Scale) != k)) {
		return errors.New("tabular: plan: the shift or the targets' scale does not fit the model")
	}
	if slices.ContainsFunc(q.shift, func(v float64) bool { return math.IsInf(v, 0) || math.IsNaN(v) }) {
		return errors.New("tabular: plan: the shift is not finite")
	}
	if md.Encoder == nil || md.Fit == nil {
		return errors.New("tabular: plan: the model has no encoder or no fit record")
	}
	*p = q
	return nil
}
