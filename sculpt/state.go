package sculpt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"

	"github.com/parametric-machines/machines/internal/atomicfile"
)

// CheckpointFile is the name of the checkpoint in the output directory.
const CheckpointFile = "checkpoint.json"

// The format name and version of checkpoints.
const (
	CheckpointFormat  = "machines-sculpt-checkpoint"
	CheckpointVersion = 1
)

// state is what a checkpoint holds: the weights of every edge of the
// generous architecture (removed edges keep the values they had when
// removed), the edges pruned so far and one entry per epoch done.
type state struct {
	Weights map[string][]float32
	Pruned  map[string]bool
	History []Epoch
}

// Epoch records one epoch of a run.
type Epoch struct {
	TestAccuracy    float64  `json:"test_accuracy"`
	TrainLoss       float64  `json:"train_loss"`
	Penalty         float64  `json:"penalty"`
	EdgesLive       int      `json:"edges_live"`
	FLOPsLive       int      `json:"flops_live"`
	Pruned          []string `json:"pruned"`
	Seconds         float64  `json:"seconds"`
	ImagesPerSecond float64  `json:"images_per_second"`
}

// Settings are the settings of a run that its checkpoint must share.
type Settings struct {
	Nodes       int     `json:"nodes"`
	Channels    int     `json:"channels"`
	Batch       int     `json:"batch"`
	LR          float64 `json:"lr"`
	Lambda      float64 `json:"lambda"`
	Tol         float64 `json:"tol"`
	Finetune    int     `json:"finetune_epochs"`
	Penalty     string  `json:"penalty"` // "prox" or "plain"
	Optimizer   string  `json:"optimizer"`
	Seed        uint64  `json:"seed"`
	TrainImages int     `json:"train_images"`
	TestImages  int     `json:"test_images"`
}

// archShape is how a checkpoint names its architecture.
type archShape struct {
	Input    []int `json:"input"` // channels, rows, columns
	Classes  int   `json:"classes"`
	Nodes    int   `json:"nodes"`
	Channels int   `json:"channels"`
}

func shapeOf(a *Arch) archShape {
	return archShape{Input: []int{a.Channels, a.Rows, a.Cols}, Classes: a.Classes, Nodes: len(a.Nodes), Channels: a.Width}
}

func (s archShape) String() string {
	return fmt.Sprintf("%d nodes of %d channels on %dx%dx%d images with %d classes",
		s.Nodes, s.Channels, s.Input[0], s.Input[1], s.Input[2], s.Classes)
}

type checkpoint struct {
	Format   string               `json:"format"`
	Version  int                  `json:"version"`
	Arch     archShape            `json:"architecture"`
	Settings Settings             `json:"settings"`
	History  []Epoch              `json:"history"`
	Pruned   []string             `json:"pruned"`
	Weights  map[string][]float32 `json:"weights"`
}

// writeCheckpoint writes the state to path, atomically: an interrupted
// write leaves the previous checkpoint.
func writeCheckpoint(path string, a *Arch, s Settings, st *state) error {
	pruned := make([]string, 0, len(st.Pruned))
	for name := range st.Pruned {
		pruned = append(pruned, name)
	}
	sort.Strings(pruned)
	ck := checkpoint{Format: CheckpointFormat, Version: CheckpointVersion, Arch: shapeOf(a), Settings: s,
		History: st.History, Pruned: pruned, Weights: st.Weights}
	err := atomicfile.WriteFile(path, func(w io.Writer) error {
		return json.NewEncoder(w).Encode(ck)
	})
	if err != nil {
		return fmt.Errorf("sculpt: checkpoint: %w", err)
	}
	return nil
}

// readCheckpoint reads a checkpoint and checks that it belongs to the
// architecture a and the settings s; only the number of epochs may
// differ, so that a run can be continued for longer.
func readCheckpoint(path string, a *Arch, s Settings) (*state, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sculpt: %w", err)
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("sculpt: checkpoint %s: %s", path, fmt.Sprintf(format, args...))
	}
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fail("not a checkpoint: %v", err)
	}
	if head.Format != CheckpointFormat {
		return nil, fail("format %q, want %q", head.Format, CheckpointFormat)
	}
	if head.Version != CheckpointVersion {
		return nil, fail("version %d, this program reads version %d", head.Version, CheckpointVersion)
	}
	var ck checkpoint
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ck); err != nil {
		return nil, fail("%v", err)
	}
	if want := shapeOf(a); !slices.Equal(ck.Arch.Input, want.Input) || ck.Arch.Classes != want.Classes ||
		ck.Arch.Nodes != want.Nodes || ck.Arch.Channels != want.Channels {
		return nil, fail("it was written for another architecture, %v, not %v; use the same -nodes, -channels and data, or start anew without -resume",
			ck.Arch, want)
	}
	if ck.Settings != s {
		return nil, fail("it was written with other settings, %+v, not %+v; resume with the same settings, or start anew without -resume",
			ck.Settings, s)
	}
	st := &state{Weights: ck.Weights, Pruned: map[string]bool{}, History: ck.History}
	for i := range a.Edges {
		name := a.Edges[i].Name
		if w, ok := st.Weights[name]; !ok || len(w) != a.EdgeParams(i) {
			return nil, fail("edge %s has %d weights, want %d", name, len(st.Weights[name]), a.EdgeParams(i))
		}
	}
	if len(st.Weights) != len(a.Edges) {
		return nil, fail("%d edges with weights, want %d", len(st.Weights), len(a.Edges))
	}
	for _, name := range ck.Pruned {
		if a.Edge(name) < 0 {
			return nil, fail("pruned edge %q is not in the architecture", name)
		}
		st.Pruned[name] = true
	}
	if len(st.History) == 0 {
		return nil, fail("no epoch recorded")
	}
	return st, nil
}
