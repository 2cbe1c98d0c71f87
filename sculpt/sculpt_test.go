package sculpt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/testutil"
	"github.com/parametric-machines/machines/model"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/train"
)

// blobs returns n images of size x size pixels in classes classes: a
// bright 2x2 block whose position depends on the class, on noise.
func blobs(rnd *rand.Rand, n, size, classes int) *dataset.Images {
	im := &dataset.Images{N: n, Rows: size, Cols: size, Classes: classes,
		Pixels: make([]uint8, n*size*size), Labels: make([]int, n)}
	for i := range n {
		c := rnd.IntN(classes)
		im.Labels[i] = c
		p := im.Pixels[i*size*size : (i+1)*size*size]
		for j := range p {
			p[j] = uint8(rnd.IntN(60))
		}
		r, col := (2*c)%(size-1), (3*c)%(size-1)
		for _, d := range [][2]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
			p[(r+d[0])*size+col+d[1]] = 255
		}
	}
	return im
}

func TestGenerous(t *testing.T) {
	a := Generous(1, 28, 28, 10, 10, 4)
	var sizes []int
	for _, n := range a.Nodes {
		sizes = append(sizes, n.Out[0])
	}
	if want := []int{14, 14, 7, 7, 14, 14, 7, 7, 14, 14}; !slices.Equal(sizes, want) {
		t.Errorf("node sizes %v, want %v", sizes, want)
	}
	edges, params, flops := a.Count(nil)
	if edges != 36 {
		t.Errorf("%d edges, want 26 convs and 10 heads", edges)
	}
	for i, e := range a.Edges {
		if e.Kind == "conv3x3" && a.outSize(e.From) != a.Nodes[e.To-1].In {
			t.Errorf("edge %s from a %v node into a %v node", e.Name, a.outSize(e.From), a.Nodes[e.To-1].In)
		}
		if e.Kind == "conv3x3" && a.EdgeFLOPs(i) != 2*a.EdgeParams(i)*a.Nodes[e.To-1].In[0]*a.Nodes[e.To-1].In[1] {
			t.Errorf("edge %s: %d FLOPs for %d weights", e.Name, a.EdgeFLOPs(i), a.EdgeParams(i))
		}
	}
	for k := 1; k <= 10; k++ {
		if a.Edge("c"+strconv.Itoa(k-1)+"."+strconv.Itoa(k)) < 0 {
			t.Errorf("node %d does not read node %d", k, k-1)
		}
	}
	m := machine(a, nil, (&run{arch: a, cfg: Config{Seed: 1}}).initial().Weights)
	if m.NumParams() != params {
		t.Errorf("machine with %d weights, Count says %d", m.NumParams(), params)
	}
	if flops <= 0 {
		t.Errorf("%d FLOPs", flops)
	}
	// Odd sizes cannot be pooled: every node keeps the input size.
	for _, n := range Generous(1, 5, 5, 2, 4, 2).Nodes {
		if n.Resample != "identity" || n.Out != [2]int{5, 5} {
			t.Errorf("node %+v of a 5x5 input", n)
		}
	}
}

func TestLive(t *testing.T) {
	a := Generous(1, 8, 8, 3, 4, 2)
	// Node 2 reads only node 1 (c1.2); pruning that edge kills node 2
	// and the edges hanging on it.
	if a.Edge("c1.2") < 0 {
		t.Fatalf("no edge c1.2 in %v", a.Edges)
	}
	edges, nodes := a.Live(map[string]bool{"c1.2": true})
	if nodes[2] {
		t.Errorf("node 2 live without inputs")
	}
	for i, e := range a.Edges {
		if (e.From == 2 || e.To == 2) && edges[i] {
			t.Errorf("edge %s of dead node 2 is live", e.Name)
		}
	}
	// Pruning node 4's head and every edge it feeds kills it.
	_, nodes = a.Live(map[string]bool{"h4": true})
	if nodes[4] {
		t.Errorf("node 4 live without outputs")
	}
	if err := a.Spec(map[string]bool{"c1.2": true, "h4": true}).Validate(); err != nil {
		t.Errorf("pruned spec: %v", err)
	}
}

