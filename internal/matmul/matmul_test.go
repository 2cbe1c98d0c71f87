package matmul

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parametric-machines/machines/internal/testutil"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// general returns a rows x cols matrix with the given extra stride, its
// entries uniform in [-1, 1) and the padding past each row NaN, so that a
// product that reads or writes outside the matrix shows.
func general[T float](rnd *rand.Rand, rows, cols, pad int) matrix[T] {
	g := matrix[T]{Rows: rows, Cols: cols, Stride: max(1, cols+pad)}
	g.Data = make([]T, max(0, (rows-1)*g.Stride+cols))
	for i := range g.Data {
		if i%g.Stride < cols {
			g.Data[i] = T(2*rnd.Float64() - 1)
		} else {
			g.Data[i] = T(math.NaN())
		}
	}
	return g
}

func gen32(m matrix[float32]) blas32.General {
	return blas32.General{Rows: m.Rows, Cols: m.Cols, Stride: m.Stride, Data: m.Data}
}

func gen64(m matrix[float64]) blas64.General {
	return blas64.General{Rows: m.Rows, Cols: m.Cols, Stride: m.Stride, Data: m.Data}
}

// naive computes alpha*op(a)*op(b) + beta*c in float64.
func naive[T float](tA, tB blas.Transpose, alpha T, a, b matrix[T], beta T, c matrix[T]) []float64 {
	at := func(g matrix[T], t blas.Transpose, i, j int) float64 {
		if t != blas.NoTrans {
			i, j = j, i
		}
		return float64(g.Data[i*g.Stride+j])
	}
	k := a.Cols
	if tA != blas.NoTrans {
		k = a.Rows
	}
	out := make([]float64, c.Rows*c.Cols)
	for i := range c.Rows {
		for j := range c.Cols {
			var s float64
			for p := range k {
				s += at(a, tA, i, p) * at(b, tB, p, j)
			}
			v := float64(alpha) * s
			if beta != 0 {
				v += float64(beta) * float64(c.Data[i*c.Stride+j])
			}
			out[i*c.Cols+j] = v
		}
	}
	return out
}

func TestGemm(t *testing.T) {
	t.Run("float32", func(t *testing.T) {
		testGemm(t, 1e-5, func(tA, tB blas.Transpose, alpha float32, a, b matrix[float32], beta float32, c matrix[float32]) {
			F32(tA, tB, alpha, gen32(a), gen32(b), beta, gen32(c))
		})
	})
	t.Run("float64", func(t *testing.T) {
		testGemm(t, 1e-13, func(tA, tB blas.Transpose, alpha float64, a, b matrix[float64], beta float64, c matrix[float64]) {
			F64(tA, tB, alpha, gen64(a), gen64(b), beta, gen64(c))
		})
	})
	if !useKernels {
		t.Skip("no kernels in this build or on this processor: F32 and F64 call gonum")
	}
	// The kernels on every size, thin ones included, which F32 and F64
	// give to gonum.
	t.Run("float32 kernels", func(t *testing.T) {
		testGemm(t, 1e-5, func(tA, tB blas.Transpose, alpha float32, a, b matrix[float32], beta float32, c matrix[float32]) {
			product(tA != blas.NoTrans, tB != blas.NoTrans, alpha, a, b, beta, c, &pool32, false)
		})
	})
	t.Run("float64 kernels", func(t *testing.T) {
		testGemm(t, 1e-13, func(tA, tB blas.Transpose, alpha float64, a, b matrix[float64], beta float64, c matrix[float64]) {
			product(tA != blas.NoTrans, tB != blas.NoTrans, alpha, a, b, beta, c, &pool64, false)
		})
	})
}

