package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/atomicfile"
)

// stdin is what -data - reads; tests replace it.
var stdin io.Reader = os.Stdin

// stdinName names standard input in messages and in the model file.
const stdinName = "standard input"

// sepFlag defines the -sep flag of a command that reads tables.
func sepFlag(fs *flag.FlagSet) *string {
	return fs.String("sep", "", "the field `separator` of the CSV file: one character, such as ';', or tab\n(default: detected among comma, semicolon, tab and |)")
}

// strictFlag defines the -strict flag of a command that reads tables.
func strictFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("strict", false, "refuse a cell that is not a number in a column of numbers, instead of reading it as missing\nwith a warning (see the manual for how few such cells a column of numbers may hold)")
}

// parseSep returns the separator that the value of -sep names, 0 for
// detection.
func parseSep(sep string) (rune, error) {
	switch sep {
	case "":
		return 0, nil
	case "tab", `\t`:
		return '\t', nil
	}
	r, size := utf8.DecodeRuneInString(sep)
	if size != len(sep) || r == '"' || r == '\r' || r == '\n' || r == utf8.RuneError {
		return 0, usagef("-sep %q: want one character other than a quote or a line break, such as ';', or tab", sep)
	}
	return r, nil
}

// openTable returns a reader of the CSV table at path, or of standard
// input if path is "-", and what to close when done. sep and strict are
// the values of -sep and -strict.
func openTable(path, sep string, strict bool) (*dataset.FrameReader, io.Closer, error) {
	comma, err := parseSep(sep)
	if err != nil {
		return nil, nil, err
	}
	opts := dataset.FrameOptions{Comma: comma, Strict: strict}
	if path == "-" {
		fr, err := dataset.NewFrameReader(stdin, stdinName, opts)
		return fr, io.NopCloser(stdin), err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	fr, err := dataset.NewFrameReader(f, path, opts)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return fr, f, nil
}

// loadTable reads the whole CSV table at path ("-": standard input) and
// says on stderr how it was read if not as plain comma-separated values.
func loadTable(path, sep string, strict bool, stderr io.Writer, cmd string) (*dataset.Frame, error) {
	fr, closer, err := openTable(path, sep, strict)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	f, err := fr.ReadAll()
	if err != nil {
		return nil, err
	}
	describeFormat(stderr, cmd, f)
	return f, nil
}

// tableFormat is how a table was read: a dataset.Frame or FrameReader.
type tableFormat interface {
	Name() string
	Comma() rune
	DecimalComma() bool
}

// describeFormat says on stderr how the table f was read, if it was not
// separated by commas with decimal points.
func describeFormat(stderr io.Writer, cmd string, f tableFormat) {
	names := map[rune]string{';': "semicolons", '\t': "tabs", '|': "vertical bars"}
	how := ""
	if f.Comma() != ',' {
		sep, ok := names[f.Comma()]
		if !ok {
			sep = fmt.Sprintf("%q", f.Comma())
		}
		how = "fields separated by " + sep
	}
	if f.DecimalComma() {
		how += ", numbers with decimal commas"
	}
	if how != "" {
		fmt.Fprintf(stderr, "machines %s: %s: %s\n", cmd, f.Name(), how)
	}
}

// checkOutput reports, before any work, why the file that flag names
// could not be written; suggest is a file name to offer in a directory.
func checkOutput(flag, path, suggest string) error {
	err := atomicfile.Check(path)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, atomicfile.ErrIsDir):
		return usagef("-%s %s: is a directory; name a file in it, such as %s", flag, path, filepath.Join(path, suggest))
	case errors.Is(err, atomicfile.ErrNotRegular):
		return usagef("-%s %s: is not a regular file, which the output would replace", flag, path)
	}
	return fmt.Errorf("-%s %s: cannot write there: %w", flag, path, errors.Unwrap(err))
}