// TestRemovedEqualsZeroed checks that removing edges whose weights are
// zero, and the nodes that hang on them, does not change the logits.
func TestRemovedEqualsZeroed(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 3))
	a := Generous(1, 8, 8, 3, 6, 2)
	w := (&run{arch: a, cfg: Config{Seed: 2}}).initial().Weights
	pruned := map[string]bool{"c1.2": true, "h3": true}
	for name, p := range pruned {
		if p {
			clear(w[name])
		}
	}
	im := blobs(rnd, 20, 8, 3)
	logits := func(pruned map[string]bool) []float32 {
		var g ad.Graph[float32]
		m := machine(a, pruned, w)
		mc, err := m.Machine()
		if err != nil {
			t.Fatal(err)
		}
		x, out := newGraph(&g, mc, m.Params(), im.N, im)
		load(x, nil, im, seq(im.N))
		g.Forward()
		return out.Value.Data
	}
	full, cut := logits(nil), logits(pruned)
	for i := range full {
		if d := full[i] - cut[i]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("logit %d: %g with the edges, %g without", i, full[i], cut[i])
		}
	}
}

func smallConfig(dir string) Config {
	return Config{Nodes: 4, Channels: 2, Epochs: 2, Finetune: 1, Batch: 8, LR: 0.01, Lambda: 0.05, Seed: 5, Out: dir}
}

func smallData() (train, test *dataset.Images) {
	rnd := rand.New(rand.NewPCG(4, 4))
	train, test = blobs(rnd, 160, 8, 3), blobs(rnd, 60, 8, 3)
	train.Names, test.Names = []string{"a", "b", "c"}, []string{"a", "b", "c"}
	return train, test
}

