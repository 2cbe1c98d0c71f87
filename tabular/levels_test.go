package tabular

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/mat"
)

// TestScaleLevels checks the scales of blocks of levels: every level of
// a block alike, rows of different levels the same distance apart, and a
// block of one level left as it was.
func TestScaleLevels(t *testing.T) {
	tests := []struct {
		name   string
		levels []int // each row's level; -1 for a level seen in no column
		width  int
		want   float64 // the scale of the block's columns, 0: unchanged
	}{
		{"even", []int{0, 1, 2, 0, 1, 2}, 3, math.Sqrt(1 - 3.0/9)},
		{"one rare", []int{0, 0, 0, 0, 0, 0, 0, 1, 2, 2}, 3, math.Sqrt(1 - (0.49 + 0.01 + 0.04))},
		{"an unseen level", []int{0, 1, 2, -1}, 3, math.Sqrt(1 - 3.0/16)},
		{"one level", []int{0, 0, 0}, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := len(tc.levels)
			x := mat.NewDense(n, tc.width+1, nil)
			for i, l := range tc.levels {
				x.Set(i, 0, float64(i)) // a numeric column before the block
				if l >= 0 {
					x.Set(i, 1+l, 1)
				}
			}
			in := scale.FitScaler(x)
			before := append([]float64(nil), in.Scale...)
			scaleLevels(in, x, []levelBlock{{1, tc.width}})
			if in.Scale[0] != before[0] {
				t.Errorf("the numeric column's scale moved from %v to %v", before[0], in.Scale[0])
			}
			for j := 1; j <= tc.width; j++ {
				want := tc.want
				if want == 0 {
					want = before[j]
				}
				if math.Abs(in.Scale[j]-want) > 1e-12 {
					t.Errorf("column %d: scale %v, want %v", j, in.Scale[j], want)
				}
			}
			if tc.want == 0 {
				return
			}
			z := in.Transform(x)
			var d []float64 // squared distances on the block of rows of different levels
			for i := range n {
				for k := i + 1; k < n; k++ {
					if tc.levels[i] != tc.levels[k] && tc.levels[i] >= 0 && tc.levels[k] >= 0 {
						d = append(d, blockDistance(z, i, k, 1, tc.width))
					}
				}
			}
			for _, v := range d {
				if math.Abs(v-d[0]) > 1e-9 {
					t.Errorf("squared distances %v between rows of different levels, want all alike", d)
					break
				}
			}
		})
	}
}

// blockDistance returns the squared distance of rows i and k of z over
// its columns start to start+width.
func blockDistance(z *mat.Dense, i, k, start, width int) float64 {
	var s float64
	for j := start; j < start+width; j++ {
		v := z.At(i, j) - z.At(k, j)
		s += v * v
	}
	return s
}

// TestFitScalesLevels fits a table of a numeric column, a boolean, a
// categorical column of two levels and one of three, and checks the
// input scaler of the model: the three levels share the scale
// sqrt(1 - sum p^2), the other columns keep their standard deviations.
func TestFitScalesLevels(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,flag,side,colour,y\n")
	colours := []string{"red", "red", "red", "green", "blue", "blue"}
	for i := range 30 {
		c := colours[i%len(colours)]
		fmt.Fprintf(&b, "%d,%v,%s,%s,%g\n", i, i%3 == 0, []string{"left", "right"}[i%2], c, float64(i%7)+float64(len(c)))
	}
	f, err := dataset.ReadFrame(strings.NewReader(b.String()), "levels.csv")
	if err != nil {
		t.Fatal(err)
	}
	md, _, err := Fit(f, []string{"y"}, Options{Family: Shallow, InputScale: LinearInputs})
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := md.Encoder.Transform(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	sd := scale.FitScaler(x).Scale
	names := md.Encoder.Names()
	level := math.Sqrt(1 - (1.0/9 + 1.0/36 + 0.25)) // blue, green, red: 1/3, 1/6, 1/2 of the rows
	levels := 0
	for j, name := range names {
		want := sd[j]
		if strings.HasPrefix(name, "colour") {
			want = level
			levels++
		}
		if got := md.Machine.Input.Scale[j]; math.Abs(got-want) > 1e-12 {
			t.Errorf("column %s: scale %v, want %v", name, got, want)
		}
	}
	if levels != 3 {
		t.Errorf("columns %q: %d of colour's levels, want 3", names, levels)
	}
}
