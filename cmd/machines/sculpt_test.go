package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeIDX writes the split of a small IDX data set to dir: n images of
// size x size pixels whose labels are 0..classes-1, each with a bright
// block where its class says.
func writeIDX(t *testing.T, dir, split string, n, size, classes int) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(uint64(n), 7))
	var im, lb bytes.Buffer
	binary.Write(&im, binary.BigEndian, []uint32{0x803, uint32(n), uint32(size), uint32(size)})
	binary.Write(&lb, binary.BigEndian, []uint32{0x801, uint32(n)})
	for i := range n {
		c := i % classes
		lb.WriteByte(byte(c))
		p := make([]byte, size*size)
		for j := range p {
			p[j] = byte(rnd.IntN(50))
		}
		p[(c%size)*size+c%size] = 255
		im.Write(p)
	}
	if err := os.WriteFile(filepath.Join(dir, split+"-images-idx3-ubyte"), im.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, split+"-labels-idx1-ubyte"), lb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func idxDir(t *testing.T) string {
	dir := t.TempDir()
	writeIDX(t, dir, "train", 64, 8, 3)
	writeIDX(t, dir, "t10k", 30, 8, 3)
	return dir
}

func TestSculptCommand(t *testing.T) {
	data, out := idxDir(t), t.TempDir()
	args := []string{"sculpt", "-data", data, "-out", out, "-nodes", "3", "-channels", "2", "-epochs", "2", "-batch", "8"}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "epoch 2: validation accuracy") || !strings.Contains(stderr.String(), "images/s") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	raw, err := os.ReadFile(filepath.Join(out, "sculpt.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"epochs", "validation_accuracy", "accuracy_pruned", "edges_initial", "edges_live", "flops_initial", "flops_live", "seconds_per_epoch", "architecture"} {
		if _, ok := rep[key]; !ok {
			t.Errorf("sculpt.json has no %q", key)
		}
	}
	for _, name := range []string{"sculpt-architecture.png", "sculpt-architecture.svg"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("the command drew no figure: %v", err)
		}
	}
	// Resuming a finished run for one more epoch.
	stdout.Reset()
	stderr.Reset()
	more := append(args[:len(args):len(args)], "-resume")
	more[10] = "3"
	if code := run(more, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "epoch 3") {
		t.Errorf("resume: exit status %d; stdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	// A checkpoint of another architecture.
	stderr.Reset()
	other := append(args[:len(args):len(args)], "-resume")
	other[6] = "4"
	if code := run(other, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "another architecture") {
		t.Errorf("checkpoint of another architecture: exit status %d; stderr:\n%s", code, stderr.String())
	}
}

// A run whose penalty prunes every edge writes its report and exits 1,
// naming the epoch of best validation accuracy.
func TestSculptAllPruned(t *testing.T) {
	data, out := idxDir(t), t.TempDir()
	args := []string{"sculpt", "-data", data, "-out", out, "-nodes", "3", "-channels", "2", "-epochs", "3", "-finetune", "1", "-batch", "8", "-lambda", "1000"}
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "every edge was pruned by epoch 1, so that the machine predicts one class (validation accuracy") {
		t.Errorf("exit status %d; stderr:\n%s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "sculpt.json")); err != nil {
		t.Errorf("no report: %v", err)
	}
}

func TestSculptBadData(t *testing.T) {
	corrupt := func(split, kind string, edit func([]byte) []byte) string {
		dir := idxDir(t)
		path := filepath.Join(dir, split+"-"+kind)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, edit(b), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	wrongCount := idxDir(t)
	{
		// labels of 63 images for 64 images
		other := t.TempDir()
		writeIDX(t, other, "train", 63, 8, 3)
		b, _ := os.ReadFile(filepath.Join(other, "train-labels-idx1-ubyte"))
		os.WriteFile(filepath.Join(wrongCount, "train-labels-idx1-ubyte"), b, 0o644)
	}
	extraClass := idxDir(t)
	writeIDX(t, extraClass, "t10k", 30, 8, 5) // labels 3 and 4 unknown to train
	for _, tc := range []struct {
		name, dir, want string
		code            int
	}{
		{"wrong magic", corrupt("train", "images-idx3-ubyte", func(b []byte) []byte { b[3] = 9; return b }), "magic", 1},
		{"truncated", corrupt("t10k", "images-idx3-ubyte", func(b []byte) []byte { return b[:len(b)-10] }), "truncated", 1},
		{"label count", wrongCount, "label count", 1},
		{"label out of range", extraClass, "label", 1},
		{"empty directory", t.TempDir(), "no images", 1},
		{"missing directory", filepath.Join(t.TempDir(), "none"), "no such file", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"sculpt", "-data", tc.dir, "-out", t.TempDir(), "-nodes", "2", "-epochs", "1"}, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit status %d, stderr %q; want %d and a mention of %q", code, stderr.String(), tc.code, tc.want)
			}
		})
	}
}

func TestSculptUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no data", []string{"sculpt"}, "-data"},
		{"nodes 0", []string{"sculpt", "-data", "x", "-nodes", "0"}, "-nodes 0"},
		{"negative lambda", []string{"sculpt", "-data", "x", "-lambda", "-1"}, "-lambda -1"},
		{"NaN tol", []string{"sculpt", "-data", "x", "-tol", "NaN"}, "-tol NaN"},
		{"zero tol", []string{"sculpt", "-data", "x", "-tol", "0"}, "tol must be > 0"},
		{"finetune all epochs", []string{"sculpt", "-data", "x", "-epochs", "2", "-finetune", "2"}, "no epoch for the penalty"},
		{"finetune -2", []string{"sculpt", "-data", "x", "-finetune", "-2"}, "-finetune -2"},
		{"stray argument", []string{"sculpt", "-data", "x", "y"}, "unexpected"},
		{"budget without a path", []string{"sculpt", "-data", "x", "-budget", "3"}, "-budget applies to -path only"},
		{"negative tolerance", []string{"sculpt", "-data", "x", "-tolerance", "-0.1"}, "-tolerance -0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit status %d, stderr %q; want 2 and a mention of %q", code, stderr.String(), tc.want)
			}
		})
	}
}
