package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		name, path string
		fails      bool
		err        error // wrapped by the error, if there is a sentinel for it
	}{
		{"new file", filepath.Join(dir, "new.json"), false, nil},
		{"existing file", file, false, nil},
		{"directory", dir, true, ErrIsDir},
		{"device", os.DevNull, true, ErrNotRegular},
		{"missing directory", filepath.Join(dir, "no", "new.json"), true, fs.ErrNotExist},
		{"file as directory", filepath.Join(file, "new.json"), true, nil},
	} {
		t.Run(test.name, func(t *testing.T) {
			err := Check(test.path)
			switch {
			case (err != nil) != test.fails:
				t.Fatalf("error %v, want one: %v", err, test.fails)
			case test.err != nil && !errors.Is(err, test.err):
				t.Fatalf("error %v, want %v", err, test.err)
			}
			var pe *fs.PathError
			if err != nil && (!errors.As(err, &pe) || pe.Path != test.path) {
				t.Errorf("error %v does not name %s", err, test.path)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("%d entries in the directory after Check, want only the file", len(entries))
			}
		})
	}
}
