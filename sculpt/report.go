package sculpt

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/internal/figure"
)

// Report is the result of a run, written as sculpt.json.
type Report struct {
	// Protocol is "paper" for a run under the authors' protocol
	// (Config.Paper), "fair" otherwise; PaperEpochs is then the number
	// of epochs the authors train, which Epochs may fall short of.
	Protocol    string `json:"protocol"`
	PaperEpochs int    `json:"paper_epochs,omitempty"`
	Epochs      int    `json:"epochs"`
	// LambdaEffective is the weight the penalty had: Settings.Lambda
	// times (ReferenceImages / training images)^(1/4).
	LambdaEffective float64 `json:"lambda_effective"`
	// ValidationAccuracy is the accuracy on the validation split after
	// each epoch; the test images are classified only for
	// AccuracyPruned and AccuracyUnpruned, at the end.
	ValidationAccuracy []float64 `json:"validation_accuracy"`
	EdgesInitial       int       `json:"edges_initial"`
	EdgesLive          int       `json:"edges_live"`
	FLOPsInitial       int       `json:"flops_initial"`
	FLOPsLive          int       `json:"flops_live"`
	SecondsPerEpoch    []float64 `json:"seconds_per_epoch"`

	// NodesInitial and NodesLive count hidden nodes, ParamsInitial and
	// ParamsLive weights.
	NodesInitial  int `json:"nodes_initial"`
	NodesLive     int `json:"nodes_live"`
	ParamsInitial int `json:"params_initial"`
	ParamsLive    int `json:"params_live"`
	// AccuracyPruned is the test accuracy of the final machine, pruned
	// edges removed; AccuracyUnpruned that of the generous machine with
	// the same weights, pruned edges kept with the values they had when
	// they were pruned.
	AccuracyPruned   float64 `json:"accuracy_pruned"`
	AccuracyUnpruned float64 `json:"accuracy_unpruned"`
	// PrunedEdges lists the edges removed, explicitly pruned or hanging
	// on a removed node, in the order of the architecture.
	PrunedEdges []string `json:"pruned_edges"`
	History     []Epoch  `json:"history"`
	// Path holds the points of a regularisation path (Config.Path), in
	// the order of their penalties, PathChosen the index of the one
	// kept and PathThreshold the validation accuracy a point needed to
	// be kept (zero when it was chosen by the budget).
	Path          []PathPoint `json:"path,omitempty"`
	PathChosen    int         `json:"path_chosen,omitempty"`
	PathThreshold float64     `json:"path_threshold,omitempty"`
	Settings      Settings    `json:"settings"`
	// Files are the files written besides sculpt.json.
	Files []string `json:"files,omitempty"`
}

// report summarises the run.
func (r *run) report() (*Report, error) {
	a, st := r.arch, r.st
	rep := &Report{Epochs: len(st.History), History: st.History, Settings: r.settings(),
		LambdaEffective: r.cfg.Lambda * r.lambdaScale(), Path: r.pathPoints, PathChosen: r.chosen, PathThreshold: r.threshold}
	rep.Protocol = "fair"
	if r.cfg.Paper {
		rep.Protocol, rep.PaperEpochs = "paper", PaperEpochs
	}
	rep.EdgesInitial, rep.ParamsInitial, rep.FLOPsInitial = a.Count(nil)
	rep.EdgesLive, rep.ParamsLive, rep.FLOPsLive = a.Count(st.Pruned)
	for _, e := range st.History {
		rep.ValidationAccuracy = append(rep.ValidationAccuracy, e.ValidationAccuracy)
		rep.SecondsPerEpoch = append(rep.SecondsPerEpoch, e.Seconds)
	}
	liveEdges, liveNodes := a.Live(st.Pruned)
	rep.NodesInitial = len(a.Nodes)
	for _, ok := range liveNodes[1 : len(a.Nodes)+1] {
		rep.NodesLive += btoi(ok)
	}
	for i, ok := range liveEdges {
		if !ok {
			rep.PrunedEdges = append(rep.PrunedEdges, a.Edges[i].Name)
		}
	}
	rep.AccuracyPruned = accuracy(machine(a, st.Pruned, st.Weights), r.test, r.cfg.Workers)
	rep.AccuracyUnpruned = accuracy(machine(a, nil, st.Weights), r.test, r.cfg.Workers)
	return rep, nil
}

// The files Run writes in its output directory.
const (
	ReportFile = "sculpt.json"
	ModelFile  = "sculpt-model.json"
)

