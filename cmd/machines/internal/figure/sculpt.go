package figure

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/parametric-machines/machines/sculpt"
)

// Sculpt draws the figures of a sculpting run from its report into dir
// and returns the paths written: sculpt-architecture.png and .svg, the
// generous architecture, the one after the first epoch and the final one
// (Figure 2a-c of the paper), and, for a regularisation path,
// sculpt-path.png and .svg, validation accuracy against FLOPs with the
// kept point and the threshold marked.
func Sculpt(dir string, rep *sculpt.Report) ([]string, error) {
	a := rep.Arch
	if a == nil {
		return nil, fmt.Errorf("figure: sculpt report without its architecture")
	}
	ds := []Diagram{sculptDiagram(a, "a. generous", nil)}
	if len(rep.History) > 1 {
		ds = append(ds, sculptDiagram(a, "b. after epoch 1", names(rep.History[0].Pruned)))
	}
	ds = append(ds, sculptDiagram(a, fmt.Sprintf("%c. after epoch %d", 'a'+len(ds), len(rep.History)), names(rep.PrunedEdges)))
	files, err := Diagrams(filepath.Join(dir, "sculpt-architecture"), Layout{Cols: 1}, ds...)
	if err != nil || len(rep.Path) == 0 {
		return files, err
	}
	var x, y []float64
	for _, p := range rep.Path {
		x = append(x, float64(p.FLOPsLive))
		y = append(y, 100*p.ValidationAccuracy)
	}
	c := rep.Path[rep.PathChosen]
	series := []Series{
		{Name: "points of the path", X: x, Y: y, Points: true},
		{Name: "kept", X: []float64{x[rep.PathChosen]}, Y: []float64{y[rep.PathChosen]}, Points: true},
	}
	if t := 100 * rep.PathThreshold; t > 0 {
		series = append(series, Series{Name: "threshold", X: []float64{slices.Min(x), slices.Max(x)}, Y: []float64{t, t}, Dashed: true})
	}
	path, err := Lines(filepath.Join(dir, "sculpt-path"), Chart{
		Title:  fmt.Sprintf("regularisation path: kept lambda %.3g, %d edges", c.Lambda, c.EdgesLive),
		XLabel: "FLOPs per image", YLabel: "validation accuracy (%)", Legend: BottomRight,
		Series: series,
	})
	return append(files, path...), err
}

// names returns the set of the names given.
func names(list []string) map[string]bool {
	set := make(map[string]bool, len(list))
	for _, n := range list {
		set[n] = true
	}
	return set
}

// sculptDiagram draws the live part of the architecture a when the edges
// in pruned are removed: a node per activation, placed in the row of its
// resolution like the levels of a U-Net, conv and linear edges in two
// colours.
func sculptDiagram(a *sculpt.Arch, title string, pruned map[string]bool) Diagram {
	liveEdges, liveNodes := a.Live(pruned)
	d := Diagram{Title: title}
	index := make([]int, len(liveNodes))
	last := len(a.Nodes) + 1
	for k, ok := range liveNodes {
		index[k] = -1
		if !ok {
			continue
		}
		index[k] = len(d.Nodes)
		n := DiagramNode{Label: "n" + strconv.Itoa(k), Layer: k}
		switch k {
		case 0:
			n.Label = "x"
		case last:
			n.Label = "logits"
		default:
			// The row is how many halvings of the input's size the
			// node's state has.
			for size := a.Nodes[k-1].In[0]; size < a.Rows; size *= 2 {
				n.Row++
			}
		}
		d.Nodes = append(d.Nodes, n)
	}
	for i, e := range a.Edges {
		if liveEdges[i] {
			kind := "conv 3x3"
			if e.Kind == "linear" {
				kind = "linear head"
			}
			d.Edges = append(d.Edges, DiagramEdge{From: index[e.From], To: index[e.To], Kind: kind})
		}
	}
	return d
}
