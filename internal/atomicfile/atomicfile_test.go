package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// entries lists the names in dir, so tests can see stray temporary files.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func TestWriteFile(t *testing.T) {
	errWrite := errors.New("write failed")
	for _, test := range []struct {
		name    string
		old     string // content before the write; empty means no file
		write   func(io.Writer) error
		want    string // content after the write
		wantErr error
	}{
		{name: "new file", write: writeString("hello\n"), want: "hello\n"},
		{name: "replace", old: "old\n", write: writeString("new\n"), want: "new\n"},
		{name: "empty content", old: "old\n", write: writeString(""), want: ""},
		{
			name: "failing write keeps old",
			old:  "old\n",
			write: func(w io.Writer) error {
				io.WriteString(w, "partial")
				return errWrite
			},
			want:    "old\n",
			wantErr: errWrite,
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.csv")
			if test.old != "" {
				if err := os.WriteFile(path, []byte(test.old), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteFile(path, test.write)
			if !errors.Is(err, test.wantErr) {
				t.Fatalf("unexpected error: got %v, want %v", err, test.wantErr)
			}
			if test.old == "" && test.wantErr != nil {
				if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("file exists after failed write: %v", err)
				}
			} else {
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != test.want {
					t.Errorf("unexpected content: got %q, want %q", got, test.want)
				}
			}
			if names := entries(t, dir); len(names) > 1 || (len(names) == 1 && names[0] != "out.csv") {
				t.Errorf("stray files left in directory: %q", names)
			}
		})
	}
}

func TestWriteFilePanicCleansUp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	func() {
		defer func() { recover() }()
		WriteFile(path, func(io.Writer) error { panic("boom") })
	}()
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("files left after panic: %q", names)
	}
}

func TestWriteFileMode(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh")
	if err := WriteFile(fresh, writeString("x")); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(dir, "kept")
	if err := os.WriteFile(kept, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// WriteFile sets the mode explicitly, so the umask does not apply to
	// the new file; os.WriteFile above is subject to it, hence re-reading.
	fi, err := os.Stat(kept)
	if err != nil {
		t.Fatal(err)
	}
	wantKept := fi.Mode().Perm()
	if err := WriteFile(kept, writeString("x")); err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		path string
		want fs.FileMode
	}{
		{fresh, newFileMode},
		{kept, wantKept},
	} {
		fi, err := os.Stat(test.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != test.want {
			t.Errorf("%s: unexpected mode: got %v, want %v", filepath.Base(test.path), got, test.want)
		}
	}
}

func TestWriteFileMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "dir", "out.csv")
	called := false
	err := WriteFile(path, func(io.Writer) error { called = true; return nil })
	if err == nil {
		t.Fatal("expected an error for a missing directory")
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("unexpected error kind: %v", err)
	}
	if called {
		t.Error("write was called although the file could not be created")
	}
}

// TestWriteFileErrorsNameDestination checks that the errors of the file
// system name the destination, never the temporary file.
func TestWriteFileErrorsNameDestination(t *testing.T) {
	for _, test := range []struct {
		name   string
		path   func(dir string) string
		wantOp string
	}{
		{
			name:   "missing directory",
			path:   func(dir string) string { return filepath.Join(dir, "no", "out.csv") },
			wantOp: "create",
		},
		{
			name: "destination is a directory",
			path: func(dir string) string {
				sub := filepath.Join(dir, "out.csv")
				if err := os.MkdirAll(filepath.Join(sub, "child"), 0o755); err != nil {
					t.Fatal(err)
				}
				return sub
			},
			wantOp: "rename",
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			dir := t.TempDir()
			path := test.path(dir)
			err := WriteFile(path, writeString("x"))
			var pe *fs.PathError
			if !errors.As(err, &pe) {
				t.Fatalf("got error %v, want a *fs.PathError", err)
			}
			if pe.Op != test.wantOp || pe.Path != path {
				t.Errorf("got op %q path %q, want %q %q", pe.Op, pe.Path, test.wantOp, path)
			}
			if strings.Contains(err.Error(), ".tmp") {
				t.Errorf("error %q names the temporary file", err)
			}
			if names := entries(t, dir); len(names) > 1 {
				t.Errorf("stray files left in directory: %q", names)
			}
		})
	}
}

