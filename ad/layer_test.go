package ad

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/parametric-machines/machines/internal/testutil"
)

// TestScope checks the names a scope gives, the penalties its sub-scopes
// share, and the budget of its parameter set.
func TestScope(t *testing.T) {
	var ps Params[float64]
	var g Graph[float64]
	s := NewScope(&g, &ps, "model", rand.New(rand.NewPCG(1, 1)))
	conv := s.Sub("front").Sub("conv")
	w := conv.NewParam("weight", 2, 3)
	if w.Len() != 6 || ps.Value("model.front.conv.weight") != w || conv.Value("weight") != w {
		t.Errorf("parameters %v", ps.Names())
	}
	if n := conv.Param("weight"); n.Value != w || n.Grad != ps.Grad("model.front.conv.weight") {
		t.Error("Param does not read the registered tensor and write its gradient")
	}
	root := NewScope(&g, &ps, "", nil)
	if root.Sub("x").Name != "x" {
		t.Errorf("sub-scope of the unnamed scope is %q", root.Sub("x").Name)
	}
	conv.Penalize(g.Input(Matrix(1, 1, []float64{2})))
	s.Sub("head").Penalize(g.Input(Matrix(1, 1, []float64{3})))
	if p := s.Penalties(); len(p) != 2 || p[0].Scalar() != 2 || p[1].Scalar() != 3 {
		t.Errorf("penalties %v, want the two terms of the sub-scopes", p)
	}
	testutil.CheckPanic(t, func() { conv.Penalize(g.Input(NewTensor[float64](2, 1))) }, "penalty of shape [2 1]")
	testutil.CheckPanic(t, func() { (&Scope[float64]{Name: "x"}).NewParam("w", 1) }, `scope "x" has no parameter set`)
	testutil.CheckPanic(t, func() { NewScope(nil, &ps, "m", nil).Param("front.conv.weight") }, "without a graph")

	budget := Params[float32]{Limit: 10}
	bs := NewScope[float32](nil, &budget, "b", nil)
	bs.NewParam("a", 2, 4)
	func() {
		defer func() {
			err, _ := recover().(error)
			if !errors.Is(err, ErrBudget) || budget.Len() != 8 {
				t.Errorf("over budget: panic %v with %d values registered", err, budget.Len())
			}
		}()
		bs.NewParam("c", 1<<40, 1<<40) // refused before it is allocated
	}()
}

// TestWithGrads checks that a set of WithGrads reads p's values and
// writes gradients to its own vector, and that WithGrads(nil) gives
// constants.
func TestWithGrads(t *testing.T) {
	var p Params[float64]
	var g Graph[float64]
	NewScope[float64](nil, &p, "", nil).NewParam("w", 2, 1)
	copy(p.Value("w").Data, []float64{1, 2})
	other := make([]float64, 2)
	q := p.WithGrads(other)
	loss := g.Dot(q.Node(&g, "w"), g.Input(Matrix(2, 1, []float64{3, 4})))
	g.Backward(loss)
	if loss.Scalar() != 11 || !slices.Equal(other, []float64{3, 4}) || !slices.Equal(p.Grads(), []float64{0, 0}) {
		t.Errorf("loss %v, gradients %v in the shadow and %v in the set", loss.Scalar(), other, p.Grads())
	}
	var h Graph[float64]
	c := p.WithGrads(nil).Node(&h, "w")
	if c.Grad != nil || c.Value != p.Value("w") {
		t.Error("WithGrads(nil) does not give a constant reading the set's values")
	}
	testutil.CheckPanic(t, func() { p.WithGrads(make([]float64, 3)) }, "WithGrads of 3 gradients for 2 parameters")
}

