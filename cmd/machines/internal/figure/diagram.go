package figure

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Diagram is a drawing of a directed graph laid out in layers, such as an
// architecture: nodes are placed left to right by layer, edges coloured
// by kind (for example conv and linear), one legend entry per kind.
type Diagram struct {
	Title string
	Nodes []DiagramNode
	Edges []DiagramEdge
}

// DiagramNode is a node of a Diagram.
type DiagramNode struct {
	Label string
	// Layer is the node's column, from 0 at the left.
	Layer int
	// Row is the node's row, from 0 at the top, such as the resolution
	// level of an image node. Nodes sharing a layer and a row are spread
	// vertically in the order given.
	Row int
}

// DiagramEdge is a directed edge of a Diagram between nodes From and To
// (indices into Nodes).
type DiagramEdge struct {
	From, To int
	Kind     string
	// Width scales the line, 1 being normal; 0 means 1.
	Width float64
}

const (
	diagramWidth  = 7 * vg.Inch
	diagramHeight = 4.5 * vg.Inch
)

// Diagrams writes diagrams side by side as base.png and base.svg and
// returns the paths written.
func Diagrams(base string, l Layout, ds ...Diagram) ([]string, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	if len(ds) == 0 {
		return nil, fmt.Errorf("figure: %s: no diagrams", base)
	}
	panels := make([]panel, len(ds))
	for i, d := range ds {
		p, err := d.panel()
		if err != nil {
			return nil, fmt.Errorf("figure: %s: %s: %w", base, describe("diagram", i, d.Title), err)
		}
		panels[i] = p
	}
	t := newTiled(panels, l, diagramWidth, diagramHeight)
	w, h := t.size()
	return save(base, w, h, l.dpi(), t.draw)
}

func (d Diagram) panel() (panel, error) {
	if len(d.Nodes) == 0 {
		return panel{}, fmt.Errorf("no nodes")
	}
	pos, err := d.positions()
	if err != nil {
		return panel{}, err
	}
	yMin, yMax := math.Inf(1), math.Inf(-1)
	for _, q := range pos {
		yMin, yMax = math.Min(yMin, q.Y), math.Max(yMax, q.Y)
	}

	p := newPlot(d.Title, "", "")
	p.HideAxes()
	leg := &legend{corner: BottomRight}
	if yMax, err = d.addEdges(p, leg, pos, yMax); err != nil {
		return panel{}, err
	}
	if err := d.addNodes(p, pos); err != nil {
		return panel{}, err
	}
	p.X.Min, p.X.Max = -0.5, p.X.Max+0.5
	p.Y.Min, p.Y.Max = yMin-0.35, yMax+0.1
	if len(leg.names) == 0 {
		leg = nil
	}
	return panel{plot: p, legend: leg}, nil
}

// positions places the nodes: x is the layer, y the row (downwards),
// nodes sharing both spread over the row's height.
func (d Diagram) positions() ([]plotter.XY, error) {
	type cell struct{ layer, row int }
	perCell := map[cell]int{}
	for i, n := range d.Nodes {
		if n.Layer < 0 || n.Row < 0 {
			return nil, fmt.Errorf("node %d %q: negative layer %d or row %d", i, n.Label, n.Layer, n.Row)
		}
		perCell[cell{n.Layer, n.Row}]++
	}
	seen := map[cell]int{}
	pos := make([]plotter.XY, len(d.Nodes))
	for i, n := range d.Nodes {
		c := cell{n.Layer, n.Row}
		k, m := seen[c], perCell[c]
		seen[c]++
		pos[i] = plotter.XY{X: float64(n.Layer), Y: -float64(n.Row) - (float64(k)+0.5)/float64(m) + 0.5}
	}
	return pos, nil
}

// addEdges draws the edges between the nodes at pos, a colour and a
// legend entry per kind, and returns yMax raised to the top of the arcs.
func (d Diagram) addEdges(p *plot.Plot, leg *legend, pos []plotter.XY, yMax float64) (float64, error) {
	colours := map[string]color.Color{}
	for i, e := range d.Edges {
		if e.From < 0 || e.From >= len(d.Nodes) || e.To < 0 || e.To >= len(d.Nodes) {
			return 0, fmt.Errorf("edge %d (%s): node index out of range: %d -> %d", i, e.Kind, e.From, e.To)
		}
		col, ok := colours[e.Kind]
		if !ok {
			col = plotutil.Color(len(colours))
			colours[e.Kind] = col
		}
		w := e.Width
		if w == 0 {
			w = 1
		}
		xys := arc(pos[e.From], pos[e.To])
		for _, q := range xys {
			yMax = math.Max(yMax, q.Y)
		}
		ln := &plotter.Line{XYs: xys, LineStyle: draw.LineStyle{Color: col, Width: vg.Points(1.2 * w)}}
		p.Add(ln)
		if !ok {
			leg.add(e.Kind, ln)
		}
	}
	return yMax, nil
}

// addNodes draws the nodes at pos as dots, their labels below them.
func (d Diagram) addNodes(p *plot.Plot, pos []plotter.XY) error {
	nodes := make(plotter.XYs, len(pos))
	copy(nodes, pos)
	sc := &plotter.Scatter{XYs: nodes, GlyphStyle: draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}}
	p.Add(sc)
	labels := make([]string, len(d.Nodes))
	for i, n := range d.Nodes {
		labels[i] = n.Label
	}
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: nodes, Labels: labels})
	if err != nil {
		return err
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].XAlign = draw.XCenter
		lab.TextStyle[i].YAlign = draw.YTop
		lab.TextStyle[i].Font.Size = vg.Points(9)
	}
	// Labels go below the nodes, where no arc runs.
	lab.Offset = vg.Point{Y: -vg.Points(6)}
	p.Add(lab)
	return nil
}

// arc returns a polyline from a to b that bows upwards in proportion to
// the number of layers it spans, so that long edges do not run through
// the nodes in between.
func arc(a, b plotter.XY) plotter.XYs {
	const n = 24
	bow := 0.1 * math.Max(0, math.Abs(b.X-a.X)-1)
	out := make(plotter.XYs, n+1)
	for i := range out {
		t := float64(i) / n
		out[i] = plotter.XY{X: a.X + t*(b.X-a.X), Y: a.Y + t*(b.Y-a.Y) + bow*4*t*(1-t)}
	}
	return out
}
