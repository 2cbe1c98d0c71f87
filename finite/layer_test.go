package finite

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
)

// TestLayerWeights checks, for every kind, that a Layer registers
// exactly the weights the filtration uses (as the independent mask used
// of the tests says), that its full weight is zero elsewhere, and that
// the gradient reaches the packed weight, the inputs and the scaling.
func TestLayerWeights(t *testing.T) {
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(7, 7))
			m, _ := c.new(nil)
			layer := Layer[float64]{Kind: m.kind, Dims: m.dims, Activation: m.sigma, Pad: m.pad, TimeBlock: m.timeblock, Scale: ScalePerChannel}
			if m.kind == Recur {
				layer.Pad = []int{m.pad[0]}
			}
			var ps ad.Params[float64]
			var g ad.Graph[float64]
			s := ad.NewScope(&g, &ps, "m", rnd)
			if _, err := layer.Init(s, [][]int{append([]int{m.dims[0]}, c.shape...)}); err != nil {
				t.Fatal(err)
			}
			want := 0
			k := m.Taps()
			for i := range m.Size() {
				for j := range m.Size() {
					for tp := range k {
						if used(m, i, j, tp) {
							want++
						}
					}
				}
			}
			if got := ps.Value("m.weight").Len(); got != want || got != m.NumParams() {
				t.Fatalf("%d weights registered, the mask uses %d and NumParams says %d", got, want, m.NumParams())
			}
			full, err := layer.Machine(&ps, "m")
			if err != nil {
				t.Fatal(err)
			}
			nonzero := 0
			for i := range m.Size() {
				for j := range m.Size() {
					for tp := range k {
						idx := (i*m.Size()+j)*k + tp
						if m.kind == Recur {
							idx = i*k*m.Size() + tp*m.Size() + j
						}
						if full.W.Data[idx] != 0 {
							nonzero++
							if !used(m, i, j, tp) {
								t.Fatalf("unused weight (%d, %d, %d) is %v", i, j, tp, full.W.Data[idx])
							}
						}
					}
				}
			}
			if nonzero != want {
				t.Errorf("%d nonzero weights, want %d", nonzero, want)
			}
			x := g.Param(randTensor(rnd, 1, append([]int{c.batch, m.dims[0]}, c.shape...)...), nil)
			z, err := layer.Apply(s, []*ad.Node[float64]{x})
			if err != nil {
				t.Fatal(err)
			}
			loss := g.Dot(z[0], g.Input(randTensor(rnd, 1, z[0].Value.Shape...)))
			if e := ad.CheckGradient(&g, loss, []*ad.Node[float64]{x, ps.Node(&g, "m.weight"), ps.Node(&g, "m.scale")}, 1e-6); e.Rel > 1e-6 {
				t.Errorf("gradient error %+v", e)
			}
		})
	}
}

// TestLayerInitErrors checks that Init refuses a layer no machine
// answers to, saying what is wrong, before it registers a parameter.
func TestLayerInitErrors(t *testing.T) {
	for _, c := range []struct {
		l    Layer[float64]
		in   []int
		want string
	}{
		{Layer[float64]{Kind: Dense, Dims: []int{1, 1}, Scale: 9}, []int{2}, "unknown scaling Scaling(9)"},
		{Layer[float64]{Kind: Dense, Dims: []int{1, 1}, Scale: -1}, []int{2}, "unknown scaling Scaling(-1)"},
		{Layer[float64]{Kind: 9, Dims: []int{1, 1}}, []int{2}, "unknown machine kind Kind(9)"},
		{Layer[float64]{Kind: Dense, Dims: []int{2, -1}}, []int{2}, "block 1 has size -1"},
		{Layer[float64]{Kind: Dense, Dims: []int{1, 1}, Pad: []int{1}}, []int{2}, "dense machine with padding [1]"},
		{Layer[float64]{Kind: Recur, Dims: []int{1, 1}}, []int{1, 4}, "want one delay span"},
		{Layer[float64]{Kind: Recur, Dims: []int{1, 1}, Pad: []int{1}, TimeBlock: -1}, []int{1, 4}, "timeblock -1"},
	} {
		var ps ad.Params[float64]
		var g ad.Graph[float64]
		_, err := c.l.Init(ad.NewScope(&g, &ps, "l", nil), [][]int{c.in})
		if err == nil || !strings.Contains(err.Error(), c.want) || ps.Len() != 0 {
			t.Errorf("%+v: error %v and %d parameters, want an error about %q and none", c.l, err, ps.Len(), c.want)
		}
	}
}
