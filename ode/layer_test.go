package ode

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/testutil"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/train"
	"gonum.org/v1/gonum/floats/scalar"
)

// TestLayer checks the layer against solves of the samples one by one,
// and its gradients with respect to the batch and θ against finite
// differences, for RK4 with backpropagation and for Dormand–Prince with
// the adjoint.
func TestLayer(t *testing.T) {
	const n, h, samples = 2, 5, 3
	for _, tc := range []struct {
		name  string
		steps int
		grad  GradMethod
		tol   float64
	}{
		{"rk4", 8, Backprop, 1e-7},
		{"dopri-adjoint", 0, Adjoint, 1e-4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(21, 21))
			l := Layer[float64]{Field: MLP{Hidden: h}, End: 1.5, Steps: tc.steps, Grad: tc.grad,
				Settings: Settings{RTol: 1e-10, ATol: 1e-10}}
			var ps ad.Params[float64]
			var g ad.Graph[float64]
			s := ad.NewScope(&g, &ps, "flow", rnd)
			if _, err := l.Init(s, [][]int{{n}}); err != nil {
				t.Fatal(err)
			}
			copy(ps.Value("flow.theta").Data, randParams(rnd, mlpParams(n, h), 0.5))
			x := g.Param(ad.NewTensor[float64](samples, n), nil)
			for i := range x.Value.Data {
				x.Value.Data[i] = rnd.NormFloat64()
			}
			y, err := l.Apply(s, []*ad.Node[float64]{x})
			if err != nil {
				t.Fatal(err)
			}
			out := y[0]
			if err := g.Err(); err != nil {
				t.Fatal(err)
			}
			// The hand-written perceptron of the tests reads the same θ.
			alone := newMLP(n, h, ps.Values())
			for b := range samples {
				y0 := x.Value.Data[b*n : (b+1)*n]
				var sol *Solution
				var err error
				if tc.steps > 0 {
					ts := make([]float64, tc.steps+1)
					for i := range ts {
						ts[i] = 1.5 * float64(i) / float64(tc.steps)
					}
					sol, err = RK4(alone, y0, ts, Settings{})
				} else {
					sol, err = DormandPrince(alone, y0, []float64{0, 1.5}, l.Settings)
				}
				if err != nil {
					t.Fatal(err)
				}
				want := sol.Y[len(sol.Y)-n:]
				for k := range n {
					// Solved as a batch, the adaptive steps differ from a
					// lone solve's, within the tolerances.
					if got := out.Value.Data[b*n+k]; !scalar.EqualWithinAbsOrRel(got, want[k], 1e-8, 1e-8) {
						t.Errorf("sample %d coordinate %d: layer %v, alone %v", b, k, got, want[k])
					}
				}
			}
			w := g.Input(ad.NewTensor[float64](samples, n))
			for i := range w.Value.Data {
				w.Value.Data[i] = rnd.NormFloat64()
			}
			loss := g.Dot(out, w)
			if e := ad.CheckGradient(&g, loss, []*ad.Node[float64]{x, ps.Node(&g, "flow.theta")}, 1e-6); e.Rel > tc.tol {
				t.Errorf("relative gradient error %.3g at parameter %d element %d", e.Rel, e.Param, e.Index)
			}
		})
	}
}

// flowModel learns a rotation by a quarter turn of points on the circle
// with a neural ODE: a layer trained by train.Run like any other.
type flowModel struct {
	params ad.Params[float64]
	g      ad.Graph[float64]
	x, y   *ad.Tensor[float64]
	loss   *ad.Node[float64]
	angles []float64
}

func (m *flowModel) Params() *ad.Params[float64] { return &m.params }

