package figure

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Chart is one panel of lines and points.
type Chart struct {
	Title, XLabel, YLabel string

	// LogX and LogY make the axes logarithmic. Every value on a log
	// axis must be positive; a non-positive value is an error rather
	// than being dropped, so that no data is hidden silently.
	LogX, LogY bool

	// Legend places the legend; the zero value is the top right corner.
	Legend Corner

	Series []Series
}

// Series is one set of points of a Chart.
type Series struct {
	// Name is the legend entry; series without a name are not listed.
	Name string

	// X and Y are the coordinates; they must have the same, non-zero
	// length and hold finite values.
	X, Y []float64

	// Color is the colour of the series; nil means plotutil.Color(i)
	// for the i-th series of the chart. Give two series the same
	// colour to pair them, for example a training loss (solid) and a
	// test loss (Dashed) of one model.
	Color color.Color

	// Dashed draws the line dashed.
	Dashed bool

	// Points draws the points as dots without a connecting line,
	// as a scatter plot.
	Points bool
}

// Corner is a corner of a chart, where its legend is drawn.
type Corner int

const (
	TopRight Corner = iota
	TopLeft
	BottomRight
	BottomLeft
)

const (
	chartWidth  = 6 * vg.Inch
	chartHeight = 4 * vg.Inch
)

// Lines writes a single chart as base.png and base.svg with the default
// Layout and returns the paths written.
func Lines(base string, c Chart) ([]string, error) {
	return Panels(base, Layout{}, c)
}

// Panels writes charts side by side, l.Cols per row, as base.png and
// base.svg and returns the paths written. The data areas of the panels
// are aligned across rows and columns.
func Panels(base string, l Layout, charts ...Chart) ([]string, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	if len(charts) == 0 {
		return nil, fmt.Errorf("figure: %s: no charts", base)
	}
	panels := make([]panel, len(charts))
	for i, c := range charts {
		p, err := c.panel()
		if err != nil {
			return nil, fmt.Errorf("figure: %s: %s: %w", base, describe("chart", i, c.Title), err)
		}
		panels[i] = p
	}
	t := newTiled(panels, l, chartWidth, chartHeight)
	w, h := t.size()
	return save(base, w, h, l.dpi(), t.draw)
}

// describe names the i-th chart, series or panel in error messages.
func describe(kind string, i int, title string) string {
	if title == "" {
		return fmt.Sprintf("%s %d", kind, i)
	}
	return fmt.Sprintf("%s %d %q", kind, i, title)
}

func (c Chart) check() error {
	if len(c.Series) == 0 {
		return errors.New("no series")
	}
	for i, s := range c.Series {
		if err := s.check(c.LogX, c.LogY); err != nil {
			return fmt.Errorf("%s: %w", describe("series", i, s.Name), err)
		}
	}
	return nil
}

func (s Series) check(logX, logY bool) error {
	switch {
	case len(s.X) != len(s.Y):
		return fmt.Errorf("%d X values but %d Y values", len(s.X), len(s.Y))
	case len(s.X) == 0:
		return errors.New("no points")
	}
	if err := checkValues("X", s.X, logX); err != nil {
		return err
	}
	return checkValues("Y", s.Y, logY)
}

// checkValues reports the first value of v that is not finite, or not
// positive when positive is set.
func checkValues(name string, v []float64, positive bool) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s[%d] is %v", name, i, x)
		}
		if positive && x <= 0 {
			return fmt.Errorf("%s[%d] = %v is not positive but the %s axis is logarithmic", name, i, x, axisName(name))
		}
	}
	return nil
}

// axisName returns the axis of a coordinate named X or Y.
func axisName(coord string) string {
	if coord == "X" {
		return "x"
	}
	return "y"
}

func (c Chart) panel() (panel, error) {
	if err := c.check(); err != nil {
		return panel{}, err
	}
	p := newPlot(c.Title, c.XLabel, c.YLabel)
	if c.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if c.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	p.Add(plotter.NewGrid())

	leg := &legend{corner: c.Legend}
	for i, s := range c.Series {
		xys := make(plotter.XYs, len(s.X))
		for k := range xys {
			xys[k] = plotter.XY{X: s.X[k], Y: s.Y[k]}
		}
		col := s.Color
		if col == nil {
			col = plotutil.Color(i)
		}
		var thumb plot.Thumbnailer
		if s.Points {
			sc := &plotter.Scatter{XYs: xys, GlyphStyle: draw.GlyphStyle{
				Color: col, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{},
			}}
			p.Add(sc)
			thumb = sc
		} else {
			ln := &plotter.Line{XYs: xys, LineStyle: draw.LineStyle{
				Color: col, Width: vg.Points(1.5),
			}}
			if s.Dashed {
				ln.LineStyle.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
			}
			p.Add(ln)
			thumb = ln
		}
		if s.Name != "" {
			leg.add(s.Name, thumb)
		}
	}
	if len(leg.names) == 0 {
		leg = nil
	}
	return panel{plot: p, legend: leg}, nil
}

// logTicks marks a logarithmic axis. It labels the powers of ten, or
// also their multiples by 2 and 5, or by 1 to 9, choosing the first set
// that puts at least two labels on the axis; narrower ranges fall back
// to evenly spaced ticks.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	lo := int(math.Floor(math.Log10(min)))
	hi := int(math.Ceil(math.Log10(max)))
	for _, labelled := range [][]int{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		var ticks []plot.Tick
		labels := 0
		for e := lo; e <= hi; e++ {
			for m := 1; m <= 9; m++ {
				v := float64(m) * math.Pow10(e)
				if v < min || v > max {
					continue
				}
				t := plot.Tick{Value: v}
				if slices.Contains(labelled, m) {
					t.Label = tickLabel(v)
					labels++
				}
				ticks = append(ticks, t)
			}
		}
		if labels >= 2 {
			return ticks
		}
	}
	return plot.DefaultTicks{}.Ticks(min, max)
}
