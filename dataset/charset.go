package dataset

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// windows1252 holds the characters of the bytes 0x80 to 0x9F in
// Windows-1252; the five bytes it leaves undefined stand for the control
// characters of their number, as in the WHATWG Encoding Standard. The
// bytes 0xA0 to 0xFF are the Latin-1 characters of their number.
var windows1252 = [32]rune{
	'€', 0x81, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0x8D, 'Ž', 0x8F,
	0x90, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0x9D, 'ž', 'Ÿ',
}

// windows1252Rune returns the character of byte b in Windows-1252.
func windows1252Rune(b byte) rune {
	if b >= 0x80 && b < 0xA0 {
		return windows1252[b-0x80]
	}
	return rune(b)
}

// textReader reads a file as UTF-8 text: it passes valid UTF-8 through and
// reads every other byte as its Windows-1252 character, so that a file
// saved by a spreadsheet in Windows-1252 or Latin-1 reads as it was
// written. It notes the first line that holds such a byte in log.
type textReader struct {
	decoded
	src   io.Reader
	log   *readLog
	buf   []byte // what was read from src
	carry []byte // the start of a character cut by the end of a read
	lines int    // the lines of src before buf, while no byte was decoded
}

// decoded is the text that a decoding reader has not yet returned, and
// the error of its source.
type decoded struct {
	out []byte
	err error
}

// read returns the text decoded, calling fill to decode more of the
// source when none is left.
func (d *decoded) read(p []byte, fill func()) (int, error) {
	for len(d.out) == 0 {
		if d.err != nil {
			return 0, d.err
		}
		fill()
	}
	n := copy(p, d.out)
	d.out = d.out[n:]
	return n, nil
}

func newTextReader(src io.Reader, log *readLog) *textReader {
	return &textReader{src: src, log: log, buf: make([]byte, 32<<10)}
}

func (t *textReader) Read(p []byte) (int, error) { return t.read(p, t.fill) }

// fill reads from src into out, decoding the bytes that are not UTF-8.
func (t *textReader) fill() {
	k := copy(t.buf, t.carry)
	n, err := t.src.Read(t.buf[k:])
	t.err = err
	data := t.buf[:k+n]
	end := len(data)
	if err == nil {
		end = wholeRunes(data)
	}
	t.carry = append(t.carry[:0], data[end:]...)
	data = data[:end]
	if utf8.Valid(data) {
		if t.log.encodingLine == 0 {
			t.lines += bytes.Count(data, []byte{'\n'})
		}
		t.out = data
		return
	}
	out := make([]byte, 0, len(data)+len(data)/2)
	for len(data) > 0 {
		r, size, decoded := textRune(data)
		if decoded && t.log.encodingLine == 0 {
			t.log.encodingLine = t.lines + 1
		} else if r == '\n' && t.log.encodingLine == 0 {
			t.lines++
		}
		out = utf8.AppendRune(out, r)
		data = data[size:]
	}
	t.out = out
}

// textRune returns the first character of data and its length in bytes:
// its UTF-8 character or, if it begins with a byte that is none, that
// byte's Windows-1252 character, decoded true.
func textRune(data []byte) (r rune, size int, decoded bool) {
	r, size = utf8.DecodeRune(data)
	if r == utf8.RuneError && size == 1 {
		return windows1252Rune(data[0]), 1, true
	}
	return r, size, false
}

// utf8Text returns s as UTF-8 text, as textReader reads a file: its UTF-8
// characters, and its other bytes read as Windows-1252.
func utf8Text(s string) string {
	var out []byte
	for data := []byte(s); len(data) > 0; {
		r, size, _ := textRune(data)
		out = utf8.AppendRune(out, r)
		data = data[size:]
	}
	return string(out)
}

// wholeRunes returns the length of data without the start of a character
// that its end cuts, which the next read completes.
func wholeRunes(data []byte) int {
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(data[i]) {
			if utf8.FullRune(data[i:]) {
				return len(data)
			}
			return i
		}
	}
	return len(data)
}

// utf16Text returns a reader of the UTF-8 text of r: r itself, unless it
// starts with a UTF-16 byte order mark, as spreadsheets save "Unicode
// text", in which case the text that follows the mark, decoded.
func utf16Text(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	var order binary.ByteOrder
	switch mark, _ := br.Peek(2); {
	case bytes.Equal(mark, []byte{0xFF, 0xFE}):
		order = binary.LittleEndian
	case bytes.Equal(mark, []byte{0xFE, 0xFF}):
		order = binary.BigEndian
	default:
		return br
	}
	br.Discard(2)
	return &utf16Reader{src: br, order: order, buf: make([]byte, 32<<10)}
}

// utf16Reader decodes UTF-16 text to UTF-8; an unpaired surrogate is
// read as U+FFFD.
type utf16Reader struct {
	decoded
	src   io.Reader
	order binary.ByteOrder
	buf   []byte // what was read from src
	carry []byte // an odd byte, or a high surrogate, that the next read completes
}

func (u *utf16Reader) Read(p []byte) (int, error) { return u.read(p, u.fill) }

// fill reads from src and decodes what it read into out.
func (u *utf16Reader) fill() {
	k := copy(u.buf, u.carry)
	n, err := u.src.Read(u.buf[k:])
	u.err = err
	data := u.buf[:k+n]
	units := make([]uint16, len(data)/2)
	for i := range units {
		units[i] = u.order.Uint16(data[2*i:])
	}
	rest := data[2*len(units):]
	if last := len(units) - 1; err == nil && last >= 0 && units[last] >= 0xD800 && units[last] < 0xDC00 {
		// A high surrogate whose low half the next read brings.
		units, rest = units[:last], data[2*last:]
	}
	u.carry = append(u.carry[:0], rest...)
	u.out = []byte(string(utf16.Decode(units)))
}
