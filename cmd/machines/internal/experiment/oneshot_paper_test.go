package experiment

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parametric-machines/machines/internal/testutil"
	"gonum.org/v1/gonum/floats/scalar"
)

// tinyCK returns a small model of the authors' machine: 3 anchors of 3
// classes, 7x7 images, 2 Fourier components, random patches.
func tinyCK(cost float64) (*ckModel, []float64) {
	rnd := rand.New(rand.NewPCG(3, 3))
	img := make([]float64, 5*49)
	for i := range img {
		img[i] = rnd.NormFloat64()
	}
	patches, pix := ckPatches(img, 5, 7, 7)
	sh := ckShape{anchors: 3, freqs: 2, pix: pix, patch: 10}
	m := newCKModel(sh, 3, cost, patches[:3*pix*10], []int{0, 1, 2}, rnd)
	// Larger coefficients than the authors' draw, so that the machine's
	// state matters to the test.
	for i := sh.convLen(); i < m.thetaLen(); i++ {
		m.params[i] *= 20
	}
	m.tol = 1e-10
	return m, patches[3*pix*10:]
}

// TestCKPatches checks the stride-2 patches without padding of a 7x7
// image: 3x3 of them, each followed by the bias's 1.
func TestCKPatches(t *testing.T) {
	img := make([]float64, 49)
	for i := range img {
		img[i] = float64(i)
	}
	p, pix := ckPatches(img, 1, 7, 7)
	if pix != 9 || len(p) != 90 {
		t.Fatalf("%d patches, %d values", pix, len(p))
	}
	// The patch at output (1, 2) starts at pixel (2, 4).
	want := []float64{18, 19, 20, 25, 26, 27, 32, 33, 34, 1}
	if got := p[(1*3+2)*10 : (1*3+3)*10]; !slices.Equal(got, want) {
		t.Errorf("patch (1, 2) %v, want %v", got, want)
	}
}

// TestCKSystemVJP checks the machine's vector-Jacobian products against
// central finite differences of its right-hand side, in the state and
// in the parameters.
func TestCKSystemVJP(t *testing.T) {
	m, queries := tinyCK(0)
	sys := newCKSystem(m.ckShape, append(slices.Clone(m.patches), queries...), m.params[:m.thetaLen()])
	rnd := rand.New(rand.NewPCG(5, 5))
	n := sys.Dim()
	z, v := make([]float64, n), make([]float64, n)
	for i := range z {
		z[i], v[i] = 0.3*rnd.NormFloat64(), rnd.NormFloat64()
	}
	const tt = 0.37
	dz, dp := make([]float64, n), make([]float64, sys.NumParams())
	sys.VJP(dz, dp, tt, z, v)
	f := func() float64 {
		out := make([]float64, n)
		sys.Deriv(out, tt, z)
		var s float64
		for i, o := range out {
			s += o * v[i]
		}
		return s
	}
	check := func(what string, x, grad []float64, idx []int) {
		for _, i := range idx {
			const h = 1e-6
			x0 := x[i]
			x[i] = x0 + h
			up := f()
			x[i] = x0 - h
			down := f()
			x[i] = x0
			if fd := (up - down) / (2 * h); !scalar.EqualWithinAbsOrRel(grad[i], fd, 1e-7, 1e-5) {
				t.Errorf("%s %d: VJP %g, finite difference %g", what, i, grad[i], fd)
			}
		}
	}
	check("state", z, dz, []int{0, 4, 8, n - 1})
	check("conv", sys.theta, dp, []int{0, 9, 85, 159})
	check("coefficient", sys.theta, dp, []int{160, 200, 400, len(dp) - 1})
}

// TestCKLossGrad checks the gradient of the penalised training loss,
// the read-out, the norm term and the adjoint solve together, against
// finite differences.
func TestCKLossGrad(t *testing.T) {
	m, _ := tinyCK(0.3)
	loss, _, grad, err := m.lossGrad()
	if err != nil {
		t.Fatal(err)
	}
	if !(loss > 0) {
		t.Fatalf("loss %g", loss)
	}
	for _, i := range []int{3, 100, 170, 500, m.thetaLen() + 2, len(m.params) - 1} {
		const h = 1e-5
		x0 := m.params[i]
		m.params[i] = x0 + h
		up, _, _, err1 := m.lossGrad()
		m.params[i] = x0 - h
		down, _, _, err2 := m.lossGrad()
		m.params[i] = x0
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if fd := (up - down) / (2 * h); !scalar.EqualWithinAbsOrRel(grad[i], fd, 1e-6, 1e-4) {
			t.Errorf("parameter %d: gradient %g, finite difference %g", i, grad[i], fd)
		}
	}
}

// TestOneShotPaperQuick runs the quick oneshot under the authors'
// protocol on Fashion-MNIST at one maxfreq: the report's shape, the
// checkpoint rule and the training draw.
func TestOneShotPaperQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the authors' machine on Fashion-MNIST")
	}
	data := DefaultImageData
	if _, err := os.Stat(filepath.Join(data, "t10k-labels-idx1-ubyte.gz")); err != nil {
		testutil.Missing(t, "Fashion-MNIST (Debian package dataset-fashion-mnist)", err)
	}
	dir := t.TempDir()
	if _, err := Run("oneshot", Config{Out: dir, Data: data, Seed: 1, Quick: true, Protocol: Paper, MaxFreqs: []int{2}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "oneshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep OneShotPaperReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Protocol != "paper" || rep.Shots != 1 || len(rep.TrainIndices) != 10 || rep.TestImages != ckTestQuick ||
		len(rep.Settings) != 1 || len(rep.Figures) != 2 || math.Abs(rep.PixelMean-0.286) > 0.01 {
		t.Fatalf("report %s", b)
	}
	s := rep.Settings[0]
	if s.MaxFreq != 2 || s.Cost != ckCost || len(s.Epochs) != ckEpochsQuick || s.FinalAccuracy != s.Epochs[len(s.Epochs)-1].TestAccuracy {
		t.Errorf("setting %+v", s)
	}
	best := s.Epochs[s.BestEpoch-1]
	for _, e := range s.Epochs {
		if e.TestLoss < best.TestLoss {
			t.Errorf("epoch %d kept with test loss %g, another has %g", s.BestEpoch, best.TestLoss, e.TestLoss)
		}
	}
	if best.TestAccuracy != s.BestAccuracy || s.BestAccuracy < 0.2 || rep.NearestNeighbour < 0.2 {
		t.Errorf("accuracy %g at the kept epoch, 1-NN %g", s.BestAccuracy, rep.NearestNeighbour)
	}
}
