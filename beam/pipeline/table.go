package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/parametric-machines/machines/dataset"
)

// table reads CSV shards as one table, the bytes that their
// concatenation would hold: the first shard whole, then each other
// without its header line, which must be the first's. It counts the
// lines of each shard, so that an error that names a line of the table
// can name the shard and its own line (locate).
type table struct {
	ctx    context.Context
	name   string
	shards []string
	next   int           // the shard to open after cur
	cur    *bufio.Reader // nil before the first shard and after the last
	closer io.Closer
	header []byte // the first shard's header line, without its end
	starts []int  // the table's line of each opened shard's first line
	line   int    // the table's lines read so far
	last   byte   // the last byte read
}

// newTable returns the table of shards, named name in its errors.
func newTable(ctx context.Context, name string, shards []string) *table {
	return &table{ctx: ctx, name: name, shards: shards}
}

// Read implements io.Reader.
func (t *table) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if t.cur == nil {
			if t.next == len(t.shards) {
				return 0, io.EOF
			}
			if err := t.open(); err != nil {
				return 0, err
			}
		}
		n, err := t.cur.Read(p)
		if n > 0 {
			t.line += bytes.Count(p[:n], []byte{'\n'})
			t.last = p[n-1]
			return n, nil
		}
		if err == io.EOF {
			t.closer.Close()
			t.cur = nil
			if t.last != '\n' {
				// A shard whose last line has no end.
				p[0], t.last = '\n', '\n'
				t.line++
				return 1, nil
			}
			continue
		}
		return 0, err
	}
}

// open opens the next shard and reads past its header, after the first.
func (t *table) open() error {
	path := t.shards[t.next]
	fs, err := filesystem.New(t.ctx, path)
	if err != nil {
		return err
	}
	r, err := fs.OpenRead(t.ctx, path)
	fs.Close()
	if err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	t.cur, t.closer = bufio.NewReader(r), r
	head, err := t.cur.ReadBytes('\n')
	if err != nil && err != io.EOF {
		r.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	head = bytes.TrimRight(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), "\r\n")
	start := t.line + 1
	if t.next == 0 {
		t.header = head
		t.cur = bufio.NewReader(io.MultiReader(bytes.NewReader(append(head, '\n')), t.cur))
		start++
	} else if !bytes.Equal(head, t.header) {
		r.Close()
		return fmt.Errorf("%s: header %q differs from %q of %s: the shards of -data are one table", path, head, t.header, t.shards[0])
	}
	t.starts = append(t.starts, start)
	t.next++
	return nil
}

// locate rewrites an error about a line of the table as one about the
// line of its shard.
func (t *table) locate(err error) error {
	var pe *dataset.ParseError
	if !errors.As(err, &pe) || pe.File != t.name || pe.Row < 2 {
		return err
	}
	for i := len(t.starts) - 1; i >= 0; i-- {
		if pe.Row >= t.starts[i] {
			return relocate(err, t.name, t.shards[i], t.starts[i])
		}
	}
	return err
}

// lines returns the shards with the table's line of their first rows,
// once the table has been read to its end.
func (t *table) lines() []shard {
	sh := make([]shard, len(t.starts))
	for i, line := range t.starts {
		sh[i] = shard{Path: t.shards[i], Line: line}
	}
	return sh
}

// relocate rewrites an error about a line of the file from, at or after
// first, as one about the file to whose first row is that line.
func relocate(err error, from, to string, first int) error {
	var pe *dataset.ParseError
	if !errors.As(err, &pe) || pe.File != from || pe.Row < first {
		return err
	}
	return &dataset.ParseError{File: to, Row: pe.Row - first + 2, Column: pe.Column, Err: pe.Err}
}
