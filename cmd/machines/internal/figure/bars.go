package figure

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BarChart is one panel of horizontal bars, each with an interval, such
// as the importance of each input of a model with its uncertainty. The
// first bar is drawn at the top.
type BarChart struct {
	Title, XLabel string
	Bars          []Bar
}

// Bar is one bar of a BarChart: its label on the vertical axis, its
// value, and an interval [Low, High] holding the value, drawn as a
// whisker across the bar's end.
type Bar struct {
	Label            string
	Value, Low, High float64
}

// barRow is the height of one bar's row when the layout leaves the
// height to the chart, so that long lists of bars stay legible.
const barRow = 0.3 * vg.Inch

// Bars writes bar charts side by side, l.Cols per row, as base.png and
// base.svg and returns the paths written. Without a height in l, a panel
// is tall enough for its bars.
func Bars(base string, l Layout, charts ...BarChart) ([]string, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	if len(charts) == 0 {
		return nil, fmt.Errorf("figure: %s: no charts", base)
	}
	panels := make([]panel, len(charts))
	most := 0
	for i, c := range charts {
		p, err := c.panel()
		if err != nil {
			return nil, fmt.Errorf("figure: %s: %s: %w", base, describe("chart", i, c.Title), err)
		}
		panels[i] = p
		most = max(most, len(c.Bars))
	}
	height := max(chartHeight, vg.Length(most)*barRow+1.5*vg.Inch)
	t := newTiled(panels, l, chartWidth, height)
	w, h := t.size()
	return save(base, w, h, l.dpi(), t.draw)
}

func (c BarChart) check() error {
	if len(c.Bars) == 0 {
		return errors.New("no bars")
	}
	for i, b := range c.Bars {
		for _, v := range []float64{b.Value, b.Low, b.High} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("bar %d %q: value, low or high is %v", i, b.Label, v)
			}
		}
		if !(b.Low <= b.Value && b.Value <= b.High) {
			return fmt.Errorf("bar %d %q: interval [%v, %v] does not hold the value %v", i, b.Label, b.Low, b.High, b.Value)
		}
	}
	return nil
}

func (c BarChart) panel() (panel, error) {
	if err := c.check(); err != nil {
		return panel{}, err
	}
	p := newPlot(c.Title, c.XLabel, "")
	p.Add(plotter.NewGrid())
	n := len(c.Bars)
	// The y axis counts from the bottom: the first bar goes last.
	values := make(plotter.Values, n)
	whiskers := struct {
		plotter.XYs
		plotter.XErrors
	}{make(plotter.XYs, n), make(plotter.XErrors, n)}
	labels := make([]string, n)
	for i, b := range c.Bars {
		k := n - 1 - i
		values[k], labels[k] = b.Value, b.Label
		whiskers.XYs[k] = plotter.XY{X: b.Value, Y: float64(k)}
		whiskers.XErrors[k] = struct{ Low, High float64 }{b.Low - b.Value, b.High - b.Value}
	}
	bars, err := plotter.NewBarChart(values, barRow*0.6)
	if err != nil {
		return panel{}, err
	}
	bars.Horizontal = true
	bars.Color = plotutil.Color(2)
	bars.LineStyle.Width = 0
	errs, err := plotter.NewXErrorBars(whiskers)
	if err != nil {
		return panel{}, err
	}
	errs.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1.5)}
	p.Add(bars, errs)
	p.NominalY(labels...)
	return panel{plot: p}, nil
}
