package ad

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func randFloats(rnd *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rnd.Float64()*2 - 1)
	}
	return x
}

// closeFloats reports whether got and want agree to float32 rounding
// of sums of terms of about 1.
func closeFloats(got, want []float32, terms int) bool {
	tol := 1e-6 * float32(terms)
	for i, w := range want {
		if d := got[i] - w; d > tol || d < -tol {
			return false
		}
	}
	return len(got) == len(want)
}

// TestVecKernels checks the kernels of convVec against their plain Go
// versions.
func TestVecKernels(t *testing.T) {
	if !vecKernels {
		t.Skip("no vector kernels on this processor")
	}
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{16, 48, 848} {
		for _, taps := range []int{1, 9, 36} {
			t.Run(fmt.Sprintf("rowTaps4/n=%d,taps=%d", n, taps), func(t *testing.T) {
				ld := n + 16
				src := randFloats(rnd, 4*n+100)
				offs := make([]int, taps)
				for i := range offs {
					offs[i] = rnd.IntN(len(src) - n + 1)
				}
				w := randFloats(rnd, 4*taps)
				got, want := randFloats(rnd, 4*ld), make([]float32, 4*ld)
				copy(want, got)
				rowTaps4(got, ld, src, offs, w, n)
				rowTaps4Go(want, ld, src, offs, w, n)
				if !closeFloats(got, want, taps) {
					t.Error("differs from rowTaps4Go")
				}
			})
		}
	}
	for _, cols := range []int{0, 1, 7, 8, 9, 28, 30} {
		t.Run(fmt.Sprintf("rows/cols=%d", cols), func(t *testing.T) {
			const rows = 3
			src := randFloats(rnd, rows*(cols+5))
			dst := randFloats(rnd, rows*(cols+2))
			got, want := append([]float32(nil), dst...), append([]float32(nil), dst...)
			copyRows(got, cols+2, src, cols+5, rows, cols)
			copyRowsGo(want, cols+2, src, cols+5, rows, cols)
			if !closeFloats(got, want, 0) {
				t.Errorf("copyRows: %v, want %v", got, want)
			}
			addRows(got, cols+2, src, cols+5, rows, cols)
			addRowsGo(want, cols+2, src, cols+5, rows, cols)
			if !closeFloats(got, want, 0) {
				t.Errorf("addRows: %v, want %v", got, want)
			}
		})
	}
}

func TestVecKernelPanics(t *testing.T) {
	buf := make([]float32, 100)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"rowTaps4 n not a multiple of 16", func() { rowTaps4(buf, 24, buf, []int{0}, buf, 8) }},
		{"rowTaps4 rows overlap", func() { rowTaps4(buf, 8, buf, []int{0}, buf, 16) }},
		{"rowTaps4 short output", func() { rowTaps4(buf, 32, buf, []int{0}, buf, 16) }},
		{"rowTaps4 tap past the input", func() { rowTaps4(buf, 16, buf, []int{90}, buf, 16) }},
		{"rowTaps4 negative tap", func() { rowTaps4(buf, 16, buf, []int{-1}, buf, 16) }},
		{"rowTaps4 short weights", func() { rowTaps4(buf, 16, buf, make([]int, 30), buf, 16) }},
		{"copyRows short source", func() { copyRows(buf, 10, buf[:20], 10, 3, 10) }},
		{"addRows short destination", func() { addRows(buf[:20], 10, buf, 10, 3, 10) }},
		{"addRows wide rows", func() { addRows(buf, 10, buf, 10, 3, 11) }},
	} {
		mustPanic(t, tc.name, tc.f)
	}
}

// withVec runs f with Conv2D in float32 using convVec or not.
func withVec(t *testing.T, vec bool, f func(t *testing.T)) {
	if vec && !vecKernels {
		t.Skip("no vector kernels on this processor")
	}
	defer func(old bool) { useVec = old }(useVec)
	useVec = vec
	f(t)
}

