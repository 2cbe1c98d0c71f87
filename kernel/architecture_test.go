package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestArchitectureCheck checks that Check refuses each malformed
// architecture, saying what is wrong, and accepts a well-formed one.
func TestArchitectureCheck(t *testing.T) {
	for _, tc := range []struct {
		arch Architecture
		want string
	}{
		{Architecture{Dims: []int{2, 3, 1}}, ""},
		{Architecture{Dims: []int{2, 1}, Kernel: Multiplicative, Bandwidth: 0.5}, ""},
		{Architecture{Dims: []int{2}}, "need at least two blocks"},
		{Architecture{Dims: []int{2, 0, 1}}, "block 1 has size 0"},
		{Architecture{Dims: []int{2, 1}, Bandwidth: -1}, "bandwidth -1"},
		{Architecture{Dims: []int{2, 1}, Bandwidth: math.NaN()}, "bandwidth NaN"},
		{Architecture{Dims: []int{2, 1}, Bandwidth: math.Inf(1)}, "bandwidth +Inf"},
		{Architecture{Dims: []int{2, 1}, Kernel: Combine(7)}, "unknown kernel"},
	} {
		err := tc.arch.Check()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: error %v, want %q", tc.arch, err, tc.want)
		}
	}
}

// TestArchitectureSizes checks Size, Sigma and InitParams: the draws of
// InitParams are Objective.Init's, within the Glorot bounds of each
// matrix, and fill NumParams values.
func TestArchitectureSizes(t *testing.T) {
	arch := Architecture{Dims: []int{2, 3, 1}}
	if got := arch.Size(); got != 6 {
		t.Errorf("size %d, want 6", got)
	}
	if got := arch.Sigma(); got != DefaultBandwidth {
		t.Errorf("sigma of bandwidth 0 is %v, want DefaultBandwidth %v", got, DefaultBandwidth)
	}
	if got := (Architecture{Dims: arch.Dims, Bandwidth: 0.3}).Sigma(); got != 0.3 {
		t.Errorf("sigma of bandwidth 0.3 is %v, want 0.3", got)
	}
	const inputs, anchors = 2, 5
	x := randomData(rand.New(rand.NewPCG(1, 1)), anchors, inputs)
	o, err := NewObjective(arch, Problem{X: x, Y: mat.NewDense(anchors, 1, nil)})
	if err != nil {
		t.Fatal(err)
	}
	p := arch.InitParams(nil, inputs, anchors, rand.New(rand.NewPCG(2, 3)))
	if len(p) != arch.NumParams(inputs, anchors) {
		t.Fatalf("%d parameters, want %d", len(p), arch.NumParams(inputs, anchors))
	}
	if want := o.Init(nil, rand.New(rand.NewPCG(2, 3))); !slices.Equal(p, want) {
		t.Errorf("InitParams %v, want Objective.Init's %v", p, want)
	}
	na := arch.Size() * inputs
	for i, v := range p {
		rows, cols := arch.Size(), inputs
		if i >= na {
			rows, cols = arch.Size()-arch.Dims[0], anchors
		}
		if bound := math.Sqrt(6 / float64(rows+cols)); math.Abs(v) > bound {
			t.Errorf("parameter %d is %v, beyond the Glorot bound %v", i, v, bound)
		}
	}
}
