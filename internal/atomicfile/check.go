package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Errors of Check, wrapped in an *fs.PathError that names the path.
var (
	ErrIsDir      = errors.New("is a directory")
	ErrNotRegular = errors.New("is not a regular file")
)

// Check reports why WriteFile(path, ...) could not put a file at path,
// so that a program can refuse before it spends time on the content:
// path names a directory, or a device or other file that a rename would
// replace, or its directory does not exist or cannot be written. Check
// creates a temporary file beside path to find out, and removes it.
func Check(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return &fs.PathError{Op: "write", Path: path, Err: ErrIsDir}
	case err == nil && !fi.Mode().IsRegular():
		return &fs.PathError{Op: "write", Path: path, Err: ErrNotRegular}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return pathError("create", path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
