package dataset

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/atomicfile"
)

// Errors wrapped by ParseError for CSV files. Test for them with errors.Is.
var (
	ErrEmpty      = errors.New("empty file")
	ErrNoRows     = errors.New("no data rows after the header")
	ErrFieldCount = errors.New("wrong number of fields")
	ErrDuplicate  = errors.New("duplicate column name")
	ErrNoColumn   = errors.New("no such column")
	ErrMissing    = errors.New("missing value")
	ErrNumber     = errors.New("not a number")
	ErrNaN        = errors.New("value is NaN")
	ErrInf        = errors.New("value is infinite")
	ErrOneClass   = errors.New("target has a single class")
)

// CSVOptions says how to read a CSV file. The zero value reads every column as
// a feature.
type CSVOptions struct {
	// Target is the name of the target column. If empty, the file has no
	// target, as when reading inputs to predict.
	Target string

	// Classify makes the target a column of class labels rather than
	// numbers. It requires Target.
	Classify bool

	// Features names the feature columns, in the order they take in
	// Table.X. The file may hold them in any order, and columns that are
	// neither features nor the target are not read. If empty, every column
	// but the target is a feature, in file order.
	Features []string
}

// check panics if the options contradict themselves, which is a mistake in
// the calling code rather than in the file.
func (o *CSVOptions) check() {
	if o.Classify && o.Target == "" {
		panic(fmt.Errorf("%w: dataset: Classify needs a Target column", ad.ErrNil))
	}
	for i, f := range o.Features {
		if f == o.Target {
			panic(fmt.Errorf("%w: dataset: target %q listed as a feature", ad.ErrName, f))
		}
		if slices.Contains(o.Features[:i], f) {
			panic(fmt.Errorf("%w: dataset: feature %q listed twice", ad.ErrName, f))
		}
	}
}

// Table is a data set read from a CSV file. Row i of X and element i of Y or
// Labels describe the same sample.
type Table struct {
	Features []string   // names of the columns of X
	X        *mat.Dense // features, one row per sample

	// Target is the name of the target column, empty if there is none.
	Target string

	// Y holds the target of a regression task; it is nil otherwise.
	Y []float64

	// Classes holds the class labels of a classification task, sorted
	// as strings, and Labels the index into Classes of each sample's
	// class. Both are nil otherwise.
	Classes []string
	Labels  []int
}

// LoadCSV reads the CSV file at path; see ReadCSV.
func LoadCSV(path string, opts CSVOptions) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCSV(f, path, opts)
}

// ReadCSV reads a table in CSV format from r. The first row holds the column
// names; each later row is a sample. name identifies the input in errors,
// which are *ParseError values for problems with the content.
//
// Spaces around fields are ignored. Numbers use Go syntax (strconv.ParseFloat);
// empty fields, NaN and infinite values are errors. Every column that is read
// must have a unique, non-empty name.
//
// ReadCSV panics if opts is inconsistent: Classify without Target, or the
// target or a repeated name among the Features.
func ReadCSV(r io.Reader, name string, opts CSVOptions) (*Table, error) {
	opts.check()
	cr := csv.NewReader(r)
	// Rows of the wrong length are reported below, with the header's count.
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true

	header, err := cr.Read()
	if err == io.EOF {
		return nil, &ParseError{File: name, Err: ErrEmpty}
	}
	if err != nil {
		return nil, readError(name, err)
	}
	headerRow, _ := cr.FieldPos(0)
	cols := make([]string, len(header))
	for i, h := range header {
		cols[i] = strings.TrimSpace(h)
	}
	// Spreadsheet programs often start UTF-8 files with a byte order mark.
	cols[0] = strings.TrimSpace(strings.TrimPrefix(cols[0], "\ufeff"))

	features, target, err := selectColumns(name, headerRow, cols, opts)
	if err != nil {
		return nil, err
	}

	var (
		x      []float64
		y      []float64
		labels []int
		// classes maps each label to its order of first appearance;
		// the labels are sorted once all rows are read.
		classes = make(map[string]int)
		rows    int
	)
	// fieldErr locates an error in field j of the record just read.
	fieldErr := func(j int, err error) error {
		line, _ := cr.FieldPos(j)
		return &ParseError{File: name, Row: line, Column: cols[j], Err: err}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, readError(name, err)
		}
		if len(rec) != len(cols) {
			line, _ := cr.FieldPos(0)
			return nil, &ParseError{File: name, Row: line,
				Err: fmt.Errorf("%w: %d, header has %d", ErrFieldCount, len(rec), len(cols))}
		}
		for _, j := range features {
			v, err := parseNumber(rec[j])
			if err != nil {
				return nil, fieldErr(j, err)
			}
			x = append(x, v)
		}
		switch {
		case target < 0:
		case opts.Classify:
			label := strings.TrimSpace(rec[target])
			if label == "" {
				return nil, fieldErr(target, ErrMissing)
			}
			id, ok := classes[label]
			if !ok {
				// The record's fields share one buffer per line;
				// cloning keeps only the label alive.
				id = len(classes)
				classes[strings.Clone(label)] = id
			}
			labels = append(labels, id)
		default:
			v, err := parseNumber(rec[target])
			if err != nil {
				return nil, fieldErr(target, err)
			}
			y = append(y, v)
		}
		rows++
	}
	if rows == 0 {
		return nil, &ParseError{File: name, Err: ErrNoRows}
	}

	t := &Table{X: mat.NewDense(rows, len(features), x)}
	for _, j := range features {
		t.Features = append(t.Features, cols[j])
	}
	if target < 0 {
		return t, nil
	}
	t.Target = cols[target]
	if !opts.Classify {
		t.Y = y
		return t, nil
	}
	t.Classes = make([]string, 0, len(classes))
	for c := range classes {
		t.Classes = append(t.Classes, c)
	}
	if len(t.Classes) == 1 {
		return nil, &ParseError{File: name, Column: t.Target,
			Err: fmt.Errorf("%w %q", ErrOneClass, t.Classes[0])}
	}
	slices.Sort(t.Classes)
	sorted := make([]int, len(t.Classes)) // order of first appearance -> sorted index
	for i, c := range t.Classes {
		sorted[classes[c]] = i
	}
	for i, id := range labels {
		labels[i] = sorted[id]
	}
	t.Labels = labels
	return t, nil
}

