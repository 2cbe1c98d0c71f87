package experiment

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/cmd/machines/internal/baseline"
	"github.com/parametric-machines/machines/tabular"
)

// TestKeptStartCurve checks that the kernel machine's final fit runs
// from several starts, and that the kernel machine's and the perceptron's
// reports show the learning curve of the start they kept: the curve's
// last point is the kept model's last iteration and training error. The
// fits are short, so every iteration is on the curve.
func TestKeptStartCurve(t *testing.T) {
	const iters = 8
	tk := sineTask(101)
	s := sineMachine(Config{Seed: 101}, 1e-3)
	s.MaxIter = iters
	km, err := tk.fitKernel("kernel machine", s, Config{})
	if err != nil {
		t.Fatal(err)
	}
	// On this seed a later start ends below the first, so a kernel fit
	// from one start would show.
	first, _, err := tabular.FitRegression(tk.x, tk.y, s)
	if err != nil {
		t.Fatal(err)
	}
	if one := mse(first.Predict(nil, tk.x), tk.y); !(km.TrainMSE < one) {
		t.Errorf("kernel machine: training MSE %.6g, the first start's alone %.6g: want the best of %d starts", km.TrainMSE, one, restarts)
	}
	p, err := tk.fitPerceptron("perceptron", baseline.PerceptronSettings{
		Hidden: []int{20}, Activation: baseline.Sigmoid, Standardize: true, Seed: 101, MaxIter: iters,
	}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []*fitted{km, p} {
		if len(f.curve) == 0 {
			t.Errorf("%s: no learning curve", f.Name)
			continue
		}
		end := f.curve[len(f.curve)-1]
		if end.iter != f.Iterations || math.Abs(end.train-f.TrainMSE) > 1e-12*f.TrainMSE {
			t.Errorf("%s: curve ends at iteration %d with training MSE %.12g; the kept fit took %d, training MSE %.12g",
				f.Name, end.iter, end.train, f.Iterations, f.TrainMSE)
		}
		// The curve is evaluated after the fit, from the models it kept:
		// each must be the model of its own iteration, not the last.
		if first := f.curve[0]; len(f.curve) < 2 || first.train <= end.train {
			t.Errorf("%s: curve of %d points starts at training MSE %.12g, ends at %.12g: want the early models' errors", f.Name, len(f.curve), first.train, end.train)
		}
		if want := fmt.Sprintf("best training loss of %d starts", restarts); !strings.Contains(f.Settings.Selection, want) {
			t.Errorf("%s: selection %q, want it to say %q", f.Name, f.Settings.Selection, want)
		}
	}
}
