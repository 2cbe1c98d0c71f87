package finite

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/testutil"
	"gonum.org/v1/gonum/floats/scalar"
)

// testCase is one machine on signals of one shape.
type testCase struct {
	name  string
	new   func(rnd *rand.Rand) (*Machine[float64], error)
	shape []int
	batch int
}

func cases() []testCase {
	return []testCase{
		{"dense", func(r *rand.Rand) (*Machine[float64], error) { return NewDense[float64]([]int{2, 3, 1, 2}, ad.Tanh, r) }, nil, 3},
		{"dense-one-block", func(r *rand.Rand) (*Machine[float64], error) { return NewDense[float64]([]int{3}, ad.Sigmoid, r) }, nil, 2},
		{"conv1d", func(r *rand.Rand) (*Machine[float64], error) {
			return NewConv[float64]([]int{1, 2, 2}, ad.Tanh, []int{2}, r)
		}, []int{7}, 2},
		{"conv2d", func(r *rand.Rand) (*Machine[float64], error) {
			return NewConv[float64]([]int{2, 1, 2}, ad.Sigmoid, []int{1, 2}, r)
		}, []int{4, 5}, 2},
		{"recur", func(r *rand.Rand) (*Machine[float64], error) {
			return NewRecur[float64]([]int{1, 2, 2}, ad.Tanh, 3, 2, r)
		}, []int{9}, 2},
		{"recur-long-block", func(r *rand.Rand) (*Machine[float64], error) { return NewRecur[float64]([]int{2, 1}, ad.Tanh, 2, 5, r) }, []int{7}, 3},
		{"recur-block-1", func(r *rand.Rand) (*Machine[float64], error) { return NewRecur[float64]([]int{2, 2}, ad.Tanh, 1, 1, r) }, []int{4}, 2},
	}
}

func randTensor(rnd *rand.Rand, scale float64, shape ...int) *ad.Tensor[float64] {
	t := ad.NewTensor[float64](shape...)
	for i := range t.Data {
		t.Data[i] = scale * (2*rnd.Float64() - 1)
	}
	return t
}

// used reports whether the weight entry linking input channel j at delay
// or kernel position k to output channel i is one the filtration allows.
func used(m *Machine[float64], i, j, k int) bool {
	off := offsets(m.dims)
	blk := func(c int) int {
		for b := range m.dims {
			if c < off[b+1] {
				return b
			}
		}
		return -1
	}
	if m.kind == Recur && k >= m.timeblock {
		return true
	}
	return blk(j) < blk(i)
}

// naiveMap computes z0 + s ⊙ sigma(y0 + W z) for every entry by plain
// loops, without any of the solver's schedule: the machine's map, whose
// fixed point is the stable state.
func naiveMap(m *Machine[float64], shape []int, b int, y0, z0, z []float64) (y, out []float64) {
	d, k := m.Size(), m.Taps()
	pos := 1
	for _, n := range shape {
		pos *= n
	}
	n := pos * b
	y = make([]float64, d*n)
	out = make([]float64, d*n)
	copy(y, y0)
	copy(out, z0)
	for i := range d {
		for p := range pos {
			for s := range b {
				acc := 0.0
				for j := range d {
					for t := range k {
						if !used(m, i, j, t) {
							continue
						}
						var w float64
						src := -1
						switch m.kind {
						case Dense:
							w, src = m.W.Data[i*d+j], 0
						case Conv:
							w = m.W.Data[(i*d+j)*k+t]
							if len(shape) == 1 {
								if q := p + t - m.pad[0]; q >= 0 && q < shape[0] {
									src = q
								}
							} else {
								kw := 2*m.pad[1] + 1
								h, x := p/shape[1]+t/kw-m.pad[0], p%shape[1]+t%kw-m.pad[1]
								if h >= 0 && h < shape[0] && x >= 0 && x < shape[1] {
									src = h*shape[1] + x
								}
							}
						case Recur:
							w = m.W.Data[i*k*d+t*d+j]
							if q := p - t; q >= 0 {
								src = q
							}
						}
						if src >= 0 {
							acc += w * z[j*n+src*b+s]
						}
					}
				}
				y[i*n+p*b+s] += acc
			}
		}
	}
	for i := range d {
		for q := range n {
			c := 1.0
			switch {
			case m.Scale == nil:
			case len(m.Scale.Data) == d:
				c = m.Scale.Data[i]
			default:
				c = m.Scale.Data[i*pos+q/b]
			}
			out[i*n+q] += c * m.f(y[i*n+q])
		}
	}
	return y, out
}

