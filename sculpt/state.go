package sculpt

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/parametric-machines/machines/internal/checkpoint"
	"github.com/parametric-machines/machines/internal/jsonfile"
)

// CheckpointFile is the name of the checkpoint in the output directory.
const CheckpointFile = "checkpoint.json"

// CheckpointKind and CheckpointVersion are the "kind" and "version" of
// checkpoints in the module's envelope ("format": "machines");
// CheckpointFormat is the "format" of those written before it (up to
// version 4).
const (
	CheckpointKind    = "sculpt-checkpoint"
	CheckpointVersion = 5
	CheckpointFormat  = "machines-sculpt-checkpoint"
)

// checkpointFormat reads checkpoints of versions 3 to 5: an older one
// lacks state that a resumed run needs (version 1 did not record the
// epoch fine-tuning starts, version 2 the validation split); version 3
// does not record the number of workers, which a resumed run then cannot
// compare with its own.
var checkpointFormat = jsonfile.Format{Name: jsonfile.Envelope, Kind: CheckpointKind, What: "a sculpt checkpoint",
	Oldest: 3, Newest: CheckpointVersion, Legacy: CheckpointFormat, LegacyNewest: 4}

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
	// ValidationAccuracy is the fraction of the validation images that
	// the machine classifies right at the end of the epoch.
	ValidationAccuracy float64 `json:"validation_accuracy"`
	// TrainLoss is the mean cross-entropy of the epoch's minibatches,
	// without the penalty, as the weights changed during the epoch.
	TrainLoss float64 `json:"train_loss"`
	// Penalty is the group-lasso penalty λ Σ_E sqrt(n_E) |w_E| of the
	// edges live at the end of the epoch, with the epoch's λ: zero in
	// the fine-tuning epochs and with the penalty off.
	Penalty float64 `json:"penalty"`
	// EdgesLive and FLOPsLive are the number of live edges and the
	// FLOPs per image (as Arch.Count counts them) of the machine at the
	// end of the epoch.
	EdgesLive int `json:"edges_live"`
	FLOPsLive int `json:"flops_live"`
	// Pruned names the edges whose norm fell below the tolerance during
	// this epoch, in the order they did; edges that died only because a
	// node they hang on did are not listed.
	Pruned []string `json:"pruned"`
	// Seconds is the wall time of the epoch, training and testing, and
	// ImagesPerSecond the training throughput.
	Seconds         float64 `json:"seconds"`
	ImagesPerSecond float64 `json:"images_per_second"`
}

