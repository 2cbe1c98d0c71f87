package ad

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestExpNonPos(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	xs := []float64{0, -1e-300, -0.5, -math.Ln2 / 2, -math.Ln2, -1, -10, -100, -700, -707.9, -708.5, -1000, math.Inf(-1)}
	for range 100000 {
		xs = append(xs, -rnd.ExpFloat64()*50)
	}
	for _, x := range xs {
		got, want := expNonPos(x), math.Exp(x)
		if x < -708 {
			if got != 0 {
				t.Errorf("expNonPos(%v) = %v, want 0", x, got)
			}
			continue
		}
		if rel := math.Abs(got-want) / want; rel > 1e-15 {
			t.Fatalf("expNonPos(%v) = %v, math.Exp = %v: relative error %.2g", x, got, want, rel)
		}
	}
}

func BenchmarkExp(b *testing.B) {
	xs := make([]float64, 1024)
	for i := range xs {
		xs[i] = -float64(i) / 100
	}
	for _, f := range []struct {
		name string
		exp  func(float64) float64
	}{{"math.Exp", math.Exp}, {"expNonPos", expNonPos}} {
		b.Run(f.name, func(b *testing.B) {
			s := 0.0
			for b.Loop() {
				for _, x := range xs {
					s += f.exp(x)
				}
			}
			_ = s
		})
	}
}
