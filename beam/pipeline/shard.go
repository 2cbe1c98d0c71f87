package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/parametric-machines/machines/dataset"
)

// shard is an element of the pipeline: a file of the table, and the
// columns that the table's first file has, which it must have too (nil
// for the first file, read before the columns are known), by name in
// any order.
type shard struct {
	Path    string
	Columns []string
}

// readShard reads the file of sh a chunk of ChunkRows rows at a time,
// through dataset.OpenTable, which tells CSV, Parquet and Arrow files
// apart by their first bytes, and passes each chunk to add. It returns
// the file's columns. The rows are numbered as in the file alone, as
// dataset.OpenTable numbers the rows of each file of a glob, so that
// Stats hold out the rows that machines fit holds out of the same glob.
// Its errors name the file.
func readShard(ctx context.Context, sh shard, add func(*dataset.Frame) error) ([]string, []dataset.Warning, error) {
	local, done, err := localCopy(ctx, sh.Path)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	columns, warnings, err := readLocal(local, sh.Columns, add)
	if local != sh.Path {
		if err != nil {
			err = fmt.Errorf("%s (read from its copy %s): %w", sh.Path, local, err)
		}
		for i := range warnings {
			warnings[i].Message = strings.ReplaceAll(warnings[i].Message, local, sh.Path)
		}
	}
	return columns, warnings, err
}

// readLocal reads the local file at path for readShard.
func readLocal(path string, columns []string, add func(*dataset.Frame) error) ([]string, []dataset.Warning, error) {
	tr, err := dataset.OpenTable(path, dataset.FrameOptions{})
	if err != nil {
		return nil, nil, err
	}
	defer tr.Close()
	if columns != nil {
		if err := tr.Reorder(columns, "the first file of -data"); err != nil {
			return nil, nil, err
		}
	}
	var last *dataset.Frame // whose Warnings are the reader's, of every row read
	for {
		chunk, err := tr.Read(ChunkRows)
		if errors.Is(err, io.EOF) {
			var warnings []dataset.Warning
			if last != nil {
				warnings = last.Warnings()
			}
			return tr.Columns(), warnings, nil
		}
		if err == nil {
			last, err = chunk, add(chunk)
		}
		if err != nil {
			return nil, nil, err
		}
	}
}

// localCopy returns a path on this machine at which to read the file at
// path: path itself on the local file system, and otherwise (gs://,
// s3://) a temporary copy, since a Parquet file's footer, at its end,
// is read before its rows. done removes the copy.
func localCopy(ctx context.Context, path string) (local string, done func(), err error) {
	if i := strings.Index(path, "://"); i <= 0 {
		return path, func() {}, nil
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return "", nil, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		return "", nil, fmt.Errorf("pipeline: %w", err)
	}
	defer r.Close()
	dir, err := os.MkdirTemp("", "machines-beam-")
	if err != nil {
		return "", nil, err
	}
	done = func() { os.RemoveAll(dir) }
	local = filepath.Join(dir, filepath.Base(path))
	if err := copyFile(local, r); err != nil {
		done()
		return "", nil, fmt.Errorf("%s: copying to %s: %w", path, local, err)
	}
	return local, done, nil
}

// copyFile writes what r holds to a new file at path.
func copyFile(path string, r io.Reader) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