// TestDestWriterNamesDestination checks the write errors, which a full
// disk would cause and a test cannot easily: a closed file stands in.
func TestDestWriterNamesDestination(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), ".out.csv.tmp*")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = destWriter{f, "out.csv"}.Write([]byte("x"))
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "write" || pe.Path != "out.csv" {
		t.Fatalf("got error %v, want write out.csv: ...", err)
	}
	if !errors.Is(err, os.ErrClosed) {
		t.Errorf("error %v lost its cause, os.ErrClosed", err)
	}
}

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestWriteFileRemovesStale checks which temporary files a write removes:
// those of its destination whose writer has exited or that are a day old,
// and no others.
func TestWriteFileRemovesStale(t *testing.T) {
	dead, self, parent := deadPID(t), os.Getpid(), os.Getppid()
	twoDays := time.Now().Add(-48 * time.Hour)
	for _, test := range []struct {
		name    string
		old     bool // modified two days ago
		removed bool
	}{
		{fmt.Sprintf(".out.csv.tmp-%d-123", dead), false, runtime.GOOS != "windows"},
		{fmt.Sprintf(".out.csv.tmp-%d-123", self), false, false},
		{fmt.Sprintf(".out.csv.tmp-%d-123", parent), false, false},
		{fmt.Sprintf(".out.csv.tmp-%d-123", parent), true, true},
		{".out.csv.tmp9876", false, false},
		{".out.csv.tmp9876", true, true},
		{".out.csv.tmp-x-1", true, true},
		{".out.csv.tmpfoo", true, false},
		{fmt.Sprintf(".other.csv.tmp-%d-123", dead), true, false},
		{"out.csv.tmp1", true, false},
	} {
		t.Run(test.name, func(t *testing.T) {
			dir := t.TempDir()
			tmp := filepath.Join(dir, test.name)
			if err := os.WriteFile(tmp, []byte("partial"), 0o600); err != nil {
				t.Fatal(err)
			}
			if test.old {
				if err := os.Chtimes(tmp, twoDays, twoDays); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteFile(filepath.Join(dir, "out.csv"), writeString("x")); err != nil {
				t.Fatal(err)
			}
			_, err := os.Stat(tmp)
			if removed := errors.Is(err, fs.ErrNotExist); removed != test.removed {
				t.Errorf("removed %v, want %v; directory holds %q", removed, test.removed, entries(t, dir))
			}
		})
	}
}

// TestWriteFileAfterKill kills a process while it writes and checks that
// its temporary file is left, and that the next write removes it.
func TestWriteFileAfterKill(t *testing.T) {
	if os.Getenv("ATOMICFILE_HANG") != "" {
		WriteFile(os.Getenv("ATOMICFILE_HANG"), func(w io.Writer) error {
			io.WriteString(w, "partial")
			w.(interface{ Flush() error }).Flush()
			select {} // until killed
		})
		return
	}
	if runtime.GOOS == "windows" {
		t.Skip("no signals to tell a writer dead")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "model.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteFileAfterKill$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_HANG="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for len(entries(t, dir)) == 0 {
		select {
		case err := <-exited:
			// The writer may make its file and then stop, its runtime
			// finding every goroutine asleep: the file is what matters.
			if len(entries(t, dir)) == 0 {
				t.Fatalf("the writer exited (%v) before making a temporary file", err)
			}
			exited <- err
		case <-time.After(10 * time.Millisecond):
		}
	}
	cmd.Process.Kill()
	<-exited
	left := entries(t, dir)
	if len(left) != 1 || !strings.HasPrefix(left[0], ".model.json.tmp-") {
		t.Fatalf("after the kill the directory holds %q, want one temporary file", left)
	}
	if err := WriteFile(path, writeString("whole")); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); len(got) != 1 || got[0] != "model.json" {
		t.Errorf("after the next write the directory holds %q, want only model.json", got)
	}
}