func TestRunAndResume(t *testing.T) {
	train, test := smallData()
	whole := t.TempDir()
	rep, err := Run(train, test, smallConfig(whole))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Epochs != 2 || len(rep.ValidationAccuracy) != 2 || len(rep.SecondsPerEpoch) != 2 {
		t.Errorf("report %+v, want two epochs", rep)
	}
	if rep.ValidationAccuracy[1] < 0.6 {
		t.Errorf("validation accuracy %v on an easy task", rep.ValidationAccuracy)
	}
	if rep.AccuracyPruned != rep.AccuracyUnpruned {
		t.Errorf("accuracy %v pruned, %v unpruned", rep.AccuracyPruned, rep.AccuracyUnpruned)
	}
	if !slices.Equal(rep.Classes, train.Names) {
		t.Errorf("classes %q in the report, want %q", rep.Classes, train.Names)
	}
	m, err := model.Load[float32](filepath.Join(whole, ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	wantMeta := model.Meta{Classes: map[string][]string{"logits": train.Names},
		Pixels: map[string]model.Pixels{"x": {Scale: 1.0 / 255, Channels: []string{"grey"}}}}
	if !reflect.DeepEqual(m.Meta, wantMeta) {
		t.Errorf("the model file's meta %+v, want %+v", m.Meta, wantMeta)
	}
	if rep.Arch == nil || len(rep.Arch.Edges) != rep.EdgesInitial {
		t.Errorf("the report's architecture %+v has not the %d edges the run started with", rep.Arch, rep.EdgesInitial)
	}
	for _, f := range []string{ReportFile, ModelFile, CheckpointFile, "sculpt-start.dot", "sculpt-end.dot"} {
		if _, err := os.Stat(filepath.Join(whole, f)); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}

	// One epoch, then a resumed second one, gives the same run.
	split := t.TempDir()
	c := smallConfig(split)
	c.Epochs, c.NoFinetune = 1, true // the penalty epoch of the whole run
	if _, err := Run(train, test, c); err != nil {
		t.Fatal(err)
	}
	c.Epochs, c.Finetune, c.NoFinetune, c.Resume = 2, 1, false, true
	var log bytes.Buffer
	c.Progress = &log
	rep2, err := Run(train, test, c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "resuming") || strings.Count(log.String(), "validation accuracy") != 1 {
		t.Errorf("resumed run logged\n%s", log.String())
	}
	if !slices.Equal(rep.ValidationAccuracy, rep2.ValidationAccuracy) || !slices.Equal(rep.PrunedEdges, rep2.PrunedEdges) {
		t.Errorf("resumed run: accuracy %v, pruned %v; uninterrupted %v, %v",
			rep2.ValidationAccuracy, rep2.PrunedEdges, rep.ValidationAccuracy, rep.PrunedEdges)
	}
	ckWhole, ckSplit := readCheckpointFile(t, whole), readCheckpointFile(t, split)
	if ckWhole.Settings != ckSplit.Settings {
		t.Errorf("settings %+v resumed, %+v uninterrupted", ckSplit.Settings, ckWhole.Settings)
	}
	if len(ckWhole.Weights) != len(ckSplit.Weights) {
		t.Errorf("%d edges resumed, %d uninterrupted", len(ckSplit.Weights), len(ckWhole.Weights))
	}
	for name, w := range ckWhole.Weights {
		if !slices.Equal(w, ckSplit.Weights[name]) {
			t.Errorf("edge %s: final weights differ between the resumed and the uninterrupted run", name)
		}
	}

	// Extending the finished run fine-tunes to its new end: the penalty
	// does not come back.
	c = smallConfig(whole)
	c.Epochs, c.Resume = 4, true
	rep3, err := Run(train, test, c)
	if err != nil {
		t.Fatal(err)
	}
	for k, e := range rep3.History {
		if fine := k >= 1; (e.Penalty == 0) != fine {
			t.Errorf("extended run, epoch %d: penalty %g, want it zero exactly when fine-tuning (from epoch 2)", k+1, e.Penalty)
		}
	}
	if ck := readCheckpointFile(t, whole); ck.Settings.FinetuneFrom != 1 {
		t.Errorf("extended run: fine-tuning from %d, want 1", ck.Settings.FinetuneFrom)
	}

	// A checkpoint of another architecture or other settings is refused.
	for _, change := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"nodes", func(c *Config) { c.Nodes = 5 }, "another architecture"},
		{"channels", func(c *Config) { c.Channels = 3 }, "another architecture"},
		{"lambda", func(c *Config) { c.Lambda = 0.2 }, "other settings"},
	} {
		c := smallConfig(split)
		c.Epochs, c.Resume = 3, true
		change.edit(&c)
		if _, err := Run(train, test, c); err == nil || !strings.Contains(err.Error(), change.want) {
			t.Errorf("%s changed: error %v, want %q", change.name, err, change.want)
		}
	}
	c = smallConfig(t.TempDir())
	c.Resume = true
	if _, err := Run(train, test, c); err == nil {
		t.Errorf("resumed without a checkpoint")
	}
	for _, bad := range []struct{ name, file, want string }{
		{"another format", `{"format": "machines-hypergraph-machine", "version": 1}`,
			`not a sculpt checkpoint (format "machines-hypergraph-machine", want "machines" with "kind": "sculpt-checkpoint")`},
		{"version 1", `{"format": "machines-sculpt-checkpoint", "version": 1}`,
			"machines-sculpt-checkpoint version 1 is older than this program reads (versions 3 to 4)"},
		{"another kind", `{"format": "machines", "kind": "train-checkpoint", "version": 5}`,
			`not a sculpt checkpoint (kind "train-checkpoint", want "sculpt-checkpoint")`},
		{"envelope version 6", `{"format": "machines", "kind": "sculpt-checkpoint", "version": 6}`,
			"sculpt-checkpoint version 6 is newer than this program reads (versions 3 to 5)"},
	} {
		c = smallConfig(t.TempDir())
		c.Resume = true
		if err := os.WriteFile(filepath.Join(c.Out, CheckpointFile), []byte(bad.file), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(train, test, c); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("checkpoint of %s: error %v, want %q", bad.name, err, bad.want)
		}
	}
}

