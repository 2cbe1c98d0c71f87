package figure

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

const (
	// barStrip is the width reserved right of the panels for a colour
	// bar with its tick labels and axis label; barWidth is the width of
	// the bar itself.
	barStrip = 1.2 * vg.Inch
	barWidth = 0.22 * vg.Inch

	// margin pads the figure on every side.
	margin = 4 * vg.Millimeter

	// legendPad separates a legend from its backdrop's edges and the
	// backdrop from the edges of the data area.
	legendPad = 3 * vg.Millimeter / 2
)

// legendBackdrop lets lines show faintly through a legend drawn over them.
var legendBackdrop = color.NRGBA{R: 255, G: 255, B: 255, A: 220}

// newPlot returns a plot with the given texts and tidy tick labels.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Tick.Marker = tidyTicks{}
	p.Y.Tick.Marker = tidyTicks{}
	return p
}

// panel is a plot with an optional legend.
type panel struct {
	plot   *plot.Plot
	legend *legend
}

// legend is drawn by tiled.draw rather than by plot.Plot.Draw, so that it
// gets a backdrop keeping it legible over the data.
type legend struct {
	corner Corner
	names  []string
	thumbs []plot.Thumbnailer
}

func (l *legend) add(name string, t plot.Thumbnailer) {
	l.names = append(l.names, name)
	l.thumbs = append(l.thumbs, t)
}

// draw draws the legend in a corner of the data area c.
func (l *legend) draw(c draw.Canvas) {
	c = draw.Crop(c, legendPad, -legendPad, legendPad, -legendPad)
	leg := plot.NewLegend()
	leg.Top = l.corner == TopRight || l.corner == TopLeft
	leg.Left = l.corner == TopLeft || l.corner == BottomLeft
	for i, name := range l.names {
		leg.Add(name, l.thumbs[i])
	}

	// The box mirrors the placement done by plot.Legend.Draw.
	sty := leg.TextStyle
	var textW, entryH vg.Length
	for _, name := range l.names {
		r := sty.Rectangle(name)
		textW = max(textW, r.Max.X)
		entryH = max(entryH, r.Max.Y)
	}
	w := leg.ThumbnailWidth + sty.Rectangle(" ").Max.X + textW
	h := vg.Length(len(l.names)) * entryH
	var box vg.Rectangle
	if leg.Left {
		box.Min.X, box.Max.X = c.Min.X, c.Min.X+w
	} else {
		box.Min.X, box.Max.X = c.Max.X-w, c.Max.X
	}
	if leg.Top {
		top := c.Max.Y - sty.FontExtents().Descent
		box.Min.Y, box.Max.Y = top-h, top
	} else {
		box.Min.Y, box.Max.Y = c.Min.Y, c.Min.Y+h
	}
	box.Min.X -= legendPad
	box.Min.Y -= legendPad
	box.Max.X += legendPad
	box.Max.Y += legendPad
	c.SetColor(legendBackdrop)
	c.Fill(box.Path())
	leg.Draw(c)
}

// tiled is a figure of panels arranged row-major on a grid, optionally
// followed by a vertical colour bar spanning all rows.
type tiled struct {
	panels         [][]panel
	panelW, panelH vg.Length
	bar            *plot.Plot
}

// newTiled arranges ps on the grid of l with panels of the given default
// size. ps must not be empty.
func newTiled(ps []panel, l Layout, w, h vg.Length) tiled {
	cols, rows := l.grid(len(ps))
	t := tiled{panels: make([][]panel, rows)}
	t.panelW, t.panelH = l.panelSize(w, h)
	for j := range t.panels {
		t.panels[j] = make([]panel, cols)
		copy(t.panels[j], ps[j*cols:])
	}
	return t
}

// withBar adds a vertical colour bar for cm labelled label.
func (t tiled) withBar(cm palette.ColorMap, label string) tiled {
	p := newPlot("", "", label)
	p.HideX()
	p.Y.Padding = 0
	p.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	t.bar = p
	return t
}

// size returns the size of the whole figure.
func (t tiled) size() (w, h vg.Length) {
	w = vg.Length(len(t.panels[0]))*t.panelW + 2*margin
	if t.bar != nil {
		w += barStrip
	}
	return w, vg.Length(len(t.panels))*t.panelH + 2*margin
}

func (t tiled) draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c = draw.Crop(c, margin, -margin, margin, -margin)

	area := c
	if t.bar != nil {
		area.Max.X -= barStrip
	}
	plots := make([][]*plot.Plot, len(t.panels))
	for j, row := range t.panels {
		plots[j] = make([]*plot.Plot, len(row))
		for i, p := range row {
			plots[j][i] = p.plot
		}
	}
	tiles := draw.Tiles{
		Rows: len(plots), Cols: len(plots[0]),
		PadX: 6 * vg.Millimeter, PadY: 6 * vg.Millimeter,
	}
	canvases := plot.Align(plots, tiles, area)
	for j, row := range t.panels {
		for i, p := range row {
			if p.plot == nil {
				continue
			}
			p.plot.Draw(canvases[j][i])
			if p.legend != nil {
				p.legend.draw(p.plot.DataCanvas(canvases[j][i]))
			}
		}
	}
	if t.bar == nil {
		return
	}

	// Align the bar with the data areas of the first and last rows:
	// the first column is filled on every row.
	last := len(plots) - 1
	top := plots[0][0].DataCanvas(canvases[0][0]).Max.Y
	bottom := plots[last][0].DataCanvas(canvases[last][0]).Min.Y
	strip := c
	strip.Min.X = area.Max.X + margin
	strip.Min.Y, strip.Max.Y = bottom, top
	data := t.bar.DataCanvas(strip)
	strip.Min.Y -= data.Min.Y - bottom
	strip.Max.Y += top - data.Max.Y
	strip.Max.X = data.Min.X + barWidth
	t.bar.Draw(strip)
}

// tidyTicks places ticks like plot.DefaultTicks but labels them in
// their shortest form: 25 rather than 25.00.
type tidyTicks struct{}

func (tidyTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i, t := range ticks {
		if t.Label == "" {
			continue
		}
		if math.Abs(t.Value) < 1e-9*(max-min) {
			t.Value = 0 // Absorb rounding error at zero.
		}
		ticks[i].Label = tickLabel(t.Value)
	}
	return ticks
}

// tickLabel formats a tick value with at most six significant digits.
func tickLabel(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}
