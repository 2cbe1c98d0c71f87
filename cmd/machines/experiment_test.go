package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/cmd/machines/internal/experiment"
	"github.com/parametric-machines/machines/internal/testutil"
)

func TestExperimentUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"maxfreq 0", []string{"experiment", "oneshot", "-data", "x", "-maxfreq", "2,0"}, "maxfreq 0"},
		{"maxfreq not a number", []string{"experiment", "oneshot", "-data", "x", "-maxfreq", "two"}, "not an integer"},
		{"negative cost", []string{"experiment", "oneshot", "-data", "x", "-cost", "0.1,-1"}, "cost -1"},
		{"cost NaN", []string{"experiment", "oneshot", "-data", "x", "-cost", "NaN"}, "cost NaN"},
		{"no data", []string{"experiment", "oneshot"}, "-data"},
		{"shots 0", []string{"experiment", "oneshot", "-data", "x", "-shots", "0"}, "shots 0"},
		{"negative tolerance", []string{"experiment", "oneshot", "-data", "x", "-tol", "-1"}, "tolerance -1"},
		{"unknown protocol", []string{"experiment", "sine", "-protocol", "authors"}, "-protocol \"authors\""},
		{"no paper protocol", []string{"experiment", "polynomial", "-protocol", "paper"}, "polynomial has no paper protocol"},
		{"draws 0", []string{"experiment", "sine", "-protocol", "paper", "-draws", "0"}, "-draws 0"},
		{"draws beyond 1000", []string{"experiment", "sine", "-protocol", "paper", "-draws", "1001"}, "-draws 1001, want 1 to 1000"},
		{"draws of a fair run", []string{"experiment", "sine", "-draws", "2"}, "-draws applies"},
		{"two shot counts for the paper's oneshot", []string{"experiment", "oneshot", "-data", "x", "-protocol", "paper", "-shots", "1,5"}, "one shot count"},
		{"maxfreq 1 for the paper's oneshot", []string{"experiment", "oneshot", "-data", "x", "-protocol", "paper", "-maxfreq", "1,2"}, "at least 2"},
		{"two costs for the paper's sine", []string{"experiment", "sine", "-protocol", "paper", "-cost", "0.1,0.2"}, "one cost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != 2 {
				t.Errorf("exit status %d, want 2; stderr %s", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q, want it to mention %q", stderr.String(), tc.want)
			}
		})
	}
}

// TestExperimentOneShotQuick runs the quick oneshot on Fashion-MNIST end
// to end, on a small grid: the table, the progress and the report.
func TestExperimentOneShotQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("trains kernel machines on Fashion-MNIST")
	}
	data := experiment.DefaultImageData
	if _, err := os.Stat(filepath.Join(data, "t10k-labels-idx1-ubyte.gz")); err != nil {
		testutil.Missing(t, "Fashion-MNIST (Debian package dataset-fashion-mnist)", err)
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"experiment", "-quick", "-out", out, "oneshot", "-data", data, "-shots", "1", "-maxfreq", "2,5", "-cost", "0.01,0.1"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d; stderr %s", code, stderr.String())
	}
	for _, want := range []string{"kernel machine ", "k-nearest-neighbour ", "kernel ridge ", "softmax perceptron ", "CNN ", "(best baseline)", "sign test"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout has no %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "kernel machine chose") {
		t.Errorf("no progress on stderr:\n%s", stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "oneshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all struct {
		Runs []struct {
			Shots  int `json:"shots"`
			Models []struct {
				Name       string
				Grid       []string
				Chosen     []string
				Accuracies []float64
			}
		}
	}
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	if len(all.Runs) != 1 || all.Runs[0].Shots != 1 {
		t.Fatalf("report %s, want one 1-shot run", b)
	}
	rep := all.Runs[0]
	if len(rep.Models) != 5 {
		t.Fatalf("%d models, want the kernel machine and 4 baselines", len(rep.Models))
	}
	if g := rep.Models[0].Grid; len(g) != 3 {
		t.Errorf("kernel machine grid %v, want 2 maxfreqs at cost 0.1 and cost 0.01 at maxfreq 5", g)
	}
	for _, m := range rep.Models {
		if len(m.Chosen) != 2 || len(m.Accuracies) != 2 {
			t.Errorf("%s: chosen %v, accuracies %v; want 2 seeds", m.Name, m.Chosen, m.Accuracies)
		}
		// Ten classes: a model that learned nothing scores 0.1.
		for _, a := range m.Accuracies {
			if a < 0.25 {
				t.Errorf("%s: test accuracy %v", m.Name, a)
			}
		}
	}
}

// TestExperimentSinePaperQuick runs the quick sine under the authors'
// protocol from the command line: the table on standard output and the
// protocol in the report.
func TestExperimentSinePaperQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the sine's models; the experiment package's TestSinePaperQuick runs the experiment under -short")
	}
	if underRace {
		t.Skip("trains the sine's models single-threaded: minutes under the race detector")
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"experiment", "sine", "-protocol", "paper", "-quick", "-draws", "2", "-cost", "0.003", "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d; stderr %s", code, stderr.String())
	}
	for _, want := range []string{"the authors' protocol: cost 0.003", "2 draws", "kernel machine          514", "perceptron sigmoid      609", "penalised test"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout has no %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "sine (paper): draw 2/2") {
		t.Errorf("stderr has no progress:\n%s", stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "sine.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct{ Protocol string }
	if err := json.Unmarshal(b, &rep); err != nil || rep.Protocol != "paper" {
		t.Errorf("report protocol %q (%v)", rep.Protocol, err)
	}
}