// scaleKinds are the scalings a machine may learn.
var scaleKinds = []string{"none", "channel", "entry"}

// learnScale gives m a scaling of the given kind with values in [0.5,
// 1.5).
func learnScale(t *testing.T, m *Machine[float64], kind string, shape []int, rnd *rand.Rand) {
	t.Helper()
	switch kind {
	case "none":
		return
	case "channel":
		if err := m.LearnScale(); err != nil {
			t.Fatal(err)
		}
	case "entry":
		if m.kind == Dense {
			// One position: per entry is per channel, as a D x 1 tensor.
			m.Scale = ad.NewTensor[float64](m.Size(), 1)
		} else if err := m.LearnScale(shape...); err != nil {
			t.Fatal(err)
		}
	}
	for i := range m.Scale.Data {
		m.Scale.Data[i] = 0.5 + rnd.Float64()
	}
}

// TestForwardIsStableState checks the solve against the fixed point of
// the machine's map, reached by iterating the map as many times as the
// filtration has steps: the solve reads every weight it should, in an
// order that makes it exact.
func TestForwardIsStableState(t *testing.T) {
	for _, c := range cases() {
		for _, scale := range scaleKinds {
			t.Run(c.name+"/scale="+scale, func(t *testing.T) {
				testForwardIsStableState(t, c, scale)
			})
		}
	}
}

func testForwardIsStableState(t *testing.T, c testCase, scale string) {
	rnd := rand.New(rand.NewPCG(1, 1))
	m, err := c.new(rnd)
	if err != nil {
		t.Fatal(err)
	}
	learnScale(t, m, scale, c.shape, rnd)
	s, err := m.NewSolver(c.shape...)
	if err != nil {
		t.Fatal(err)
	}
	n := s.Positions() * c.batch
	d := m.Size()
	y0 := randTensor(rnd, 1, m.dims[0], n)
	z0 := randTensor(rnd, 1, d, n)
	y, z := s.Forward(y0, z0)
	full := make([]float64, d*n)
	copy(full, y0.Data)
	iter := append([]float64(nil), z0.Data...)
	var ny []float64
	for range s.Steps() + 1 {
		ny, iter = naiveMap(m, c.shape, c.batch, full, z0.Data, iter)
	}
	for i := range iter {
		if !scalar.EqualWithinAbsOrRel(z.Data[i], iter[i], 1e-12, 1e-12) || !scalar.EqualWithinAbsOrRel(y.Data[i], ny[i], 1e-12, 1e-12) {
			t.Fatalf("entry %d: solve y %v z %v, fixed point y %v z %v", i, y.Data[i], z.Data[i], ny[i], iter[i])
		}
	}
}

// TestGradients checks the gradients with respect to y0, z0, the weight
// and the scaling against central finite differences.
func TestGradients(t *testing.T) {
	for _, c := range cases() {
		for _, scale := range scaleKinds {
			t.Run(c.name+"/scale="+scale, func(t *testing.T) {
				rnd := rand.New(rand.NewPCG(2, 2))
				m, err := c.new(rnd)
				if err != nil {
					t.Fatal(err)
				}
				for i := range m.W.Data {
					m.W.Data[i] *= 3 // make the nonlinearity matter
				}
				learnScale(t, m, scale, c.shape, rnd)
				var g ad.Graph[float64]
				p := bind(&g, m)
				// Batches hold samples first: samples x channels x positions.
				batch := func(channels int) []int { return append([]int{c.batch, channels}, c.shape...) }
				y0 := g.Param(randTensor(rnd, 1, batch(min(m.dims[0]+1, m.Size()))...), nil)
				z0 := g.Param(randTensor(rnd, 1, batch(m.Size())...), nil)
				z := m.apply(&g, p.W, p.Scale, y0, z0)
				loss := g.Dot(z, g.Input(randTensor(rnd, 1, batch(m.Size())...)))
				params := []*ad.Node[float64]{y0, z0, p.W}
				if p.Scale != nil {
					params = append(params, p.Scale)
				}
				if e := ad.CheckGradient(&g, loss, params, 1e-6); e.Rel > 1e-6 {
					t.Errorf("gradient error %+v", e)
				}
				// The entries the filtration excludes get no gradient.
				k := m.Taps()
				for i := range m.Size() {
					for j := range m.Size() {
						for tp := range k {
							idx := (i*m.Size()+j)*k + tp
							if m.kind == Recur {
								idx = i*k*m.Size() + tp*m.Size() + j
							}
							if !used(m, i, j, tp) && p.W.Grad.Data[idx] != 0 {
								t.Fatalf("masked weight (%d, %d, %d) has gradient %v", i, j, tp, p.W.Grad.Data[idx])
							}
						}
					}
				}
			})
		}
	}
}

