package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoOverwrite runs every command that reads files and writes others
// with an output that is one of its inputs, named by the same path,
// through "..", a symbolic link or a hard link, and checks that the
// command refuses before any work, naming both flags, and leaves the
// input as it was.
func TestNoOverwrite(t *testing.T) {
	dir := t.TempDir()
	table, modelPath, data := filepath.Join(dir, "t.csv"), filepath.Join(dir, "m.json"), filepath.Join(dir, "images")
	copyFile(t, filepath.Join("testdata", "learner_train.csv"), table)
	copyFile(t, filepath.Join("testdata", "model_valid.json"), modelPath)
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	// ways returns the names of the file at path by other routes.
	ways := func(t *testing.T, path string) map[string]string {
		sub := filepath.Join(dir, "sub")
		os.Mkdir(sub, 0o755)
		base := filepath.Base(path)
		link, hard := filepath.Join(sub, base+".link"), filepath.Join(sub, base+".hard")
		if err := os.Symlink(path, link); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
		w := map[string]string{"same path": path, "through ..": filepath.Join(sub, "..", base), "symbolic link": link}
		if info, err := os.Stat(path); err == nil && !info.IsDir() {
			if err := os.Link(path, hard); err != nil && !os.IsExist(err) {
				t.Fatal(err)
			}
			w["hard link"] = hard
		}
		return w
	}
	for _, tc := range []struct {
		name   string
		args   []string // the command line before the output flag
		output string   // the output flag
		input  string   // the file it names, an input
		want   string   // the input's flag, as the error names it
	}{
		{"fit", []string{"fit", "-data", table, "-target", "y"}, "-model", table, "-data"},
		{"predict data", []string{"predict", "-model", modelPath, "-data", table}, "-out", table, "-data"},
		{"predict model", []string{"predict", "-model", modelPath, "-data", table}, "-out", modelPath, "-model"},
		{"score", []string{"score", "-model", modelPath, "-data", table}, "-json", modelPath, "-model"},
		{"explain", []string{"explain", "-model", modelPath, "-data", table}, "-json", table, "-data"},
		{"export", []string{"export", "-model", modelPath}, "-onnx", modelPath, "-model"},
		{"bench", []string{"bench", "-suite", "onnx", "-model", modelPath}, "-json", modelPath, "-model"},
		{"sculpt", []string{"sculpt", "-data", data}, "-out", data, "-data"},
		{"experiment", []string{"experiment", "-data", data, "oneshot"}, "-out", data, "-data"},
	} {
		for way, path := range ways(t, tc.input) {
			t.Run(tc.name+" "+way, func(t *testing.T) {
				before := readAll(t, tc.input)
				code, _, stderr := fitTestRun(append(tc.args, tc.output, path)...)
				if code != 2 || !strings.Contains(stderr, tc.output+" "+path+": is the file of "+tc.want) {
					t.Errorf("exit status %d, stderr %q; want 2 and a refusal naming %s and %s", code, stderr, tc.output, tc.want)
				}
				if !bytes.Equal(readAll(t, tc.input), before) {
					t.Errorf("%s changed", tc.input)
				}
			})
		}
	}
}

// TestOutDirIsFile checks that the commands that write a directory of
// files refuse an -out that is a file before any work.
func TestOutDirIsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "report.json")
	copyFile(t, filepath.Join("testdata", "model_valid.json"), file)
	for _, args := range [][]string{
		{"experiment", "-quick", "depth", "-out", file},
		{"sculpt", "-data", filepath.Join("..", "..", "dataset", "testdata", "images", "grey"), "-size", "8", "-out", file},
	} {
		code, _, stderr := fitTestRun(args...)
		if want := "-out " + file + ": is a file; name a directory"; code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", args, code, stderr, want)
		}
	}
}

// TestOutputsDistinct checks that explain refuses a -json that is one
// of the pictures of -figure, and that outputs elsewhere pass.
func TestOutputsDistinct(t *testing.T) {
	dir := t.TempDir()
	in := []pathFlag{{"model", filepath.Join(dir, "m.json")}, {"data", "-"}}
	for _, tc := range []struct {
		name string
		outs []pathFlag
		want string
	}{
		{"json is the svg", explainOutputs(filepath.Join(dir, "f.svg"), filepath.Join(dir, "f")), "is the file of -json"},
		{"standard streams", []pathFlag{{"out", "-"}}, ""},
		{"apart", explainOutputs(filepath.Join(dir, "e.json"), filepath.Join(dir, "f")), ""},
		{"not given", explainOutputs("", ""), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkOverwrites(in, tc.outs)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("checkOverwrites: %v; want %q", err, tc.want)
			}
		})
	}
}

// copyFile copies the file src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.WriteFile(dst, readAll(t, src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readAll returns the bytes of the file at path, or the names of the
// directory's entries.
func readAll(t *testing.T, path string) []byte {
	t.Helper()
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return []byte(strings.Join(names, "\n"))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