// TestResumeMismatch checks what a resumed run does with a checkpoint
// that does not match it: refuses one of more epochs than asked, one
// that is missing, damaged or pruned throughout, each saying why and what
// to do, and continues from one of another number of workers, saying so.
func TestResumeMismatch(t *testing.T) {
	train, test := smallData()
	first := smallConfig(t.TempDir())
	first.Workers = 1
	if _, err := Run(train, test, first); err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(first.Out, CheckpointFile)
	good, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	// edit returns a copy of the checkpoint in a directory of its own,
	// changed by f.
	edit := func(f func(ck map[string]any)) string {
		var ck map[string]any
		if err := json.Unmarshal(good, &ck); err != nil {
			t.Fatal(err)
		}
		f(ck)
		b, err := json.Marshal(ck)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, CheckpointFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, tc := range []struct {
		name    string
		dir     string
		change  func(*Config)
		wantErr string // empty: the run goes on
		wantLog string
	}{
		{name: "fewer epochs than done", dir: edit(func(map[string]any) {}), change: func(c *Config) { c.Epochs, c.NoFinetune = 1, true },
			wantErr: "holds 2 epochs, more than the 1 of this run; ask for 2 epochs or more to go on, or start anew without -resume"},
		{name: "no checkpoint", dir: t.TempDir(),
			wantErr: "nothing to resume: there is no checkpoint", wantLog: ""},
		{name: "a weight of 3e38", dir: edit(func(ck map[string]any) {
			ck["weights"].(map[string]any)["c0.1"].([]any)[0] = 3e38
		}), wantErr: "edge c0.1 has a weight of 3e+38, where 2 epochs of 18 steps at learning rate 0.01 from weights of at most 2.5 reach at most 6.1; the file is damaged or not this run's: start anew without -resume"},
		{name: "every edge pruned", dir: edit(func(ck map[string]any) {
			var all []any
			for name := range ck["weights"].(map[string]any) {
				all = append(all, name)
			}
			ck["pruned"] = all
		}), wantErr: "every edge is pruned, and training cannot bring one back; start anew without -resume, with a smaller penalty"},
		{name: "other workers", dir: edit(func(map[string]any) {}), change: func(c *Config) { c.Workers = 2 },
			wantLog: "the checkpoint was written with 1 workers, this run has 2: it sums its gradients in another order from here"},
		{name: "version 3", dir: edit(func(ck map[string]any) {
			ck["version"] = 3
			delete(ck["settings"].(map[string]any), "workers")
		}), wantLog: "the checkpoint does not record its number of workers (it is of version 3); if it was not 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := smallConfig(tc.dir)
			c.Workers, c.Epochs, c.Resume = 1, 3, true
			if tc.change != nil {
				tc.change(&c)
			}
			var log bytes.Buffer
			c.Progress = &log
			_, err := Run(train, test, c)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("error %v, want the run to go on", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			case !strings.Contains(log.String(), tc.wantLog):
				t.Errorf("log\n%s\nwant it to contain %q", log.String(), tc.wantLog)
			}
		})
	}
}

// TestAllPrunedStops checks that a run whose every edge is pruned stops
// there, says so, and reports the empty machine.
func TestAllPrunedStops(t *testing.T) {
	train, test := smallData()
	c := smallConfig(t.TempDir())
	c.Epochs, c.NoFinetune, c.Lambda = 4, true, 1000
	var log bytes.Buffer
	c.Progress = &log
	rep, err := Run(train, test, c)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Epochs != 1 || rep.EdgesLive != 0 || !strings.Contains(log.String(), "every edge is pruned after epoch 1") {
		t.Errorf("%d epochs, %d live edges; log:\n%s\nwant 1 epoch, none live and a word on it", rep.Epochs, rep.EdgesLive, log.String())
	}
}

// A run whose penalty prunes every edge after some epochs goes back to
// the sparsest of them within the tolerance of the best validation
// accuracy, and fine-tunes it without the penalty.
func TestAllPrunedFallsBack(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		epochs, finetune, ending int
	}{
		{"before fine-tuning", 8, 2, 6},
		{"in the last epoch, without fine-tuning", 4, 0, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			train, test := smallData()
			c := smallConfig("")
			c.Epochs, c.Finetune, c.NoFinetune, c.Lambda = tc.epochs, tc.finetune, tc.finetune == 0, 0.2
			var log bytes.Buffer
			c.Progress = &log
			rep, err := Run(train, test, c)
			if err != nil {
				t.Fatal(err)
			}
			h := rep.History
			if rep.FellBack != 3 || rep.Epochs != tc.ending || h[3].EdgesLive != 0 || rep.EdgesLive != h[2].EdgesLive || rep.EdgesLive == 0 {
				t.Fatalf("went back to epoch %d, %d epochs, %d live edges; history %+v; want epoch 3's edges after %d epochs", rep.FellBack, rep.Epochs, rep.EdgesLive, h, tc.ending)
			}
			for _, e := range h[4:] {
				if e.Penalty != 0 || rep.Settings.FinetuneFrom != 4 {
					t.Errorf("penalty %v after going back, fine-tuning from %d; want none from 4", e.Penalty, rep.Settings.FinetuneFrom)
				}
			}
			if rep.AccuracyPruned < 0.9 || !strings.Contains(log.String(), "going back to epoch 3") {
				t.Errorf("test accuracy %v; log\n%s\nwant 0.9 or more, and a word on going back", rep.AccuracyPruned, log.String())
			}
		})
	}
}

