package baseline

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/mat"
)

// RidgeSettings configures KernelRidge. The zero value chooses both the
// kernel width and the penalty by leave-one-out cross-validation over the
// default grids.
type RidgeSettings struct {
	// Sigma is the width of the Gaussian kernel. If zero, it is chosen
	// from Sigmas.
	Sigma float64

	// Lambda is the ridge penalty. If zero, it is chosen from Lambdas.
	Lambda float64

	// Sigmas are the candidate widths. If empty, they are the median
	// distance between distinct training inputs times 2^(k/2) for
	// k = -6, ..., 6.
	Sigmas []float64

	// Lambdas are the candidate penalties. If empty, they are 10^(k/2)
	// for k = -16, ..., 2, that is 1e-8 to 10 in half decades.
	Lambdas []float64
}

// defaultSigmas returns the default candidate widths for inputs whose
// median distance is scale.
func defaultSigmas(scale float64) []float64 {
	s := make([]float64, 0, 13)
	for k := -6; k <= 6; k++ {
		s = append(s, scale*math.Pow(2, float64(k)/2))
	}
	return s
}

func defaultLambdas() []float64 {
	l := make([]float64, 0, 19)
	for k := -16; k <= 2; k++ {
		l = append(l, math.Pow(10, float64(k)/2))
	}
	return l
}

// check panics on settings no data could make sense of.
func (s *RidgeSettings) check() {
	if !(s.Sigma >= 0) || !(s.Lambda >= 0) || math.IsInf(s.Sigma, 0) || math.IsInf(s.Lambda, 0) {
		panic(fmt.Errorf("%w: baseline: invalid Sigma %v or Lambda %v", ad.ErrValue, s.Sigma, s.Lambda))
	}
	for _, v := range s.Sigmas {
		if !(v > 0) || math.IsInf(v, 0) {
			panic(fmt.Errorf("%w: baseline: invalid candidate sigma %v", ad.ErrValue, v))
		}
	}
	for _, v := range s.Lambdas {
		if !(v > 0) || math.IsInf(v, 0) {
			panic(fmt.Errorf("%w: baseline: invalid candidate lambda %v", ad.ErrValue, v))
		}
	}
}

// KernelRidge is kernel ridge regression with a Gaussian kernel. Set
// Settings, call Fit, then Predict.
type KernelRidge struct {
	Settings RidgeSettings

	// Sigma and Lambda are the kernel width and penalty of the last
	// successful Fit, given or chosen.
	Sigma, Lambda float64

	// LOO is the mean squared leave-one-out residual, over samples and
	// outputs, at Sigma and Lambda. It is NaN if both were given, since no
	// cross-validation then takes place.
	LOO float64

	x     *mat.Dense // training inputs
	alpha *mat.Dense // solution of (K + λI) α = Y
}

// Fit fits the model to the inputs X, one sample per row, and the targets
// Y, one sample per row and one output per column. A one-hot encoding of
// class labels makes it a classifier.
//
// Fit returns an error if X or Y is empty, their numbers of rows differ, they
// hold NaN or infinite values, or K + λI cannot be solved accurately. The
// model is changed only on success. Fit panics if Settings holds negative,
// NaN or infinite values.
func (m *KernelRidge) Fit(X, Y *mat.Dense) error {
	m.Settings.check()
	if err := checkData(X, Y); err != nil {
		return err
	}
	d2 := sqDists(X)
	sigma, lambda, loo := m.Settings.Sigma, m.Settings.Lambda, math.NaN()
	if sigma == 0 || lambda == 0 {
		sigmas := m.Settings.Sigmas
		if sigma > 0 {
			sigmas = []float64{sigma}
		} else if len(sigmas) == 0 {
			sigmas = defaultSigmas(medianDist(d2))
		}
		lambdas := m.Settings.Lambdas
		if lambda > 0 {
			lambdas = []float64{lambda}
		} else if len(lambdas) == 0 {
			lambdas = defaultLambdas()
		}
		var err error
		sigma, lambda, loo, err = search(d2, Y, sigmas, lambdas)
		if err != nil {
			return err
		}
	}

	n, _ := X.Dims()
	k := gaussianSym(d2, sigma)
	for i := range n {
		k.SetSym(i, i, k.At(i, i)+lambda)
	}
	var chol mat.Cholesky
	if !chol.Factorize(k) {
		return fmt.Errorf("baseline: K + λI is not positive definite for sigma %g, lambda %g; use a larger Lambda", sigma, lambda)
	}
	var alpha mat.Dense
	if err := chol.SolveTo(&alpha, Y); err != nil {
		return fmt.Errorf("baseline: solving (K + λI)α = Y for sigma %g, lambda %g: %w", sigma, lambda, err)
	}
	m.Sigma, m.Lambda, m.LOO = sigma, lambda, loo
	m.x = mat.DenseCopyOf(X)
	m.alpha = &alpha
	return nil
}

