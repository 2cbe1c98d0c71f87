package sculpt

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/dataset"
)

// colourBlobs returns blobs of three channels whose class shows in the
// last channel only, the first two holding noise.
func colourBlobs(rnd *rand.Rand, n, size, classes int) *dataset.Images {
	grey := blobs(rnd, n, size, classes)
	im := &dataset.Images{N: n, Rows: size, Cols: size, Channels: 3, Classes: classes,
		Pixels: make([]uint8, 3*n*size*size), Labels: grey.Labels}
	plane := size * size
	for i := range n {
		p := im.Pixels[3*i*plane : 3*(i+1)*plane]
		for j := range 2 * plane {
			p[j] = uint8(rnd.IntN(256))
		}
		copy(p[2*plane:], grey.Pixels[i*plane:(i+1)*plane])
	}
	return im
}

func TestLoadChannels(t *testing.T) {
	im := colourBlobs(rand.New(rand.NewPCG(1, 2)), 4, 5, 3)
	x := ad.NewTensor[float32](2, 3, 5, 5)
	labels := make([]int, 2)
	load(x, labels, im, []int{3, 1})
	for k, i := range []int{3, 1} {
		want := im.Image32(nil, i)
		if got := x.Data[k*75 : (k+1)*75]; !slices.Equal(got, want) || labels[k] != im.Labels[i] {
			t.Errorf("batch image %d: %v, label %d; want image %d, %v, label %d", k, got, labels[k], i, want, im.Labels[i])
		}
	}
}

// TestRunColour checks that a run reads every channel: the classes show
// in the last one only, so a run that saw the first alone would guess.
func TestRunColour(t *testing.T) {
	rnd := rand.New(rand.NewPCG(4, 4))
	train, test := colourBlobs(rnd, 160, 8, 3), colourBlobs(rnd, 60, 8, 3)
	c := smallConfig(t.TempDir())
	rep, err := Run(train, test, c)
	if err != nil {
		t.Fatal(err)
	}
	if rep.AccuracyPruned < 0.6 {
		t.Errorf("test accuracy %v on an easy colour task", rep.AccuracyPruned)
	}

	grey := blobs(rnd, 60, 8, 3)
	if _, err := Run(train, grey, c); err == nil || !strings.Contains(err.Error(), "training images are 3x8x8 but test images 1x8x8") {
		t.Errorf("colour training and grey test images: error %v", err)
	}
}
