package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/parametric-machines/machines/tabular"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

// The command fits two shards on prism and writes a model that loads.
func Example() {
	dir, err := os.MkdirTemp("", "machines-beam-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	for s := range 2 {
		var b strings.Builder
		b.WriteString("x,z,y\n")
		for i := range 60 {
			x, z := float64(s*60+i)/120, float64((s*60+i)%7)
			fmt.Fprintf(&b, "%g,%g,%g\n", x, z, 3*x*x+z)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.csv", s)), []byte(b.String()), 0o644); err != nil {
			fmt.Println(err)
			return
		}
	}
	model := filepath.Join(dir, "model.json")
	var stdout, stderr bytes.Buffer
	code := run(flag.NewFlagSet("machines-beam", flag.ContinueOnError), []string{"-data", filepath.Join(dir, "part-*.csv"), "-target", "y", "-model", model}, &stdout, &stderr)
	md, err := tabular.Load(model)
	if err != nil {
		fmt.Println(code, err)
		return
	}
	fmt.Println("exit status", code, "model of", md.Fit.Rows, "rows")
	// Output: exit status 0 model of 120 rows
}

// A missing flag is refused before any work, with exit status 2 and the
// usage.
func TestRunMissingFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(flag.NewFlagSet("machines-beam", flag.ContinueOnError), []string{"-target", "y", "-model", filepath.Join(t.TempDir(), "m.json")}, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "-data: missing") || !strings.Contains(stderr.String(), "usage: machines-beam") {
		t.Errorf("exit status %d, stderr %q", code, stderr.String())
	}
}