// checkData reports training data that Fit cannot use.
func checkData(X, Y *mat.Dense) error {
	if X.IsEmpty() || Y.IsEmpty() {
		return errors.New("baseline: no training data")
	}
	n, _ := X.Dims()
	if r, _ := Y.Dims(); r != n {
		return fmt.Errorf("baseline: X has %d rows but Y has %d", n, r)
	}
	for _, a := range []struct {
		name string
		m    *mat.Dense
	}{{"X", X}, {"Y", Y}} {
		for i := range n {
			for j, v := range a.m.RawRowView(i) {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("baseline: %s[%d, %d] is %v", a.name, i, j, v)
				}
			}
		}
	}
	return nil
}

// Predict writes the predictions for the rows of X to the rows of dst and
// returns dst; if dst is nil, a new matrix is allocated. Predict panics if
// the model has not been fitted, or with mat.ErrShape if X does not have as
// many columns as the training inputs or dst is not rows(X)×outputs.
func (m *KernelRidge) Predict(dst, X *mat.Dense) *mat.Dense {
	if m.alpha == nil {
		panic(fmt.Errorf("%w: baseline: Predict called before a successful Fit", ad.ErrState))
	}
	r, c := X.Dims()
	n, d := m.x.Dims()
	_, p := m.alpha.Dims()
	if c != d {
		panic(mat.ErrShape)
	}
	if dst == nil {
		dst = mat.NewDense(r, p, nil)
	} else if dr, dc := dst.Dims(); dr != r || dc != p {
		panic(mat.ErrShape)
	}
	k := mat.NewDense(r, n, nil)
	c2 := -1 / (2 * m.Sigma * m.Sigma)
	for i := range r {
		u := X.RawRowView(i)
		row := k.RawRowView(i)
		for j := range row {
			row[j] = math.Exp(c2 * sqDist(u, m.x.RawRowView(j)))
		}
	}
	dst.Mul(k, m.alpha)
	return dst
}

// Params returns the number of fitted coefficients, samples times outputs,
// or 0 before a successful Fit.
func (m *KernelRidge) Params() int {
	if m.alpha == nil {
		return 0
	}
	r, c := m.alpha.Dims()
	return r * c
}

func sqDist(u, v []float64) float64 {
	var s float64
	for i, ui := range u {
		d := ui - v[i]
		s += d * d
	}
	return s
}

// sqDists returns the squared distances between the rows of X. Differences
// are taken explicitly rather than through |u|² + |v|² - 2u·v, which loses
// the small distances that matter most to a narrow kernel.
func sqDists(X *mat.Dense) *mat.SymDense {
	n, _ := X.Dims()
	d2 := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i + 1; j < n; j++ {
			d2.SetSym(i, j, sqDist(X.RawRowView(i), X.RawRowView(j)))
		}
	}
	return d2
}

// medianDist returns the median distance between distinct rows, the scale
// of the default widths, or 1 if all rows coincide.
func medianDist(d2 *mat.SymDense) float64 {
	n := d2.SymmetricDim()
	var pos []float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			if v := d2.At(i, j); v > 0 {
				pos = append(pos, v)
			}
		}
	}
	if len(pos) == 0 {
		return 1
	}
	slices.Sort(pos)
	return math.Sqrt(pos[len(pos)/2])
}

