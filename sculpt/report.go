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
	"github.com/parametric-machines/machines/model"
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
	// FellBack is the epoch, from 1, that a run whose penalty pruned
	// every edge went back to and fine-tuned (zero if none): the
	// sparsest within the path's tolerance of the best validation
	// accuracy before.
	FellBack int      `json:"fell_back,omitempty"`
	Settings Settings `json:"settings"`
	// Classes are the names of the classes, logit i being Classes[i],
	// when the training images have them (dataset.Images.Names).
	Classes []string `json:"classes,omitempty"`
	// Arch is the generous architecture the run started from; with
	// History and PrunedEdges it is what a drawing of the run needs.
	Arch *Arch `json:"architecture"`
	// Files are the files Run wrote besides sculpt.json.
	Files []string `json:"files,omitempty"`
	// Warnings are the warnings about the data, Config.Warnings and then
	// the run's own (classes without a training or a test image,
	// unbalanced classes, small images), as Progress received them.
	Warnings []string `json:"warnings,omitempty"`
}

// report summarises the run.
func (r *run) report() (*Report, error) {
	a, st := r.arch, r.st
	rep := &Report{Epochs: len(st.History), History: st.History, Settings: r.settings(), Arch: a,
		LambdaEffective: r.cfg.Lambda * r.lambdaScale(), Path: r.pathPoints, PathChosen: r.chosen, PathThreshold: r.threshold, FellBack: r.fellBack}
	rep.Classes = r.train.Names
	rep.Warnings = slices.Concat(r.cfg.Warnings, r.warnings)
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
// dir/sculpt-model.json (a saved hypergraph machine) and the architecture
// at the start and at the end as the Graphviz files dir/sculpt-start.dot
// and dir/sculpt-end.dot. The report holds what the pictures of a run
// need; the command draws them.
func writeResults(dir string, a *Arch, st *state, rep *Report) error {
	m := machine(a, st.Pruned, st.Weights)
	// The model file says what the machine reads and answers, as
	// serve tells its clients: pixels divided by 255, and the classes.
	m.Meta.Pixels = map[string]model.Pixels{"x": {Scale: model.Byte255, Channels: model.PixelChannels(a.Channels)}}
	if len(rep.Classes) == a.Classes {
		m.Meta.Classes = map[string][]string{"logits": rep.Classes}
	}
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
	rep.Files = files
	err := atomicfile.WriteFile(filepath.Join(dir, ReportFile), func(w io.Writer) error {
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
