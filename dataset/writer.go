package dataset

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// writeRows is the number of rows that a TableWriter gathers into one
// record batch, one row group of a Parquet file.
const writeRows = 1 << 16

// TableWriter writes a table, given as rows of text cells as a CSV file
// holds them, to a CSV, Parquet or Arrow file. In a Parquet or Arrow
// file, a column of numbers holds float64 values and any other column
// strings; an empty cell is null.
type TableWriter struct {
	format  TableFormat
	numeric []bool
	csv     *csv.Writer
	batch   *array.RecordBuilder // nil for CSV
	rows    int                  // in the batch
	write   func(arrow.RecordBatch) error
	close   func() error
}

// NewTableWriter writes a table of the given columns to w in the given
// format; numeric[j] says whether column j holds numbers. It writes the
// header of a CSV file at once; the caller calls Close to finish the
// file, which does not close w.
func NewTableWriter(w io.Writer, format TableFormat, columns []string, numeric []bool) (*TableWriter, error) {
	if len(numeric) != len(columns) {
		panic(fmt.Sprintf("dataset: %d columns, %d numeric flags", len(columns), len(numeric)))
	}
	tw := &TableWriter{format: format, numeric: numeric}
	if format == CSV {
		tw.csv = csv.NewWriter(w)
		return tw, tw.csv.Write(columns)
	}
	fields := make([]arrow.Field, len(columns))
	for j, name := range columns {
		fields[j] = arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: true}
		if numeric[j] {
			fields[j].Type = arrow.PrimitiveTypes.Float64
		}
	}
	schema := arrow.NewSchema(fields, nil)
	tw.batch = array.NewRecordBuilder(allocator, schema)
	// The writers close what they write to when it is a Closer: w is not
	// theirs to close.
	sink := struct{ io.Writer }{w}
	if format == Parquet {
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithAllocator(allocator))
		fw, err := pqarrow.NewFileWriter(schema, sink, props, pqarrow.DefaultWriterProps())
		if err != nil {
			return nil, err
		}
		tw.write, tw.close = fw.Write, fw.Close
		return tw, nil
	}
	fw, err := ipc.NewFileWriter(sink, ipc.WithSchema(schema), ipc.WithAllocator(allocator))
	if err != nil {
		return nil, err
	}
	tw.write, tw.close = fw.Write, fw.Close
	return tw, nil
}

// Write writes rows of cells, one for each column; the cells of a
// numeric column are empty or numbers in Go's syntax.
func (tw *TableWriter) Write(rows [][]string) error {
	if tw.csv != nil {
		return tw.csv.WriteAll(rows)
	}
	for _, row := range rows {
		for j, cell := range row {
			if err := tw.append(j, cell); err != nil {
				return err
			}
		}
		if tw.rows++; tw.rows == writeRows {
			if err := tw.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// append appends cell to column j of the batch.
func (tw *TableWriter) append(j int, cell string) error {
	field := tw.batch.Field(j)
	switch {
	case cell == "":
		field.AppendNull()
	case tw.numeric[j]:
		v, err := strconv.ParseFloat(cell, 64)
		if err != nil {
			return fmt.Errorf("dataset: column %d: %w", j+1, err)
		}
		field.(*array.Float64Builder).Append(v)
	default:
		field.(*array.StringBuilder).Append(cell)
	}
	return nil
}

// flush writes the batch.
func (tw *TableWriter) flush() error {
	b := tw.batch.NewRecordBatch()
	defer b.Release()
	tw.rows = 0
	return tw.write(b)
}

// Close writes what remains of the table and the end of the file.
func (tw *TableWriter) Close() error {
	if tw.csv != nil {
		tw.csv.Flush()
		return tw.csv.Error()
	}
	defer tw.batch.Release()
	if tw.rows > 0 {
		if err := tw.flush(); err != nil {
			return err
		}
	}
	return tw.close()
}

// WriteFrame writes the table f to w in the given format, such as a CSV
// table as Parquet: a column whose cells are all empty or numbers in
// Go's syntax is written as numbers, any other as text.
func WriteFrame(w io.Writer, format TableFormat, f *Frame) error {
	numeric := make([]bool, len(f.columns))
	for j := range numeric {
		numeric[j] = !slices.ContainsFunc(f.cells, func(row []string) bool {
			_, err := strconv.ParseFloat(row[j], 64)
			return err != nil && row[j] != ""
		})
	}
	tw, err := NewTableWriter(w, format, f.columns, numeric)
	if err != nil {
		return err
	}
	for start := 0; start < f.Len(); start += writeRows {
		if err := tw.Write(f.cells[start:min(start+writeRows, f.Len())]); err != nil {
			return err
		}
	}
	return tw.Close()
}
