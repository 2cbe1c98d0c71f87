package tabular

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/crossval"
	"github.com/parametric-machines/machines/internal/numeric"
	"github.com/parametric-machines/machines/internal/parallel"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// A regression's relevance weights are measured on all the rows and
// judged by the held-out loss of those same rows (weighInputs). The
// choice stands: judged on the folds with each fold's weights, it chose
// worse on the panels (docs/learner-panel.md). But the held-out
// residuals of the machine so chosen are not honest: with many inputs
// for the rows the weights fit the noise, and on a regression of noise
// the selection's held-out R^2 is well above 0 and its intervals hold
// far fewer new rows than their level. Where the weights are kept, the fit
// therefore scores the chosen shallow setting again on the folds of the
// selection's first split, each fold's weights measured on its training
// rows alone (and its metric, where the inputs are mapped by theirs), and
// reports those held-out scores (Result.HeldOut) and keeps those
// residuals for the intervals. The model, its predictions and the
// calibration's factors are those of the choice.

// reweighing is what a fit that kept its relevance weights holds to
// measure them again on each fold: the data before the weights, the
// weights that weighInputs measured on all the rows, and the data once
// weighed and stripped of the columns left out (dropColumns), whose
// pass's best machine measures the metric (mapInputs).
type reweighing struct {
	plain, weighed *prepared
	measured       []float64
}

// resultHeldOut is result, the held-out scores and residuals measured
// again by rw when it is not nil: the chosen setting scored on the folds
// of val's first split (see folds), on workers, while the machine is
// fitted to all the rows, a fit of one core at a time, and recorded with
// the machine's calibration (see record).
func (f *shallowFit) resultHeldOut(p *prepared, res Result, rw *reweighing, val *validation, workers int, begin time.Time) (*Machine, Result, error) {
	if rw == nil {
		return f.result(p, res, begin)
	}
	var (
		out    []foldPrediction
		ferr   error
		done   = make(chan struct{})
		mapped = p.metric != nil
		fitted = res.Relevance
	)
	go func() {
		defer close(done)
		out, ferr = rw.folds(f, mapped, fitted, val, workers)
	}()
	m, res, err := f.result(p, res, begin)
	<-done
	if err != nil {
		return m, res, err
	}
	if ferr != nil {
		return nil, res, ferr
	}
	rw.record(out, f.sel.Candidates[f.sel.Best], &res)
	res.Seconds = time.Since(begin).Seconds()
	return m, res, nil
}

// folds returns the held-out predictions of the shallow fit f's setting
// on the folds of val's first split, on workers, each fold's inputs
// weighed by the relevance weights, and mapped by the metric if mapped,
// measured on its training rows alone (see fold).
func (rw *reweighing) folds(f *shallowFit, mapped bool, fitted []float64, val *validation, workers int) ([]foldPrediction, error) {
	folds := val.folds[:val.k]
	out := make([]foldPrediction, len(folds))
	err := parallel.Run(len(folds), workers, func(i int) error {
		var err error
		out[i], err = rw.fold(f, mapped, fitted, folds[i])
		return err
	})
	return out, err
}

// deepHeldOut scores again, as resultHeldOut scores the shallow one, the
// deep candidate c that the fit e chose, or its average with the shallow
// fit f's machine where f averages it (f.deep): each fold's deep machine
// fitted along e's costs at c's bandwidth, from the selection's start for
// that fold, on the fold's inputs (see inputs), and the average's members
// calibrated and weighed as in the model. It leaves res as it is where a
// fold's fit diverges at c's cost. The selection's validation must be
// the shallow machine's.
func (rw *reweighing) deepHeldOut(e *encodedFit, final *prepared, f *shallowFit, c Candidate, res *Result) error {
	val := e.val
	folds := val.folds[:val.k]
	job := slices.Index(e.bandwidths, c.Bandwidth) * len(val.folds) // as deepFolds numbers the fold's fits
	cost := slices.Index(e.costs, c.Cost)
	path := numeric.Indices(len(e.costs))
	slices.SortStableFunc(path, func(a, b int) int { return cmpFloat(e.costs[a], e.costs[b]) })
	arch := e.arch
	arch.Bandwidth = c.Bandwidth
	mapped := final.metric != nil
	out := make([]foldPrediction, len(folds))
	diverged := make([]bool, len(folds))
	err := parallel.Run(len(folds), e.s.Workers, func(i int) error {
		variants, _, err := rw.inputs(f, mapped, res.Relevance, folds[i])
		if err != nil {
			return err
		}
		v := variants[0]
		if c.LogTarget {
			v = variants[len(variants)-1]
		}
		h, err := fitPath(v, folds[i], arch, e.costs, path, e.s, uint64(job+i), nil)
		if err != nil || h[cost].diverged {
			diverged[i] = err == nil
			return err
		}
		o := foldPrediction{pred: h[cost].pred, mean: mat.NewDense(len(folds[i].Test), len(h[cost].mean), nil), test: v.rows(folds[i].Test)}
		for r := range len(folds[i].Test) {
			o.mean.SetRow(r, h[cost].mean)
		}
		if a := f.deep; a != nil {
			sh, err := rw.fold(f, mapped, res.Relevance, folds[i])
			if err != nil {
				return err
			}
			o.pred = weighed(a.deepCal.calibrated(o.pred, o.mean), f.cal.calibrated(sh.pred, sh.mean), a.weight)
			o.mean = weighed(o.mean, sh.mean, 0.5)
		}
		out[i] = o
		return nil
	})
	if err != nil || slices.Contains(diverged, true) {
		return err
	}
	rw.record(out, c, res)
	return nil
}