func (m *flowModel) Loss(batch []int, backward bool) (float64, error) {
	for j, i := range batch {
		a := m.angles[i]
		m.x.Data[2*j], m.x.Data[2*j+1] = math.Cos(a), math.Sin(a)
		m.y.Data[2*j], m.y.Data[2*j+1] = -math.Sin(a), math.Cos(a)
	}
	m.g.Forward()
	if backward {
		m.g.Backward(m.loss)
	}
	return m.loss.Scalar(), m.g.Err()
}

func TestLayerTrains(t *testing.T) {
	rnd := rand.New(rand.NewPCG(22, 22))
	const h, batch = 8, 8
	m := &flowModel{x: ad.NewTensor[float64](batch, 2), y: ad.NewTensor[float64](batch, 2)}
	for range 64 {
		m.angles = append(m.angles, 2*math.Pi*rnd.Float64())
	}
	layer := Layer[float64]{Field: MLP{Hidden: h}, Steps: 10}
	s := ad.NewScope(&m.g, &m.params, "flow", rnd)
	if _, err := layer.Init(s, [][]int{{2}}); err != nil {
		t.Fatal(err)
	}
	out, err := layer.Apply(s, []*ad.Node[float64]{m.g.Input(m.x)})
	if err != nil {
		t.Fatal(err)
	}
	m.loss = m.g.MSE(out[0], m.g.Input(m.y))
	first, err := m.Loss([]int{0, 1, 2, 3, 4, 5, 6, 7}, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := train.Run[float64](m, 64, train.Config{Epochs: 40, Batch: batch, Optimizer: &optim.Adam{LR: 0.03}})
	if err != nil {
		t.Fatal(err)
	}
	if last := res.Epochs[len(res.Epochs)-1].TrainLoss; !(last < first/5) {
		t.Errorf("mean squared error from %.4g to %.4g in 40 epochs", first, last)
	}
}

// TestLayerInitErrors checks that Init refuses a layer no solve could
// run, saying what is wrong, before it registers a parameter.
func TestLayerInitErrors(t *testing.T) {
	for _, tc := range []struct {
		l    Layer[float64]
		in   [][]int
		want string
	}{
		{Layer[float64]{}, [][]int{{2}, {2}}, "inputs of shapes [[2] [2]]"},
		{Layer[float64]{End: -1}, [][]int{{2}}, "end time -1"},
		{Layer[float64]{End: math.Inf(1)}, [][]int{{2}}, "end time +Inf"},
		{Layer[float64]{Steps: -1}, [][]int{{2}}, "-1 steps"},
		{Layer[float64]{Field: MLP{}}, [][]int{{2}}, "0 hidden units"},
		{Layer[float64]{Field: MLP{Hidden: -1}}, [][]int{{2}}, "-1 hidden units"},
	} {
		var ps ad.Params[float64]
		var g ad.Graph[float64]
		var err error
		if perr := testutil.PanicError(func() { _, err = tc.l.Init(ad.NewScope(&g, &ps, "flow", nil), tc.in) }); perr != nil {
			t.Errorf("%+v: panic %v, want an error", tc.l, perr)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || ps.Len() != 0 {
			t.Errorf("%+v: error %v and %d parameters, want an error about %q and none", tc.l, err, ps.Len(), tc.want)
		}
	}
}

func TestLayerWithDefaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		l     Layer[float32]
		field Field
		end   float64
	}{
		{"zero", Layer[float32]{}, MLP{Hidden: DefaultHidden, Activation: ad.Tanh}, 1},
		{"mlp", Layer[float32]{Field: MLP{Hidden: 3}, End: 2}, MLP{Hidden: 3, Activation: ad.Tanh}, 2},
		{"set", Layer[float32]{Field: MLP{Hidden: 3, Activation: ad.ReLU}, End: 0.5}, MLP{Hidden: 3, Activation: ad.ReLU}, 0.5},
	} {
		got := tc.l.WithDefaults()
		if got.Field != tc.field || got.End != tc.end {
			t.Errorf("%s: field %+v and end %v, want %+v and %v", tc.name, got.Field, got.End, tc.field, tc.end)
		}
	}
}