func testGemm[T float](t *testing.T, eps float64, gemm func(tA, tB blas.Transpose, alpha T, a, b matrix[T], beta T, c matrix[T])) {
	rnd := rand.New(rand.NewPCG(1, 2))
	// Sizes around the tile (6 x 8 or 16) and block (96, 256, 256) edges.
	sizes := [][3]int{
		{1, 1, 1}, {6, 16, 1}, {6, 8, 2}, {5, 15, 3}, {7, 17, 9}, {12, 32, 64},
		{13, 33, 257}, {97, 40, 20}, {30, 257, 11}, {100, 300, 260}, {6, 16, 0},
		// Thin products of the kinds that thin64 computes: a few rows
		// times a long matrix, with and without a remainder of columns,
		// and the small inner dimension of a rank-3 update.
		{3, 48, 100}, {1, 37, 20}, {7, 100, 3}, {3, 7, 300}, {2, 5, 13},
		// Few columns, which dotsNT computes in float32 with b
		// transposed: groups of rows and columns that come out even or
		// not, inner dimensions with and without a rest of a vector.
		{8, 9, 16}, {13, 10, 37}, {9, 16, 200}, {32, 10, 196},
		// Few columns of many rows, which F64 hands to fewColumns with b
		// not transposed: a ridge's fits of one or a few targets.
		{40, 1, 30}, {37, 3, 5}, {50, 5, 110}, {20, 12, 4},
	}
	trans := []blas.Transpose{blas.NoTrans, blas.Trans}
	for _, sz := range sizes {
		m, n, k := sz[0], sz[1], sz[2]
		for _, tA := range trans {
			for _, tB := range trans {
				for _, ab := range [][2]T{{1, 1}, {1, 0}, {-0.5, 2}} {
					name := fmt.Sprintf("%dx%dx%d/%c%c/alpha=%g,beta=%g", m, n, k, tA, tB, ab[0], ab[1])
					ar, ac := m, k
					if tA != blas.NoTrans {
						ar, ac = k, m
					}
					br, bc := k, n
					if tB != blas.NoTrans {
						br, bc = n, k
					}
					a, b := general[T](rnd, ar, ac, 3), general[T](rnd, br, bc, 1)
					c := general[T](rnd, m, n, 2)
					if ab[1] == 0 {
						// beta 0 ignores what c held, NaN included.
						c.Data[0] = T(math.NaN())
					}
					want := naive(tA, tB, ab[0], a, b, ab[1], c)
					gemm(tA, tB, ab[0], a, b, ab[1], c)
					tol := eps * float64(k+1)
					for i := range m {
						for j := range n {
							got := float64(c.Data[i*c.Stride+j])
							if w := want[i*n+j]; !(math.Abs(got-w) <= tol*(1+math.Abs(w))) {
								t.Fatalf("%s: c[%d,%d] = %g, want %g", name, i, j, got, w)
							}
						}
						for q := i*c.Stride + n; q < min(len(c.Data), (i+1)*c.Stride); q++ {
							if !math.IsNaN(float64(c.Data[q])) {
								t.Fatalf("%s: padding of row %d written", name, i)
							}
						}
					}
				}
			}
		}
	}
}

func TestGemmBadShapes(t *testing.T) {
	g := func(r, c int) blas32.General {
		return blas32.General{Rows: r, Cols: c, Stride: c, Data: make([]float32, r*c)}
	}
	short := g(4, 4)
	short.Data = short.Data[:10]
	tests := []struct {
		name    string
		a, b, c blas32.General
	}{
		{"inner", g(2, 3), g(4, 5), g(2, 5)},
		{"rows", g(2, 3), g(3, 5), g(3, 5)},
		{"short data", g(4, 4), short, g(4, 4)},
		{"stride", g(2, 3), blas32.General{Rows: 3, Cols: 4, Stride: 2, Data: make([]float32, 12)}, g(2, 4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testutil.CheckPanic(t, func() { F32(blas.NoTrans, blas.NoTrans, 1, tt.a, tt.b, 0, tt.c) }, "matmul: ")
		})
	}
}

func BenchmarkGemm(b *testing.B) {
	for _, n := range []int{32, 128, 512} {
		benchmarkGemm(b, n, "32", func(x, y, z matrix[float32]) { F32(blas.NoTrans, blas.NoTrans, 1, gen32(x), gen32(y), 1, gen32(z)) },
			func(x, y, z matrix[float32]) {
				blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, gen32(x), gen32(y), 1, gen32(z))
			})
		benchmarkGemm(b, n, "64", func(x, y, z matrix[float64]) { F64(blas.NoTrans, blas.NoTrans, 1, gen64(x), gen64(y), 1, gen64(z)) },
			func(x, y, z matrix[float64]) {
				blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, gen64(x), gen64(y), 1, gen64(z))
			})
	}
}

// benchmarkGemm times n x n products with the kernels (F32 or F64) and
// with gonum (blas32 or blas64).
func benchmarkGemm[T float](b *testing.B, n int, bits string, ours, gonum func(x, y, z matrix[T])) {
	rnd := rand.New(rand.NewPCG(1, 1))
	x, y, z := general[T](rnd, n, n, 0), general[T](rnd, n, n, 0), general[T](rnd, n, n, 0)
	for _, impl := range []struct {
		name string
		f    func(x, y, z matrix[T])
	}{{"F" + bits, ours}, {"blas" + bits, gonum}} {
		b.Run(fmt.Sprintf("%s/%d", impl.name, n), func(b *testing.B) {
			for b.Loop() {
				impl.f(x, y, z)
			}
		})
	}
}