// TestMaskedWeightsUnused fills the excluded entries of the weight with
// large values: the stable state does not change, nor do the cotangents
// of the backward pass, which reads the weight transposed over the
// reversed filtration.
func TestMaskedWeightsUnused(t *testing.T) {
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(3, 3))
			m, _ := c.new(rnd)
			s, _ := m.NewSolver(c.shape...)
			y0 := randTensor(rnd, 1, 1, s.Positions()*c.batch)
			dy, dz := randTensor(rnd, 1, m.Size(), s.Positions()*c.batch), randTensor(rnd, 1, m.Size(), s.Positions()*c.batch)
			backward := func() []float64 {
				dy0, dz0 := s.Backward(dy, dz, nil, nil)
				return append(slices.Clone(dy0.Data), dz0.Data...)
			}
			_, z := s.Forward(y0, nil)
			want := append([]float64(nil), z.Data...)
			wantBack := backward()
			k, d := m.Taps(), m.Size()
			for i := range d {
				for j := range d {
					for tp := range k {
						if used(m, i, j, tp) {
							continue
						}
						idx := (i*d+j)*k + tp
						if m.kind == Recur {
							idx = i*k*d + tp*d + j
						}
						m.W.Data[idx] = 1e6
					}
				}
			}
			_, z = s.Forward(y0, nil)
			for i := range want {
				if z.Data[i] != want[i] {
					t.Fatalf("entry %d changed from %v to %v", i, want[i], z.Data[i])
				}
			}
			if got := backward(); !slices.Equal(got, wantBack) {
				t.Fatalf("the cotangents changed from %v to %v", wantBack, got)
			}
		})
	}
}

// TestFloat32 compares the float32 solves with the float64 ones.
func TestFloat32(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 4))
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			m64, _ := c.new(rnd)
			m32 := &Machine[float32]{kind: m64.kind, dims: m64.dims, pad: m64.pad, timeblock: m64.timeblock, sigma: m64.sigma,
				f: m64.f, df: m64.df, W: ad.NewTensor[float32](m64.W.Shape...)}
			for i, x := range m64.W.Data {
				m32.W.Data[i] = float32(x)
			}
			s64, _ := m64.NewSolver(c.shape...)
			s32, _ := m32.NewSolver(c.shape...)
			n := s64.Positions() * c.batch
			y64 := randTensor(rnd, 1, m64.Size(), n)
			dz64 := randTensor(rnd, 1, m64.Size(), n)
			conv := func(t *ad.Tensor[float64]) *ad.Tensor[float32] {
				u := ad.NewTensor[float32](t.Shape...)
				for i, x := range t.Data {
					u.Data[i] = float32(x)
				}
				return u
			}
			_, z64 := s64.Forward(y64, nil)
			_, z32 := s32.Forward(conv(y64), nil)
			gw64, gw32 := ad.NewTensor[float64](m64.W.Shape...), ad.NewTensor[float32](m64.W.Shape...)
			dy64, _ := s64.Backward(nil, dz64, gw64, nil)
			dy32, _ := s32.Backward(nil, conv(dz64), gw32, nil)
			for _, pair := range []struct {
				name string
				a    []float64
				b    []float32
			}{{"z", z64.Data, z32.Data}, {"dy0", dy64.Data, dy32.Data}, {"dW", gw64.Data, gw32.Data}} {
				for i, x := range pair.a {
					if !scalar.EqualWithinAbsOrRel(x, float64(pair.b[i]), 1e-4, 1e-4) {
						t.Fatalf("%s[%d]: float64 %v, float32 %v", pair.name, i, x, pair.b[i])
					}
				}
			}
		})
	}
}

