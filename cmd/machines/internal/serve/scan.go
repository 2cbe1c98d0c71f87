package serve

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner reads JSON from a byte slice without allocating, except for
// the strings it returns that hold escapes. It follows RFC 8259: any
// whitespace between tokens, numbers as the grammar has them, strings of
// valid UTF-8. Arrays and objects may nest at most max levels deep.
type scanner struct {
	data  []byte
	pos   int
	depth int
	max   int
}

// syntaxError returns the error of JSON that is invalid, or not what the
// request should hold, at the scanner's place.
func (s *scanner) syntaxError(format string, args ...any) error {
	return badRequest("bad request at byte %d: %s", s.pos, fmt.Sprintf(format, args...))
}

// next skips whitespace and returns the next byte, or 0 at the end.
func (s *scanner) next() byte {
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; c {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return c
		}
	}
	return 0
}

// enter steps into an array or object at s.pos, checking the depth.
func (s *scanner) enter() error {
	if s.depth++; s.depth > s.max {
		return badRequest("bad request at byte %d: JSON nested deeper than %d levels", s.pos, s.max)
	}
	s.pos++
	return nil
}

// object reads the object at the scanner's place, calling field for
// each key with the scanner at the key's value, which field must read.
func (s *scanner) object(field func(key []byte) error) error {
	return s.sequence('{', '}', "an object", func(int) error {
		if s.next() != '"' {
			return s.syntaxError("want a field name")
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		if s.next() != ':' {
			return s.syntaxError("want ':' after a field name")
		}
		s.pos++
		return field(key)
	})
}

// array reads the array at the scanner's place, calling elem for each
// element with the scanner at it, which elem must read.
func (s *scanner) array(elem func(i int) error) error {
	return s.sequence('[', ']', "an array", elem)
}

// sequence reads the array or object, as open and close say, at the
// scanner's place, calling item to read each of its items.
func (s *scanner) sequence(open, close byte, what string, item func(i int) error) error {
	if s.next() != open {
		return s.syntaxError("want %s", what)
	}
	if err := s.enter(); err != nil {
		return err
	}
	if s.next() == close {
		s.pos++
		s.depth--
		return nil
	}
	for i := 0; ; i++ {
		if err := item(i); err != nil {
			return err
		}
		switch s.next() {
		case ',':
			s.pos++
		case close:
			s.pos++
			s.depth--
			return nil
		default:
			return s.syntaxError("want ',' or '%c' in %s", close, what)
		}
	}
}

// str reads the string at the scanner's place and returns its value: a
// part of the input if it holds no escapes, a new slice otherwise.
func (s *scanner) str() ([]byte, error) {
	if s.next() != '"' {
		return nil, s.syntaxError("want a string")
	}
	s.pos++
	start := s.pos
	escaped := false
	for {
		if s.pos >= len(s.data) {
			return nil, s.syntaxError("unterminated string")
		}
		c := s.data[s.pos]
		switch {
		case c == '"':
			raw := s.data[start:s.pos]
			s.pos++
			if !utf8.Valid(raw) {
				return nil, badRequest("bad request at byte %d: a string that is not UTF-8", start)
			}
			if !escaped {
				return raw, nil
			}
			return unescape(raw), nil
		case c < 0x20:
			return nil, s.syntaxError("control character %#x in a string", c)
		case c == '\\':
			if err := s.escape(); err != nil {
				return nil, err
			}
			escaped = true
		default:
			s.pos++
		}
	}
}

// escape checks the escape sequence at the scanner's place and steps
// over it.
func (s *scanner) escape() error {
	if s.pos+1 >= len(s.data) {
		return s.syntaxError("unterminated string")
	}
	switch s.data[s.pos+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.pos += 2
		return nil
	case 'u':
		if s.pos+6 > len(s.data) {
			return s.syntaxError("unterminated \\u escape")
		}
		if _, ok := hex4(s.data[s.pos+2 : s.pos+6]); !ok {
			return s.syntaxError("bad \\u escape")
		}
		s.pos += 6
		return nil
	}
	return s.syntaxError("bad escape \\%c", s.data[s.pos+1])
}

// hex4 reads four hexadecimal digits.
func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// unescape returns the value of the raw contents of a string whose
// escapes str has checked. A lone surrogate becomes U+FFFD, as in
// encoding/json.
func unescape(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch e := raw[i+1]; e {
		case 'u':
			r, _ := hex4(raw[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					r2, _ = hex4(raw[i+2 : i+6])
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
			continue
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		default: // '"', '\\', '/'
			out = append(out, e)
		}
		i += 2
	}
	return out
}

// number reads the number at the scanner's place and returns its text.
func (s *scanner) number() ([]byte, error) {
	start := s.pos
	if s.pos < len(s.data) && s.data[s.pos] == '-' {
		s.pos++
	}
	switch {
	case s.pos < len(s.data) && s.data[s.pos] == '0':
		s.pos++
	case s.digits() == 0:
		return nil, s.syntaxError("want a value")
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return nil, s.syntaxError("want digits after a decimal point")
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return nil, s.syntaxError("want digits in an exponent")
		}
	}
	return s.data[start:s.pos], nil
}

// digits steps over the decimal digits at the scanner's place and
// returns how many there were.
func (s *scanner) digits() int {
	start := s.pos
	for s.pos < len(s.data) && s.data[s.pos]-'0' <= 9 {
		s.pos++
	}
	return s.pos - start
}

// token steps over a number or literal that number or literal has
// already checked, and returns its text.
func (s *scanner) token() []byte {
	start := s.pos
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return s.data[start:s.pos]
		}
		s.pos++
	}
	return s.data[start:]
}

// literal reads the literal word (true, false or null) at the scanner's
// place.
func (s *scanner) literal(word string) error {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		return s.syntaxError("want a value")
	}
	s.pos += len(word)
	return nil
}

// skip reads any value at the scanner's place.
func (s *scanner) skip() error {
	switch c := s.next(); c {
	case '{':
		return s.object(func([]byte) error { return s.skip() })
	case '[':
		return s.array(func(int) error { return s.skip() })
	case '"':
		_, err := s.str()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		_, err := s.number()
		return err
	}
}

// integer reads a whole number of at most max at the scanner's place.
func (s *scanner) integer(max int) (int, error) {
	s.next()
	at := s.pos
	text, err := s.number()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(string(text), 10, 64)
	if err != nil || v < 0 || v > int64(max) {
		return 0, badRequest("bad request at byte %d: %s, want a whole number from 0 to %d", at, text, max)
	}
	return int(v), nil
}