// The epochs a run may go back to: of equal FLOPs the most accurate,
// none below the tolerance of the best so far.
func TestKeepFallback(t *testing.T) {
	type epoch struct {
		acc   float64
		flops int
		live  int
	}
	for _, tc := range []struct {
		name   string
		epochs []epoch
		want   []int // the epochs kept, from 1
	}{
		{"sparser and as good", []epoch{{0.90, 30, 1}, {0.90, 20, 1}, {0.90, 10, 1}}, []int{1, 2, 3}},
		{"equal FLOPs, the better kept", []epoch{{0.90, 30, 1}, {0.89, 20, 1}, {0.902, 20, 1}, {0.90, 20, 1}}, []int{1, 3}},
		{"worse beyond the tolerance dropped", []epoch{{0.80, 30, 1}, {0.90, 20, 1}, {0.70, 10, 1}, {0.897, 5, 1}}, []int{2, 4}},
		{"an empty machine never kept", []epoch{{0.90, 30, 1}, {0.95, 0, 0}}, []int{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &run{cfg: Config{PathTolerance: 0.005}, val: &dataset.Images{N: 1e6}, st: &state{Weights: map[string][]float32{"e": {1}}, Pruned: map[string]bool{}}}
			for i, e := range tc.epochs {
				r.st.Weights["e"][0] = float32(i + 1)
				r.keepFallback(i+1, e.acc, e.live, e.flops)
			}
			var got []int
			for _, f := range r.fallbacks {
				if f.snap.weights["e"][0] != float32(f.epoch) {
					t.Errorf("epoch %d holds the weights of epoch %v", f.epoch, f.snap.weights["e"][0])
				}
				got = append(got, f.epoch)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("kept epochs %v, want %v", got, tc.want)
			}
		})
	}
}

// TestProxPrunes compares the proximal step with the plain subgradient
// at the same penalty: the first drives edges to exactly zero, the
// second leaves norms hovering above the tolerance.
func TestProxPrunes(t *testing.T) {
	train, test := smallData()
	pruned := map[bool]int{}
	for _, plain := range []bool{false, true} {
		c := smallConfig("")
		c.Epochs, c.NoFinetune, c.Lambda, c.Plain = 4, true, 1, plain
		rep, err := Run(train, test, c)
		if err != nil {
			t.Fatal(err)
		}
		pruned[plain] = rep.EdgesInitial - rep.EdgesLive
		t.Logf("plain %v: %d of %d edges pruned, accuracy %.3f", plain, pruned[plain], rep.EdgesInitial, rep.AccuracyPruned)
		if rep.AccuracyPruned != rep.AccuracyUnpruned {
			t.Errorf("plain %v: accuracy %v pruned, %v unpruned", plain, rep.AccuracyPruned, rep.AccuracyUnpruned)
		}
	}
	if pruned[false] == 0 || pruned[false] <= pruned[true] {
		t.Errorf("edges pruned: %d with the proximal step, %d with the subgradient", pruned[false], pruned[true])
	}
}

// TestPlainShrinks checks what the plain subgradient must do: pull every
// edge towards zero, so that the weights end with a smaller total norm
// than the same run without the penalty. A subgradient of the wrong sign
// would push them out instead.
func TestPlainShrinks(t *testing.T) {
	train, test := smallData()
	total := func(lambda float64) float64 {
		c := smallConfig(t.TempDir())
		c.Epochs, c.NoFinetune, c.Lambda, c.Plain = 2, true, lambda, true
		c.NoPenalty = lambda == 0
		if _, err := Run(train, test, c); err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, w := range readCheckpointFile(t, c.Out).Weights {
			var sq float64
			for _, v := range w {
				sq += float64(v) * float64(v)
			}
			sum += math.Sqrt(sq)
		}
		return sum
	}
	off, plain := total(0), total(0.5)
	t.Logf("sum of edge norms: %.4g without the penalty, %.4g with the plain subgradient", off, plain)
	if !(plain < 0.9*off) {
		t.Errorf("sum of edge norms %.4g with the plain subgradient, %.4g without: want at least 10%% smaller", plain, off)
	}
}

