package experiment

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parametric-machines/machines/internal/testutil"
)

// writeIDX writes a tiny IDX data set of 8×8 images of 10 classes, each
// a bright 2×8 bar at a class-dependent place plus noise, as
// SPLIT-images-idx3-ubyte and SPLIT-labels-idx1-ubyte.
func writeIDX(t *testing.T, dir, split string, perClass int, rnd *rand.Rand) {
	t.Helper()
	const side, classes = 8, 10
	n := perClass * classes
	img := binary.BigEndian.AppendUint32(nil, 0x803)
	for _, v := range []uint32{uint32(n), side, side} {
		img = binary.BigEndian.AppendUint32(img, v)
	}
	lab := binary.BigEndian.AppendUint32(nil, 0x801)
	lab = binary.BigEndian.AppendUint32(lab, uint32(n))
	for i := range n {
		c := i % classes
		for r := range side {
			for col := range side {
				v := 40 * rnd.Float64()
				// Classes 0-4 are horizontal bars, 5-9 vertical ones.
				if (c < 5 && r/2 == c%4 && (c != 4 || col < 4)) || (c >= 5 && col/2 == c%4 && (c != 9 || r < 4)) {
					v += 200
				}
				img = append(img, byte(v))
			}
		}
		lab = append(lab, byte(c))
	}
	for name, b := range map[string][]byte{split + "-images-idx3-ubyte": img, split + "-labels-idx1-ubyte": lab} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeLabels overwrites the labels of split in dir.
func writeLabels(t *testing.T, dir, split string, labels []int) {
	t.Helper()
	lab := binary.BigEndian.AppendUint32(nil, 0x801)
	lab = binary.BigEndian.AppendUint32(lab, uint32(len(labels)))
	for _, l := range labels {
		lab = append(lab, byte(l))
	}
	if err := os.WriteFile(filepath.Join(dir, split+"-labels-idx1-ubyte"), lab, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOneShotSynthetic(t *testing.T) {
	if testing.Short() {
		t.Skip("trains kernel machines")
	}
	data := t.TempDir()
	rnd := rand.New(rand.NewPCG(1, 1))
	writeIDX(t, data, "train", 4, rnd)
	writeIDX(t, data, "t10k", 5, rnd)
	out := t.TempDir()
	cfg := Config{Out: out, Seed: 1, Quick: true, Data: data, MaxFreqs: []int{1, 2}, Costs: []float64{0, 0.1}, Shots: []int{1, 2}}
	r, err := Run("oneshot", cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "oneshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Protocol string
		Runs     []struct {
			Shots       int
			Models      []map[string]any
			Comparisons []map[string]any
			Settings    []map[string]any
			Seconds     *float64
		}
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Protocol != "fair" || len(rep.Runs) != 2 || rep.Runs[0].Shots != 1 || rep.Runs[1].Shots != 2 {
		t.Fatalf("report %s, want runs of 1 and 2 shots", b)
	}
	got := rep.Runs[1]
	// The grid is the sweeps maxfreq {1, 2} at cost 0.1 and cost {0} at
	// maxfreq 2; four baselines, each compared.
	if len(got.Settings) != 3 || len(got.Models) != 5 || len(got.Comparisons) != 4 || got.Seconds == nil || *got.Seconds <= 0 {
		t.Fatalf("report %s", b)
	}
	for _, st := range got.Settings {
		for _, key := range []string{"val_accuracies", "test_accuracies", "test_accuracy_mean", "histogram", "params"} {
			if _, ok := st[key]; !ok {
				t.Errorf("setting %v has no %q", st, key)
			}
		}
	}
	for _, m := range got.Models {
		for _, key := range []string{"name", "grid", "chosen", "val_accuracies", "accuracies", "accuracy_mean", "accuracy_std"} {
			if _, ok := m[key]; !ok {
				t.Errorf("model %v has no %q", m["name"], key)
			}
		}
		if n := len(m["chosen"].([]any)); n != 2 {
			t.Errorf("model %v: %d chosen settings, want 2 seeds in the quick run", m["name"], n)
		}
	}
	for _, p := range got.Comparisons {
		for _, key := range []string{"baseline", "differences", "mean", "ci_low", "ci_high", "wins", "losses", "ties", "sign_p"} {
			if _, ok := p[key]; !ok {
				t.Errorf("comparison %v has no %q", p["baseline"], key)
			}
		}
	}
	if len(r.Figures) != 16 {
		t.Errorf("figures %v, want 4 per run as PNG and SVG", r.Figures)
	}
	for _, f := range r.Figures {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("figure %s: %v", f, err)
		}
	}
	// The classes are easy: one example each should do much better than
	// chance for the machine and the baselines.
	for _, run := range r.OneShot.Runs {
		for _, m := range run.Models {
			if m.AccuracyMean < 0.6 {
				t.Errorf("%d-shot %s: accuracy %v", run.Shots, m.Name, m.AccuracyMean)
			}
		}
	}

	// The choices must not see the test labels: with the test labels
	// permuted, every model chooses the same settings with the same
	// validation accuracies, while its test accuracies change.
	labels := make([]int, 50)
	for i := range labels {
		labels[i] = i % 10
	}
	rnd.Shuffle(len(labels), func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })
	writeLabels(t, data, "t10k", labels)
	cfg.Out = t.TempDir()
	r2, err := Run("oneshot", cfg)
	if err != nil {
		t.Fatal(err)
	}
	changed := false
	for i, m := range r.OneShot.Runs[0].Models {
		m2 := r2.OneShot.Runs[0].Models[i]
		if !slices.Equal(m.Chosen, m2.Chosen) || !slices.Equal(m.ValAccuracies, m2.ValAccuracies) {
			t.Errorf("%s: chose %v (validation %v), with permuted test labels %v (%v)", m.Name, m.Chosen, m.ValAccuracies, m2.Chosen, m2.ValAccuracies)
		}
		changed = changed || !slices.Equal(m.Accuracies, m2.Accuracies)
	}
	if !changed {
		t.Error("permuting the test labels changed no test accuracy: the test is not reaching the models")
	}
}

// TestOneShotOptions runs the authors' options of the kernel machine,
// which must reach it (its parameter count grows by the convolution's
// and the sines') and the report.
func TestOneShotOptions(t *testing.T) {
	if testing.Short() {
		t.Skip("trains kernel machines")
	}
	data := t.TempDir()
	rnd := rand.New(rand.NewPCG(1, 1))
	writeIDX(t, data, "train", 3, rnd)
	writeIDX(t, data, "t10k", 2, rnd)
	base := Config{Seed: 1, Quick: true, Data: data, MaxFreqs: []int{2}, Costs: []float64{0.1}, Shots: []int{1}}
	run := func(c Config) OneShotRun {
		t.Helper()
		c.Out = t.TempDir()
		r, err := Run("oneshot", c)
		if err != nil {
			t.Fatal(err)
		}
		return r.OneShot.Runs[0]
	}
	plain := run(base)
	opts := base
	opts.Conv, opts.Sine, opts.Tol = true, true, 1e-3
	got := run(opts)
	// 16 channels of 3x3 weights and a bias, 16x16 features per state
	// coordinate instead of 64 pixels, one sine per anchor and dimension.
	const n, anchors = oneShotDim, 10
	want := plain.Settings[0].Params + oneShotChannels*10 + n*(oneShotChannels*16-64) + anchors*n
	if got.Settings[0].Params != want {
		t.Errorf("%d parameters with the options, want %d (%d without)", got.Settings[0].Params, want, plain.Settings[0].Params)
	}
	// The CNN's budget follows the machine's: on 8x8 images a hidden
	// unit costs 16·2·2 + 1 + 10 = 75 parameters, so the nearest width
	// is within half of that, unless it is the floor of 10 units.
	for _, r := range []OneShotRun{plain, got} {
		if d := r.CNNParams - r.Settings[0].Params; (d < -37 || d > 37) && !(r.CNNHidden == 10 && d > 0) {
			t.Errorf("CNN of %d parameters (%d hidden units) for a machine of %d", r.CNNParams, r.CNNHidden, r.Settings[0].Params)
		}
	}
	if got.CNNHidden <= plain.CNNHidden {
		t.Errorf("the CNN has %d hidden units beside a machine of %d parameters, %d beside %d", got.CNNHidden, got.Settings[0].Params, plain.CNNHidden, plain.Settings[0].Params)
	}
	for _, f := range []struct{ name, got, want string }{
		{"augmenter", got.Augmenter, "convolution"}, {"basis", got.Basis, "sines"}, {"solver", got.Solver, "Dormand-Prince"},
		{"plain augmenter", plain.Augmenter, "linear"}, {"plain basis", plain.Basis, "cosines"}, {"plain solver", plain.Solver, "RK4"},
	} {
		if !strings.Contains(f.got, f.want) {
			t.Errorf("%s %q, want %q in it", f.name, f.got, f.want)
		}
	}
}

func TestDrawShots(t *testing.T) {
	labels := make([]int, 200)
	for i := range labels {
		labels[i] = (i * 7) % 4
	}
	for _, tc := range []struct{ shots, val int }{{1, 10}, {5, 10}, {10, 40}, {1, 49}} {
		t.Run(fmt.Sprintf("shots %d val %d", tc.shots, tc.val), func(t *testing.T) {
			shots, val, err := drawShots(labels, 4, tc.shots, tc.val, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			seen := map[int]bool{}
			perClass := map[[2]int]int{}
			for k, idx := range [][]int{shots, val} {
				for _, i := range idx {
					if seen[i] {
						t.Fatalf("image %d drawn twice", i)
					}
					seen[i] = true
					perClass[[2]int{k, labels[i]}]++
				}
			}
			for cl := range 4 {
				if perClass[[2]int{0, cl}] != tc.shots || perClass[[2]int{1, cl}] != tc.val {
					t.Errorf("class %d: %d shots and %d validation images", cl, perClass[[2]int{0, cl}], perClass[[2]int{1, cl}])
				}
			}
		})
	}
	if _, _, err := drawShots(labels, 4, 1, 50, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("50 shots and validation images from 50 per class: no error")
	}
	if v, err := validationSize(labels, 4, 45, 10); err != nil || v != 5 {
		t.Errorf("validationSize with 5 spare per class = %d, %v; want 5", v, err)
	}
	if _, err := validationSize(labels, 4, 50, 10); err == nil {
		t.Error("validationSize with no spare images: no error")
	}
}

func TestOneShotErrors(t *testing.T) {
	data := t.TempDir()
	writeIDX(t, data, "train", 1, rand.New(rand.NewPCG(1, 1)))
	writeIDX(t, data, "t10k", 1, rand.New(rand.NewPCG(2, 1)))
	for _, tc := range []struct {
		name string
		c    Config
		want string
	}{
		{"no data", Config{}, "-data"},
		{"maxfreq 0", Config{Data: data, MaxFreqs: []int{2, 0}}, "maxfreq 0"},
		{"negative cost", Config{Data: data, Costs: []float64{-1}}, "cost -1"},
		{"missing files", Config{Data: t.TempDir()}, "no IDX"},
		{"no validation images", Config{Data: data}, "too few"},
		{"negative shots", Config{Data: data, Shots: []int{-1}}, "shots -1"},
		{"negative tolerance", Config{Data: data, Tol: -1}, "tolerance -1"},
		{"maxfreq beyond the bound", Config{Data: data, MaxFreqs: []int{MaxOneShotFreq + 1}}, "maxfreq 1001, want 1 to 1000"},
		{"shots beyond the bound", Config{Data: data, Shots: []int{MaxOneShotShots + 1}}, "shots 1001, want 1 to 1000"},
		{"a list too long", Config{Data: data, Costs: make([]float64, MaxOneShotList+1)}, "21 values in a list"},
		// The paper's protocol, whose augmenter has 8 x maxfreq channels,
		// is bounded alike.
		{"paper: maxfreq beyond the bound", Config{Data: data, Protocol: Paper, MaxFreqs: []int{MaxOneShotFreq + 1}}, "maxfreq 1001, want 1 to 1000"},
		{"paper: a list too long", Config{Data: data, Protocol: Paper, Costs: make([]float64, MaxOneShotList+1)}, "21 values in a list"},
		{"paper: cost NaN", Config{Data: data, Protocol: Paper, Costs: []float64{math.NaN()}}, "cost NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.Out = t.TempDir()
			var err error
			// A setting not refused could run for hours.
			testutil.Bounded(tc.name, 256<<20, time.Minute, func() { _, err = Run("oneshot", tc.c) })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one about %q", err, tc.want)
			}
		})
	}
}
