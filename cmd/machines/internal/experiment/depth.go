package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/cmd/machines/internal/figure"
	"github.com/parametric-machines/machines/finite"
)

// The signal of the depth experiment: one sine of depthLength steps.
const (
	depthLength = 40
	// depthGain scales the Glorot weights up so that every block's state
	// is visibly different from zero.
	depthGain = 2
)

// Depth shows how a machine of finite depth builds its stable state
// block by block: a convolutional machine (dims [1,4,4,4], pad 2) and a
// recurrent one (dims [1,4,4,4], pad 3, timeblock 10), with random
// weights and tanh, solve for one sine of 40 steps fed to the first
// channel. One heatmap per step of the solve shows the output z,
// channels against time: the conv machine fills one block of channels
// per step (4 steps), the recurrent machine one block of channels of one
// block of time per step (16 steps), and the last picture is the stable
// state (the finite package's tests check that the solve reaches the
// fixed point). Each step is checked to change the state. Figures:
// depth-conv and depth-recur.
func Depth(c Config) (*Report, error) {
	dims := []int{1, 4, 4, 4}
	rnd := rand.New(rand.NewPCG(c.Seed, 4))
	conv, err := finite.NewConv[float64](dims, ad.Tanh, []int{2}, rnd)
	if err != nil {
		return nil, err
	}
	recur, err := finite.NewRecur[float64](dims, ad.Tanh, 3, 10, rnd)
	if err != nil {
		return nil, err
	}
	y0 := ad.NewTensor[float64](1, depthLength)
	times := make([]float64, depthLength)
	for t := range depthLength {
		times[t] = float64(t)
		y0.Data[t] = 2 * math.Sin(2*math.Pi*float64(t)/depthLength)
	}
	channels := make([]float64, conv.Size())
	for i := range channels {
		channels[i] = float64(i)
	}
	r := &Report{}
	for _, spec := range []struct {
		name, file string
		m          *finite.Machine[float64]
		cols       int
	}{
		{"conv machine", "depth-conv", conv, 4},
		{"recurrent machine", "depth-recur", recur, 4},
	} {
		for i := range spec.m.W.Data {
			spec.m.W.Data[i] *= depthGain
		}
		s, err := spec.m.NewSolver(depthLength)
		if err != nil {
			return nil, err
		}
		var maps []figure.Heatmap
		var snapshots [][]float64
		s.OnStep = func(step int, _, z *ad.Tensor[float64]) {
			rows := make([][]float64, len(channels))
			for ch := range rows {
				rows[ch] = append([]float64(nil), z.Data[ch*depthLength:(ch+1)*depthLength]...)
			}
			snapshots = append(snapshots, append([]float64(nil), z.Data...))
			maps = append(maps, figure.Heatmap{Title: fmt.Sprintf("step %d of %d", step+1, s.Steps()), X: times, Y: channels, Z: rows})
		}
		s.Forward(y0, nil)
		// Every step adds a block: none leaves the state unchanged.
		for i := 1; i < len(snapshots); i++ {
			if maxDiff(snapshots[i], snapshots[i-1]) == 0 {
				return nil, fmt.Errorf("%s: step %d left the state unchanged", spec.name, i+1)
			}
		}
		c.logf("%s: %d steps, %d parameters", spec.name, s.Steps(), spec.m.NumParams())
		paths, err := figure.Heatmaps(filepath.Join(c.dir(), spec.file), figure.Layout{Cols: spec.cols},
			figure.HeatmapSet{XLabel: "time", YLabel: "channel", Label: "z", Min: -1, Max: 1, Maps: maps})
		if err != nil {
			return nil, err
		}
		r.Figures = append(r.Figures, paths...)
		r.Models = append(r.Models, Model{Name: spec.name, Params: spec.m.NumParams(), Iterations: s.Steps(),
			Settings: Settings{Optimizer: "none (random Glorot weights)", Dims: dims, Activation: "tanh"}})
	}
	return r, nil
}

func maxDiff(a, b []float64) float64 {
	var d float64
	for i, x := range a {
		d = math.Max(d, math.Abs(x-b[i]))
	}
	return d
}