// selectColumns returns the indices in cols, the header of the file name at
// line headerRow, of the feature columns and of the target column (-1 if
// there is none).
func selectColumns(name string, headerRow int, cols []string, opts CSVOptions) (features []int, target int, err error) {
	find := func(col string) (int, error) {
		i := slices.Index(cols, col)
		if i < 0 {
			return -1, noColumnError(name, col, cols)
		}
		if slices.Contains(cols[i+1:], col) {
			return -1, &ParseError{File: name, Row: headerRow, Column: col, Err: ErrDuplicate}
		}
		return i, nil
	}

	target = -1
	if opts.Target != "" {
		target, err = find(opts.Target)
		if err != nil {
			return nil, -1, err
		}
	}
	if len(opts.Features) > 0 {
		for _, f := range opts.Features {
			j, err := find(f)
			if err != nil {
				return nil, -1, err
			}
			features = append(features, j)
		}
		return features, target, nil
	}
	for j, c := range cols {
		if j == target {
			continue
		}
		if c == "" {
			return nil, -1, &ParseError{File: name, Row: headerRow,
				Err: fmt.Errorf("field %d of the header is empty", j+1)}
		}
		if _, err := find(c); err != nil {
			return nil, -1, err
		}
		features = append(features, j)
	}
	if len(features) == 0 {
		return nil, -1, &ParseError{File: name, Row: headerRow, Err: errors.New("no feature columns")}
	}
	return features, target, nil
}

// noColumnError reports that the file name, whose columns are cols, has no
// column col.
func noColumnError(name, col string, cols []string) error {
	return &ParseError{File: name, Column: col,
		Err: fmt.Errorf("%w; the file has %s", ErrNoColumn, quoteList(cols))}
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// readError converts an error from the CSV reader, which for malformed input
// knows the line but not the file.
func readError(name string, err error) error {
	var ce *csv.ParseError
	if errors.As(err, &ce) {
		return &ParseError{File: name, Row: ce.Line, Err: ce.Err}
	}
	return fmt.Errorf("%s: %w", name, err)
}

func parseNumber(field string) (float64, error) {
	s := strings.TrimSpace(field)
	if s == "" {
		return 0, ErrMissing
	}
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case math.IsNaN(v):
		return 0, ErrNaN
	case math.IsInf(v, 0):
		// Both "Inf" and overflowing numbers such as 1e999 land here;
		// the latter come with strconv.ErrRange, which adds nothing.
		return 0, fmt.Errorf("%w: %q", ErrInf, s)
	case err != nil:
		return 0, fmt.Errorf("%w: %q", ErrNumber, s)
	}
	return v, nil
}

// TargetMatrix returns the target with one row per sample: a single column
// for regression, and for classification one column per class, holding 1 in
// the column of the sample's class and 0 elsewhere. It panics if t has no
// target.
func (t *Table) TargetMatrix() *mat.Dense {
	switch {
	case t.Classes != nil:
		m := mat.NewDense(len(t.Labels), len(t.Classes), nil)
		for i, c := range t.Labels {
			m.Set(i, c, 1)
		}
		return m
	case t.Y != nil:
		return mat.NewDense(len(t.Y), 1, slices.Clone(t.Y))
	}
	panic(fmt.Errorf("%w: dataset: table has no target", ad.ErrValue))
}

// Save writes t to path as CSV, the feature columns followed by the target
// column if there is one, so that LoadCSV with the same options reads it
// back. Numbers are written in the shortest form that reads back exactly. The
// file is replaced atomically.
func (t *Table) Save(path string) error {
	rows, _ := t.X.Dims()
	header := slices.Clone(t.Features)
	if t.Target != "" {
		header = append(header, t.Target)
	}
	records := make([][]string, rows)
	for i := range records {
		rec := make([]string, 0, len(header))
		for _, v := range t.X.RawRowView(i) {
			rec = append(rec, FormatFloat(v))
		}
		switch {
		case t.Classes != nil:
			rec = append(rec, t.Classes[t.Labels[i]])
		case t.Target != "":
			rec = append(rec, FormatFloat(t.Y[i]))
		}
		records[i] = rec
	}
	return WriteCSV(path, header, records)
}

// FormatFloat formats v in the shortest form that strconv.ParseFloat reads
// back to v.
func FormatFloat(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// WriteCSV writes the header and then the records to path as CSV, replacing
// the file atomically: on error an existing file is left as it was. It panics
// if a record does not have as many fields as the header.
func WriteCSV(path string, header []string, records [][]string) error {
	for i, rec := range records {
		if len(rec) != len(header) {
			panic(fmt.Errorf("%w: dataset: record %d has %d fields, header has %d", ad.ErrShape, i, len(rec), len(header)))
		}
	}
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write(header); err != nil {
			return err
		}
		return cw.WriteAll(records)
	})
}
