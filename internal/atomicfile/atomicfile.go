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
		return err
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

	w := bufio.NewWriter(f)
	if err := write(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	renamed = true
	syncDir(dir)
	return nil
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