// gaussianSym returns the kernel matrix for the squared distances d2.
func gaussianSym(d2 *mat.SymDense, sigma float64) *mat.SymDense {
	n := d2.SymmetricDim()
	k := mat.NewSymDense(n, nil)
	c := -1 / (2 * sigma * sigma)
	for i := range n {
		for j := i; j < n; j++ {
			k.SetSym(i, j, math.Exp(c*d2.At(i, j)))
		}
	}
	return k
}

// search returns the width and penalty with the smallest mean squared
// leave-one-out residual, and that residual.
func search(d2 *mat.SymDense, Y *mat.Dense, sigmas, lambdas []float64) (sigma, lambda, loo float64, err error) {
	n, p := Y.Dims()
	var (
		s     spectrum
		resid = mat.NewDense(n, p, nil)
		first = true
	)
	for _, sg := range sigmas {
		if err := s.factorize(gaussianSym(d2, sg), Y); err != nil {
			return 0, 0, 0, fmt.Errorf("baseline: sigma %g: %w", sg, err)
		}
		for _, l := range lambdas {
			s.looResiduals(resid, l)
			var ss float64
			for i := range n {
				for _, r := range resid.RawRowView(i) {
					ss += r * r
				}
			}
			score := ss / float64(n*p)
			if first || score < loo {
				sigma, lambda, loo, first = sg, l, score, false
			}
		}
	}
	return sigma, lambda, loo, nil
}

// spectrum holds the eigendecomposition K = Q diag(d) Qᵀ of one kernel
// matrix and the targets in the eigenbasis, from which the leave-one-out
// residuals of every penalty follow cheaply. Its buffers are reused across
// widths.
type spectrum struct {
	eig mat.EigenSym
	d   []float64    // eigenvalues, clamped at 0
	q   mat.Dense    // eigenvectors, one per column
	q2  mat.Dense    // squares of the elements of q
	qty mat.Dense    // Qᵀ Y
	w   []float64    // 1/(d + λ)
	b   mat.Dense    // diag(w) Qᵀ Y
	a   mat.Dense    // (K + λI)⁻¹ Y
	g   mat.VecDense // diagonal of (K + λI)⁻¹
}

func (s *spectrum) factorize(k *mat.SymDense, Y *mat.Dense) error {
	if !s.eig.Factorize(k, true) {
		return errors.New("eigendecomposition of the kernel matrix failed")
	}
	s.d = s.eig.Values(s.d)
	// K is positive semi-definite; slightly negative eigenvalues are
	// rounding errors, and keeping them could make d + λ vanish for a
	// small λ.
	for i, v := range s.d {
		s.d[i] = max(v, 0)
	}
	if len(s.w) != len(s.d) {
		s.w = make([]float64, len(s.d))
	}
	s.eig.VectorsTo(&s.q)
	s.q2.MulElem(&s.q, &s.q)
	s.qty.Mul(s.q.T(), Y)
	return nil
}

// looResiduals writes to dst the leave-one-out residuals for penalty
// lambda, using r_i = [(K + λI)⁻¹ Y]_i / [(K + λI)⁻¹]_ii. This form avoids
// the cancellation in 1 - H_ii when H_ii is close to 1.
func (s *spectrum) looResiduals(dst *mat.Dense, lambda float64) {
	for i, v := range s.d {
		s.w[i] = 1 / (v + lambda)
	}
	w := mat.NewVecDense(len(s.w), s.w)
	s.b.Apply(func(i, _ int, v float64) float64 { return s.w[i] * v }, &s.qty)
	s.a.Mul(&s.q, &s.b)
	s.g.MulVec(&s.q2, w)
	n, p := dst.Dims()
	for i := range n {
		gi := s.g.AtVec(i)
		for j := range p {
			dst.Set(i, j, s.a.At(i, j)/gi)
		}
	}
}
