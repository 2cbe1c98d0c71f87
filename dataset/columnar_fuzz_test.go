package dataset

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateTables = flag.Bool("update-tables", false, "rewrite the Parquet and Arrow fixtures in testdata and their damaged copies in testdata/fuzz")

// tableFixtures are the files of the table of typedCSV in testdata, and
// how to write them.
var tableFixtures = []struct {
	name  string
	write func(t testing.TB, path string)
}{
	{"typed.parquet", func(t testing.TB, p string) { writeParquet(t, p, 3, typedBatch(t)) }},
	{"typed.arrow", func(t testing.TB, p string) { writeArrow(t, p, false, typedBatch(t)) }},
	{"typed.arrows", func(t testing.TB, p string) { writeArrow(t, p, true, typedBatch(t)) }},
}

// TestTableFixtures reads the Parquet and Arrow files of testdata, the
// seeds of FuzzParquet and FuzzArrow; with -update-tables it first
// writes them, and damaged copies in the seed corpora of testdata/fuzz.
func TestTableFixtures(t *testing.T) {
	want, err := ReadFrame(strings.NewReader(typedCSV), "typed.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range tableFixtures {
		path := filepath.Join("testdata", fx.name)
		if *updateTables {
			fx.write(t, path)
			writeDamaged(t, path)
		}
		got, err := LoadTable(path)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := frameText(got), frameText(want); !slices.EqualFunc(g, w, slices.Equal) {
			t.Errorf("%s: cells\n%q\nwant\n%q", path, g, w)
		}
	}
}

// writeDamaged writes copies of the file at path, cut short and with
// bytes changed, to the seed corpus of its fuzz target.
func writeDamaged(t testing.TB, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	target := "FuzzArrow"
	if FormatOf(path) == Parquet {
		target = "FuzzParquet"
	}
	dir := filepath.Join("testdata", "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	flip := func(at int) []byte {
		d := slices.Clone(data)
		d[at] ^= 0x5a
		return d
	}
	base := strings.TrimPrefix(filepath.Ext(path), ".")
	for name, d := range map[string][]byte{
		"half":        data[:len(data)/2],
		"no_end":      data[:len(data)-1],
		"flip_middle": flip(len(data) / 2),
		"flip_footer": flip(len(data) - 12),
		"flip_start":  flip(len(arrowMagic) + 4),
	} {
		writeFile(t, filepath.Join(dir, base+"_"+name), []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", d)))
	}
}

// readSeeds adds the files of testdata of the given format to the seeds
// of f.
func readSeeds(f *testing.F, format TableFormat) {
	for _, fx := range tableFixtures {
		if FormatOf(fx.name) != format {
			continue
		}
		data, err := os.ReadFile(filepath.Join("testdata", fx.name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// readTable reads every row of tr by parts of 100, and checks that an
// error is a *ParseError and that each row has a cell in each column.
func readTable(t *testing.T, tr *TableReader, err error) {
	for err == nil {
		var fr *Frame
		if fr, err = tr.Read(100); err == nil {
			for r := range fr.Len() {
				if len(fr.cells[r]) != len(tr.Columns()) {
					t.Fatalf("row %d has %d cells, %d columns", r, len(fr.cells[r]), len(tr.Columns()))
				}
			}
		}
	}
	var pe *ParseError
	if err != io.EOF && !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *ParseError", err)
	}
}

// FuzzParquet feeds bytes to the Parquet reader: the footer, the column
// types and the pages of every batch.
func FuzzParquet(f *testing.F) {
	readSeeds(f, Parquet)
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := newParquetSource(bytes.NewReader(data), "fuzz.parquet", FrameOptions{})
		if err != nil {
			readTable(t, nil, err)
			return
		}
		tr := &TableReader{name: "fuzz.parquet", columns: src.columns(), src: src}
		defer tr.Close()
		readTable(t, tr, nil)
	})
}

// FuzzArrow feeds bytes to the reader of Arrow streams, and of files
// read as streams: the schema, the dictionaries and every batch.
func FuzzArrow(f *testing.F) {
	readSeeds(f, Arrow)
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := NewTableReader(bytes.NewReader(data), "fuzz.arrow", FrameOptions{})
		if err == nil && tr.Name() == "" {
			t.Fatal("no name")
		}
		if err == nil {
			defer tr.Close()
		}
		readTable(t, tr, err)
	})
}
