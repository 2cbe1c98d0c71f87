package dataset

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// batchRows is the number of rows that a Parquet file is decoded by at a
// time; an Arrow file comes in the batches it was written in.
const batchRows = 1 << 16

// maxBuffer bounds each buffer that decoding a Parquet or Arrow file
// allocates, whatever sizes a damaged file claims: a column of one batch
// is far smaller.
const maxBuffer = 1 << 30

// errBufferSize is the panic of boundedAllocator, recovered into an
// error by the readers.
var errBufferSize = fmt.Errorf("%w: a buffer larger than %d bytes", ErrMalformed, maxBuffer)

// boundedAllocator is the Go allocator, refusing any buffer larger than
// maxBuffer with a panic that the readers recover.
type boundedAllocator struct{ memory.GoAllocator }

func (a *boundedAllocator) Allocate(size int) []byte {
	if size > maxBuffer {
		panic(errBufferSize)
	}
	return a.GoAllocator.Allocate(size)
}

func (a *boundedAllocator) Reallocate(size int, b []byte) []byte {
	if size > maxBuffer {
		panic(errBufferSize)
	}
	return a.GoAllocator.Reallocate(size, b)
}

// allocator is what Parquet and Arrow readers allocate with.
var allocator memory.Allocator = new(boundedAllocator)

// cellText appends to b the text of cell i of a, which is not null.
type cellText func(b []byte, a arrow.Array, i int) []byte

// columnarSource reads the record batches of a Parquet file or an Arrow
// stream as text cells.
type columnarSource struct {
	format frameFormat
	rr     array.RecordReader
	closer io.Closer
	texts  []cellText
	batch  arrow.RecordBatch // the batch being read, or nil
	next   int               // its first row not yet read
	rows   int               // the file's rows before the batch
	buf    []byte            // a row's text
	ends   []int             // the ends of its cells in buf
}

// newColumnarSource reads the batches of rr, of the file name, checking
// their columns first; closer closes the file. It releases rr if the
// columns are refused.
func newColumnarSource(rr array.RecordReader, closer io.Closer, name string, opts FrameOptions) (_ *columnarSource, err error) {
	defer func() {
		if err != nil {
			rr.Release()
		}
	}()
	s := &columnarSource{rr: rr, closer: closer,
		format: frameFormat{name: name, comma: ',', strict: opts.Strict, columnar: true, log: &readLog{place: "row"}}}
	for j, field := range rr.Schema().Fields() {
		column := strings.TrimSpace(field.Name)
		switch {
		case column == "":
			return nil, &ParseError{File: name, Err: fmt.Errorf("column %d has no name", j+1)}
		case slices.Contains(s.format.columns, column):
			return nil, &ParseError{File: name, Column: column, Err: ErrDuplicate}
		}
		text, err := textOf(field.Type)
		if err != nil {
			return nil, &ParseError{File: name, Column: column, Err: err}
		}
		s.format.columns = append(s.format.columns, column)
		s.texts = append(s.texts, text)
	}
	if len(s.texts) == 0 {
		return nil, &ParseError{File: name, Err: ErrEmpty}
	}
	return s, nil
}

func (s *columnarSource) columns() []string { return s.format.columns }

// Close releases the batches and closes the file.
func (s *columnarSource) Close() error {
	if s.batch != nil {
		s.batch.Release()
		s.batch = nil
	}
	s.rr.Release()
	return s.closer.Close()
}