func TestDOT(t *testing.T) {
	a := Generous(1, 8, 8, 3, 4, 2)
	var b bytes.Buffer
	if err := a.WriteDOT(&b, map[string]bool{"h4": true}); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if !strings.HasPrefix(s, "digraph sculpt {") || strings.Contains(s, `"h4"`) || !strings.Contains(s, `"h1", color=red`) {
		t.Errorf("DOT file:\n%s", s)
	}
	live, _ := a.Live(map[string]bool{"h4": true})
	n := 0
	for _, ok := range live {
		n += btoi(ok)
	}
	if got := strings.Count(s, "->"); got != n {
		t.Errorf("%d edges in the DOT file, want %d", got, n)
	}
}

// readCheckpointFile decodes the checkpoint in dir.
func readCheckpointFile(t *testing.T, dir string) savedState {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	var ck savedState
	if err := json.Unmarshal(b, &ck); err != nil {
		t.Fatal(err)
	}
	return ck
}

// TestFewEpochsPrune checks that a run of no more epochs than
// three still applies the penalty and prunes.
func TestFewEpochsPrune(t *testing.T) {
	train, test := smallData()
	for _, epochs := range []int{1, 2, 3} {
		t.Run("epochs="+strconv.Itoa(epochs), func(t *testing.T) {
			c := smallConfig("")
			c.Epochs, c.Finetune, c.Lambda = epochs, 0, 1.5
			rep, err := Run(train, test, c)
			if err != nil {
				t.Fatal(err)
			}
			if rep.EdgesLive >= rep.EdgesInitial {
				t.Errorf("%d of %d edges live: nothing pruned", rep.EdgesLive, rep.EdgesInitial)
			}
			if rep.History[0].EdgesLive > 0 && rep.History[0].Penalty == 0 {
				t.Errorf("no penalty in the first epoch")
			}
			last := rep.History[len(rep.History)-1]
			if len(rep.History) < epochs && last.EdgesLive != 0 {
				t.Errorf("stopped after %d of %d epochs with %d live edges", len(rep.History), epochs, last.EdgesLive)
			}
			if len(rep.History) == epochs && epochs > 1 && last.Penalty != 0 {
				t.Errorf("penalty %g in the last epoch, which fine-tunes", last.Penalty)
			}
		})
	}
}

// TestConfigDefaults checks that a zero Config takes the named defaults,
// which the command's flags read (see cmd/machines' TestFlagDefaults).
func TestConfigDefaults(t *testing.T) {
	c := Config{}.withDefaults()
	want := Config{Nodes: DefaultNodes, Channels: DefaultChannels, Batch: train.DefaultBatch, LR: optim.DefaultAdamLR,
		Lambda: DefaultLambda, Tol: DefaultTol, PathTolerance: DefaultPathTolerance}
	if c.Nodes != want.Nodes || c.Channels != want.Channels || c.Batch != want.Batch || c.LR != want.LR ||
		c.Lambda != want.Lambda || c.Tol != want.Tol || c.PathTolerance != want.PathTolerance {
		t.Errorf("Config{} takes %+v, want the defaults %+v", c, want)
	}
}

// TestWorkersReproducible checks that two runs with the same seed and
// the same number of workers train the same weights and history, with
// and without pruning during the epochs, and that the workers default to
// one per core.
func TestWorkersReproducible(t *testing.T) {
	if w := (Config{}).withDefaults().Workers; w != min(runtime.GOMAXPROCS(0), 32) {
		t.Errorf("default workers %d, want GOMAXPROCS %d (at most the batch of 32)", w, runtime.GOMAXPROCS(0))
	}
	if w := (Config{Batch: 1}).withDefaults().Workers; w != 1 {
		t.Errorf("default workers %d with a batch of 1", w)
	}
	train, test := smallData()
	for _, workers := range []int{1, 2, 3} {
		for _, lambda := range []float64{0.05, 1.5} {
			t.Run(fmt.Sprintf("workers=%d/lambda=%g", workers, lambda), func(t *testing.T) {
				var cks [2]savedState
				for i := range cks {
					c := smallConfig(t.TempDir())
					c.Workers, c.Lambda, c.Epochs = workers, lambda, 3
					if _, err := Run(train, test, c); err != nil {
						t.Fatal(err)
					}
					cks[i] = readCheckpointFile(t, c.Out)
					for j := range cks[i].History {
						e := &cks[i].History[j]
						e.Seconds, e.ImagesPerSecond = 0, 0
					}
				}
				if lambda > 1 && len(cks[0].Pruned) == 0 {
					t.Error("nothing pruned")
				}
				if !reflect.DeepEqual(cks[0].History, cks[1].History) || !reflect.DeepEqual(cks[0].Pruned, cks[1].Pruned) {
					t.Errorf("histories differ:\n%+v\n%+v", cks[0].History, cks[1].History)
				}
				if !reflect.DeepEqual(cks[0].Weights, cks[1].Weights) {
					t.Error("the weights differ")
				}
			})
		}
	}
}

