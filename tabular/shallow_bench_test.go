package tabular

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/parametric-machines/machines/crossval"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkShallowFolds scores the shallow machine of one bandwidth at
// every cost of ShallowCosts on 5 folds, by each fold's own solver and
// from the solver of all the rows (heldFold).
func BenchmarkShallowFolds(b *testing.B) {
	for _, n := range []int{60, 150, 400} {
		basis, all, y := benchBasis(b, n)
		folds := crossval.KFold(n, 5, 7)
		b.Run("own/n="+strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				for _, f := range folds {
					own, err := basis.ridge(f.Train, nil)
					if err != nil {
						b.Fatal(err)
					}
					ztv, pr := own.inBasis(pickRows(basis.z, f.Test)), own.project(pickRows(y, f.Train))
					for _, c := range shallowCosts() {
						own.predict(ztv, pr, c)
					}
				}
			}
		})
		b.Run("shared/n="+strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				pr := all.project(y)
				for _, f := range folds {
					dst, o := mat.NewDense(len(f.Test), 1, nil), all.heldFold(y, pr, all.held(f.Test))
					for _, c := range shallowCosts() {
						o.predictions(dst, c)
					}
				}
			}
		})
	}
}

// BenchmarkShallowLeaveOneOut scores the shallow machine of one
// bandwidth at every cost of ShallowCosts by its leave-one-out
// predictions (leaveOneOut).
func BenchmarkShallowLeaveOneOut(b *testing.B) {
	for _, n := range []int{60, 150, 400} {
		_, all, y := benchBasis(b, n)
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			dst := mat.NewDense(n, 1, nil)
			for range b.N {
				loo := all.leaveOneOut(y, all.project(y))
				for _, c := range shallowCosts() {
					loo.predictions(dst, c)
				}
			}
		})
	}
}

// benchBasis returns the shallow basis of one bandwidth on n seeded rows
// of 8 inputs, its solver of all the rows, and the rows' targets.
func benchBasis(b *testing.B, n int) (*shallowBasis, *ridge, *mat.Dense) {
	rnd := rand.New(rand.NewPCG(4, 9))
	x := mat.NewDense(n, 8, nil)
	x.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, x)
	y := mat.NewDense(n, 1, nil)
	for i := range n {
		y.Set(i, 0, math.Sin(2*x.At(i, 0))+0.1*rnd.NormFloat64())
	}
	basis, err := newShallowBasis(newShallowInputs(x, pickRows(x, rnd.Perm(n)[:min(n, ShallowAnchors)]), 1, false), 2, 1)
	if err != nil {
		b.Fatal(err)
	}
	all, err := basis.ridge(nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	return basis, all, y
}

// BenchmarkFoldSolution fits the shallow machine of one bandwidth to a
// fold's training rows at one cost, as the metric's fold machines are
// fitted: by the eigendecomposition that serves every cost (ridge, then
// solution) and by the Cholesky factorisation of solutionAt.
func BenchmarkFoldSolution(b *testing.B) {
	for _, n := range []int{60, 150, 400} {
		basis, _, y := benchBasis(b, n)
		train := crossval.KFold(n, 5, 7)[0].Train
		b.Run("eigen/n="+strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				r, err := basis.ridge(train, nil)
				if err != nil {
					b.Fatal(err)
				}
				r.solution(r.project(pickRows(y, train)), 0.01)
			}
		})
		b.Run("cholesky/n="+strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				if _, _, err := basis.solutionAt(train, nil, y, 0.01); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkShallowInputs computes the squared distances from n seeded
// rows of 8 inputs to their anchors and between the anchors.
func BenchmarkShallowInputs(b *testing.B) {
	for _, n := range []int{60, 150, 400} {
		rnd := rand.New(rand.NewPCG(4, 9))
		x := mat.NewDense(n, 8, nil)
		x.Apply(func(_, _ int, _ float64) float64 { return rnd.NormFloat64() }, x)
		anchors := pickRows(x, rnd.Perm(n)[:min(n, ShallowAnchors)])
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				newShallowInputs(x, anchors, 1, false)
			}
		})
	}
}
