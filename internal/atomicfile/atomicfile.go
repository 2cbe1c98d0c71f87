package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// newFileMode is the mode of a file that did not exist before WriteFile.
// os.CreateTemp makes files readable by the owner only, which suits a
// temporary file but not a result that other tools are meant to read.
const newFileMode fs.FileMode = 0o644

// WriteFile replaces the file at path with what write writes.
//
// The writer passed to write is buffered; WriteFile flushes it. If write
// returns an error, or flushing, syncing or renaming fails, the temporary file
// is removed, the file at path is left as it was and the error is returned.
// An existing file keeps its permission bits; a new one gets mode 0644.
//
// Errors of the file system name path, not the temporary file, which no
// longer exists when the caller sees them; an error returned by write is
// returned as it is.
//
// The temporary file is named ".BASE.tmp-PID-N" after the destination's
// base name and the writing process. A process killed while it writes
// leaves its temporary file behind; WriteFile first removes those of
// earlier writes of the same destination whose process no longer runs,
// and any not modified for a day, so that the next write of a file
// cleans up after a killed one.
func WriteFile(path string, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	mode := newFileMode
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}

	removeStale(path)
	f, err := os.CreateTemp(dir, tempPrefix(base)+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return pathError("create", path, err)
	}
	tmp := f.Name()
	// The deferred cleanup also runs if write panics, so no temporary file
	// is left behind in that case either.
	renamed := false
	defer func() {
		if !renamed {
			f.Close()
			os.Remove(tmp)
		}
	}()

	w := bufio.NewWriter(destWriter{f, path})
	if err := write(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		return pathError("chmod", path, err)
	}
	if err := f.Sync(); err != nil {
		return pathError("sync", path, err)
	}
	if err := f.Close(); err != nil {
		return pathError("close", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return pathError("rename", path, err)
	}
	renamed = true
	syncDir(dir)
	return nil
}

// destWriter writes to the temporary file f and reports its errors under
// the destination's path.
type destWriter struct {
	f    *os.File
	path string
}

func (w destWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = pathError("write", w.path, err)
	}
	return n, err
}

// pathError returns err of operation op as an error about path: the
// os package names the temporary file in its errors, a name that means
// nothing to the user and no longer exists.
func pathError(op, path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}

// syncDir asks for the directory entry written by the rename to reach stable
// storage. It is best effort: the new content is already in place, some
// systems cannot open or sync directories, and a failure here only weakens
// durability across a crash, which does not warrant reporting the write as
// failed.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// tempPrefix is how the temporary files for the destination base begin:
// they go on with the writer's process id, a hyphen and a random number.
// Files of the naming before the process id, ".BASE.tmpN", begin the same
// way but for the hyphen.
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// staleAge is the age after which a temporary file whose writer cannot be
// told alive or dead, one of an older naming or one written on a system
// without process signals, is taken to be left over: no write of this
// package takes a day.
const staleAge = 24 * time.Hour

// removeStale removes the temporary files that writes of path by
// WriteFile left behind when their process was killed: those whose
// process id names no process that runs, and those of any writer, or of
// the naming before the process id, not modified for a day. It leaves
// the files of running writes alone, this process's included, and
// ignores what it cannot read or remove: a leftover file is untidy, not
// harmful, and the write that follows does not depend on it.
func removeStale(path string) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	legacy := "." + base + ".tmp"
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, legacy) {
			continue
		}
		rest, ours := strings.CutPrefix(name, tempPrefix(base))
		switch {
		case ours && (exited(rest) || old(e)):
		case !ours && digits(name[len(legacy):]) && old(e):
		default:
			continue
		}
		os.Remove(filepath.Join(dir, name))
	}
}

// exited reports whether the process id at the start of rest, "PID-N",
// names a process that no longer runs.
func exited(rest string) bool {
	id, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(id)
	if !ok || err != nil || pid <= 0 {
		return false
	}
	return pid != os.Getpid() && !running(pid)
}

// old reports whether the file e was last modified more than staleAge ago.
func old(e fs.DirEntry) bool {
	fi, err := e.Info()
	return err == nil && time.Since(fi.ModTime()) > staleAge
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
