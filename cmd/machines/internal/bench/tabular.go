package bench

import (
	"fmt"
	"math/rand/v2"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/tabular"
	"gonum.org/v1/gonum/mat"
)

// tabularSize is one workload of the tabular suite: a fit on rows
// training rows of Friedman 1, which must reach minR2 on the held-out
// rows.
type tabularSize struct {
	name  string
	rows  int
	minR2 float64
}

var tabularSizes = []tabularSize{
	{"F1-2000", 2000, 0.85},
	{"F1-20000", 20000, 0.90},
}

// tabularHeldOut is the number of held-out rows the fitted machine is
// scored on.
const tabularHeldOut = 5000

// TabularWorkloads returns the workloads of the tabular suite: F1-2000
// and F1-20000, one fit of tabular.FitRegression with the zero Settings
// (the defaults of `machines fit`) on 2000 and 20000 rows of
// dataset.Friedman1, drawn with the seed PCG(1, 1), followed by 5000
// held-out rows from the same source. Before timing, the setup fits once
// and fails the workload if the machine's R² on the held-out rows is
// below 0.85 (2000 rows) or 0.90 (20000 rows). A unit lasts far longer
// than Run's 20 ms sample, so every sample is a single fit: Run fits
// once more to warm up, then once per sample; `-runs 1` keeps the suite
// to three fits a workload.
func TabularWorkloads() []Workload {
	ws := make([]Workload, 0, len(tabularSizes))
	for _, size := range tabularSizes {
		ws = append(ws, Workload{
			Name: size.name, Dtype: "float64",
			Unit:      fmt.Sprintf("fit, %d rows x %d", size.rows, dataset.Friedman1Features),
			Reference: "scikit-learn RF: bench/friedman_rf.py, goal <= 1.5x (F1-2000), 1x (F1-20000)",
			setup:     func() (func(), error) { return friedmanFit(size.rows, tabularHeldOut, size.minR2) },
		})
	}
	return ws
}

// friedmanFit draws rows training rows and heldOut held-out rows of
// Friedman 1, fits a machine with the default settings, and returns the
// fit as the unit of work, or an error if the machine's held-out R² is
// below minR2.
func friedmanFit(rows, heldOut int, minR2 float64) (func(), error) {
	rnd := rand.New(rand.NewPCG(1, 1))
	x, y := dataset.Friedman1(rows, rnd)
	xt, yt := dataset.Friedman1(heldOut, rnd)
	ym := mat.NewDense(rows, 1, y)
	fit := func() (*tabular.Machine, error) {
		m, _, err := tabular.FitRegression(x, ym, tabular.Settings{})
		return m, err
	}
	// The fit is deterministic: the machine checked here is the one every
	// timed repeat computes.
	m, err := fit()
	if err != nil {
		return nil, err
	}
	if err := checkR2(rSquared(yt, m.Predict(nil, xt)), minR2, heldOut); err != nil {
		return nil, err
	}
	return func() { _, _ = fit() }, nil
}

// checkR2 returns an error if r2, measured on heldOut rows, is below
// minR2 or NaN.
func checkR2(r2, minR2 float64, heldOut int) error {
	if !(r2 >= minR2) {
		return fmt.Errorf("held-out R² %.4f on %d rows, want at least %.2f", r2, heldOut, minR2)
	}
	return nil
}

// rSquared returns the coefficient of determination of the predictions
// in the single column of pred against y: 1 − (residual sum of squares)
// / (sum of squares about the mean of y).
func rSquared(y []float64, pred mat.Matrix) float64 {
	var mean float64
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	var res, tot float64
	for i, v := range y {
		d := v - pred.At(i, 0)
		res += d * d
		tot += (v - mean) * (v - mean)
	}
	return 1 - res/tot
}