// TestParamsJSON round-trips the parameters' list and checks that a list
// of other parameters changes nothing.
func TestParamsJSON(t *testing.T) {
	var p, q Params[float32]
	for _, ps := range []*Params[float32]{&p, &q} {
		s := NewScope[float32](nil, ps, "l", nil)
		s.NewParam("weight", 2, 2)
		s.NewParam("bias", 2)
	}
	copy(p.Values(), []float32{0.1, -2, 3e-8, 4, 5, 6})
	data, err := json.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &q); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q.Values(), p.Values()) {
		t.Errorf("values %v after a round trip, want %v", q.Values(), p.Values())
	}
	var r Params[float32]
	NewScope[float32](nil, &r, "l", nil).NewParam("weight", 2, 3)
	if err := r.UnmarshalJSON(data); err == nil || r.Values()[0] != 0 {
		t.Errorf("a list of other parameters: error %v, values %v", err, r.Values())
	}
}

// failOp fails its forward pass when its input is negative and its
// backward pass always, through the graph.
type failOp struct{ g *Graph[float64] }

func (o failOp) Forward(out *Node[float64]) {
	x := out.Inputs()[0].Value.Data[0]
	out.Value.Data[0] = x
	if x < 0 {
		o.g.Fail(errors.New("forward failed"))
		out.Value.Data[0] = math.NaN()
	}
}

func (o failOp) Backward(*Node[float64]) { o.g.Fail(errors.New("backward failed")) }

// TestFail checks that Err reports the first failure of the last Forward
// and its Backward, and that Forward forgets the previous one.
func TestFail(t *testing.T) {
	var g Graph[float64]
	x := g.Param(Matrix(1, 1, []float64{-1}), nil)
	y := g.Apply(failOp{&g}, []int{1, 1}, x)
	if g.Err() == nil || g.Err().Error() != "forward failed" {
		t.Errorf("after building: %v", g.Err())
	}
	x.Value.Data[0] = 1
	g.Forward()
	if g.Err() != nil {
		t.Errorf("after a Forward that succeeds: %v", g.Err())
	}
	g.Backward(y)
	if g.Err() == nil || g.Err().Error() != "backward failed" {
		t.Errorf("after Backward: %v", g.Err())
	}
	x.Value.Data[0] = -1
	g.Forward()
	g.Backward(y)
	if g.Err().Error() != "forward failed" {
		t.Errorf("the first failure is kept: %v", g.Err())
	}
}

// TestActivation checks that Func and Activate compute the same
// functions, and Func's derivative against finite differences.
func TestActivation(t *testing.T) {
	xs := []float64{-7, -1.5, -0.2, 0.3, 2, 5.5, 6.5}
	for _, a := range []Activation{"", Identity, ReLU, ReLU6, Tanh, Sigmoid} {
		f, df := a.Func()
		var g Graph[float64]
		y := Activate(&g, a, g.Input(Matrix(1, len(xs), xs)))
		for i, x := range xs {
			if y.Value.Data[i] != f(x) {
				t.Errorf("%v(%v): Activate %v, Func %v", a, x, y.Value.Data[i], f(x))
			}
			const h = 1e-6
			if num := (f(x+h) - f(x-h)) / (2 * h); math.Abs(num-df(x, f(x))) > 1e-6 {
				t.Errorf("%v'(%v) = %v, finite difference %v", a, x, df(x, f(x)), num)
			}
		}
	}
	if err := Activation("softplus").Check(); err == nil {
		t.Error("an unknown activation passes Check")
	}
	testutil.CheckPanic(t, func() { Activation("softplus").Func() }, `unknown activation "softplus"`)
}

func TestResolveShape(t *testing.T) {
	for _, c := range []struct {
		n     int
		shape []int
		want  []int
	}{
		{12, []int{3, -1}, []int{3, 4}},
		{12, []int{-1}, []int{12}},
		{12, []int{2, 6}, []int{2, 6}},
		{12, []int{5, -1}, nil},
		{12, []int{-1, -1}, nil},
		{12, []int{0, -1}, nil},
		{12, []int{2, 5}, nil},
	} {
		got, err := ResolveShape(c.n, c.shape)
		if !slices.Equal(got, c.want) || (c.want == nil) != errors.Is(err, ErrShape) {
			t.Errorf("ResolveShape(%d, %v) = %v, %v; want %v", c.n, c.shape, got, err, c.want)
		}
	}
}
