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
// the products and prev bit for bit against a direct loop, the sums
// within rounding of the direct sums, and the assembly's sums bit for
// bit against backRowsGo's (the same order).
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
	kernels := map[string]func(w, dc, k, prev []float64, ld int, cols, lanes []float64, groups, n8, mode int){}
	if backVec {
		kernels["avx2"] = backRowsKernel
	}
	if back512 {
		kernels["avx512"] = backRowsKernel512
	}
	for name, kernel := range kernels {
		for mode := range 3 {
			const m, ld, n8 = 8, 27, 24
			dc, k, prev := randTensor[float64](rnd, m, ld).Data, randTensor[float64](rnd, m, ld).Data, randTensor[float64](rnd, m, ld).Data
			w, cols, lanes := make([]float64, m*ld), randTensor[float64](rnd, n8).Data, make([]float64, 8*m)
			wGo, prevGo, colsGo, lanesGo := slices.Clone(w), slices.Clone(prev), slices.Clone(cols), slices.Clone(lanes)
			pk, pGo := prev, prevGo
			if mode == 0 {
				pk, pGo = nil, nil
			}
			kernel(w, dc, k, pk, ld, cols, lanes, m/4, n8, mode)
			backRowsGo(wGo, dc, k, pGo, mode == 2, ld, 0, m, 0, n8, colsGo, lanesGo, 8)
			if !slices.Equal(w, wGo) || !slices.Equal(prev, prevGo) || !slices.Equal(cols, colsGo) || !slices.Equal(lanes, lanesGo) {
				t.Errorf("%s, mode %d: the kernel and backRowsGo differ", name, mode)
			}
		}
	}
}

func testBackRows(t *testing.T, rnd *rand.Rand, m, n, mode int) {
	dc, k := randTensor[float64](rnd, m, n).Data, randTensor[float64](rnd, m, n).Data
	prev0 := randTensor[float64](rnd, m, n).Data
	var prev, prevGo []float64
	if mode > 0 {
		prev, prevGo = slices.Clone(prev0), slices.Clone(prev0)
	}
	w, rows, cols, lanes := make([]float64, m*n), make([]float64, m), make([]float64, n), make([]float64, 8*m)
	backRows(w, dc, k, prev, mode == 2, rows, cols, lanes, m, n)
	// backRows in Go alone.
	wGo, rowsGo, colsGo, lanesGo := make([]float64, m*n), make([]float64, m), make([]float64, n), make([]float64, 8*m)
	n8 := n &^ 7
	backRowsGo(wGo, dc, k, prevGo, mode == 2, n, 0, m, 0, n8, colsGo, lanesGo, 8)
	for i := range m {
		rowsGo[i] = backLanes(lanesGo[8*i : 8*i+8])
	}
	backRowsGo(wGo, dc, k, prevGo, mode == 2, n, 0, m, n8, n, colsGo, rowsGo, 1)
	if !slices.Equal(w, wGo) || !slices.Equal(rows, rowsGo) || !slices.Equal(cols, colsGo) || !slices.Equal(prev, prevGo) {
		t.Fatalf("the assembly and the Go loop differ")
	}
	wantCols := make([]float64, n)
	for i := range m {
		var s float64
		for j := range n {
			p := i*n + j
			if w[p] != dc[p]*k[p] {
				t.Fatalf("w[%d][%d] = %v, want %v", i, j, w[p], dc[p]*k[p])
			}
			if want := [3]float64{0, prev0[p] + dc[p], dc[p]}[mode]; mode > 0 && prev[p] != want {
				t.Fatalf("prev[%d][%d] = %v, want %v", i, j, prev[p], want)
			}
			s += w[p]
			wantCols[j] += w[p]
		}
		if math.Abs(rows[i]-s) > 1e-13*float64(n) {
			t.Errorf("row %d sums to %v, want %v", i, rows[i], s)
		}
	}
	for j, s := range wantCols {
		if math.Abs(cols[j]-s) > 1e-13*float64(m) {
			t.Errorf("column %d sums to %v, want %v", j, cols[j], s)
		}
	}
}