// record sets res.HeldOut to candidate c with the held-out loss and score
// of the folds' predictions out, and replaces the residuals of
// res.Calibration by theirs, shrunk by its factors (see scoreFolds).
func (rw *reweighing) record(out []foldPrediction, c Candidate, res *Result) {
	losses, scores, residuals := scoreFolds(out, calibration{factor: res.Calibration.Shrinkage})
	c.Loss, c.LossStd = stat.MeanStdDev(losses, nil)
	c.Score, c.ScoreStd = stat.MeanStdDev(scores, nil)
	res.HeldOut = &c
	res.Calibration.Residuals = residuals
}

// scoreFolds returns the held-out loss and score of each fold's
// prediction in out, shrunk by cal's factors about its means and mapped
// back to the targets' scale, and for each output the sorted absolute
// residuals of the shrunk predictions on the scale the machine fits. It
// shrinks out's predictions in place.
func scoreFolds(out []foldPrediction, cal calibration) (losses, scores []float64, residuals [][]float64) {
	residuals = make([][]float64, len(cal.factor))
	losses, scores = make([]float64, len(out)), make([]float64, len(out))
	for i, o := range out {
		y := o.test.targets()
		n, _ := o.pred.Dims()
		cal.shrink(o.pred, o.mean)
		for j := range residuals {
			for r := range n {
				residuals[j] = append(residuals[j], math.Abs(y.At(r, j)-o.pred.At(r, j)))
			}
		}
		if o.test.back != nil {
			o.test.back(o.pred)
		}
		h := heldOutOf(o.pred, o.test)
		losses[i], scores[i] = h.loss, h.score
	}
	for _, r := range residuals {
		slices.Sort(r)
	}
	return losses, scores, residuals
}

// foldPrediction is the held-out prediction of one fold on the scale the
// machine fits, unshrunk, the means of the targets it was made about, and
// the fold's held-out rows.
type foldPrediction struct {
	pred, mean *mat.Dense
	test       problemData
}

// fold returns the held-out prediction of fold by the shallow fit
// f's setting (the mean of its members' or costs', if it averages them)
// on the fold's inputs (see inputs): each member's basis on them, solved
// on the fold's training rows at each cost by a Cholesky factorisation
// (solutionAt), which leave-one-out and every other cost would need the
// eigenvectors of.
func (rw *reweighing) fold(f *shallowFit, mapped bool, fitted []float64, fold crossval.Fold) (foldPrediction, error) {
	variants, anchors, err := rw.inputs(f, mapped, fitted, fold)
	if err != nil {
		return foldPrediction{}, err
	}
	sp := f.space
	in := sp.inputs(variants[0].x.(*mat.Dense), anchors)
	sigmas := shallowBandwidths()
	floats.Scale(in.anchorsDistance(), sigmas)
	members := f.members
	if members == nil {
		members = []Candidate{f.sel.Candidates[f.sel.Best]}
	}
	list, costs := make([]int, len(members)), make([][]float64, len(members))
	for i, c := range members {
		if list[i] = slices.Index(sp.sigmas, c.Bandwidth); list[i] < 0 {
			panic(fmt.Errorf("%w: tabular: bandwidth %g is not one of the selection's", ad.ErrValue, c.Bandwidth))
		}
		costs[i] = []float64{c.Cost}
		if f.costs != nil {
			costs[i] = f.costs
		}
	}
	v := variants[0]
	if members[0].LogTarget {
		v = variants[len(variants)-1]
	}
	y, w := targetsOf(v, f.outputs), pick(v.w, fold.Train)
	out := foldPrediction{test: v.rows(fold.Test)}
	parts := 0
	for i, b := range list {
		basis, err := newShallowBasis(in, sigmas[b], 1)
		if err != nil {
			return foldPrediction{}, err
		}
		test := pickRows(basis.z, fold.Test)
		for _, c := range costs[i] {
			beta, intercept, err := basis.solutionAt(fold.Train, w, y, c)
			if err != nil {
				return foldPrediction{}, err
			}
			var pred mat.Dense
			mul(&pred, test, beta)
			pred.Apply(func(_, j int, x float64) float64 { return x + intercept[j] }, &pred)
			if out.pred == nil {
				out.pred = &pred
			} else {
				out.pred.Add(out.pred, &pred)
			}
			parts++
		}
	}
	mean := weightedMean(pickRows(y, fold.Train), w, sumOr(w, len(fold.Train)))
	out.mean = mat.NewDense(len(fold.Test), len(mean), nil)
	for r := range len(fold.Test) {
		out.mean.SetRow(r, mean)
	}
	out.pred.Scale(1/float64(parts), out.pred)
	return out, nil
}