func TestBadConfig(t *testing.T) {
	for _, c := range []struct {
		name string
		new  func() error
		want string
	}{
		{"zero block", func() error { _, err := NewDense[float64]([]int{2, 0, 2}, ad.Tanh, nil); return err }, "block 1 has size 0"},
		{"negative block", func() error { _, err := NewConv[float64]([]int{-1}, ad.Tanh, []int{1}, nil); return err }, "block 0 has size -1"},
		{"no blocks", func() error { _, err := NewDense[float64](nil, ad.Tanh, nil); return err }, "no blocks"},
		{"zero padding", func() error { _, err := NewConv[float64]([]int{1, 2}, ad.Tanh, []int{0}, nil); return err }, "want >= 1"},
		{"3-D padding", func() error { _, err := NewConv[float64]([]int{1, 2}, ad.Tanh, []int{1, 1, 1}, nil); return err }, "3 padding entries"},
		{"zero pad recur", func() error { _, err := NewRecur[float64]([]int{1, 2}, ad.Tanh, 0, 2, nil); return err }, "want >= 1"},
		{"zero timeblock", func() error { _, err := NewRecur[float64]([]int{1, 2}, ad.Tanh, 2, 0, nil); return err }, "timeblock 0"},
		{"unknown activation", func() error { _, err := NewDense[float64]([]int{1, 2}, ad.Activation("x"), nil); return err }, "unknown activation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.new()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

func TestBadShapes(t *testing.T) {
	conv, _ := NewConv[float64]([]int{1, 2}, ad.Tanh, []int{2}, nil)
	recur, _ := NewRecur[float64]([]int{1, 2}, ad.Tanh, 4, 2, nil)
	dense, _ := NewDense[float64]([]int{1, 2}, ad.Tanh, nil)
	if err := conv.SetWeight(ad.NewTensor[float64](3, 3, 3)); !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "want [3 3 5]") {
		t.Errorf("SetWeight of a wrong shape: %v", err)
	}
	if _, err := conv.NewSolver(4); !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "shorter than the kernel") {
		t.Errorf("signal shorter than the kernel: %v", err)
	}
	if _, err := recur.NewSolver(4); !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "shorter than the kernel") {
		t.Errorf("recurrent signal shorter than the kernel: %v", err)
	}
	if _, err := conv.NewSolver(5, 5); !errors.Is(err, ErrShape) {
		t.Errorf("2-D signal for a 1-D machine: %v", err)
	}
	s, _ := dense.NewSolver()
	if err := s.CheckInput([]int{4, 2}); !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "3 channels given an input of 4") {
		t.Errorf("input with too many channels: %v", err)
	}
	cs, _ := conv.NewSolver(6)
	if err := cs.CheckInput([]int{1, 13}); !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "whole number") {
		t.Errorf("columns not a whole number of signals: %v", err)
	}

	if err := dense.LearnScale(4); !errors.Is(err, ErrShape) {
		t.Errorf("dense scaling per entry of a signal: %v", err)
	}
	if err := conv.LearnScale(4); !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "shorter than the kernel") {
		t.Errorf("conv scaling per entry of a short signal: %v", err)
	}

	mustPanic := func(name, want string, f func()) {
		t.Run(name, func(t *testing.T) {
			testutil.CheckPanic(t, f, want)
			if err := testutil.PanicError(f); !errors.Is(err, ErrShape) {
				t.Errorf("panic %v, want an error wrapping ErrShape", err)
			}
		})
	}
	var g ad.Graph[float64]
	p := bind(&g, dense)
	mustPanic("too many channels", "given y0 of shape [2 4] (y0 [2 4]), want [samples, channels] with 1 to 3 channels", func() {
		dense.apply(&g, p.W, p.Scale, g.Input(ad.NewTensor[float64](2, 4)), nil)
	})
	mustPanic("rank", "want [samples, channels, positions...]", func() {
		cp := bind(&g, conv)
		conv.apply(&g, cp.W, cp.Scale, g.Input(ad.NewTensor[float64](2, 1)), nil)
	})
	mustPanic("wrong weight", "weight of shape [2 2]", func() {
		dense.apply(&g, g.Input(ad.NewTensor[float64](2, 2)), nil, g.Input(ad.NewTensor[float64](2, 1)), nil)
	})
	mustPanic("short signal", "shorter than the kernel", func() {
		cp := bind(&g, conv)
		conv.apply(&g, cp.W, cp.Scale, g.Input(ad.NewTensor[float64](1, 1, 4)), nil)
	})
	mustPanic("z0 shape", "given z0 of shape [3 1] (y0 [2 1])", func() {
		dense.apply(&g, p.W, p.Scale, g.Input(ad.NewTensor[float64](2, 1)), g.Input(ad.NewTensor[float64](3, 1)))
	})

	// A scaling per entry of signals of length 6 fits no other length.
	if err := conv.LearnScale(6); err != nil {
		t.Fatal(err)
	}
	mustPanic("scaling for another length", "scaling of shape [3 6], want [3] or [3 8]", func() {
		cp := bind(&g, conv)
		conv.apply(&g, cp.W, cp.Scale, g.Input(ad.NewTensor[float64](1, 1, 8)), nil)
	})
	s8, _ := conv.NewSolver(8)
	mustPanic("solver for another length", "scaling of shape [3 6]", func() {
		s8.Forward(ad.NewTensor[float64](1, 8), nil)
	})
}

