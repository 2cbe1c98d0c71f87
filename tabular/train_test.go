package tabular

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// TestPredictMatchesTraining checks that predicting on the training
// inputs reproduces the fit's data loss: the prediction graph and the
// training graph compute the same machine.
func TestPredictMatchesTraining(t *testing.T) {
	x, y := dataset.PolynomialGrid(4)
	for _, tc := range []struct {
		name string
		s    Settings
	}{
		{"all anchors", Settings{Dims: []int{2, 2, 1}, Costs: []float64{0}, Bandwidths: []float64{1}, Raw: true, MaxIter: 50}},
		{"nystrom", Settings{Dims: []int{2, 2, 1}, Costs: []float64{0}, Bandwidths: []float64{1}, Raw: true, Anchors: 6, MaxIter: 50}},
		{"standardized", Settings{Dims: []int{2, 2, 1}, Costs: []float64{0}, Bandwidths: []float64{1}, MaxIter: 50}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, r, err := FitRegression(x, mat.NewDense(16, 1, y), tc.s)
			if err != nil {
				t.Fatal(err)
			}
			p := m.Predict(nil, x)
			got := 0.0
			for i, v := range y {
				got += (p.At(i, 0) - v) * (p.At(i, 0) - v) / 16
			}
			want := r.DataLoss
			if !tc.s.Raw {
				want *= m.Output.Scale[0] * m.Output.Scale[0]
			}
			if !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-9) {
				t.Errorf("MSE of Predict on the training set %v, fit's data loss %v", got, want)
			}
			if na, _ := m.Anchors.Dims(); tc.s.Anchors > 0 && na != tc.s.Anchors {
				t.Errorf("%d anchors, want %d", na, tc.s.Anchors)
			}
		})
	}
}

func TestFitPolynomial(t *testing.T) {
	x, y := dataset.PolynomialGrid(6)
	xt, yt := dataset.PolynomialGrid(21)
	m, _, err := FitRegression(x, mat.NewDense(36, 1, y), Settings{
		Dims: []int{2, 3, 3, 2, 1}, Costs: []float64{1e-4}, Bandwidths: []float64{1}, Seed: 1, MaxIter: 1000})
	if err != nil {
		t.Fatal(err)
	}
	p := m.Predict(nil, xt)
	mse := 0.0
	for i, v := range yt {
		mse += (p.At(i, 0) - v) * (p.At(i, 0) - v) / float64(len(yt))
	}
	if mse > 1e-3 {
		t.Errorf("test MSE %.3g, want <= 1e-3", mse)
	}
}

func TestFitClassifier(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 3))
	x := randomData(rnd, 30, 2)
	labels := make([]int, 30)
	for i := range labels {
		if x.At(i, 0)+x.At(i, 1) > 0 {
			labels[i] = 1
		}
	}
	m, _, err := FitClassifier(x, labels, 2, Settings{Dims: []int{2, 2, 2}, Costs: []float64{1e-3}, Bandwidths: []float64{1}, Raw: true, MaxIter: 300})
	if err != nil {
		t.Fatal(err)
	}
	p := m.Predict(nil, x)
	for i, l := range labels {
		if got := mat.Row(nil, i, p); (got[1] > got[0]) != (l == 1) {
			t.Errorf("sample %d: scores %v for class %d", i, got, l)
		}
	}
}