// TestThinKernels checks that the thin products give gonum's results bit
// for bit, with the kernels and with their Go versions, on strides that
// are not multiples of the vector width.
func TestThinKernels(t *testing.T) {
	if !useKernels {
		t.Skip("no kernels in this build or on this processor: F64 calls gonum")
	}
	rnd := rand.New(rand.NewPCG(1, 3))
	for _, sz := range [][3]int{{3, 48, 100}, {1, 37, 21}, {7, 100, 3}, {3, 17, 301}, {6, 20, 40}, {2, 19, 13}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, tr := range [][2]blas.Transpose{{blas.NoTrans, blas.NoTrans}, {blas.Trans, blas.NoTrans}, {blas.NoTrans, blas.Trans}} {
			tA, tB := tr[0], tr[1]
			ar, ac := m, k
			if tA != blas.NoTrans {
				ar, ac = k, m
			}
			br, bc := k, n
			if tB != blas.NoTrans {
				br, bc = n, k
			}
			a, b := general[float64](rnd, ar, ac, 3), general[float64](rnd, br, bc, 1)
			c := general[float64](rnd, m, n, 2)
			want := matrix[float64]{Rows: m, Cols: n, Stride: c.Stride, Data: append([]float64(nil), c.Data...)}
			blas64.Gemm(tA, tB, -0.7, gen64(a), gen64(b), 1.5, gen64(want))
			if !thin64(tA, tB, -0.7, a, b, 1.5, c) {
				t.Fatalf("%v %c%c: thin64 declined", sz, tA, tB)
			}
			for i := range m {
				for j := range n {
					if got, w := c.Data[i*c.Stride+j], want.Data[i*c.Stride+j]; got != w {
						t.Fatalf("%v %c%c: c[%d,%d] = %v, gonum gives %v", sz, tA, tB, i, j, got, w)
					}
				}
			}
		}
	}
	// The kernels against their Go versions.
	rnds := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = 2*rnd.Float64() - 1
		}
		return x
	}
	for _, tc := range []struct{ cols, k, ldb, sinc int }{{16, 1, 16, 1}, {32, 5, 37, 3}, {48, 100, 50, 1}, {80, 7, 81, 2}} {
		b, s := rnds((tc.k-1)*tc.ldb+tc.cols), rnds((tc.k-1)*tc.sinc+1)
		got := rnds(tc.cols)
		want := append([]float64(nil), got...)
		axpyRows(got, b, tc.ldb, s, tc.sinc, tc.k, -0.5)
		axpyRowsGo(want, b, tc.ldb, s, tc.sinc, tc.k, -0.5)
		for j := range got {
			if got[j] != want[j] {
				t.Errorf("axpyRows %v: c[%d] = %v, want %v", tc, j, got[j], want[j])
			}
		}
	}
	for _, tc := range []struct{ k, ldb int }{{0, 3}, {4, 4}, {66, 71}} {
		a, b := rnds(tc.k), rnds(3*tc.ldb+tc.k)
		var got, want [16]float64
		dots4(got[:], a, b, tc.ldb)
		dots4Go(want[:], a, b, tc.ldb, 4)
		if got != want {
			t.Errorf("dots4 %v: lanes %v, want %v", tc, got, want)
		}
	}
	testutil.CheckPanic(t, func() { axpyRows(make([]float64, 15), make([]float64, 15), 15, []float64{1}, 1, 1, 1) }, "matmul: ")
	testutil.CheckPanic(t, func() { dots4(make([]float64, 16), make([]float64, 8), make([]float64, 31), 8) }, "matmul: ")
}

// BenchmarkThin times the thin products of a kernel machine's level: 3
// coefficient rows times a 100 x 2000 kernel matrix (NN), the gradient
// of the coefficients (NT) and the rank-3 update of the kernel's
// gradient (TN), with the thin kernels and with gonum.
func BenchmarkThin(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 1))
	const d, m, n = 3, 100, 2000
	c, k, v := general[float64](rnd, d, m, 0), general[float64](rnd, m, n, 0), general[float64](rnd, d, n, 0)
	dc, dk := general[float64](rnd, d, m, 0), general[float64](rnd, m, n, 0)
	for _, tc := range []struct {
		name    string
		tA, tB  blas.Transpose
		x, y, z matrix[float64]
	}{
		{"NN", blas.NoTrans, blas.NoTrans, c, k, v},
		{"NT", blas.NoTrans, blas.Trans, v, k, dc},
		{"TN", blas.Trans, blas.NoTrans, c, v, dk},
	} {
		b.Run(tc.name+"/F64", func(b *testing.B) {
			for b.Loop() {
				F64(tc.tA, tc.tB, 1, gen64(tc.x), gen64(tc.y), 1, gen64(tc.z))
			}
		})
		b.Run(tc.name+"/blas64", func(b *testing.B) {
			for b.Loop() {
				blas64.Gemm(tc.tA, tc.tB, 1, gen64(tc.x), gen64(tc.y), 1, gen64(tc.z))
			}
		})
	}
}