func TestConfigErrors(t *testing.T) {
	train, test := smallData()
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{LR: -1}, "learning rate"},
		{Config{Tol: -1}, "tolerance"},
		{Config{Batch: 1, Workers: 2}, "workers"},
		{Config{Nodes: -1}, "nodes -1"},
		{Config{Epochs: 2, Finetune: 2}, "fine-tuning"},
		{Config{Path: []float64{1, 0.5}}, "increasing"},
		{Config{Budget: -1}, "budget -1"},
		{Config{Finetune: -1}, "-1 fine-tuning epochs"},
		{Config{Lambda: -1}, "lambda -1"},
	} {
		_, err := Run(train, test, tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("config %+v: error %v, want a mention of %q", tc.c, err, tc.want)
		}
	}
	// NoPenalty and NoFinetune turn off what zero values leave at
	// their defaults.
	for _, tc := range []struct {
		c                Config
		lambda           float64
		finetune, epochs int
	}{
		{Config{Epochs: 7}, DefaultLambda, 3, 7},
		{Config{Epochs: 7, NoPenalty: true, Lambda: 1}, 0, 3, 7},
		{Config{Epochs: 7, NoFinetune: true, Finetune: 2}, DefaultLambda, 0, 7},
	} {
		if c := tc.c.withDefaults(); c.Lambda != tc.lambda || c.Finetune != tc.finetune || c.Epochs != tc.epochs {
			t.Errorf("config %+v: lambda %g, finetune %d of %d epochs; want %g, %d of %d", tc.c, c.Lambda, c.Finetune, c.Epochs, tc.lambda, tc.finetune, tc.epochs)
		}
	}
	// Without the penalty every epoch may fine-tune.
	if err := (Config{Epochs: 2, Finetune: 2, NoPenalty: true}).withDefaults().check(); err != nil {
		t.Errorf("no penalty, all fine-tuning: %v", err)
	}
	if _, err := Run(train, &dataset.Images{Rows: 8, Cols: 8}, Config{}); err == nil || !strings.Contains(err.Error(), "no training or no test images") {
		t.Errorf("empty test set: %v", err)
	}
}

// TestBadLabels checks that labels outside the classes are errors.
func TestBadLabels(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(train, test *dataset.Images)
		want string
	}{
		{"no classes", func(train, test *dataset.Images) { train.Classes, test.Classes = 0, 0 }, "classes 0"},
		{"one class", func(train, test *dataset.Images) {
			for _, im := range []*dataset.Images{train, test} {
				im.Classes = 1
				clear(im.Labels)
			}
		}, "classes 1, want at least 2"},
		{"train label too large", func(train, test *dataset.Images) { train.Labels[7] = 3 }, "training image 7 has label 3"},
		{"test label negative", func(train, test *dataset.Images) { test.Labels[5] = -1 }, "test image 5 has label -1"},
		{"missing labels", func(train, test *dataset.Images) { test.Labels = test.Labels[:10] }, "10 test labels"},
		{"untrained classes", func(train, test *dataset.Images) {
			train.Classes, test.Classes = 13, 13
			for i := range train.Labels {
				train.Labels[i] = 12 * (train.Labels[i] % 2)
			}
		}, "warning: 11 of the 13 classes have no training image, and the machine cannot learn them: labels 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 1 more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			train, test := smallData()
			tc.edit(train, test)
			c := smallConfig("")
			var log bytes.Buffer
			c.Progress = &log
			_, err := Run(train, test, c)
			if msg := fmt.Sprint(err, log.String()); !strings.Contains(msg, tc.want) {
				t.Errorf("error %v, log %q; want a mention of %q", err, log.String(), tc.want)
			}
		})
	}
}

