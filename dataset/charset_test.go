package dataset

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf16"
)

// TestTextReader reads UTF-8 through and every other byte as Windows-1252,
// whole and a byte at a time, and notes the first line of such a byte.
func TestTextReader(t *testing.T) {
	for _, test := range []struct {
		name, in, want string
		line           int
	}{
		{"ascii", "a,b\n1,2\n", "a,b\n1,2\n", 0},
		{"utf-8", "G\u00e9n\u00e9rale\n\u20ac5\n", "Générale\n€5\n", 0},
		{"replacement character", "\ufffd\n", "\ufffd\n", 0},
		{"latin-1", "G\xe9n\xe9rale\n", "Générale\n", 1},
		{"windows-1252", "a\nb\n\x80 \x9c\x9f \x81\n", "a\nb\n€ œŸ \u0081\n", 3},
		{"utf-8 then windows-1252", "\u00e9\n\xe9\n", "é\né\n", 2},
		{"cut at the end", "x\xc3", "xÃ", 1},
		{"lead byte then text", "\xe2x\n", "âx\n", 1},
	} {
		t.Run(test.name, func(t *testing.T) {
			for _, oneByte := range []bool{false, true} {
				var src io.Reader = strings.NewReader(test.in)
				if oneByte {
					src = iotest.OneByteReader(src)
				}
				log := new(readLog)
				got, err := io.ReadAll(newTextReader(src, log))
				if err != nil || string(got) != test.want || log.encodingLine != test.line {
					t.Errorf("one byte at a time %v: %q, line %d, error %v; want %q, line %d", oneByte, got, log.encodingLine, err, test.want, test.line)
				}
			}
		})
	}
}

// TestReadFrameWindows1252 reads a file saved in Windows-1252 as its text,
// and warns once that it is not UTF-8.
func TestReadFrameWindows1252(t *testing.T) {
	f := readFrameString(t, "soci\xe9t\xe9;class\nSoci\xe9t\xe9 G\xe9n\xe9rale;A\nBNP;B\n")
	if !slices.Equal(f.Columns(), []string{"société", "class"}) || f.Cell(0, 0) != "Société Générale" {
		t.Errorf("columns %q, cell %q", f.Columns(), f.Cell(0, 0))
	}
	const want = "test.csv: not UTF-8: bytes that are not, first on line 1, are read as Windows-1252 (Latin-1) characters; save the file as UTF-8 to be sure of its text"
	if w := f.Warnings(); len(w) != 1 || w[0].String() != want {
		t.Errorf("warnings %v, want\n%s", w, want)
	}
	if w := f.Warnings(); w != nil {
		t.Errorf("warnings again: %v", w)
	}
}

// TestReadFrameQuotedNames reads column names in single quotes as those
// in double quotes.
func TestReadFrameQuotedNames(t *testing.T) {
	for _, test := range []struct {
		name, header string
		want         []string
	}{
		{"single quotes", "'vote','popul','x'", []string{"vote", "popul", "x"}},
		{"double quotes", `"vote","popul"`, []string{"vote", "popul"}},
		{"some", "'vote',popul", []string{"vote", "popul"}},
		{"spaces", "' vote ' , 'b'", []string{"vote", "b"}},
		{"quote inside", "'it''s',b", []string{"it's", "b"}},
		{"apostrophes", "it's,'b,c'd", []string{"it's", "'b", "c'd"}},
		{"one quote", "',b", []string{"'", "b"}},
		{"row names", "'','x'", []string{RowNamesColumn, "x"}},
	} {
		t.Run(test.name, func(t *testing.T) {
			data := test.header + "\n" + strings.Repeat("1,", len(test.want)-1) + "1\n"
			f := readFrameString(t, data)
			if !slices.Equal(f.Columns(), test.want) {
				t.Errorf("columns %q, want %q", f.Columns(), test.want)
			}
		})
	}
	for _, header := range []string{"'a','a'", "'a',a", "x,''"} {
		if _, err := ReadFrame(strings.NewReader(header+"\n1,2\n"), "test.csv"); err == nil {
			t.Errorf("header %s: no error", header)
		}
	}
}

// utf16Bytes returns s in UTF-16 after a byte order mark, in the given
// byte order.
func utf16Bytes(s string, order binary.ByteOrder) []byte {
	units := append([]uint16{0xFEFF}, utf16.Encode([]rune(s))...)
	b := make([]byte, 2*len(units))
	for i, u := range units {
		order.PutUint16(b[2*i:], u)
	}
	return b
}

// TestReadFrameUTF16 reads a table saved as UTF-16 with a byte order
// mark, in either order, whole and a byte at a time.
func TestReadFrameUTF16(t *testing.T) {
	const text = "name\tprice\nSociété\t1 554,5\n😀\t2\n"
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, oneByte := range []bool{false, true} {
			var src io.Reader = bytes.NewReader(utf16Bytes(text, order))
			if oneByte {
				src = iotest.OneByteReader(src)
			}
			f, err := ReadFrame(src, "test.csv")
			if err != nil {
				t.Fatal(err)
			}
			v, err := f.Number(0, 1)
			if !slices.Equal(f.Columns(), []string{"name", "price"}) || f.Cell(0, 0) != "Société" || f.Cell(1, 0) != "😀" || v != 1554.5 || err != nil {
				t.Errorf("%v, one byte at a time %v: columns %q, cells %q %q, price %v (%v)", order, oneByte, f.Columns(), f.Cell(0, 0), f.Cell(1, 0), v, err)
			}
			if w := f.Warnings(); w != nil {
				t.Errorf("warnings %v", w)
			}
		}
	}
	// An unpaired surrogate, and an odd byte at the end.
	b := append(utf16Bytes("a\nx", binary.LittleEndian), 0x00, 0xD8, '\n', 0, 'y')
	got, err := io.ReadAll(utf16Text(bytes.NewReader(b)))
	if want := "a\nx\ufffd\n"; err != nil || string(got) != want {
		t.Errorf("read %q (%v), want %q", got, err, want)
	}
}

// TestReadFrameCRLines reads a table whose lines end in a lone carriage
// return, as "CSV (Macintosh)" saves it, whole and a byte at a time: it
// was read as one line, and refused for a duplicate column name taken
// from its first row.
func TestReadFrameCRLines(t *testing.T) {
	data, err := os.ReadFile("testdata/mac.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, oneByte := range []bool{false, true} {
		var src io.Reader = bytes.NewReader(data)
		if oneByte {
			src = iotest.OneByteReader(src)
		}
		f, err := ReadFrame(src, "mac.csv")
		if err != nil {
			t.Fatal(err)
		}
		v, err := f.Number(1, 0)
		if !slices.Equal(f.Columns(), []string{"x", "y", "name"}) || f.Len() != 3 || v != 3.25 || err != nil ||
			f.Cell(1, 2) != "b\nc" || f.Line(2) != 5 {
			t.Errorf("one byte at a time %v: columns %q, %d rows, x %v (%v), name %q, last line %d", oneByte, f.Columns(), f.Len(), v, err, f.Cell(1, 2), f.Line(2))
		}
	}
}