// Settings are the settings of a run that its checkpoint must share; all
// but FinetuneFrom and Workers must be equal to resume.
type Settings struct {
	// Nodes, Channels, Batch, LR, Lambda, Tol and Seed are those of
	// Config after its defaults, Lambda zero with the penalty off.
	Nodes    int     `json:"nodes"`
	Channels int     `json:"channels"`
	Batch    int     `json:"batch"`
	LR       float64 `json:"lr"`
	Lambda   float64 `json:"lambda"`
	Tol      float64 `json:"tol"`
	// FinetuneFrom is the index, from 0, of the first epoch without the
	// penalty: Config.Epochs-Config.Finetune when the run started, or
	// later if the run was resumed with another schedule before its
	// fine-tuning began. A run resumed after that epoch keeps it, so
	// that fine-tuning goes on to the end of a run extended to more
	// epochs and the penalty never comes back.
	FinetuneFrom int `json:"finetune_from"`
	// Penalty is "prox" for the proximal step, "plain" for the
	// subgradient (Config.Plain), and Optimizer is "adam".
	Penalty   string `json:"penalty"`
	Optimizer string `json:"optimizer"`
	Seed      uint64 `json:"seed"`
	// TrainImages, ValidationImages and TestImages are the number of
	// images of each part.
	TrainImages      int `json:"train_images"`
	ValidationImages int `json:"validation_images"`
	TestImages       int `json:"test_images"`
	// Workers is Config.Workers. A run resumed with another number
	// continues, but sums its gradients in another order from there and
	// so ends a little differently from an uninterrupted run; it says so.
	// Zero in a checkpoint of version 3, which did not record it.
	Workers int `json:"workers"`
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

// savedState is the content of a checkpoint.
type savedState struct {
	jsonfile.Header
	Arch     archShape            `json:"architecture"`
	Settings Settings             `json:"settings"`
	History  []Epoch              `json:"history"`
	Pruned   []string             `json:"pruned"`
	Weights  map[string][]float32 `json:"weights"`
}

// checkpointFile is the checkpoint at path.
func checkpointFile(path string) checkpoint.File {
	return checkpoint.File{Path: path, Format: checkpointFormat}
}

// writeCheckpoint writes the state to path, atomically: an interrupted
// write leaves the previous checkpoint.
func writeCheckpoint(path string, a *Arch, s Settings, st *state) error {
	pruned := make([]string, 0, len(st.Pruned))
	for name := range st.Pruned {
		pruned = append(pruned, name)
	}
	sort.Strings(pruned)
	err := checkpointFile(path).Save(&savedState{Arch: shapeOf(a), Settings: s, History: st.History, Pruned: pruned, Weights: st.Weights})
	if err != nil {
		return fmt.Errorf("sculpt: %w", err)
	}
	return nil
}

// readCheckpoint reads a checkpoint and checks that it belongs to the
// architecture a and the settings s; only the number of epochs, and so
// FinetuneFrom, and the number of workers may differ, so that a run can
// be continued for longer or elsewhere. It returns the state and the
// checkpoint's settings.
func readCheckpoint(path string, a *Arch, s Settings) (*state, Settings, error) {
	var ck savedState
	found, err := checkpointFile(path).Load(&ck)
	if err != nil {
		return nil, Settings{}, fmt.Errorf("sculpt: %w", err)
	}
	if !found {
		return nil, Settings{}, fmt.Errorf("sculpt: nothing to resume: there is no checkpoint %s (a run writes it after its first epoch); start the run without -resume", path)
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("sculpt: checkpoint %s: %s", path, fmt.Sprintf(format, args...))
	}
	if want := shapeOf(a); !slices.Equal(ck.Arch.Input, want.Input) || ck.Arch.Classes != want.Classes ||
		ck.Arch.Nodes != want.Nodes || ck.Arch.Channels != want.Channels {
		return nil, Settings{}, fail("it was written for another architecture, %v, not %v; use the same -nodes, -channels and data, or start anew without -resume",
			ck.Arch, want)
	}
	other := ck.Settings
	other.FinetuneFrom, other.Workers = s.FinetuneFrom, s.Workers // may differ
	if other != s {
		return nil, Settings{}, fail("it was written with other settings, %+v, not %+v; resume with the same settings, or start anew without -resume",
			ck.Settings, s)
	}
	st := &state{Weights: ck.Weights, Pruned: map[string]bool{}, History: ck.History}
	if len(st.History) == 0 {
		return nil, Settings{}, fail("no epoch recorded")
	}
	for i := range a.Edges {
		name := a.Edges[i].Name
		if w, ok := st.Weights[name]; !ok || len(w) != a.EdgeParams(i) {
			return nil, Settings{}, fail("edge %s has %d weights, want %d", name, len(st.Weights[name]), a.EdgeParams(i))
		}
	}
	if len(st.Weights) != len(a.Edges) {
		return nil, Settings{}, fail("%d edges with weights, want %d", len(st.Weights), len(a.Edges))
	}
	if err := plausibleWeights(st, s); err != nil {
		return nil, Settings{}, fail("%v; the file is damaged or not this run's: start anew without -resume", err)
	}
	for _, name := range ck.Pruned {
		if a.Edge(name) < 0 {
			return nil, Settings{}, fail("pruned edge %q is not in the architecture", name)
		}
		st.Pruned[name] = true
	}
	if live, _, _ := a.Count(st.Pruned); live == 0 {
		return nil, Settings{}, fail("every edge is pruned, and training cannot bring one back; start anew without -resume, with a smaller penalty")
	}
	return st, ck.Settings, nil
}

// Bounds of the weights a run can reach: initialWeight bounds the
// initial weights of the generous architecture (Glorot's uniform limit,
// sqrt(6/2) at the least fan, is 1.73), and adamStep the size of one of
// Adam's steps in units of the learning rate (at most about 3 for its
// default moments; the proximal step only shrinks weights).
const (
	initialWeight = 2.5
	adamStep      = 10
)

// plausibleWeights returns an error if a weight of st is larger than
// training with the settings s could have made it in the epochs of its
// history: such a weight comes from elsewhere, and would give a loss
// that is not finite and blame the learning rate.
func plausibleWeights(st *state, s Settings) error {
	steps := float64(len(st.History)) * float64(s.TrainImages/max(s.Batch, 1))
	bound := initialWeight + adamStep*s.LR*steps
	for name, w := range st.Weights {
		for _, v := range w {
			if !(math.Abs(float64(v)) <= bound) {
				return fmt.Errorf("edge %s has a weight of %g, where %d epochs of %.0f steps at learning rate %g from weights of at most %g reach at most %.3g",
					name, v, len(st.History), steps/float64(len(st.History)), s.LR, initialWeight, bound)
			}
		}
	}
	return nil
}