// TestRunValid checks that validation images of their own are the ones
// measured, the training images all kept for training, and the errors
// of validation images that do not fit the run.
func TestRunValid(t *testing.T) {
	train, test := smallData()
	valid := blobs(rand.New(rand.NewPCG(7, 7)), 40, 8, 3)
	rep, err := RunValid(train, valid, test, smallConfig(""))
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Settings; s.TrainImages != train.N || s.ValidationImages != valid.N {
		t.Errorf("%d training and %d validation images, want %d and %d", s.TrainImages, s.ValidationImages, train.N, valid.N)
	}
	// The accuracies are those of the validation images: a set of one
	// image measures 0 or 1.
	one := valid.Subset([]int{0})
	rep, err = RunValid(train, one, test, smallConfig(""))
	if err != nil {
		t.Fatal(err)
	}
	for _, acc := range rep.ValidationAccuracy {
		if acc != 0 && acc != 1 {
			t.Errorf("validation accuracy %g of one image", acc)
		}
	}
	for _, tc := range []struct {
		name string
		edit func(valid *dataset.Images, c *Config)
		want string
	}{
		{"a fraction too", func(_ *dataset.Images, c *Config) { c.Validation = 0.2 }, "and a validation fraction of 0.2"},
		{"another size", func(v *dataset.Images, _ *Config) { v.Rows, v.Cols = 4, 16 }, "validation images 1x4x16"},
		{"a label too large", func(v *dataset.Images, _ *Config) { v.Labels[3] = 3 }, "validation image 3 has label 3"},
		{"no images", func(v *dataset.Images, _ *Config) { v.N, v.Labels = 0, nil }, "0 validation images"},
	} {
		v, c := blobs(rand.New(rand.NewPCG(7, 7)), 40, 8, 3), smallConfig("")
		tc.edit(v, &c)
		if _, err := RunValid(train, v, test, c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

// TestFashionMNIST sculpts for one epoch on part of Fashion-MNIST, if it
// is installed.
func TestFashionMNIST(t *testing.T) {
	if testing.Short() {
		t.Skip("real data")
	}
	const dir = "/usr/share/datasets/fashion-mnist"
	train, err := dataset.LoadIDX(dir, "train")
	if err != nil {
		testutil.Missing(t, "Fashion-MNIST (Debian package dataset-fashion-mnist)", err)
	}
	test, err := dataset.LoadIDX(dir, "t10k")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(train, test, Config{Epochs: 1, NoFinetune: true, MaxTrain: 4000, MaxTest: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ValidationAccuracy[0] < 0.6 || rep.AccuracyPruned != rep.AccuracyUnpruned {
		t.Errorf("accuracy %v, pruned %v, unpruned %v", rep.ValidationAccuracy, rep.AccuracyPruned, rep.AccuracyUnpruned)
	}
}

// TestLambdaScale pins the rule that makes the penalty mean the same on
// any data set: Lambda as given at ReferenceImages training images,
// times the fourth root of ReferenceImages over the images.
func TestLambdaScale(t *testing.T) {
	for _, tc := range []struct {
		images int
		want   float64
	}{{ReferenceImages, 1}, {ReferenceImages / 625, 5}, {ReferenceImages * 16, 0.5}} {
		if got := lambdaScale(tc.images); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("lambdaScale(%d) = %v, want %v", tc.images, got, tc.want)
		}
	}
	train, test := smallData()
	c := smallConfig("")
	rep, err := Run(train, test, c)
	if err != nil {
		t.Fatal(err)
	}
	if want := c.Lambda * lambdaScale(rep.Settings.TrainImages); math.Abs(rep.LambdaEffective-want) > 1e-15 || rep.LambdaEffective <= c.Lambda {
		t.Errorf("effective lambda %v for %d training images, want %v", rep.LambdaEffective, rep.Settings.TrainImages, want)
	}
}

// BenchmarkEpoch times one epoch of the generous architecture on the
// first 10,000 Fashion-MNIST training images with one worker and with
// one per core, as the sculpt suite of package bench does.
func BenchmarkEpoch(b *testing.B) {
	const dir = "/usr/share/datasets/fashion-mnist"
	train, err := dataset.LoadIDX(dir, "train")
	if err != nil {
		b.Skip(err)
	}
	test, err := dataset.LoadIDX(dir, "t10k")
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("workers="+strconv.Itoa(w), func(b *testing.B) {
			if w == 1 {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			}
			images := 0.0
			for range b.N {
				rep, err := Run(train, test, Config{Epochs: 1, MaxTrain: 10000, MaxTest: 32, Validation: 1e-9, Seed: 1, Workers: w})
				if err != nil {
					b.Fatal(err)
				}
				images += rep.History[0].ImagesPerSecond
			}
			b.ReportMetric(images/float64(b.N), "images/s")
		})
	}
}
