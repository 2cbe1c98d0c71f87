package tabular_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/tabular"
	"gonum.org/v1/gonum/mat"
)

func TestMachineJSONRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings tabular.Settings
	}{
		{"additive", tabular.Settings{Dims: []int{3, 3, 3, 1}, Costs: []float64{0.001}, Bandwidths: []float64{1}, Raw: true}},
		{"multiplicative standardized", tabular.Settings{
			Dims: []int{2, 2, 1}, Kernel: kernel.Multiplicative, Costs: []float64{0}, Bandwidths: []float64{0.7},
		}},
		{"anchors", tabular.Settings{Dims: []int{3, 2, 1}, Costs: []float64{0}, Bandwidths: []float64{1}, Anchors: 5}},
		{"shallow", tabular.Settings{Family: tabular.Shallow}},
		{"quantile inputs", tabular.Settings{Family: tabular.Shallow, InputScale: tabular.QuantileInputs}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(1, 1))
			const n = 12
			x, y := mat.NewDense(n, 2, nil), mat.NewDense(n, 1, nil)
			for i := range n {
				a, b := 4*rnd.Float64(), rnd.Float64()
				x.Set(i, 0, a)
				x.Set(i, 1, b)
				y.Set(i, 0, 10*math.Sin(a)+b)
			}
			s := tc.settings
			s.Seed = 3
			s.MaxIter = 30
			m, _, err := tabular.FitRegression(x, y, s)
			if err != nil {
				t.Fatal(err)
			}
			if m.InputBlock != (s.Family == tabular.Shallow) {
				t.Errorf("input block %v for family %v", m.InputBlock, s.Family)
			}
			if (m.Quantiles != nil) != (s.InputScale == tabular.QuantileInputs) {
				t.Errorf("quantile map %v for inputs %v", m.Quantiles != nil, s.InputScale)
			}
			if (m.Range != nil) == s.Raw {
				t.Errorf("range %v for a fit with Raw %v", m.Range, s.Raw)
			}
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			var got kernel.Machine
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("decoding %s: %v", b, err)
			}
			q := mat.NewDense(20, 2, nil)
			for i := range 20 {
				q.Set(i, 0, 5*rnd.Float64()-0.5)
				q.Set(i, 1, rnd.Float64())
			}
			if !reflect.DeepEqual(got.Range, m.Range) {
				t.Errorf("decoded range %v, want %v", got.Range, m.Range)
			}
			want, have := m.Predict(nil, q), got.Predict(nil, q)
			for i := range 20 {
				if w, h := want.At(i, 0), have.At(i, 0); math.Float64bits(w) != math.Float64bits(h) {
					t.Errorf("prediction %d: decoded machine gives %v, original %v", i, h, w)
				}
			}
			again, err := json.Marshal(&got)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(b) {
				t.Errorf("re-encoding differs:\n%s\n%s", again, b)
			}
		})
	}
}
