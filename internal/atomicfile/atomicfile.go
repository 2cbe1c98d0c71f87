package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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

	f, err := os.CreateTemp(dir, "."+base+".tmp*")
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
