package ad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSqDist checks the squared distances of the Gaussian against their
// loop, bit for bit, on lengths around the assembly's 16 columns and on
// strided points.
func TestSqDist(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 4))
	for _, tc := range []struct{ n, d, incX, ldu int }{
		{0, 3, 1, 5}, {5, 1, 1, 5}, {16, 3, 7, 20}, {37, 9, 100, 40}, {320, 20, 3, 333}, {16, 0, 1, 16},
	} {
		t.Run(fmt.Sprintf("n=%d,d=%d", tc.n, tc.d), func(t *testing.T) {
			x := randTensor[float64](rnd, max(1, (tc.d-1)*tc.incX+1)).Data
			u := randTensor[float64](rnd, max(1, (tc.d-1)*tc.ldu+tc.n)).Data
			got, want := make([]float64, tc.n), make([]float64, tc.n)
			for i := range got {
				got[i] = math.NaN() // overwritten, not added to
			}
			sqDist(got, x, tc.incX, tc.d, u, tc.ldu)
			sqDistGo(want, x, tc.incX, tc.d, u, tc.ldu)
			for j := range got {
				var direct float64
				for r := range tc.d {
					direct += (x[r*tc.incX] - u[r*tc.ldu+j]) * (x[r*tc.incX] - u[r*tc.ldu+j])
				}
				if got[j] != want[j] || got[j] != direct {
					t.Fatalf("column %d: %v, loop %v, direct %v", j, got[j], want[j], direct)
				}
			}
		})
	}
}

// TestRowSums checks the sums of rows, four at a time and the rest,
// against the plain left-to-right sums.
func TestRowSums(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 5))
	for _, m := range []int{1, 4, 7} {
		w := randTensor[float64](rnd, m, 33)
		got := make([]float64, m)
		rowSums(got, w)
		for i := range m {
			var s float64
			for _, x := range w.Data[i*33 : (i+1)*33] {
				s += x
			}
			if got[i] != s {
				t.Errorf("m=%d: row %d sums to %v, want %v", m, i, got[i], s)
			}
		}
	}
}
