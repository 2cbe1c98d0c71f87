package tabular

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// biasPrior is the weight of the Gaussian prior that holds a class's
// bias (see fitLogits) near 0, as many rows' worth of log-loss: it
// keeps the bias of a class absent from the held-out rows finite.
const biasPrior = 1.0

// fitLogits returns the factor beta > 0 and the bias of each class (the
// first class's 0) that minimise the mean log-loss of softmax(beta *
// scores + bias) for the labels, with the biases' prior (biasPrior):
// Newton's method on a convex function of 1 + (classes - 1) variables,
// from beta of fitLogitScale and no bias.
//
// A least-squares classifier's scores are shrunk towards the classes'
// frequencies by its cost, so that their argmax favours the frequent
// classes more than the rows say; the biases, fitted to the held-out
// scores, move the decision where the held-out rows put it.
func fitLogits(scores *mat.Dense, labels []int) (float64, []float64) {
	_, k := scores.Dims()
	theta := make([]float64, k) // beta, then the biases of classes 1 to k-1
	theta[0] = fitLogitScale(scores, labels)
	grad, next := make([]float64, k), make([]float64, k)
	hess := mat.NewSymDense(k, nil)
	step := mat.NewVecDense(k, nil)
	var chol mat.Cholesky
	for range logitIters {
		loss := logitLoss(scores, labels, theta, grad, hess)
		if !chol.Factorize(hess) || chol.SolveVecTo(step, mat.NewVecDense(k, grad)) != nil {
			break
		}
		t := 1.0
		for ; t > 1e-6; t /= 2 {
			floats.AddScaledTo(next, theta, -t, step.RawVector().Data)
			if next[0] > 0 && logitLoss(scores, labels, next, nil, nil) <= loss {
				break
			}
		}
		if t <= 1e-6 {
			break
		}
		copy(theta, next)
		if t*floats.Norm(step.RawVector().Data, math.Inf(1)) < 1e-9*(1+theta[0]) {
			break
		}
	}
	bias := make([]float64, k)
	copy(bias[1:], theta[1:])
	return theta[0], bias
}

// logitIters bounds the Newton steps of fitLogits.
const logitIters = 50

// logitLoss returns the loss that fitLogits minimises at theta (beta,
// then the biases of classes 1 to k-1), and, when grad is not nil, its
// gradient in grad and its Hessian in hess, both times the rows.
func logitLoss(scores *mat.Dense, labels []int, theta, grad []float64, hess *mat.SymDense) float64 {
	_, k := scores.Dims()
	z, p := make([]float64, k), make([]float64, k)
	// mu holds each row's expected derivative of the logits along theta.
	var mu *mat.Dense
	if grad != nil {
		clear(grad)
		hess.Zero()
		mu = mat.NewDense(len(labels), k, nil)
	}
	var loss float64
	for i, l := range labels {
		row := scores.RawRowView(i)
		for j, v := range row {
			z[j] = theta[0] * v
			if j > 0 {
				z[j] += theta[j]
			}
		}
		top := floats.Max(z)
		var sum float64
		for j, v := range z {
			p[j] = math.Exp(v - top)
			sum += p[j]
		}
		loss += math.Log(sum) + top - z[l]
		if grad == nil {
			continue
		}
		m := mu.RawRowView(i)
		var ss float64
		for j, v := range row {
			p[j] /= sum
			m[0] += p[j] * v
			ss += p[j] * v * v
			if j > 0 {
				m[j] = p[j]
				grad[j] += p[j]
				hess.SetSym(0, j, hess.At(0, j)+p[j]*v)
				hess.SetSym(j, j, hess.At(j, j)+p[j])
			}
		}
		grad[0] += m[0] - row[l]
		if l > 0 {
			grad[l]--
		}
		hess.SetSym(0, 0, hess.At(0, 0)+ss)
	}
	for j := 1; j < k; j++ {
		loss += biasPrior * theta[j] * theta[j] / 2
		if grad != nil {
			grad[j] += biasPrior * theta[j]
			hess.SetSym(j, j, hess.At(j, j)+biasPrior)
		}
	}
	if grad != nil {
		// The Hessian is the sum of the rows' covariances of the
		// derivatives: their second moments less mu^T mu.
		var outer mat.SymDense
		outer.SymOuterK(-1, mu.T())
		hess.AddSym(hess, &outer)
	}
	return loss / float64(len(labels))
}
