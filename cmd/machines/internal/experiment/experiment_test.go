package experiment

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunUnknown(t *testing.T) {
	_, err := Run("nope", Config{Out: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "unknown experiment") {
		t.Errorf("error %v, want an unknown experiment", err)
	}
}

// TestPolynomial runs the quick polynomial experiment and checks its
// report: the JSON shape scripts rely on, the figures, and the kernel
// machine's test error.
func TestPolynomial(t *testing.T) {
	if testing.Short() {
		t.Skip("fits three models")
	}
	dir := t.TempDir()
	var progress strings.Builder
	r, err := Run("polynomial", Config{Out: dir, Seed: 1, Quick: true, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	// The perceptron's fits are long: each stage says when it starts,
	// and the cross-validation counts its fits.
	for _, line := range []string{"perceptron weight decay: 1e-05: fitting 6 folds", "perceptron weight decay: 24 of 24 cross-validation fits done",
		"perceptron: the final fit, the best of 5 starts"} {
		if !strings.Contains(progress.String(), line) {
			t.Errorf("no progress line %q in\n%s", line, progress.String())
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "polynomial.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Experiment string
		Protocol   string
		Seed       uint64
		Models     []map[string]any
		Figures    []string
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Experiment != "polynomial" || got.Protocol != "fair" || got.Seed != 1 || len(got.Models) != 3 || len(got.Figures) != 4 {
		t.Errorf("report %s", b)
	}
	for _, m := range got.Models {
		for _, key := range []string{"name", "params", "train_mse", "test_mse", "fit_seconds", "iterations", "settings"} {
			if _, ok := m[key]; !ok {
				t.Errorf("model %v has no %q", m["name"], key)
			}
		}
	}
	for _, f := range got.Figures {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("figure %s: %v", f, err)
		}
	}
	km := r.Model("kernel machine")
	if km == nil || km.TestMSE > 1e-3 || km.Params < 300 || km.Params > 360 {
		t.Errorf("kernel machine %+v, want about 324 parameters and test MSE <= 1e-3", km)
	}
	if p := r.Model("perceptron"); p == nil || p.Params != 625 {
		t.Errorf("perceptron %+v, want 625 parameters", p)
	}
}

func TestCurveSampler(t *testing.T) {
	var s curveSampler
	var due []int
	for it := 1; it <= 100; it++ {
		if s.due(it) {
			due = append(due, it)
		}
	}
	if len(due) < 20 || len(due) > 40 || due[0] != 1 || due[9] != 10 {
		t.Errorf("sampled iterations %v", due)
	}
}
