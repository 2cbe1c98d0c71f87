package experiment

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The authors' infinite-depth kernel machine of Figure 4
// (Veos-Digital/infinite-depth-kernel-machines,
// continuous_kernel_machine.py), written here because it differs from
// package infinite's in every part but the idea: the augmenter is a
// convolution whose channels are the Fourier coefficients of a
// time-dependent initial condition ψ(t); the kernel is the Gaussian of
// the squashed states times their inner product; the state is the
// coefficients z(t) of the anchors' c_j(t), solved by adaptive
// Dormand–Prince; and the read-out is one linear layer on the states at
// maxfreq times. In symbols, for an input x with conv features ψ_m(x)
// and anchors j = 1..A (the training images),
//
//	u(t) = Σ_m cos(2πmt) ψ_m(x) + Σ_j z_j(t) c_j(t),  c_j(t) = Σ_m cos(2πmt) c_jm,
//	z_j'(t) = k(u(t), u_j(t)),  z(0) = 0,
//	k(u, v) = exp(-|û - v̂|²/2) û·v̂,  û = u·σ(r)/r, r = sqrt(|u|² + 10⁻⁶).

// ckChannels is the number of conv channels per Fourier component: the
// authors' augmenter has 8·maxfreq.
const ckChannels = 8

// ckShape is the shape of the machine: anchors, Fourier components and
// the conv features of an image.
type ckShape struct {
	anchors, freqs int
	pix            int // conv output pixels per channel
	patch          int // a 3x3 patch and a 1 for the bias
}

func (s ckShape) features() int { return ckChannels * s.pix }

// convLen and coefLen are the lengths of the conv weights (freqs·8
// channels × patch, bias last) and of the coefficients c_jm (anchors ×
// features × freqs), which make up the system's parameters θ in that
// order.
func (s ckShape) convLen() int { return s.freqs * ckChannels * s.patch }
func (s ckShape) coefLen() int { return s.anchors * s.features() * s.freqs }

// ckSystem is the machine's ODE for a batch of rows, the first
// shape.anchors of which are the anchors, as an ode.ParamSystem: the
// state is z, rows × anchors, the parameters θ the conv weights and the
// coefficients. It keeps its scratch and must not be used concurrently.
type ckSystem struct {
	ckShape
	rows    int
	patches []float64 // rows × pix × patch: each row's 3x3 patches with a trailing 1
	theta   []float64

	w, wt         []float64 // cos(2πmt); the conv weights at t, 8 × patch
	u, uh         []float64 // the states and their squashed values, rows × features
	ct            []float64 // c(t), anchors × features
	r, s, n       []float64 // per row: r, σ(r)/r and |û|²
	gram, e, kern []float64 // rows × anchors: û·v̂, the Gaussian and the kernel
	// backward scratch
	dG, duh, dct, dwt []float64
}

func newCKSystem(sh ckShape, patches, theta []float64) *ckSystem {
	rows := len(patches) / (sh.pix * sh.patch)
	f := sh.features()
	return &ckSystem{ckShape: sh, rows: rows, patches: patches, theta: theta,
		w: make([]float64, sh.freqs), wt: make([]float64, ckChannels*sh.patch),
		u: make([]float64, rows*f), uh: make([]float64, rows*f), ct: make([]float64, sh.anchors*f),
		r: make([]float64, rows), s: make([]float64, rows), n: make([]float64, rows),
		gram: make([]float64, rows*sh.anchors), e: make([]float64, rows*sh.anchors), kern: make([]float64, rows*sh.anchors),
		dG: make([]float64, rows*sh.anchors), duh: make([]float64, rows*f), dct: make([]float64, sh.anchors*f),
		dwt: make([]float64, ckChannels*sh.patch)}
}

func (c *ckSystem) Dim() int       { return c.rows * c.anchors }
func (c *ckSystem) NumParams() int { return len(c.theta) }

// general returns a row-major matrix over data.
func general(rows, cols int, data []float64) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: data}
}

// weightsAt sets the Fourier weights cos(2πmt), the conv weights at t
// and c(t).
func (c *ckSystem) weightsAt(t float64) {
	for m := range c.w {
		c.w[m] = math.Cos(2 * math.Pi * float64(m) * t)
	}
	conv, coef := c.theta[:c.convLen()], c.theta[c.convLen():]
	clear(c.wt)
	for m, wm := range c.w {
		for i := range c.wt {
			c.wt[i] += wm * conv[m*len(c.wt)+i]
		}
	}
	// c(t) = coef · w, coef viewed as (anchors·features) × freqs.
	blas64.Gemv(blas.NoTrans, 1, general(c.anchors*c.features(), c.freqs, coef),
		blas64.Vector{N: c.freqs, Inc: 1, Data: c.w}, 0, blas64.Vector{N: len(c.ct), Inc: 1, Data: c.ct})
}