// TestConv2DFloat32Paths checks both ways of computing a float32
// convolution, with and without vector kernels, against float64:
// values, kernel and input gradients, for shapes whose channels are not
// multiples of four and whose rows are not multiples of a vector.
func TestConv2DFloat32Paths(t *testing.T) {
	shapes := []struct {
		x, w []int
		pad  int
	}{
		{[]int{2, 3, 5, 4}, []int{2, 3, 3, 3}, 1},
		{[]int{1, 2, 6, 7}, []int{5, 2, 2, 3}, 0},
		{[]int{2, 1, 4, 4}, []int{4, 1, 5, 5}, 2},
		{[]int{1, 6, 3, 3}, []int{1, 6, 3, 4}, 3},
		{[]int{3, 1, 1, 1}, []int{2, 1, 1, 1}, 0},
		{[]int{2, 4, 28, 28}, []int{4, 4, 3, 3}, 1},
		{[]int{1, 9, 7, 7}, []int{7, 9, 3, 3}, 1},
	}
	for _, vec := range []bool{false, true} {
		t.Run(fmt.Sprintf("vec=%t", vec), func(t *testing.T) {
			withVec(t, vec, func(t *testing.T) {
				for _, s := range shapes {
					t.Run(fmt.Sprintf("%v*%v,pad=%d", s.x, s.w, s.pad), func(t *testing.T) {
						testConv2DAgainstFloat64(t, s.x, s.w, s.pad)
					})
				}
			})
		})
	}
}

func testConv2DAgainstFloat64(t *testing.T, xs, ws []int, pad int) {
	rnd := rand.New(rand.NewPCG(1, 1))
	x64, w64 := randTensor[float64](rnd, xs...), randTensor[float64](rnd, ws...)
	var g64 Graph[float64]
	xn64, wn64 := g64.Param(x64, nil), g64.Param(w64, nil)
	y64 := g64.Conv2D(xn64, wn64, pad)
	dy := randTensor[float64](rnd, y64.Value.Shape...)
	loss64 := g64.Dot(y64, g64.Input(dy))
	g64.Backward(loss64)
	if e := relDiff(y64.Value.Data, conv2DNaive(x64, w64, pad).Data); e > 1e-14 {
		t.Fatalf("float64 output: relative difference %.3g from the definition", e)
	}

	x32, w32, dy32 := NewTensor[float32](xs...), NewTensor[float32](ws...), NewTensor[float32](dy.Shape...)
	copyTo(x32.Data, x64.Data)
	copyTo(w32.Data, w64.Data)
	copyTo(dy32.Data, dy.Data)
	var g Graph[float32]
	xn, wn := g.Param(x32, nil), g.Param(w32, nil)
	y := g.Conv2D(xn, wn, pad)
	loss := g.Dot(y, g.Input(dy32))
	// Twice, to check that Backward overwrites and the buffers are reused.
	for range 2 {
		g.Forward()
		g.Backward(loss)
	}
	for _, c := range []struct {
		name      string
		got       []float32
		want      []float64
		tolerance float64
	}{
		{"output", y.Value.Data, y64.Value.Data, 1e-6},
		{"kernel gradient", wn.Grad.Data, wn64.Grad.Data, 1e-5},
		{"input gradient", xn.Grad.Data, xn64.Grad.Data, 1e-6},
	} {
		if e := relDiff(c.got, c.want); e > c.tolerance {
			t.Errorf("%s: relative difference %.3g from float64", c.name, e)
		}
	}
	// Without an input gradient, the kernel gradient is the same.
	var h Graph[float32]
	wh := h.Param(w32, nil)
	yh := h.Conv2D(h.Input(x32), wh, pad)
	h.Backward(h.Dot(yh, h.Input(dy32)))
	if e := relDiff(wh.Grad.Data, wn64.Grad.Data); e > 1e-5 {
		t.Errorf("kernel gradient without input gradient: relative difference %.3g from float64", e)
	}
}