// writeResults writes the report as dir/sculpt.json, the final machine as
// dir/sculpt-model.json (a saved hypergraph machine), the architecture at
// the start and at the end as the Graphviz files dir/sculpt-start.dot and
// dir/sculpt-end.dot, and the pictures dir/sculpt-architecture.png and
// .svg: the generous architecture, the one after the first epoch and the
// final one (Figure 2a-c of the paper).
func writeResults(dir string, a *Arch, st *state, rep *Report) error {
	m := machine(a, st.Pruned, st.Weights)
	var files []string
	path := filepath.Join(dir, ModelFile)
	if err := m.Save(path); err != nil {
		return fmt.Errorf("sculpt: %w", err)
	}
	files = append(files, path)
	for _, d := range []struct {
		name   string
		pruned map[string]bool
	}{{"sculpt-start.dot", nil}, {"sculpt-end.dot", st.Pruned}} {
		path := filepath.Join(dir, d.name)
		err := atomicfile.WriteFile(path, func(w io.Writer) error { return a.WriteDOT(w, d.pruned) })
		if err != nil {
			return fmt.Errorf("sculpt: %w", err)
		}
		files = append(files, path)
	}
	ds := []figure.Diagram{a.Diagram("a. generous", nil)}
	if len(st.History) > 1 {
		after1 := map[string]bool{}
		for _, name := range st.History[0].Pruned {
			after1[name] = true
		}
		ds = append(ds, a.Diagram("b. after epoch 1", after1))
	}
	ds = append(ds, a.Diagram(fmt.Sprintf("%c. after epoch %d", 'a'+len(ds), len(st.History)), st.Pruned))
	figs, err := figure.Diagrams(filepath.Join(dir, "sculpt-architecture"), figure.Layout{Cols: 1}, ds...)
	if err != nil {
		return fmt.Errorf("sculpt: %w", err)
	}
	files = append(files, figs...)
	if len(rep.Path) > 0 {
		x, y := rep.pathSeries()
		c := rep.Path[rep.PathChosen]
		series := []figure.Series{
			{Name: "points of the path", X: x, Y: y, Points: true},
			{Name: "kept", X: []float64{x[rep.PathChosen]}, Y: []float64{y[rep.PathChosen]}, Points: true},
		}
		if t := 100 * rep.PathThreshold; t > 0 {
			series = append(series, figure.Series{Name: "threshold", X: []float64{slices.Min(x), slices.Max(x)}, Y: []float64{t, t}, Dashed: true})
		}
		figs, err := figure.Lines(filepath.Join(dir, "sculpt-path"), figure.Chart{
			Title:  fmt.Sprintf("regularisation path: kept lambda %.3g, %d edges", c.Lambda, c.EdgesLive),
			XLabel: "FLOPs per image", YLabel: "validation accuracy (%)", Legend: figure.BottomRight,
			Series: series,
		})
		if err != nil {
			return fmt.Errorf("sculpt: %w", err)
		}
		files = append(files, figs...)
	}
	rep.Files = files
	err = atomicfile.WriteFile(filepath.Join(dir, ReportFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	})
	if err != nil {
		return fmt.Errorf("sculpt: %w", err)
	}
	return nil
}

// nodeLabel names node k (0 the input, N+1 the logits) with its size.
func (a *Arch) nodeLabel(k int) string {
	switch {
	case k == 0:
		return fmt.Sprintf("x %dx%d", a.Rows, a.Cols)
	case k == len(a.Nodes)+1:
		return "logits"
	}
	n := a.Nodes[k-1]
	arrow := map[string]string{"identity": "", "maxpool": " pool", "upsample": " up"}[n.Resample]
	return fmt.Sprintf("n%d %dx%d%s", k, n.In[0], n.In[1], arrow)
}

// shortLabel names node k for a picture, where long labels collide.
func (a *Arch) shortLabel(k int) string {
	switch {
	case k == 0:
		return "x"
	case k == len(a.Nodes)+1:
		return "logits"
	}
	return "n" + strconv.Itoa(k)
}

// level is the row of node k in a picture: how many halvings of the
// input's size its state has (0 for the input and the logits), so that
// the picture reads like the resolutions of a U-Net.
func (a *Arch) level(k int) int {
	if k == 0 || k == len(a.Nodes)+1 {
		return 0
	}
	l := 0
	for size := a.Nodes[k-1].In[0]; size < a.Rows; size *= 2 {
		l++
	}
	return l
}

// Diagram draws the live part of the architecture when the edges in
// pruned are removed: a node per activation, conv and linear edges in
// two colours.
func (a *Arch) Diagram(title string, pruned map[string]bool) figure.Diagram {
	liveEdges, liveNodes := a.Live(pruned)
	d := figure.Diagram{Title: title}
	index := make([]int, len(liveNodes))
	for k, ok := range liveNodes {
		index[k] = -1
		if ok {
			index[k] = len(d.Nodes)
			d.Nodes = append(d.Nodes, figure.DiagramNode{Label: a.shortLabel(k), Layer: k, Row: a.level(k)})
		}
	}
	for i, e := range a.Edges {
		if liveEdges[i] {
			kind := "conv 3x3"
			if e.Kind == "linear" {
				kind = "linear head"
			}
			d.Edges = append(d.Edges, figure.DiagramEdge{From: index[e.From], To: index[e.To], Kind: kind})
		}
	}
	return d
}

// WriteDOT writes the live part of the architecture, the edges in pruned
// removed, as a Graphviz digraph: nodes as boxes labelled with their size
// and resampling, conv edges blue and linear heads red.
func (a *Arch) WriteDOT(w io.Writer, pruned map[string]bool) error {
	liveEdges, liveNodes := a.Live(pruned)
	var b strings.Builder
	b.WriteString("digraph sculpt {\n\trankdir=LR;\n\tnode [shape=box];\n")
	for k, ok := range liveNodes {
		if ok {
			fmt.Fprintf(&b, "\tN%d [label=%s];\n", k, strconv.Quote(a.nodeLabel(k)))
		}
	}
	for i, e := range a.Edges {
		if liveEdges[i] {
			colour := "blue"
			if e.Kind == "linear" {
				colour = "red"
			}
			fmt.Fprintf(&b, "\tN%d -> N%d [label=%s, color=%s];\n", e.From, e.To, strconv.Quote(e.Name), colour)
		}
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}