// TestDots4x3 checks the kernel against its Go version on lengths with
// and without a masked rest, rows of b apart and overlapping (ldb 1, a
// correlation's shifts), with NaN just past every row so that an element
// read beyond k shows.
func TestDots4x3(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{0, 1, 7, 8, 9, 16, 23, 196} {
		for _, ldb := range []int{1, k + 3} {
			t.Run(fmt.Sprintf("k=%d,ldb=%d", k, ldb), func(t *testing.T) {
				a := general[float32](rnd, 4, k, 5)
				b := general[float32](rnd, 1, 2*ldb+k, 0).Data
				if ldb > 1 {
					b = general[float32](rnd, 3, k, ldb-k).Data
				}
				got, want := make([]float32, 12), make([]float32, 12)
				Dots4x3(got, a.Data, a.Stride, b, ldb, k)
				dots4x3Go(want, a.Data, a.Stride, b, ldb, k)
				for i := range want {
					if math.Abs(float64(got[i]-want[i])) > 1e-5*float64(k+1) {
						t.Fatalf("sums %v, want %v", got, want)
					}
				}
			})
		}
	}
	mustPanic := func(name string, f func()) {
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	buf := make([]float32, 40)
	mustPanic("short a", func() { Dots4x3(buf, buf[:30], 10, buf, 1, 8) })
	mustPanic("short b", func() { Dots4x3(buf, buf, 8, buf[:20], 8, 8) })
	mustPanic("short sums", func() { Dots4x3(buf[:11], buf, 8, buf, 8, 8) })
}

// TestGram checks Gram against gonum's blas64.Syrk on sizes around the
// tiles and blocks, with and without the kernels: the upper triangle to
// rounding, the entries below the diagonal and the padding untouched.
func TestGram(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 5))
	for _, sz := range [][2]int{{1, 1}, {5, 3}, {9, 7}, {40, 8}, {100, 13}, {300, 97}, {260, 200}, {600, 410}, {7, 300}} {
		rows, cols := sz[0], sz[1]
		t.Run(fmt.Sprintf("%dx%d", rows, cols), func(t *testing.T) {
			a := gen64(general[float64](rnd, rows, cols, 3))
			c := general[float64](rnd, cols, cols, 2)
			want := blas64.Symmetric{Uplo: blas.Upper, N: cols, Stride: c.Stride, Data: append([]float64(nil), c.Data...)}
			blas64.Syrk(blas.Trans, 1, a, 1, want)
			Gram(a, blas64.Symmetric{Uplo: blas.Upper, N: cols, Stride: c.Stride, Data: c.Data})
			for i, v := range c.Data {
				r, col := i/c.Stride, i%c.Stride
				w := want.Data[i]
				if col >= cols || col < r {
					if math.Float64bits(v) != math.Float64bits(w) {
						t.Fatalf("(%d, %d), outside the upper triangle: %v, want it left at %v", r, col, v, w)
					}
					continue
				}
				if math.Abs(v-w) > 1e-13*float64(rows+1) {
					t.Fatalf("(%d, %d): %v, want %v", r, col, v, w)
				}
			}
		})
	}
	testutil.CheckPanic(t, func() {
		Gram(blas64.General{Rows: 2, Cols: 2, Stride: 2, Data: make([]float64, 4)}, blas64.Symmetric{Uplo: blas.Lower, N: 2, Stride: 2, Data: make([]float64, 4)})
	}, "matmul: Gram of a lower triangle")
	testutil.CheckPanic(t, func() {
		Gram(blas64.General{Rows: 2, Cols: 3, Stride: 3, Data: make([]float64, 6)}, blas64.Symmetric{Uplo: blas.Upper, N: 2, Stride: 2, Data: make([]float64, 4)})
	}, "matmul: ")
}

// BenchmarkGram times the upper triangle of z^T z, z of 4,096 rows, with
// Gram and with the whole square by F64, in GFlop/s of the products
// each makes.
func BenchmarkGram(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{100, 410} {
		z := gen64(general[float64](rnd, 4096, n, 0))
		c := make([]float64, n*n)
		b.Run(fmt.Sprintf("Gram/%d", n), func(b *testing.B) {
			for b.Loop() {
				Gram(z, blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: c})
			}
			b.ReportMetric(4096*float64(n*(n+1))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFlop/s")
		})
		b.Run(fmt.Sprintf("F64/%d", n), func(b *testing.B) {
			for b.Loop() {
				F64(blas.Trans, blas.NoTrans, 1, z, z, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: c})
			}
			b.ReportMetric(4096*float64(2*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFlop/s")
		})
	}
}