func (s *columnarSource) read(max int) (*Frame, error) {
	f := &Frame{frameFormat: s.format}
	for max <= 0 || f.Len() < max {
		if s.batch == nil || s.next == int(s.batch.NumRows()) {
			err := s.nextBatch()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		n := int(s.batch.NumRows()) - s.next
		if max > 0 {
			n = min(n, max-f.Len())
		}
		if err := s.appendRows(f, n); err != nil {
			return nil, err
		}
	}
	if f.Len() == 0 {
		return nil, io.EOF
	}
	return f, nil
}

// nextBatch moves to the next batch of the file, which it checks, or
// returns io.EOF at the end.
func (s *columnarSource) nextBatch() (err error) {
	defer s.recoverMalformed(&err)
	if s.batch != nil {
		s.rows += int(s.batch.NumRows())
		s.batch.Release()
		s.batch = nil
	}
	if !s.rr.Next() {
		if err := s.rr.Err(); err != nil && !errors.Is(err, io.EOF) {
			return s.malformed(err)
		}
		return io.EOF
	}
	b := s.rr.RecordBatch()
	for j, a := range b.Columns() {
		// The library's check wants a buffer that a column of nulls,
		// as the Arrow format writes it, does not have.
		if a.DataType().ID() == arrow.NULL {
			continue
		}
		if err := array.ValidateFull(a); err != nil {
			return &ParseError{File: s.format.name, Column: s.format.columns[j], Err: fmt.Errorf("%w: %v", ErrMalformed, err)}
		}
	}
	b.Retain()
	s.batch, s.next = b, 0
	return nil
}

// appendRows appends the next n rows of the batch to f, each as one
// string that its cells share, trimmed of spaces as CSV cells are.
func (s *columnarSource) appendRows(f *Frame, n int) (err error) {
	defer s.recoverMalformed(&err)
	cols := s.batch.Columns()
	for i := s.next; i < s.next+n; i++ {
		s.buf, s.ends = s.buf[:0], s.ends[:0]
		for j, a := range cols {
			if !isNull(a, i) {
				s.buf = s.texts[j](s.buf, a, i)
			}
			s.ends = append(s.ends, len(s.buf))
		}
		text, row := string(s.buf), make([]string, len(cols))
		start := 0
		for j, end := range s.ends {
			row[j] = strings.TrimSpace(text[start:end])
			start = end
		}
		f.cells = append(f.cells, row)
		f.lines = append(f.lines, s.rows+i+1)
	}
	s.next += n
	return nil
}

// isNull reports whether cell i of a is null, or a dictionary's null.
func isNull(a arrow.Array, i int) bool {
	if a.IsNull(i) {
		return true
	}
	d, ok := a.(*array.Dictionary)
	return ok && d.Dictionary().IsNull(d.GetValueIndex(i))
}

// malformed is err from decoding the file.
func (s *columnarSource) malformed(err error) error {
	return &ParseError{File: s.format.name, Err: fmt.Errorf("%w: %v", ErrMalformed, err)}
}

// recoverMalformed turns a panic of the Arrow library on a damaged file,
// or of boundedAllocator, into the error *err.
func (s *columnarSource) recoverMalformed(err *error) {
	if r := recover(); r != nil {
		*err = s.malformed(fmt.Errorf("%v", r))
	}
}

// textOf returns how a cell of a column of type t is written as text,
// or an error wrapping ErrColumnType for a type that a table cannot
// hold.
func textOf(t arrow.DataType) (cellText, error) {
	switch t := t.(type) {
	case *arrow.Float16Type:
		return func(b []byte, a arrow.Array, i int) []byte {
			return strconv.AppendFloat(b, float64(a.(*array.Float16).Value(i).Float32()), 'g', -1, 32)
		}, nil
	case *arrow.Float32Type:
		return func(b []byte, a arrow.Array, i int) []byte {
			return strconv.AppendFloat(b, float64(a.(*array.Float32).Value(i)), 'g', -1, 32)
		}, nil
	case *arrow.Float64Type:
		return func(b []byte, a arrow.Array, i int) []byte {
			return strconv.AppendFloat(b, a.(*array.Float64).Value(i), 'g', -1, 64)
		}, nil
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type,
		*arrow.Decimal32Type, *arrow.Decimal64Type, *arrow.Decimal128Type, *arrow.Decimal256Type,
		*arrow.BooleanType, *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return func(b []byte, a arrow.Array, i int) []byte { return append(b, a.ValueStr(i)...) }, nil
	case *arrow.Date32Type:
		return func(b []byte, a arrow.Array, i int) []byte {
			return appendDate(b, time.Unix(int64(a.(*array.Date32).Value(i))*secondsPerDay, 0))
		}, nil
	case *arrow.Date64Type:
		return func(b []byte, a arrow.Array, i int) []byte {
			return appendDate(b, time.UnixMilli(int64(a.(*array.Date64).Value(i))))
		}, nil
	case *arrow.TimestampType:
		layout := "2006-01-02 15:04:05.999999999"
		if t.TimeZone != "" {
			layout = time.RFC3339Nano
		}
		return func(b []byte, a arrow.Array, i int) []byte {
			return a.(*array.Timestamp).Value(i).ToTime(t.Unit).UTC().AppendFormat(b, layout)
		}, nil
	case *arrow.DictionaryType:
		text, err := textOf(t.ValueType)
		if err != nil {
			return nil, err
		}
		return func(b []byte, a arrow.Array, i int) []byte {
			d := a.(*array.Dictionary)
			return text(b, d.Dictionary(), d.GetValueIndex(i))
		}, nil
	case *arrow.NullType:
		// A column of nulls is a column of missing cells.
		return func(b []byte, _ arrow.Array, _ int) []byte { return b }, nil
	}
	return nil, fmt.Errorf("%w %s: a table's columns hold numbers, text, booleans, dates or timestamps", ErrColumnType, t)
}

// appendDate appends t, in UTC, as a date if it is midnight and as a
// date and time otherwise.
func appendDate(b []byte, t time.Time) []byte {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.AppendFormat(b, "2006-01-02")
	}
	return t.AppendFormat(b, "2006-01-02 15:04:05.999999999")
}
