package tabular

import (
	"fmt"
	"math"
	"slices"

	"github.com/parametric-machines/machines/internal/numeric"
	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// A Gaussian kernel on standardised inputs weighs every input alike, so
// that inputs which do not matter dilute the distances of those that do
// (a quarter beside the year that drives an interest rate, the five noise
// inputs of Friedman 1). Trees ignore such inputs. The learner measures
// each input's relevance as the root mean square of the fitted shallow
// machine's partial derivative along it over the rows (the diagonal of
// the expected gradient outer product), and tries the inputs multiplied
// by a damped power of it, computed in closed form (meanSquaredSlopes),
// since central differences would take a pair of passes per input.

// relevancePower damps the relevance before it weighs the inputs: the
// weights are the expected squared partial derivatives, relative to their
// mean over the inputs, to this power, the square root of the relative
// root mean square slope. Undamped, the weights fit the rows that then
// judge them (docs/learner.md).
const relevancePower = 0.25

// minRelevance bounds the weights below, so that an input of no measured
// relevance keeps a finite scale in the machine's input scaler.
const minRelevance = 1e-2

// relevance returns a weight per input of the shallow machine of pass at
// its best setting on the targets as they are: the mean over the pass's
// rows of the squared partial derivatives of its outputs along that
// input, divided by their mean over the inputs, to relevancePower, at
// least minRelevance. It returns nil if no setting was scored or the
// machine is flat.
func relevance(pass *shallowPass) []float64 {
	m, x, _ := passMachine(pass, 0, nil) // no error on all the rows
	if m == nil {
		return nil
	}
	return relevanceWeights(meanSquaredSlopes(m, x))
}

// relevanceWeights returns the weights of the inputs whose mean squared
// partial derivatives are w, in place: relative to their mean, to
// relevancePower, at least minRelevance; nil if they are all 0.
func relevanceWeights(w []float64) []float64 {
	d := len(w)
	var mean float64
	for _, v := range w {
		mean += v / float64(d)
	}
	if !(mean > 0) {
		return nil
	}
	for j, v := range w {
		w[j] = math.Max(math.Pow(v/mean, relevancePower), minRelevance)
	}
	return w
}

// passMachine returns the shallow machine of pass at its best setting on
// the targets as they are, fitted to the pass's rows (or those of its
// rows listed in rows) and unshrunk, with those rows; a classifier's
// machine fits the one-hot labels of its outputs classes (outputs is
// unused for a regression). It returns nil if no setting was scored.
func passMachine(pass *shallowPass, outputs int, rows []int) (*kernel.Machine, *mat.Dense, error) {
	sp := pass.space
	data := sp.sub[0] // the targets as they are
	best, cost := pass.bestSetting()
	if best < 0 {
		return nil, nil, nil
	}
	basis := pass.bases[best]
	y := targetsOf(data, outputs)
	_, k := y.Dims()
	// The machine as fitted, unshrunk; residuals, though empty, mark it
	// a regression's, whose factors of 1 leave a classifier's scores too.
	unit := calibration{factor: slices.Repeat([]float64{1}, k), residuals: make([][]float64, k)}
	if rows == nil {
		m, _ := basis.machine(basis.all, basis.all.project(y), cost, sp.anchors, unit)
		return m, mat.DenseCopyOf(data.x), nil
	}
	// One cost on some rows: a Cholesky factorisation, not a solver.
	beta, intercept, err := basis.solutionAt(rows, pick(data.w, rows), y, cost)
	if err != nil {
		return nil, nil, err
	}
	m, _ := basis.machineOf(beta, intercept, sp.anchors, unit)
	return m, pickRows(data.x, rows), nil
}

// bestSetting returns the index of the bandwidth and the cost of the
// pass's candidate of lowest rankLoss on the targets as they are, the
// setting of passMachine; -1 if no setting was scored.
func (pass *shallowPass) bestSetting() (int, float64) {
	best, cost := -1, 0.0
	bestLoss := math.Inf(1)
	for b, bs := range pass.all {
		if bs == nil {
			continue // not scored
		}
		for _, c := range bs.cands {
			if l := rankLoss(c); !c.Diverged && !c.LogTarget && l < bestLoss {
				best, cost, bestLoss = b, c.Cost, l
			}
		}
	}
	return best, cost
}

// meanSquaredSlopes returns, for each input of the shallow machine m
// (dims [inputs, outputs], its first block the input itself), the mean
// over the rows of x of the squared partial derivatives of its outputs
// along that input, summed over the outputs: the diagonal of
// gradientMoments.
func meanSquaredSlopes(m *kernel.Machine, x *mat.Dense) []float64 {
	n, d := x.Dims()
	w := make([]float64, d)
	g := newSlopes(m, x)
	for o := range m.Outputs() {
		grad := g.output(o)
		for i := range n {
			for j, v := range grad.RawRowView(i) {
				w[j] += v * v / float64(n)
			}
		}
	}
	return w
}

// slopes computes the partial derivatives of a shallow machine's outputs
// at rows x. Output o is A_o x + sum_q C_oq exp(-gamma |x - a_q|^2),
// whose derivative along x_j is A_oj - 2 gamma (x_j u - v_j), with
// u = sum_q C_oq K_q and v_j = sum_q C_oq K_q a_qj: one product of the
// kernel matrix with the anchors per output, O(rows x anchors x inputs).
type slopes struct {
	m     *kernel.Machine
	x     *mat.Dense
	k, kc *mat.Dense // the kernel matrix, rows x anchors, and scratch
	gamma float64
	v     mat.Dense
}

// newSlopes returns the slopes of the shallow machine m (dims [inputs,
// outputs], its first block the input itself) at the rows of x.
func newSlopes(m *kernel.Machine, x *mat.Dense) *slopes {
	n, _ := x.Dims()
	na, _ := m.Anchors.Dims()
	g := &slopes{m: m, x: x, k: mat.NewDense(n, na, nil), kc: mat.NewDense(n, na, nil), gamma: kernelGamma(m.Sigma(), m.Laplacian)}
	for i := range n {
		row, xi := g.k.RawRowView(i), x.RawRowView(i)
		for q := range row {
			row[q] = kernelDistance(xi, m.Anchors.RawRowView(q), m.Laplacian)
		}
		numeric.NegExp(row, g.gamma)
	}
	return g
}

// laplacianOutput is output for the Laplacian kernel
// exp(-gamma |x - a_q|_1), whose derivative along x_j is
// A_oj - gamma sum_q C_oq K_q sign(x_j - a_qj), with kc holding C_oq K_q.
func (g *slopes) laplacianOutput(o int) *mat.Dense {
	n, d := g.x.Dims()
	if g.v.IsEmpty() {
		g.v.ReuseAs(n, d)
	}
	a := g.m.A.RawRowView(o)
	for i := range n {
		row, xi, kc := g.v.RawRowView(i), g.x.RawRowView(i), g.kc.RawRowView(i)
		copy(row, a)
		for q, w := range kc {
			aq := g.m.Anchors.RawRowView(q)
			for j, xj := range xi {
				switch {
				case xj > aq[j]:
					row[j] -= g.gamma * w
				case xj < aq[j]:
					row[j] += g.gamma * w
				}
			}
		}
	}
	return &g.v
}

// output returns the partial derivatives of output o along each input at
// each row (rows x inputs), in a matrix that the next call overwrites.
func (g *slopes) output(o int) *mat.Dense {
	c := g.m.C.RawRowView(o)
	g.kc.Apply(func(_, q int, kv float64) float64 { return kv * c[q] }, g.k)
	if g.m.Laplacian {
		return g.laplacianOutput(o)
	}
	mul(&g.v, g.kc, g.m.Anchors)
	a := g.m.A.RawRowView(o)
	n, _ := g.x.Dims()
	for i := range n {
		u := floats.Sum(g.kc.RawRowView(i))
		row := g.v.RawRowView(i)
		for j, xj := range g.x.RawRowView(i) {
			row[j] = a[j] - 2*g.gamma*(xj*u-row[j])
		}
	}
	return &g.v
}

// weighInputs returns p, or p with its standardised inputs multiplied by
// their relevance when the shallow machine's lowest held-out loss is
// lower so; the weights then divide the scales of the input scaler, so
// that the machine applies them to new rows. It records the choice in
// res. A classifier, a Raw fit, a fit with nothing to search and one
// whose InputScale is not AutoInputs are left as they are.
func weighInputs(p *prepared, val *validation, outputs int, s Settings, res *Result) (*prepared, error) {
	if s.Raw || val == nil || p.linear.labels != nil || s.InputScale != AutoInputs {
		return p, nil
	}
	if p.pass == nil {
		if _, err := shallowLoss(p, val, outputs, s, nil); err != nil {
			return nil, err
		}
	}
	w := relevance(p.pass)
	if w == nil {
		return p, nil
	}
	q, err := weighedBy(p, w, val, outputs, s, p.pass.best(passBandwidths))
	if err != nil {
		return nil, err
	}
	weighed := q.pass.bestLoss()
	plain := p.pass.bestLoss()
	res.RelevanceLosses = []float64{plain, weighed}
	// A small regression's weights are kept by their evidence, as its
	// settings are ranked (rankLoss).
	ranked := []float64{p.pass.lowest(rankLoss), q.pass.lowest(rankLoss)}
	if p.pass.evidenced() {
		res.RelevanceEvidence = ranked
	}
	if s.Progress != nil {
		fmt.Fprintf(s.Progress, "tabular: the shallow machine's lowest held-out loss is %.4g on the inputs unweighed, %.4g weighed by their relevance (weights %.3g to %.3g)\n",
			plain, weighed, slices.Min(w), slices.Max(w))
		if e := res.RelevanceEvidence; e != nil {
			fmt.Fprintf(s.Progress, "tabular: its lowest negative log evidence per row, which chooses, is %.4g unweighed, %.4g weighed\n", e[0], e[1])
		}
	}
	if lowerLoss(ranked[1], ranked[0]) {
		res.Relevance = w
		return q, nil
	}
	return p, nil
}
