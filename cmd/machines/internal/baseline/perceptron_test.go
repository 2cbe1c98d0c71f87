package baseline

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/optim"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

func TestPerceptronParams(t *testing.T) {
	for _, tc := range []struct {
		in, out, layers, target int
		hidden                  []int
		params                  int
	}{
		{2, 1, 1, 625, []int{156}, 625}, // the paper's polynomial perceptron
		{1, 1, 1, 609, []int{203}, 610}, // and its sine perceptron
		{2, 1, 2, 600, []int{22, 22}, 595},
	} {
		got := HiddenForParams(tc.in, tc.out, tc.layers, tc.target)
		if !slices.Equal(got, tc.hidden) {
			t.Errorf("HiddenForParams(%d, %d, %d, %d) = %v, want %v", tc.in, tc.out, tc.layers, tc.target, got, tc.hidden)
		}
		if p := PerceptronParams(tc.in, tc.out, got); p != tc.params {
			t.Errorf("PerceptronParams(%d, %d, %v) = %d, want %d", tc.in, tc.out, got, p, tc.params)
		}
	}
}

func sineData(n int) (*mat.Dense, *mat.Dense) {
	x, y := mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
	for i := range n {
		v := 3 * float64(i) / float64(n-1)
		x.Set(i, 0, v)
		y.Set(i, 0, math.Sin(v))
	}
	return x, y
}

func TestFitPerceptron(t *testing.T) {
	x, y := sineData(20)
	for _, act := range []Activation{ReLU, Sigmoid, Tanh} {
		t.Run(act.String(), func(t *testing.T) {
			var last float64
			p, r, err := FitPerceptron(x, y, PerceptronSettings{Hidden: []int{10}, Activation: act, Seed: 1, MaxIter: 500,
				Iteration: func(_ int, loss float64, _ *Perceptron) error { last = loss; return nil }})
			if err != nil {
				t.Fatal(err)
			}
			if p.NumParams() != PerceptronParams(1, 1, []int{10}) {
				t.Errorf("%d parameters, want %d", p.NumParams(), PerceptronParams(1, 1, []int{10}))
			}
			var d mat.Dense
			d.Sub(p.Predict(nil, x), y)
			mse := mat.Dot(d.ColView(0), d.ColView(0)) / 20
			// Without weight decay or scaling the loss is the MSE of Predict.
			if !scalar.EqualWithinAbsOrRel(mse, r.Loss, 1e-12, 1e-9) || !scalar.EqualWithinAbsOrRel(last, r.Loss, 1e-12, 1e-9) {
				t.Errorf("Predict MSE %v, fit loss %v, last iteration %v", mse, r.Loss, last)
			}
			// sin on [0, 3] has variance about 0.2.
			if mse > 1e-2 {
				t.Errorf("training MSE %v, want <= 1e-2", mse)
			}
		})
	}
}

func TestFitPerceptronAdam(t *testing.T) {
	x, y := sineData(20)
	var first, last float64
	p, r, err := FitPerceptron(x, y, PerceptronSettings{Hidden: []int{10}, Activation: Tanh, Seed: 1, MaxIter: 2000,
		Adam: &optim.Adam{LR: 0.01},
		Iteration: func(it int, loss float64, _ *Perceptron) error {
			if it == 1 {
				first = loss
			}
			last = loss
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Iterations != 2000 || !(last < first/100) {
		t.Errorf("%d Adam steps took the loss from %v to %v", r.Iterations, first, last)
	}
	var d mat.Dense
	d.Sub(p.Predict(nil, x), y)
	if mse := mat.Dot(d.ColView(0), d.ColView(0)) / 20; !scalar.EqualWithinAbsOrRel(mse, r.Loss, 1e-12, 1e-9) {
		t.Errorf("Predict MSE %v, final loss %v", mse, r.Loss)
	}
}

func TestFitPerceptronErrors(t *testing.T) {
	x, y := sineData(5)
	for _, tc := range []struct {
		name, want string
		x, y       *mat.Dense
		s          PerceptronSettings
	}{
		{"rows", "do not make a data set", x, mat.NewDense(4, 1, nil), PerceptronSettings{}},
		{"decay", "weight decay -1", x, y, PerceptronSettings{WeightDecay: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := FitPerceptron(tc.x, tc.y, tc.s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestPerceptronObjectivePenalty checks the penalty of the objective:
// the squares of the weights, and of the biases too with DecayBiases;
// and TorchInit's draw, within ±1/sqrt(inputs) for weights and biases.
func TestPerceptronObjectivePenalty(t *testing.T) {
	x, y := sineData(20)
	const decay = 0.01
	for _, tc := range []struct {
		name              string
		biases, torch     bool
		wantNonzeroBiases bool
	}{
		{"weights only", false, false, false},
		{"weights and biases", true, false, false},
		{"PyTorch's draw", true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := PerceptronSettings{Hidden: []int{4, 3}, Activation: Sigmoid, WeightDecay: decay, DecayBiases: tc.biases, TorchInit: tc.torch, Seed: 2}
			o, err := NewPerceptronObjective(x, y, s)
			if err != nil {
				t.Fatal(err)
			}
			params := o.Init()
			for i := range params {
				params[i] += 0.1 // biases nonzero whatever the draw
			}
			p := o.Perceptron(params)
			var squares float64
			for l, w := range p.W {
				squares += mat.Norm(w, 2) * mat.Norm(w, 2)
				if tc.biases {
					for _, b := range p.B[l] {
						squares += b * b
					}
				}
			}
			loss, data := o.Loss(params)
			if !scalar.EqualWithinAbsOrRel(loss-data, decay*squares, 1e-12, 1e-9) {
				t.Errorf("penalty %g, want %g", loss-data, decay*squares)
			}
			init := o.Perceptron(o.Init())
			nonzero := false
			for l, w := range init.W {
				_, c := w.Dims()
				limit := 1 / math.Sqrt(float64(c))
				if !tc.torch {
					r, _ := w.Dims()
					limit = math.Sqrt(6 / float64(r+c))
				}
				if m := mat.Max(w); m > limit {
					t.Errorf("layer %d: weight %g above %g", l, m, limit)
				}
				for _, b := range init.B[l] {
					nonzero = nonzero || b != 0
					if math.Abs(b) > limit {
						t.Errorf("layer %d: bias %g beyond %g", l, b, limit)
					}
				}
			}
			if nonzero != tc.wantNonzeroBiases {
				t.Errorf("nonzero initial biases %v, want %v", nonzero, tc.wantNonzeroBiases)
			}
		})
	}
}
