package machines_test

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// conflictLines returns the numbers of the lines of r that begin or end
// a merge's conflict (git's markers), which a merge can leave behind.
func conflictLines(r io.Reader) []int {
	var lines []int
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		if l := sc.Text(); strings.HasPrefix(l, "<<<<<<< ") || strings.HasPrefix(l, ">>>>>>> ") {
			lines = append(lines, n)
		}
	}
	return lines
}

func TestConflictLines(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"a\nb\n", 0},
		{"a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> branch\n", 2},
		{"a <<<<<<< b\n======= \n", 0},
	} {
		if got := conflictLines(strings.NewReader(tc.text)); len(got) != tc.want {
			t.Errorf("%q: %v, want %d lines", tc.text, got, tc.want)
		}
	}
}

// TestNoConflictMarkers fails on a source or documentation file of the
// repository that a merge left with its conflict unresolved.
func TestNoConflictMarkers(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".py", ".s", ".mod", ".yml", ".yaml":
		default:
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if lines := conflictLines(f); len(lines) > 0 {
			t.Errorf("%s: a merge's conflict markers on lines %v", path, lines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