func TestBadInput(t *testing.T) {
	x := mat.NewDense(3, 1, []float64{0, 1, 2})
	y := mat.NewDense(3, 1, []float64{0, 1, 4})
	nan := mat.NewDense(3, 1, []float64{0, math.NaN(), 2})
	dims := []int{2, 1}
	for _, tc := range []struct {
		name, want string
		fit        func() error
	}{
		{"short dims", "at least two blocks", func() error {
			_, _, err := FitRegression(x, y, Settings{Dims: []int{1}})
			return err
		}},
		{"zero dim", "block 1 has size 0", func() error {
			_, _, err := FitRegression(x, y, Settings{Dims: []int{1, 0, 1}})
			return err
		}},
		{"negative cost", "cost -1", func() error { _, _, err := FitRegression(x, y, Settings{Dims: dims, Costs: []float64{-1}}); return err }},
		{"negative loss tolerance", "loss tolerance -1", func() error {
			_, _, err := FitRegression(x, y, Settings{Dims: dims, LossTol: -1})
			return err
		}},
		{"NaN input", "input row 1, column 0 is NaN", func() error { _, _, err := FitRegression(nan, y, Settings{Dims: dims}); return err }},
		{"NaN target", "target row 1, column 0 is NaN", func() error { _, _, err := FitRegression(x, nan, Settings{Dims: dims}); return err }},
		{"outputs", "want 3x2", func() error {
			_, _, err := FitRegression(x, y, Settings{Dims: []int{1, 2}, Costs: []float64{0}, Bandwidths: []float64{1}})
			return err
		}},
		{"anchors", "4 anchors for 3", func() error { _, _, err := FitRegression(x, y, Settings{Dims: dims, Anchors: 4}); return err }},
		{"label range", "label 2 of row 1", func() error {
			_, _, err := FitClassifier(x, []int{0, 2, 1}, 2, Settings{Dims: []int{1, 2}, Costs: []float64{0}, Bandwidths: []float64{1}})
			return err
		}},
		{"labels count", "2 labels for 3", func() error {
			_, _, err := FitClassifier(x, []int{0, 1}, 2, Settings{Dims: []int{1, 2}, Costs: []float64{0}, Bandwidths: []float64{1}})
			return err
		}},
		{"starts", "-1 starts", func() error { _, _, err := FitRegression(x, y, Settings{Dims: dims, Starts: -1}); return err }},
		{"bandwidth", "bandwidth -1", func() error {
			_, _, err := FitRegression(x, y, Settings{Dims: []int{1, 1}, Bandwidths: []float64{-1}})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.fit()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestFinalStop checks the final fit's stopping rule: the default loss
// tolerance, one given, and none with UntilStall.
func TestFinalStop(t *testing.T) {
	for _, c := range []struct {
		s       Settings
		maxIter int
		lossTol float64
	}{
		{Settings{}, DefaultMaxIter, DefaultLossTol},
		{Settings{MaxIter: 7, LossTol: 0.5}, 7, 0.5},
		{Settings{LossTol: 0.5, UntilStall: true}, DefaultMaxIter, 0},
	} {
		if maxIter, lossTol := c.s.finalStop(); maxIter != c.maxIter || lossTol != c.lossTol {
			t.Errorf("%+v: %d iterations, loss tolerance %v; want %d, %v", c.s, maxIter, lossTol, c.maxIter, c.lossTol)
		}
	}
}

// TestRange checks the bounds of a regression's predictions: a line fitted
// on x in [0, 1] predicts at most the largest target plus RangeMargin of
// the targets' range far beyond it, and its interval ends are bounded
// too; a second output of targets from 0 is bounded by 0 below;
// Extrapolate and Raw fits follow the lines. The deep machine's final fit
// shows Settings.Iteration bounded machines, as the one it returns.
func TestRange(t *testing.T) {
	const n = 40
	x, y := mat.NewDense(n, 1, nil), mat.NewDense(n, 2, nil)
	for i := range n {
		v := float64(i) / (n - 1)
		x.Set(i, 0, v)
		y.Set(i, 0, 2*v+1) // from 1 to 3
		y.Set(i, 1, 2*v)   // from 0 to 2
	}
	far := mat.NewDense(2, 1, []float64{10, -10})
	for _, tc := range []struct {
		name    string
		s       Settings
		bounded bool
	}{
		{"default", Settings{Family: Shallow}, true},
		{"extrapolate", Settings{Family: Shallow, Extrapolate: true}, false},
		{"raw", Settings{Family: Shallow, Raw: true}, false},
		{"deep", Settings{Costs: []float64{1e-3}, Bandwidths: []float64{1}, MaxIter: 20}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unbounded := 0
			tc.s.Iteration = func(_, _ int, _ float64, m *Machine) error {
				if m.Range == nil {
					unbounded++
				}
				return nil
			}
			m, _, err := FitRegression(x, y, tc.s)
			if err != nil {
				t.Fatal(err)
			}
			pred, lower, upper := m.PredictInterval(nil, nil, nil, far, []float64{1, 1})
			hi, lo := pred.At(0, 0), pred.At(1, 0)
			margin := RangeMargin * 2
			if tc.bounded && unbounded > 0 {
				t.Errorf("%d machines of the final fit's iterations are unbounded", unbounded)
			}
			if !tc.bounded {
				// The targets span [1, 3]; the line 2x + 1 carries the
				// predictions beyond it by more than twice its width.
				if hi < 7 || lo > -3 {
					t.Errorf("predictions %v and %v at x = 10 and -10, want the line 2x + 1 to carry them beyond the targets", hi, lo)
				}
				return
			}
			if hi != 3+margin || lo != 1-margin {
				t.Errorf("predictions %v and %v at x = 10 and -10, want the bounds %v and %v", hi, lo, 3+margin, 1-margin)
			}
			if upper.At(0, 0) != 3+margin || lower.At(1, 0) != 1-margin {
				t.Errorf("interval ends %v and %v, want the bounds", upper.At(0, 0), lower.At(1, 0))
			}
			if lo := lower.At(1, 1); lo != 0 {
				t.Errorf("lower end %v of the nonnegative output at x = -10, want 0", lo)
			}
		})
	}
}

// randomData returns n rows of d inputs drawn uniformly from [-1, 1].
func randomData(rnd *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	x.Apply(func(_, _ int, _ float64) float64 { return rnd.Float64()*2 - 1 }, x)
	return x
}
