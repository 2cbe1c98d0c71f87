package figure

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
)

// Histogram is one panel showing how a distribution of values changes
// along Y, for example the coefficients of a model at several training
// epochs.
//
// It is drawn as a heatmap rather than as a stack of bar charts: each
// row is the histogram of the values at one Y, with the bins along the
// x axis, and the colour of a cell is the fraction of the row's values
// that fall in the bin. Unlike overlapping stacked bars this stays
// legible for any number of rows, and normalising each row makes rows
// of different sizes comparable.
type Histogram struct {
	Title, XLabel, YLabel string

	// Bins is the number of equal-width bins. Zero means the square
	// root of the size of the largest row, limited to [5, 100].
	Bins int

	// Min and Max bound the bins. If Min equals Max, the bins span the
	// values of all rows. Values outside the bins are not drawn but
	// count towards their row's total, so that row's fractions sum to
	// less than one.
	Min, Max float64

	// Rows are the distributions, in strictly increasing order of Y.
	Rows []HistogramRow
}

// HistogramRow is the sample of values at one position Y, such as an
// epoch.
type HistogramRow struct {
	Y      float64
	Values []float64
}

// Histograms writes the histograms side by side, l.Cols per row, with
// a shared colour bar of the fraction of values on the right, as
// base.png and base.svg, and returns the paths written. Empty bins are
// white, and fuller bins run through yellow and red to black.
func Histograms(base string, l Layout, hs ...Histogram) ([]string, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	if len(hs) == 0 {
		return nil, fmt.Errorf("figure: %s: no histograms", base)
	}
	grids := make([]grid, len(hs))
	var top float64
	for i, h := range hs {
		g, err := h.grid()
		if err != nil {
			return nil, fmt.Errorf("figure: %s: %s: %w", base, describe("histogram", i, h.Title), err)
		}
		for _, row := range g.z {
			for _, f := range row {
				top = math.Max(top, f)
			}
		}
		grids[i] = g
	}

	cm := colorMap(palette.Reverse(moreland.BlackBody()), 0, top)
	panels := make([]panel, len(hs))
	for i, h := range hs {
		panels[i] = heatmapPanel(h.Title, h.XLabel, h.YLabel, grids[i], cm, false)
	}
	t := newTiled(panels, l, chartWidth, chartHeight).withBar(cm, "fraction of values")
	w, h := t.size()
	return save(base, w, h, l.dpi(), t.draw)
}

// grid validates h and returns its bin centres, row positions and the
// fraction of each row's values in each bin.
func (h Histogram) grid() (grid, error) {
	switch {
	case len(h.Rows) == 0:
		return grid{}, errors.New("no rows")
	case h.Bins < 0:
		return grid{}, fmt.Errorf("%d bins", h.Bins)
	case h.Min > h.Max:
		return grid{}, fmt.Errorf("bin minimum %v exceeds maximum %v", h.Min, h.Max)
	}
	lo, hi := h.Min, h.Max
	if lo == hi {
		lo, hi = math.Inf(1), math.Inf(-1)
	}
	var g grid
	largest := 0
	for r, row := range h.Rows {
		if len(row.Values) == 0 {
			return grid{}, fmt.Errorf("row %d (Y = %v) has no values", r, row.Y)
		}
		if err := checkValues(fmt.Sprintf("row %d (Y = %v): Values", r, row.Y), row.Values, false); err != nil {
			return grid{}, err
		}
		g.y = append(g.y, row.Y)
		largest = max(largest, len(row.Values))
		if h.Min == h.Max {
			for _, v := range row.Values {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if err := checkCoords("Y", g.y); err != nil {
		return grid{}, err
	}
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}

	bins := h.Bins
	if bins == 0 {
		bins = min(max(int(math.Ceil(math.Sqrt(float64(largest)))), 5), 100)
	}
	width := (hi - lo) / float64(bins)
	g.x = make([]float64, bins)
	for b := range g.x {
		g.x[b] = lo + (float64(b)+0.5)*width
	}
	g.z = make([][]float64, len(h.Rows))
	for r, row := range h.Rows {
		g.z[r] = make([]float64, bins)
		share := 1 / float64(len(row.Values))
		for _, v := range row.Values {
			if v < lo || v > hi {
				continue
			}
			b := min(int((v-lo)/width), bins-1)
			g.z[r][b] += share
		}
	}
	return g, nil
}
