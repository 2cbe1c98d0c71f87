package tabular

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Solve fits the plan's machine to the rows that acc adds up: the ridge
// regression of the sample's cost on the features of every row, in
// closed form, with the sample's calibration and intervals, bounded to
// the range of every row's targets. It is the fit that Fit makes of the
// same rows with the plan's anchors and settings, up to rounding.
func (p *Plan) Solve(acc *Stats) (*Model, *Report, error) {
	width, k := p.Width(), p.Outputs()
	if len(acc.Z) != width || len(acc.ZZ) != width*width || len(acc.ZY) != width*k || len(acc.Y) != k || len(acc.YY) != k {
		return nil, nil, fmt.Errorf("tabular: stats of %d features and %d outputs for a plan of %d and %d", len(acc.Z), len(acc.Y), width, k)
	}
	if acc.Rows == 0 || !(acc.Weight > 0) {
		return nil, nil, errors.New("tabular: no row with a target and a weight above 0 was added to the stats")
	}
	r, pr, err := p.ridge(acc)
	if err != nil {
		return nil, nil, err
	}
	m := p.model.Machine
	b := &shallowBasis{sigma: m.Bandwidth, inputs: p.inputs(), toC: p.toC}
	fitted, intercept := b.machine(r, pr, p.model.Fit.Cost, m.Anchors, p.cal)
	fitted.Quantiles, fitted.Input, fitted.LogTarget = m.Quantiles, m.Input, m.LogTarget
	fitted.Output = withIntercept(p.out, intercept)
	if m.Range != nil && acc.Low != nil {
		fitted.Range = widenedRange(mat.NewDense(2, k, slices.Concat(acc.Low, acc.High)))
	}
	md := *p.model
	fr := *md.Fit
	fr.Rows, fr.Dropped = acc.Rows, acc.Dropped
	md.Fit, md.Machine = &fr, fitted
	rep := p.report
	rep.Rows, rep.Dropped, rep.Warnings = acc.Rows, acc.Dropped, nil
	rep.Training = Evaluation{Task: md.Task, Rows: acc.Rows, Notes: []string{"not measured: the rows were added up without being kept"}}
	return &md, &rep, nil
}

// inputs returns the number of the machine's inputs.
func (p *Plan) inputs() int {
	_, d := p.model.Machine.Anchors.Dims()
	return d
}

// ridge returns the solver of the rows that acc adds up and the
// projection of their targets, as shallowBasis.ridge and ridge.project
// make them of the rows themselves. The weights are scaled to mean 1,
// as Fit scales them.
func (p *Plan) ridge(acc *Stats) (*ridge, projection, error) {
	width, k := p.Width(), p.Outputs()
	scale := float64(acc.Rows) / acc.Weight
	dz := make([]float64, width) // the rows' mean, less the shift
	mean := make([]float64, width)
	for j := range dz {
		dz[j] = acc.Z[j] / acc.Weight
		mean[j] = p.shift[j] + dz[j]
	}
	dy := make([]float64, k)
	for j := range dy {
		dy[j] = acc.Y[j] / acc.Weight
	}
	gram := mat.NewDense(width, width, nil)
	for i := range width {
		for j := i; j < width; j++ {
			v := scale * (acc.ZZ[i*width+j] - acc.Weight*dz[i]*dz[j])
			gram.Set(i, j, v)
			gram.Set(j, i, v)
		}
	}
	zy := mat.NewDense(width, k, nil)
	zy.Apply(func(i, j int, _ float64) float64 {
		return scale * (acc.ZY[i*k+j] - acc.Weight*dz[i]*dy[j])
	}, zy)
	// The sums are of the kernel's values at the anchors; the ridge
	// regression's features are their coordinates in the anchors' basis.
	t := p.toBasis()
	_, q := t.Dims()
	var tg, g, tzy mat.Dense
	mul(&tg, t.T(), gram)
	mul(&g, &tg, t)
	sym := mat.NewSymDense(q, nil)
	for i := range q {
		for j := i; j < q; j++ {
			sym.SetSym(i, j, (g.At(i, j)+g.At(j, i))/2)
		}
	}
	mul(&tzy, t.T(), zy)
	r := &ridge{rows: acc.Rows, mean: make([]float64, q), v: new(mat.Dense), total: float64(acc.Rows)}
	mat.NewVecDense(q, r.mean).MulVec(t.T(), mat.NewVecDense(width, mean))
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return nil, projection{}, errors.New("tabular: eigendecomposition of the features' Gram matrix failed")
	}
	r.e = eig.Values(nil)
	top := slices.Max(r.e)
	for i, v := range r.e {
		if !(v > eigenFloor*top) || math.IsNaN(v) {
			r.e[i] = 0
		}
	}
	eig.VectorsTo(r.v)
	pr := projection{mean: dy, t: new(mat.Dense)}
	mul(pr.t, r.v.T(), &tzy)
	return r, pr, nil
}
