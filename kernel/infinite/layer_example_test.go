package infinite_test

import (
	"fmt"
	"log"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/kernel/infinite"
)

// The machine of ExampleNew as a layer of the engine: two learned anchors
// in ℝ² (set here by hand, as are the coefficients, which Init starts
// at zero, the identity) and a minibatch of three initial conditions, a
// row each. The first and third sit on the anchors and follow them; the
// second, half-way, is pushed by both. The gradient of a loss of the
// final states reaches the batch, the anchors and the coefficients; a far
// anchor's gradient is small. Outside a graph, Machine and Query give the
// same states.
func ExampleLayer() {
	l := infinite.Layer[float64]{Architecture: infinite.Architecture{Anchors: 2, MaxFreq: 1}, Cost: 1}
	var g ad.Graph[float64]
	var ps ad.Params[float64]
	s := ad.NewScope(&g, &ps, "inf", nil)
	if _, err := l.Init(s, [][]int{{2}}); err != nil {
		log.Fatal(err)
	}
	copy(ps.Value("inf.anchors").Data, []float64{0, 0, 3, 0})
	copy(ps.Value("inf.coef").Data, []float64{1, 0, 0, -1})

	psi := g.Param(ad.Matrix(3, 2, []float64{0, 0, 1.5, 0, 3, 0}), nil)
	y, err := l.Apply(s, []*ad.Node[float64]{psi})
	if err != nil {
		log.Fatal(err)
	}
	out := y[0]
	for i := range 3 {
		fmt.Printf("u%d(1) = (%.3f, %.3f)\n", i+1, out.Value.At(i, 0), out.Value.At(i, 1))
	}
	fmt.Printf("|f|² = %.3f\n", s.Penalties()[0].Scalar())

	// L = the sum of the first coordinates of the final states.
	g.Backward(g.Sum(g.SelectCols(out, []int{0})))
	a := ps.Grad("inf.anchors")
	fmt.Printf("∂L/∂ψ₁ = (%.3f, %.3f), ∂L/∂ψ₂ = (%.3f, %.3f)\n", a.At(0, 0), a.At(0, 1), a.At(1, 0), a.At(1, 1))
	c := ps.Grad("inf.coef")
	fmt.Printf("∂L/∂c₁ = (%.3f, %.3f), ∂L/∂c₂ = (%.3f, %.3f)\n", c.At(0, 0), c.At(0, 1), c.At(1, 0), c.At(1, 1))

	m, anchors, err := l.Machine(&ps, "inf")
	if err != nil {
		log.Fatal(err)
	}
	tr, err := m.Forward(anchors)
	if err != nil {
		log.Fatal(err)
	}
	q, err := tr.Query(nil, []float64{1.5, 0})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Query(ψ = (1.5, 0)) = (%.3f, %.3f)\n", q[0], q[1])
	// Output:
	// u1(1) = (1.000, -0.040)
	// u2(1) = (1.970, -0.402)
	// u3(1) = (3.040, -1.000)
	// |f|² = 1.000
	// ∂L/∂ψ₁ = (0.521, -0.101), ∂L/∂ψ₂ = (0.024, -0.005)
	// ∂L/∂c₁ = (1.700, -0.048), ∂L/∂c₂ = (1.308, 0.036)
	// Query(ψ = (1.5, 0)) = (1.970, -0.402)
}
