package ad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSqDist checks the squared distances of the Gaussian against their
// loop, bit for bit, on lengths around the assembly's 16 and 32 columns and on
// strided points.
func TestSqDist(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 4))
	for _, tc := range []struct{ n, d, incX, ldu int }{
		{0, 3, 1, 5}, {5, 1, 1, 5}, {16, 3, 7, 20}, {37, 9, 100, 40}, {320, 20, 3, 333}, {16, 0, 1, 16}, {48, 3, 2, 50}, {53, 4, 1, 60},
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

// TestBackRows checks the Gaussian's fused backward pass on sizes
// around the assembly's four rows and eight columns, in its three modes:
// the products and prev bit for bit against a direct loop, the columns'
// sums bit for bit against colSums on the products.
func TestBackRows(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 5))
	for _, tc := range []struct{ m, n int }{{1, 3}, {4, 8}, {7, 33}, {8, 16}, {80, 100}, {13, 7}} {
		for mode := range 3 {
			t.Run(fmt.Sprintf("%dx%d/mode=%d", tc.m, tc.n, mode), func(t *testing.T) {
				testBackRows(t, rnd, tc.m, tc.n, mode)
			})
		}
	}
}

// TestBackRowsKernels checks each of backRows' kernels that the
// processor runs (AVX2, AVX-512) against backRowsGo, bit for bit, on the
// block of rows and columns they take.
func TestBackRowsKernels(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 6))
	kernels := map[string]func(w, dc, k, prev []float64, ld int, cols []float64, groups, n8, mode int){}
	if gaussVec {
		kernels["avx2"] = backRowsKernel
	}
	if gauss512 {
		kernels["avx512"] = backRowsKernel512
	}
	for name, kernel := range kernels {
		for mode := range 3 {
			const m, ld, n8 = 8, 27, 24
			dc, k, prev := randTensor[float64](rnd, m, ld).Data, randTensor[float64](rnd, m, ld).Data, randTensor[float64](rnd, m, ld).Data
			w, cols := make([]float64, m*ld), randTensor[float64](rnd, n8).Data
			wGo, prevGo, colsGo := slices.Clone(w), slices.Clone(prev), slices.Clone(cols)
			pk, pGo := prev, prevGo
			if mode == 0 {
				pk, pGo = nil, nil
			}
			kernel(w, dc, k, pk, ld, cols, m/4, n8, mode)
			backRowsGo(wGo, dc, k, pGo, mode == 2, ld, 0, m, 0, n8, colsGo)
			if !slices.Equal(w, wGo) || !slices.Equal(prev, prevGo) || !slices.Equal(cols, colsGo) {
				t.Errorf("%s, mode %d: the kernel and backRowsGo differ", name, mode)
			}
		}
	}
}

func testBackRows(t *testing.T, rnd *rand.Rand, m, n, mode int) {
	dc, k := randTensor[float64](rnd, m, n).Data, randTensor[float64](rnd, m, n).Data
	prev0 := randTensor[float64](rnd, m, n).Data
	var prev []float64
	if mode > 0 {
		prev = slices.Clone(prev0)
	}
	w, cols := make([]float64, m*n), make([]float64, n)
	backRows(w, dc, k, prev, mode == 2, cols, m, n)
	for p := range w {
		if w[p] != dc[p]*k[p] {
			t.Fatalf("w[%d] = %v, want %v", p, w[p], dc[p]*k[p])
		}
		if want := [3]float64{0, prev0[p] + dc[p], dc[p]}[mode]; mode > 0 && prev[p] != want {
			t.Fatalf("prev[%d] = %v, want %v", p, prev[p], want)
		}
	}
	want := make([]float64, n)
	colSums(want, View(w, m, n))
	if !slices.Equal(cols, want) {
		t.Errorf("columns' sums %v, colSums gives %v", cols, want)
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