// forward computes everything up to the kernel at (t, z).
func (c *ckSystem) forward(t float64, z []float64) {
	c.weightsAt(t)
	f, a := c.features(), c.anchors
	// ψ(t): the conv at t of every patch, channel-major like the
	// authors' reshape of the conv output.
	for b := range c.rows {
		ub := c.u[b*f : (b+1)*f]
		for p := range c.pix {
			patch := c.patches[(b*c.pix+p)*c.patch : (b*c.pix+p+1)*c.patch]
			for ch := range ckChannels {
				wt := c.wt[ch*c.patch : (ch+1)*c.patch]
				var v float64
				for q, x := range patch {
					v += x * wt[q]
				}
				ub[ch*c.pix+p] = v
			}
		}
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, general(c.rows, a, z), general(a, f, c.ct), 1, general(c.rows, f, c.u))
	for b := range c.rows {
		ub, hb := c.u[b*f:(b+1)*f], c.uh[b*f:(b+1)*f]
		var sq float64
		for _, v := range ub {
			sq += v * v
		}
		r := math.Sqrt(sq + 1e-6)
		s := 1 / (1 + math.Exp(-r)) / r
		c.r[b], c.s[b] = r, s
		var n float64
		for i, v := range ub {
			hb[i] = s * v
			n += hb[i] * hb[i]
		}
		c.n[b] = n
	}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, general(c.rows, f, c.uh), general(a, f, c.uh[:a*f]), 0, general(c.rows, a, c.gram))
	for b := range c.rows {
		for j := range a {
			i := b*a + j
			c.e[i] = math.Exp(c.gram[i] - c.n[b]/2 - c.n[j]/2)
			c.kern[i] = c.e[i] * c.gram[i]
		}
	}
}

// Deriv sets dst = z' at (t, z).
func (c *ckSystem) Deriv(dst []float64, t float64, z []float64) {
	c.forward(t, z)
	copy(dst, c.kern)
}

// VJP sets dz = vᵀ ∂z'/∂z and dp = vᵀ ∂z'/∂θ at (t, z).
func (c *ckSystem) VJP(dz, dp []float64, t float64, z, v []float64) {
	c.forward(t, z)
	f, a := c.features(), c.anchors
	// z' = E ⊙ G with E = exp(G - n_b/2 - n_j/2): through G directly and
	// through E, whose n terms carry the squared norms of both sides.
	dnRow, dnAnchor := make([]float64, c.rows), make([]float64, a)
	for b := range c.rows {
		for j := range a {
			i := b*a + j
			vk := v[i] * c.kern[i]
			c.dG[i] = v[i]*c.e[i] + vk
			dnRow[b] -= vk / 2
			dnAnchor[j] -= vk / 2
		}
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, general(c.rows, a, c.dG), general(a, f, c.uh[:a*f]), 0, general(c.rows, f, c.duh))
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, general(c.rows, a, c.dG), general(c.rows, f, c.uh), 1, general(a, f, c.duh[:a*f]))
	for b := range c.rows {
		dn := dnRow[b]
		if b < a {
			dn += dnAnchor[b]
		}
		ub, hb, db := c.u[b*f:(b+1)*f], c.uh[b*f:(b+1)*f], c.duh[b*f:(b+1)*f]
		// û = s(r)·u with r = sqrt(|u|² + ε): du = s·dû + (dû·u)·s'(r)/r·u.
		var dot float64
		for i := range db {
			db[i] += 2 * dn * hb[i]
			dot += db[i] * ub[i]
		}
		r, s := c.r[b], c.s[b]
		sig := s * r
		ds := (sig*(1-sig)/r - sig/(r*r)) / r * dot
		for i := range db {
			db[i] = s*db[i] + ds*ub[i] // now du
		}
	}
	du := c.duh
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, general(c.rows, f, du), general(a, f, c.ct), 0, general(c.rows, a, dz))
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, general(c.rows, a, z), general(c.rows, f, du), 0, general(a, f, c.dct))
	dconv, dcoef := dp[:c.convLen()], dp[c.convLen():]
	clear(dcoef)
	blas64.Ger(1, blas64.Vector{N: len(c.dct), Inc: 1, Data: c.dct}, blas64.Vector{N: c.freqs, Inc: 1, Data: c.w},
		general(a*f, c.freqs, dcoef))
	clear(c.dwt)
	for b := range c.rows {
		db := du[b*f : (b+1)*f]
		for p := range c.pix {
			patch := c.patches[(b*c.pix+p)*c.patch : (b*c.pix+p+1)*c.patch]
			for ch := range ckChannels {
				g := db[ch*c.pix+p]
				dwt := c.dwt[ch*c.patch : (ch+1)*c.patch]
				for q, x := range patch {
					dwt[q] += g * x
				}
			}
		}
	}
	for m, wm := range c.w {
		for i, g := range c.dwt {
			dconv[m*len(c.dwt)+i] = wm * g
		}
	}
}

// ckPatches returns the 3x3 patches, stride 2 and no padding, of the
// images in the rows of x (rows × h·w pixels, already normalised), each
// followed by a 1 for the bias, and the number of patches per image.
func ckPatches(x []float64, rows, h, w int) ([]float64, int) {
	ho, wo := (h-3)/2+1, (w-3)/2+1
	out := make([]float64, 0, rows*ho*wo*10)
	for b := range rows {
		img := x[b*h*w : (b+1)*h*w]
		for i := range ho {
			for j := range wo {
				for di := range 3 {
					for dj := range 3 {
						out = append(out, img[(2*i+di)*w+2*j+dj])
					}
				}
				out = append(out, 1)
			}
		}
	}
	return out, ho * wo
}
