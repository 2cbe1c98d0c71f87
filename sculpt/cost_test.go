package sculpt

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/testutil"
)

// TestGenerousSize checks the counts made without building the
// architecture against those of the architecture built.
func TestGenerousSize(t *testing.T) {
	for _, tc := range []struct{ channels, rows, cols, classes, nodes, width int }{
		{1, 28, 28, 10, 10, 4},
		{3, 32, 32, 10, 20, 8},
		{1, 8, 8, 3, 7, 2},
		{1, 9, 7, 2, 5, 3},
		{2, 12, 6, 4, 1, 1},
	} {
		t.Run(fmt.Sprint(tc), func(t *testing.T) {
			a := Generous(tc.channels, tc.rows, tc.cols, tc.classes, tc.nodes, tc.width)
			edges, params, flops := a.Count(nil)
			s := generousSize(tc.channels, tc.rows, tc.cols, tc.classes, tc.nodes, tc.width)
			if s.edges != float64(edges) || s.params != float64(params) || s.flops != float64(flops) {
				t.Errorf("counted %v edges, %v weights, %v FLOPs; built %d, %d, %d", s.edges, s.params, s.flops, edges, params, flops)
			}
		})
	}
}

// TestRunRefusesWhatCannotFit checks that settings too large for the
// machine are refused before any work, saying what they would take.
func TestRunRefusesWhatCannotFit(t *testing.T) {
	small := synthImages(40, 8, 8, 3)
	defer func(m func() int64) { machineMemory = m }(machineMemory)
	machineMemory = func() int64 { return 256 << 20 } // a small machine
	for _, tc := range []struct {
		name  string
		c     Config
		train *dataset.Images
		want  string
	}{
		{"the audit's 1000 nodes of 64 channels", Config{Nodes: 1000, Channels: 64}, small,
			"1000 hidden nodes of 64 channels on 1x8x8 images has 2.51e+05 edges with 9.22e+09 weights, more than the 16777216 a machine may have; use fewer nodes or channels"},
		{"more nodes than can be counted", Config{Nodes: 1 << 40}, small, "has over 10^11 edges, more than any machine holds; use at most 1048576 nodes"},
		{"channels beyond int products", Config{Channels: 1 << 40}, small, "weights, more than the 16777216 a machine may have"},
		{"beyond memory", Config{Channels: 128}, small, "would take about 726 MiB of memory, more than the 256 MiB of this machine; use fewer nodes or channels, or a smaller batch"},
		{"epochs beyond a week", Config{Epochs: 1 << 40}, small, "cores, more than the week a run may take; use fewer nodes, channels or epochs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			test := synthImages(4, tc.train.Rows, tc.train.Cols, tc.train.Classes)
			start := testutil.CPUTime()
			var err error
			// A run not refused could take hours or all the memory.
			testutil.Bounded(tc.name, 256<<20, 30*time.Second, func() { _, err = Run(tc.train, test, tc.c) })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
			if d := testutil.CPUTime() - start; d > 5*time.Second {
				t.Errorf("refused after %v of CPU time, want at once", d)
			}
		})
	}
}

// synthImages returns n grey images of rows x cols of random pixels,
// labelled 0 to classes-1 in turn.
func synthImages(n, rows, cols, classes int) *dataset.Images {
	rnd := rand.New(rand.NewPCG(uint64(n), uint64(rows)))
	im := &dataset.Images{N: n, Rows: rows, Cols: cols, Classes: classes, Pixels: make([]uint8, n*rows*cols), Labels: make([]int, n)}
	for i := range im.Pixels {
		im.Pixels[i] = uint8(rnd.IntN(256))
	}
	for i := range im.Labels {
		im.Labels[i] = i % classes
	}
	return im
}

// TestCostBoundsMemory runs a small sculpt and checks that its heap never
// grows beyond the memory its cost estimates, nor stays far below it.
// TestCheckShape checks that CheckShape refuses what Run would refuse
// of the images' shape alone.
func TestCheckShape(t *testing.T) {
	for _, tc := range []struct {
		name                          string
		c                             Config
		channels, rows, cols, classes int
		want                          string
	}{
		{"small", Config{}, 1, 8, 8, 3, ""},
		{"one class", Config{}, 1, 8, 8, 1, "classes 1, want at least 2"},
		{"bad configuration", Config{LR: -1}, 1, 8, 8, 3, "learning rate -1"},
		{"large images", Config{}, 3, 4000, 4000, 10, "on 3x4000x4000 images has 36 edges with 1.12e+09 weights, more than the 16777216 a machine may have"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.CheckShape(tc.channels, tc.rows, tc.cols, tc.classes)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("error %v, want a mention of %q", err, tc.want)
			}
		})
	}
}

func TestCostBoundsMemory(t *testing.T) {
	train, test := synthImages(600, 16, 16, 10), synthImages(300, 16, 16, 10)
	c := Config{Nodes: 10, Channels: 16, Epochs: 1, Workers: 2, Out: t.TempDir()}.withDefaults()
	trainPart, val := splitValidation(train, c.Validation, c.Seed)
	want := c.cost(generousSize(1, 16, 16, 10, c.Nodes, c.Channels), trainPart, val, test).Bytes

	runtime.GC()
	base := testutil.HeapBytes()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
			if h := testutil.HeapBytes(); h > base && h-base > peak.Load() {
				peak.Store(h - base)
			}
		}
	}()
	_, err := Run(train, test, c)
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	got := float64(peak.Load())
	if !(got <= want && got >= want/8) {
		t.Errorf("heap peaked %.0f MB above its start, want between an eighth of the estimate and the estimate, %.0f MB", got/1e6, want/1e6)
	}
	t.Logf("heap peak %.1f MB, estimate %.1f MB", got/1e6, want/1e6)
}
