package ad

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestGlorotUniform(t *testing.T) {
	w := make([]float32, 20000)
	GlorotUniform(w, 10, 14, rand.New(rand.NewPCG(1, 2)))
	limit := math.Sqrt(6.0 / 24)
	var sum, sq float64
	for _, v := range w {
		if math.Abs(float64(v)) > limit {
			t.Fatalf("value %v beyond the limit %v", v, limit)
		}
		sum += float64(v)
		sq += float64(v) * float64(v)
	}
	n := float64(len(w))
	// A uniform on [-r, r] has mean 0 and variance r²/3 = 2/(fanIn+fanOut).
	if mean, variance := sum/n, sq/n; math.Abs(mean) > 0.01 || math.Abs(variance-2.0/24)/(2.0/24) > 0.03 {
		t.Errorf("mean %v and variance %v, want 0 and %v", mean, variance, 2.0/24)
	}
	again := make([]float32, len(w))
	GlorotUniform(again, 10, 14, rand.New(rand.NewPCG(1, 2)))
	for i := range w {
		if w[i] != again[i] {
			t.Fatal("the same seed drew other values")
		}
	}
}

func TestCorrect(t *testing.T) {
	scores := View([]float64{
		0.1, 0.7, 0.2, // argmax 1
		0.5, 0.5, 0.0, // a tie goes to the first
		-1, -2, -0.5, // argmax 2
	}, 3, 3)
	for _, c := range []struct {
		labels []int
		want   int
	}{
		{[]int{1, 0, 2}, 3},
		{[]int{1, 1, 2}, 2},
		{[]int{0, 2, 0}, 0},
	} {
		if got := Correct(scores, c.labels); got != c.want {
			t.Errorf("labels %v: %d correct, want %d", c.labels, got, c.want)
		}
	}
}
