package ad_test

import (
	"errors"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/testutil"
)

// TestPanicKinds checks that the engine's panics carry errors of the
// documented kinds, so that a caller who recovers one can tell it with
// errors.Is.
func TestPanicKinds(t *testing.T) {
	g, other := &ad.Graph[float64]{}, &ad.Graph[float64]{}
	a := g.Input(ad.NewTensor[float64](2, 3))
	w := g.Param(ad.NewTensor[float64](1), ad.NewTensor[float64](1))
	for _, c := range []struct {
		name string
		f    func()
		kind error
	}{
		{"matmul shapes", func() { g.MatMul(a, a, false, false) }, ad.ErrShape},
		{"negative dimension", func() { ad.NewTensor[float64](-1) }, ad.ErrShape},
		{"label beyond the classes", func() { g.SoftmaxCrossEntropy(a, []int{0, 3}) }, ad.ErrValue},
		{"node of another graph", func() { other.Backward(w) }, ad.ErrState},
		{"unknown activation", func() { ad.Activation("swish").Func() }, ad.ErrName},
		{"parameter without a name", func() { new(ad.Params[float64]).Add("", ad.NewTensor[float64](1)) }, ad.ErrName},
	} {
		err := testutil.PanicError(c.f)
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: panic %v, want an error wrapping %q", c.name, err, c.kind)
		}
	}
}
