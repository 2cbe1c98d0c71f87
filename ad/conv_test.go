package ad

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// conv2DNaive is the definition of Conv2D, one output element at a time.
func conv2DNaive(x, w *Tensor[float64], pad int) *Tensor[float64] {
	n, c, h, wd := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	f, kh, kw := w.Shape[0], w.Shape[2], w.Shape[3]
	ho, wo := h+2*pad-kh+1, wd+2*pad-kw+1
	y := NewTensor[float64](n, f, ho, wo)
	for b := range n {
		for o := range f {
			for i := range ho {
				for j := range wo {
					s := 0.0
					for ci := range c {
						for a := range kh {
							for e := range kw {
								r, q := i+a-pad, j+e-pad
								if r < 0 || r >= h || q < 0 || q >= wd {
									continue
								}
								s += w.Data[((o*c+ci)*kh+a)*kw+e] * x.Data[((b*c+ci)*h+r)*wd+q]
							}
						}
					}
					y.Data[((b*f+o)*ho+i)*wo+j] = s
				}
			}
		}
	}
	return y
}

func TestConv2DValues(t *testing.T) {
	for _, tc := range []struct {
		x, w []int
		pad  int
	}{
		{[]int{2, 3, 5, 4}, []int{2, 3, 3, 3}, 1},
		{[]int{1, 2, 6, 7}, []int{3, 2, 2, 3}, 0},
		{[]int{2, 1, 4, 4}, []int{4, 1, 5, 5}, 2},
		{[]int{1, 2, 3, 3}, []int{1, 2, 3, 3}, 3},
		{[]int{3, 1, 1, 1}, []int{2, 1, 1, 1}, 0},
		{[]int{1, 1, 28, 28}, []int{4, 1, 3, 3}, 1},
	} {
		t.Run(fmt.Sprintf("%v*%v,pad=%d", tc.x, tc.w, tc.pad), func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(1, 1))
			x, w := randTensor[float64](rnd, tc.x...), randTensor[float64](rnd, tc.w...)
			var g Graph[float64]
			got := g.Conv2D(g.Input(x), g.Input(w), tc.pad).Value
			want := conv2DNaive(x, w, tc.pad)
			if !got.sameShape(want) {
				t.Fatalf("shape %v, want %v", got.Shape, want.Shape)
			}
			if e := relDiff(got.Data, want.Data); e > 1e-14 {
				t.Errorf("relative difference %.3g from the definition", e)
			}
		})
	}
}

// BenchmarkConv2D times a 3x3 same convolution of a batch of 32 28x28
// images, forward only and forward with the gradients of kernel and
// input, for the channel counts of the hypergraph machines and beyond;
// float32 with and without the vector kernels of convVec. GFLOP/s counts
// 2 flops per multiply-add, three products for backward.
func BenchmarkConv2D(b *testing.B) {
	for _, vec := range []bool{true, false} {
		if vec && !vecKernels {
			continue
		}
		b.Run(fmt.Sprintf("float32/vec=%t", vec), func(b *testing.B) {
			defer func(old bool) { useVec = old }(useVec)
			useVec = vec
			benchmarkConv2D[float32](b)
		})
	}
	b.Run("float64", benchmarkConv2D[float64])
}

func benchmarkConv2D[T Float](b *testing.B) {
	for _, ch := range [][2]int{{1, 4}, {4, 4}, {8, 8}, {16, 16}, {32, 32}} {
		rnd := rand.New(rand.NewPCG(1, 1))
		var g Graph[T]
		x := g.Param(randTensor[T](rnd, 32, ch[0], 28, 28), nil)
		w := g.Param(randTensor[T](rnd, ch[1], ch[0], 3, 3), nil)
		y := g.Conv2D(x, w, 1)
		for i := range y.Grad.Data {
			y.Grad.Data[i] = 1
		}
		flops := float64(2 * 32 * 28 * 28 * 9 * ch[0] * ch[1])
		b.Run(fmt.Sprintf("c=%d,f=%d/forward", ch[0], ch[1]), func(b *testing.B) {
			for b.Loop() {
				y.op.forward(y)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("c=%d,f=%d/backward", ch[0], ch[1]), func(b *testing.B) {
			for b.Loop() {
				y.op.forward(y)
				y.op.backward(y)
			}
			b.ReportMetric(3*flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
