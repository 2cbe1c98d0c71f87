package experiment

import (
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

func TestOneShotSynthetic(t *testing.T) {
	if testing.Short() {
		t.Skip("trains kernel machines")
	}
	data := t.TempDir()
	rnd := rand.New(rand.NewPCG(1, 1))
	writeIDX(t, data, "train", 3, rnd)
	writeIDX(t, data, "t10k", 5, rnd)
	out := t.TempDir()
	r, err := Run("oneshot", Config{Out: out, Seed: 1, Quick: true, Data: data, MaxFreqs: []int{1, 2}, Costs: []float64{0, 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "oneshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Settings  []map[string]any
		Baselines []map[string]any
		Seconds   *float64
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	// (1, 0.1) and (2, 0.1) from the maxfreq sweep, (2, 0) from the cost sweep.
	if len(got.Settings) != 3 || len(got.Baselines) != 3 || got.Seconds == nil || *got.Seconds <= 0 {
		t.Fatalf("report %s", b)
	}
	for _, s := range got.Settings {
		for _, key := range []string{"maxfreq", "cost", "accuracy_mean", "accuracy_std", "loss_mean", "seeds"} {
			if _, ok := s[key]; !ok {
				t.Errorf("setting %v has no %q", s, key)
			}
		}
		if s["seeds"].(float64) != 2 {
			t.Errorf("setting %v: want 2 seeds in the quick run", s)
		}
	}
	for _, bl := range got.Baselines {
		for _, key := range []string{"name", "accuracy_mean", "accuracy_std"} {
			if _, ok := bl[key]; !ok {
				t.Errorf("baseline %v has no %q", bl, key)
			}
		}
	}
	if len(r.Figures) != 8 {
		t.Errorf("figures %v, want 4 as PNG and SVG", r.Figures)
	}
	for _, f := range r.Figures {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("figure %s: %v", f, err)
		}
	}
	// The classes are easy: one example each should do much better than
	// chance for the machine and the baselines.
	for _, s := range r.OneShot.Settings {
		if s.Cost > 0 && s.AccuracyMean < 0.6 {
			t.Errorf("kernel machine maxfreq %d cost %g: accuracy %v", s.MaxFreq, s.Cost, s.AccuracyMean)
		}
	}
	for _, bl := range r.OneShot.Baselines {
		if bl.AccuracyMean < 0.6 {
			t.Errorf("%s: accuracy %v", bl.Name, bl.AccuracyMean)
		}
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.Out = t.TempDir()
			_, err := Run("oneshot", tc.c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one about %q", err, tc.want)
			}
		})
	}
}
