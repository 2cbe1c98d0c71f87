package figure

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Heatmap is one surface sampled on a rectangular grid.
type Heatmap struct {
	Title string

	// X and Y are the grid coordinates; each must be non-empty,
	// finite and strictly increasing.
	X, Y []float64

	// Z holds the values row by row: Z[r][c] is the value at
	// (X[c], Y[r]), so Z has len(Y) rows of len(X) finite values.
	Z [][]float64
}

// HeatmapSet is a figure of heatmaps that share one colour scale, so
// that, say, a target surface and several fits of it can be compared.
type HeatmapSet struct {
	XLabel, YLabel string

	// Label names the values on the colour bar.
	Label string

	// Min and Max bound the colour scale. Values outside are drawn in
	// the colour of the nearer end. If Min equals Max, the scale spans
	// the values of all maps. The neutral middle colour marks the
	// middle of the scale, so a range symmetric about zero centres it
	// on zero.
	Min, Max float64

	Maps []Heatmap
}

const (
	heatmapWidth  = 4.25 * vg.Inch
	heatmapHeight = 4.5 * vg.Inch

	// paletteSize is the number of colours in heatmap palettes; it is
	// even because palette.Reverse leaves the middle colour of an odd
	// palette unset.
	paletteSize = 256

	// rasterMin is the smallest number of evenly spaced coordinates on
	// each axis for which a heatmap is drawn as one smoothly scaled
	// image rather than as one rectangle per cell, keeping the SVG
	// file small.
	rasterMin = 32
)

// Heatmaps writes the maps of s side by side, l.Cols per row, with a
// colour bar on the right, as base.png and base.svg, and returns the
// paths written. The colours follow Moreland's blue–red diverging map.
func Heatmaps(base string, l Layout, s HeatmapSet) ([]string, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	if len(s.Maps) == 0 {
		return nil, fmt.Errorf("figure: %s: no heatmaps", base)
	}
	if s.Min > s.Max {
		return nil, fmt.Errorf("figure: %s: colour scale minimum %v exceeds maximum %v", base, s.Min, s.Max)
	}
	lo, hi := s.Min, s.Max
	if lo == hi {
		lo, hi = math.Inf(1), math.Inf(-1)
	}
	for i, m := range s.Maps {
		if err := m.check(); err != nil {
			return nil, fmt.Errorf("figure: %s: %s: %w", base, describe("heatmap", i, m.Title), err)
		}
		if s.Min == s.Max {
			for _, row := range m.Z {
				for _, v := range row {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
	}

	cm := colorMap(moreland.SmoothBlueRed(), lo, hi)
	panels := make([]panel, len(s.Maps))
	for i, m := range s.Maps {
		g := grid{x: m.X, y: m.Y, z: m.Z}
		panels[i] = heatmapPanel(m.Title, s.XLabel, s.YLabel, g, cm, g.fine())
	}
	t := newTiled(panels, l, heatmapWidth, heatmapHeight).withBar(cm, s.Label)
	w, h := t.size()
	return save(base, w, h, l.dpi(), t.draw)
}

func (m Heatmap) check() error {
	if err := checkCoords("X", m.X); err != nil {
		return err
	}
	if err := checkCoords("Y", m.Y); err != nil {
		return err
	}
	if len(m.Z) != len(m.Y) {
		return fmt.Errorf("%d rows in Z but %d Y values", len(m.Z), len(m.Y))
	}
	for r, row := range m.Z {
		if len(row) != len(m.X) {
			return fmt.Errorf("%d values in Z[%d] but %d X values", len(row), r, len(m.X))
		}
		if err := checkValues(fmt.Sprintf("Z[%d]", r), row, false); err != nil {
			return err
		}
	}
	return nil
}

// checkCoords reports why v is not a valid list of grid coordinates.
func checkCoords(name string, v []float64) error {
	if len(v) == 0 {
		return fmt.Errorf("no %s coordinates", name)
	}
	if err := checkValues(name, v, false); err != nil {
		return err
	}
	for i := 1; i < len(v); i++ {
		if v[i] <= v[i-1] {
			return fmt.Errorf("%s[%d] = %v does not exceed %s[%d] = %v", name, i, v[i], name, i-1, v[i-1])
		}
	}
	return nil
}

// colorMap sets the range of cm to [lo, hi], widening an empty range.
func colorMap(cm palette.ColorMap, lo, hi float64) palette.ColorMap {
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	cm.SetMin(lo)
	cm.SetMax(hi)
	return cm
}

// heatmapPanel returns a panel drawing g with the colours and range of cm.
func heatmapPanel(title, xLabel, yLabel string, g grid, cm palette.ColorMap, raster bool) panel {
	p := newPlot(title, xLabel, yLabel)
	p.X.Padding, p.Y.Padding = 0, 0

	pal := cm.Palette(paletteSize)
	colors := pal.Colors()
	p.Add(&plotter.HeatMap{
		GridXYZ:    g,
		Palette:    pal,
		Min:        cm.Min(),
		Max:        cm.Max(),
		Underflow:  colors[0],
		Overflow:   colors[len(colors)-1],
		Rasterized: raster,
	})
	return panel{plot: p}
}

// grid is a plotter.GridXYZ over validated coordinates and values.
type grid struct {
	x, y []float64
	z    [][]float64
}

func (g grid) Dims() (c, r int)   { return len(g.x), len(g.y) }
func (g grid) Z(c, r int) float64 { return g.z[r][c] }
func (g grid) X(c int) float64    { return g.x[c] }
func (g grid) Y(r int) float64    { return g.y[r] }

// fine reports whether g has at least rasterMin evenly spaced
// coordinates on both axes.
func (g grid) fine() bool {
	return len(g.x) >= rasterMin && len(g.y) >= rasterMin && evenlySpaced(g.x) && evenlySpaced(g.y)
}

// evenlySpaced reports whether the increasing values v have equal steps.
func evenlySpaced(v []float64) bool {
	step := (v[len(v)-1] - v[0]) / float64(len(v)-1)
	for i := 1; i < len(v); i++ {
		if math.Abs(v[i]-v[i-1]-step) > 1e-6*step {
			return false
		}
	}
	return true
}