func TestParams(t *testing.T) {
	for _, c := range []struct {
		name string
		m    func() (*Machine[float64], error)
		want int
	}{
		{"dense", func() (*Machine[float64], error) { return NewDense[float64]([]int{1, 4, 4, 4}, ad.Tanh, nil) }, 4 + 4*5 + 4*9},
		{"conv", func() (*Machine[float64], error) { return NewConv[float64]([]int{1, 4, 4, 4}, ad.Tanh, []int{3}, nil) }, 60 * 7},
		{"recur", func() (*Machine[float64], error) { return NewRecur[float64]([]int{1, 4, 4, 4}, ad.Tanh, 6, 5, nil) }, 60*5 + 13*13*2},
	} {
		m, err := c.m()
		if err != nil {
			t.Fatal(err)
		}
		if got := m.NumParams(); got != c.want {
			t.Errorf("%s: %d parameters, want %d", c.name, got, c.want)
		}
		if err := m.LearnScale(); err != nil {
			t.Fatal(err)
		}
		if got := m.NumParams(); got != c.want+13 {
			t.Errorf("%s with a scaling per channel: %d parameters, want %d", c.name, got, c.want+13)
		}
		if m.kind == Dense {
			continue
		}
		if err := m.LearnScale(10); err != nil {
			t.Fatal(err)
		}
		if got := m.NumParams(); got != c.want+130 {
			t.Errorf("%s with a scaling per entry: %d parameters, want %d", c.name, got, c.want+130)
		}
	}
}

func TestGlorot(t *testing.T) {
	m, _ := NewConv[float64]([]int{2, 3, 3}, ad.Tanh, []int{1}, rand.New(rand.NewPCG(1, 1)))
	limit := math.Sqrt(6 / float64(3*16))
	var maxAbs float64
	for _, x := range m.W.Data {
		maxAbs = math.Max(maxAbs, math.Abs(x))
	}
	if maxAbs > limit || maxAbs < limit/2 {
		t.Errorf("largest weight %v, want within the Glorot limit %v", maxAbs, limit)
	}
}

// TestApplyLayout checks that Apply, which takes and returns batches
// with samples first, computes the solver's state, which has channels in
// rows and, in columns, positions with samples fastest.
func TestApplyLayout(t *testing.T) {
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(6, 6))
			m, err := c.new(rnd)
			if err != nil {
				t.Fatal(err)
			}
			s, err := m.NewSolver(c.shape...)
			if err != nil {
				t.Fatal(err)
			}
			pos, d, ch := s.Positions(), m.Size(), m.dims[0]
			x := randTensor(rnd, 1, append([]int{c.batch, ch}, c.shape...)...)
			solverX := ad.NewTensor[float64](ch, pos*c.batch)
			for b := range c.batch {
				for k := range ch {
					for p := range pos {
						solverX.Data[k*pos*c.batch+p*c.batch+b] = x.Data[(b*ch+k)*pos+p]
					}
				}
			}
			_, want := s.Forward(solverX, nil)
			var g ad.Graph[float64]
			z := applyBound(&g, m, g.Input(x), nil).Value
			if wantShape := append([]int{c.batch, d}, c.shape...); !slices.Equal(z.Shape, wantShape) {
				t.Fatalf("state of shape %v, want %v", z.Shape, wantShape)
			}
			for b := range c.batch {
				for k := range d {
					for p := range pos {
						if got, w := z.Data[(b*d+k)*pos+p], want.Data[k*pos*c.batch+p*c.batch+b]; got != w {
							t.Fatalf("sample %d channel %d position %d: Apply %v, solver %v", b, k, p, got, w)
						}
					}
				}
			}
		})
	}
}
