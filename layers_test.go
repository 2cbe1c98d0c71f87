package machines_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// module is the module's import path.
const module = "github.com/parametric-machines/machines"

// layers orders the module's packages, lowest first, as CONTRIBUTING.md
// numbers them from 1: a package imports only packages of its own layer or of
// lower ones. Each entry is a package path relative to the module, or a
// prefix ending in "/" for the packages under a folder; the longest
// entry that matches a package decides its layer.
var layers = [][]string{
	// plumbing
	{"internal/"},
	// the engine
	{"ad"},
	// the framework, numerical methods, data
	{".", "optim", "ode", "scale", "crossval", "dataset", "onnx/onnxpb"},
	// the families and the training loop
	{"finite", "hypergraph", "kernel", "kernel/infinite", "volterra", "train"},
	// composition
	{"model"},
	// learners and export
	{"tabular", "sculpt", "onnx"},
	// the applications the command runs
	{"cmd/machines/internal/"},
	// the command
	{"cmd/machines"},
	// programs
	{"examples/"},
}

// layerOf returns the layer of the package at path relative to the
// module, and false for a package no entry names.
func layerOf(rel string) (int, bool) {
	layer, longest := 0, -1
	for i, entries := range layers {
		for _, e := range entries {
			match := rel == e || (strings.HasSuffix(e, "/") && strings.HasPrefix(rel, e))
			if match && len(e) > longest {
				layer, longest = i, len(e)
			}
		}
	}
	return layer, longest >= 0
}

// relative returns an import path relative to the module, and false for
// one outside it.
func relative(path string) (string, bool) {
	switch {
	case path == module:
		return ".", true
	case strings.HasPrefix(path, module+"/"):
		return strings.TrimPrefix(path, module+"/"), true
	}
	return "", false
}

// listed is what go list says of a package.
type listed struct {
	ImportPath string
	Imports    []string
}

// listPackages returns the module's packages and their imports, tests
// left out.
func listPackages(t *testing.T) []listed {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("go list: %v\n%s", err, exit.Stderr)
	}
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			return pkgs
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
}

// library is the index in layers of the library's highest layer, below
// the command's.
const library = 5

// checkLayers returns one line for every package that no layer names,
// every import that runs up from a lower layer to a higher one, and
// every library package that draws: the library writes data, the
// command draws it.
func checkLayers(pkgs []listed) []string {
	var bad []string
	for _, p := range pkgs {
		rel, _ := relative(p.ImportPath)
		from, ok := layerOf(rel)
		if !ok {
			bad = append(bad, fmt.Sprintf("package %s has no layer: add it to layers in layers_test.go and to CONTRIBUTING.md", rel))
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := relative(imp)
			if !ok {
				if from <= library && strings.HasPrefix(imp, "gonum.org/v1/plot") {
					bad = append(bad, fmt.Sprintf("library package %s imports %s: the command draws figures, the library writes their data", rel, imp))
				}
				continue
			}
			if to, ok := layerOf(dep); ok && to > from {
				bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s (layer %d), a higher layer", rel, from+1, dep, to+1))
			}
		}
	}
	return bad
}

// TestLayers checks that no import runs from a lower layer to a higher
// one: the library imports no package of the command, and plumbing
// none of the library.
func TestLayers(t *testing.T) {
	for _, line := range checkLayers(listPackages(t)) {
		t.Error(line)
	}
}

// TestCheckLayers gives checkLayers an import that climbs, a library
// package that draws and a package without a layer, which it must
// report, and imports that go down or stay in their layer, and a command
// package that draws, which it must not.
func TestCheckLayers(t *testing.T) {
	pkgs := []listed{
		{module + "/sculpt", []string{"fmt", module + "/model", module + "/onnx", module + "/cmd/machines/internal/figure"}},
		{module + "/internal/atomicfile", []string{"os"}},
		{module + "/tabular", []string{"gonum.org/v1/plot/vg"}},
		{module + "/cmd/machines/internal/figure", []string{"gonum.org/v1/plot", module + "/sculpt"}},
		{module + "/newthing", nil},
	}
	got := checkLayers(pkgs)
	want := []string{
		"sculpt (layer 6) imports cmd/machines/internal/figure (layer 7), a higher layer",
		"library package tabular imports gonum.org/v1/plot/vg: the command draws figures, the library writes their data",
		"package newthing has no layer: add it to layers in layers_test.go and to CONTRIBUTING.md",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("checkLayers reports\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
