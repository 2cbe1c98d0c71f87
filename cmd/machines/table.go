package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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

// openTable returns a reader of the table at path: a CSV, Parquet or
// Arrow file, or a glob pattern of such files read as one table, or
// standard input (a CSV table or an Arrow stream) if path is "-". sep
// and strict are the values of -sep and -strict.
func openTable(path, sep string, strict bool) (*dataset.TableReader, error) {
	comma, err := parseSep(sep)
	if err != nil {
		return nil, err
	}
	opts := dataset.FrameOptions{Comma: comma, Strict: strict}
	if path == "-" {
		return dataset.NewTableReader(stdin, stdinName, opts)
	}
	return dataset.OpenTable(path, opts)
}

// noteTerminal says on stderr that the command reads its table from
// standard input when -data - leaves it a terminal, where the command
// would otherwise wait in silence for lines the user may not know to
// type.
func noteTerminal(stderr io.Writer, cmd, path string) {
	f, ok := stdin.(*os.File)
	if path != "-" || !ok {
		return
	}
	if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		fmt.Fprintf(stderr, "machines %s: -data -: reading the table from standard input, a terminal: type or paste its lines, then end them with Ctrl-D (Ctrl-Z and Enter on Windows), or give -data FILE\n", cmd)
	}
}

// dataInputs returns the files that -data path names, as inputs that
// no output may overwrite: the files that match a glob pattern.
func dataInputs(path string) []pathFlag {
	if path == "-" {
		return []pathFlag{{"data", path}}
	}
	files, err := dataset.TableFiles(path)
	if err != nil {
		return []pathFlag{{"data", path}}
	}
	inputs := make([]pathFlag, len(files))
	for i, f := range files {
		inputs[i] = pathFlag{"data", f}
	}
	return inputs
}

// loadTable reads the whole table at path (see openTable) and says on
// stderr how it was read if not as plain comma-separated values.
func loadTable(path, sep string, strict bool, stderr io.Writer, cmd string) (*dataset.Frame, error) {
	tr, err := openTable(path, sep, strict)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	f, err := tr.ReadAll()
	if err != nil {
		return nil, err
	}
	describeFormat(stderr, cmd, f)
	return f, nil
}

// tableFormat is how a table was read: a dataset.Frame or TableReader.
type tableFormat interface {
	Name() string
	Comma() rune
	DecimalComma() bool
}

// describeFormat says on stderr how the table f was read, if it was not
// separated by commas with decimal points.
func describeFormat(stderr io.Writer, cmd string, f tableFormat) {
	names := map[rune]string{';': "semicolons", '\t': "tabs", '|': "vertical bars"}
	var how []string
	if f.Comma() != ',' {
		sep, ok := names[f.Comma()]
		if !ok {
			sep = fmt.Sprintf("%q", f.Comma())
		}
		how = append(how, "fields separated by "+sep)
	}
	if f.DecimalComma() {
		how = append(how, "numbers with decimal commas")
	}
	if how != nil {
		fmt.Fprintf(stderr, "machines %s: %s: %s\n", cmd, f.Name(), strings.Join(how, ", "))
	}
}

// checkOutDir reports, before any work, that the directory that flag
// names is a file: making it would fail only when the first file is
// written.
func checkOutDir(flag, path string) error {
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return usagef("-%s %s: is a file; name a directory, which the command makes if need be", flag, path)
	}
	return nil
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
	return usagef("-%s %s: cannot write there: %v", flag, path, errors.Unwrap(err))
}