// inputs returns the rows of the shallow fit f's selection, on each scale
// of the targets, and its anchors, on the inputs weighed by the relevance
// of the plain pass's best machine fitted on the training rows of fold,
// its columns left out as in fitted (the fit's weights, where they differ
// from those measured), and mapped, if mapped, by the metric of the
// weighed pass's best machine fitted on those rows.
func (rw *reweighing) inputs(f *shallowFit, mapped bool, fitted []float64, fold crossval.Fold) ([]problemData, *mat.Dense, error) {
	w, err := rw.foldWeights(f.outputs, fold, fitted)
	if err != nil {
		return nil, nil, err
	}
	sp := f.space
	z := mat.DenseCopyOf(rw.plain.pass.space.sub[0].x)
	scaleColumns(z, w)
	anchors := pickRows(rw.plain.linear.x, sp.anchorRows)
	scaleColumns(anchors, w)
	if mapped {
		im, err := rw.foldMetric(z, anchors, f.outputs, fold, sp)
		if err != nil {
			return nil, nil, err
		}
		if im != nil {
			var mz, ma mat.Dense
			mul(&mz, z, im.l)
			mul(&ma, anchors, im.l)
			z, anchors = &mz, &ma
		}
	}
	variants := make([]problemData, len(sp.sub))
	for i, v := range sp.sub {
		variants[i] = v
		variants[i].x = z
	}
	return variants, anchors, nil
}

// foldWeights returns the relevance weights of the plain pass's best
// machine fitted on the training rows of fold (1 for every input if it is
// flat), but for the inputs whose weights fitted, the fit's, differ from
// those measured on all the rows: the columns left out, which keep
// fitted's.
func (rw *reweighing) foldWeights(outputs int, fold crossval.Fold, fitted []float64) ([]float64, error) {
	km, x, err := passMachine(rw.plain.pass, outputs, fold.Train)
	if err != nil {
		return nil, err
	}
	w := slices.Repeat([]float64{1}, len(fitted))
	if km != nil {
		if r := relevanceWeights(meanSquaredSlopes(km, x)); r != nil {
			w = r
		}
	}
	for j, v := range fitted {
		if v != rw.measured[j] {
			w[j] = v
		}
	}
	return w, nil
}

// foldMetric returns the map of the inputs z (with their anchors) by the
// metric of the weighed pass's best setting fitted on the training rows of
// fold, as mapInputs measures it; nil if the pass has no setting or the
// metric is flat.
func (rw *reweighing) foldMetric(z, anchors *mat.Dense, outputs int, fold crossval.Fold, sp *shallowSpace) (*inputMap, error) {
	b, cost := rw.weighed.pass.bestSetting()
	if b < 0 {
		return nil, nil
	}
	in := sp.inputs(z, anchors)
	basis, err := newShallowBasis(in, shallowBandwidths()[b]*in.anchorsDistance(), 1)
	if err != nil {
		return nil, err
	}
	data := rw.weighed.pass.space.sub[0]
	beta, intercept, err := basis.solutionAt(fold.Train, pick(data.w, fold.Train), targetsOf(data, outputs), cost)
	if err != nil {
		return nil, err
	}
	unit := calibration{factor: slices.Repeat([]float64{1}, outputs), residuals: make([][]float64, outputs)}
	km, _ := basis.machineOf(beta, intercept, anchors, unit)
	return newInputMap(gradientMoments(km, pickRows(z, fold.Train))), nil
}
