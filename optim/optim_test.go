package optim

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

func rosenbrock(x, grad []float64) float64 {
	a, b := 1-x[0], x[1]-x[0]*x[0]
	grad[0] = -2*a - 400*x[0]*b
	grad[1] = 200 * b
	return a*a + 100*b*b
}

func TestMinimize(t *testing.T) {
	for _, m := range []Method{LBFGS, CG} {
		t.Run(m.String(), func(t *testing.T) {
			iters := 0
			r, err := Minimize(rosenbrock, []float64{-1.2, 1}, Settings{Method: m, MaxIter: 10000,
				Iteration: func(it int, _ float64, _ []float64) error { iters = it; return nil }})
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range r.X {
				if !scalar.EqualWithinAbs(x, 1, 1e-5) {
					t.Errorf("x[%d] = %v, want 1", i, x)
				}
			}
			if !r.Converged {
				t.Errorf("not converged after %d iterations (%s)", r.Iterations, r.Status)
			}
			if iters != r.Iterations || iters == 0 {
				t.Errorf("Iteration called up to %d, result says %d iterations", iters, r.Iterations)
			}
		})
	}
}

func TestMinimizeExact(t *testing.T) {
	r, err := Minimize(rosenbrock, []float64{-1.2, 1}, Settings{MaxIter: 7, Exact: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Iterations != 7 || r.Converged {
		t.Errorf("Exact fit ran %d iterations, converged %v; want 7, stopped at the limit", r.Iterations, r.Converged)
	}
}

// slowValley is a long, slowly converging quadratic valley: its
// curvatures fall as the cube of the coordinate's index.
func slowValley(x, grad []float64) float64 {
	loss := 0.0
	for i, v := range x {
		w := 1 / float64(1+i*i*i)
		loss += w * v * v
		grad[i] = 2 * w * v
	}
	return loss
}

// TestMinimizeLossTol checks that a relative loss tolerance stops a fit
// early and that the result is still close to the minimum.
func TestMinimizeLossTol(t *testing.T) {
	valley := func(x, grad []float64) float64 { return slowValley(x, grad) + 1 }
	x0 := make([]float64, 60)
	for i := range x0 {
		x0[i] = 1
	}
	tight, err := Minimize(valley, x0, Settings{Method: CG})
	if err != nil {
		t.Fatal(err)
	}
	loose, err := Minimize(valley, x0, Settings{Method: CG, LossTol: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	if loose.Iterations >= tight.Iterations {
		t.Errorf("LossTol 1e-3: %d iterations, default: %d; want fewer", loose.Iterations, tight.Iterations)
	}
	if loose.Loss > 1.01 || loose.Status != "FunctionConvergence" {
		t.Errorf("LossTol 1e-3 stopped at loss %v (%s), want <= 1.01 by FunctionConvergence", loose.Loss, loose.Status)
	}
}

// TestMinimizeMemory checks that L-BFGS keeps the steps Memory asks
// for: on a quadratic whose curvatures span six orders of magnitude, more
// steps reach the minimum in fewer iterations.
func TestMinimizeMemory(t *testing.T) {
	x0 := make([]float64, 100)
	for i := range x0 {
		x0[i] = 1
	}
	iters := make(map[int]int)
	for _, memory := range []int{3, 0, 40} {
		r, err := Minimize(slowValley, x0, Settings{Memory: memory, GradTol: 1e-6, MaxIter: 5000})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Converged {
			t.Fatalf("Memory %d: not converged after %d iterations (%s)", memory, r.Iterations, r.Status)
		}
		iters[memory] = r.Iterations
	}
	if !(iters[3] > iters[0] && iters[0] > iters[40]) {
		t.Errorf("iterations by memory %v, want fewer with more steps kept (3, the default 15, 40)", iters)
	}
}

func TestMinimizeDiverged(t *testing.T) {
	nan := func(x, grad []float64) float64 { grad[0] = 1; return math.NaN() }
	_, err := Minimize(nan, []float64{0}, Settings{})
	var d *DivergedError
	if !errors.As(err, &d) || d.Iteration != 0 {
		t.Errorf("error %v, want a DivergedError at iteration 0", err)
	}
}

func TestMinimizeStop(t *testing.T) {
	stop := errors.New("stop here")
	_, err := Minimize(rosenbrock, []float64{-1.2, 1}, Settings{
		Iteration: func(it int, _ float64, _ []float64) error {
			if it == 3 {
				return stop
			}
			return nil
		}})
	if !errors.Is(err, stop) {
		t.Errorf("error %v, want the Iteration function's", err)
	}
}

func TestSteppers(t *testing.T) {
	// f(x) = sum (x_i - i)^2 has its minimum at x_i = i.
	for _, tc := range []struct {
		name string
		s    Stepper
	}{
		{"Adam", &Adam{LR: 0.05}},
		{"SGD", &SGD{LR: 0.1}},
		{"SGDMomentum", &SGD{LR: 0.05, Momentum: 0.9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, g := make([]float64, 4), make([]float64, 4)
			for range 2000 {
				for i := range x {
					g[i] = 2 * (x[i] - float64(i))
				}
				tc.s.Step(x, g)
			}
			for i, v := range x {
				if !scalar.EqualWithinAbs(v, float64(i), 1e-3) {
					t.Errorf("x[%d] = %v, want %d", i, v, i)
				}
			}
		})
	}
}

// TestStepperState checks that an optimiser encoded mid-run and decoded
// into a fresh value continues exactly as the original does.
func TestStepperState(t *testing.T) {
	for _, tc := range []struct {
		name       string
		s, restore interface {
			Stepper
			json.Marshaler
			json.Unmarshaler
		}
	}{
		{"Adam", &Adam{LR: 0.05, WeightDecay: 0.01}, &Adam{}},
		{"SGDMomentum", &SGD{LR: 0.05, Momentum: 0.9}, &SGD{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, g := []float64{1, -2, 3}, make([]float64, 3)
			grad := func(x []float64) []float64 {
				for i := range x {
					g[i] = 2*x[i] - float64(i)
				}
				return g
			}
			for range 5 {
				tc.s.Step(x, grad(x))
			}
			state, err := tc.s.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.restore.UnmarshalJSON(state); err != nil {
				t.Fatal(err)
			}
			y := slices.Clone(x)
			for range 5 {
				tc.s.Step(x, grad(x))
				tc.restore.Step(y, grad(y))
			}
			if !slices.Equal(x, y) {
				t.Errorf("original ends at %v, restored at %v", x, y)
			}
		})
	}
	for _, bad := range []string{`{"m":[1],"v":[]}`, `{"m":[1,2],"v":[1,-1],"t":1}`, `{"m":[],"v":[],"t":-1}`} {
		if err := new(Adam).UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("Adam accepted the state %s", bad)
		}
	}
}

// TestStateLen checks the length of state an optimiser reports, which
// train compares with the model's parameters on restoring a checkpoint.
func TestStateLen(t *testing.T) {
	x := make([]float64, 3)
	for _, tc := range []struct {
		name string
		s    interface {
			Stepper
			StateLen() int
		}
		before, after int
	}{
		{"Adam", &Adam{}, 0, 3},
		{"SGD", &SGD{}, 0, 0},
		{"SGDMomentum", &SGD{Momentum: 0.5}, 0, 3},
	} {
		if got := tc.s.StateLen(); got != tc.before {
			t.Errorf("%s: state length %d before a step, want %d", tc.name, got, tc.before)
		}
		tc.s.Step(x, x)
		if got := tc.s.StateLen(); got != tc.after {
			t.Errorf("%s: state length %d after a step, want %d", tc.name, got, tc.after)
		}
	}
	var a Adam
	if err := a.UnmarshalJSON([]byte(`{"m":[1,2],"v":[1,2],"t":1}`)); err != nil || a.StateLen() != 2 {
		t.Errorf("restored Adam: error %v, state length %d, want nil and 2", err, a.StateLen())
	}
}

// TestStepExact checks the first steps of each optimiser against their
// definitions on values where they are known in closed form: Adam's
// first step moves every weight by the learning rate against the sign
// of its gradient (the bias corrections undo the moments' start at
// zero), and with no gradient only the decoupled weight decay moves it;
// SGD moves by the learning rate times the gradient plus the decay, and
// with momentum its second step adds the first's velocity times the
// momentum.
func TestStepExact(t *testing.T) {
	for _, tc := range []struct {
		name  string
		s     Stepper
		x     []float64
		grads [][]float64
		want  []float64
	}{
		{"Adam first step", &Adam{LR: 0.1}, []float64{1, 1, 1}, [][]float64{{4, -0.5, 0.25}}, []float64{0.9, 1.1, 0.9}},
		{"Adam second step", &Adam{LR: 0.1}, []float64{1}, [][]float64{{1}, {1}}, []float64{0.8}},
		{"Adam decay", &Adam{LR: 0.1, WeightDecay: 0.5}, []float64{2, -2}, [][]float64{{0, 0}}, []float64{1.9, -1.9}},
		{"SGD decay", &SGD{LR: 0.1, WeightDecay: 0.5}, []float64{2}, [][]float64{{1}}, []float64{1.8}},
		// Velocity 1 + 0.5*2 = 2, then 0.9*2 + 1 + 0.5*1.8 = 3.7.
		{"SGD momentum", &SGD{LR: 0.1, Momentum: 0.9, WeightDecay: 0.5}, []float64{2}, [][]float64{{1}, {1}}, []float64{1.43}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := slices.Clone(tc.x)
			for _, g := range tc.grads {
				tc.s.Step(x, slices.Clone(g))
			}
			for i := range x {
				if !scalar.EqualWithinAbs(x[i], tc.want[i], 1e-6) {
					t.Fatalf("x = %v, want %v", x, tc.want)
				}
			}
		})
	}
}
