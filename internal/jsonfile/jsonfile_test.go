package jsonfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

func TestCheck(t *testing.T) {
	one := Format{Name: "test-format", What: "a test file", Oldest: 1, Newest: 1}
	range2to3 := Format{Name: "test-format", What: "a test file", Oldest: 2, Newest: 3}
	enveloped := Format{Name: Envelope, Kind: "test", What: "a test file", Oldest: 1, Newest: 3, Legacy: "test-format", LegacyNewest: 2}
	for _, tc := range []struct {
		name string
		f    Format
		data string
		want string // "" for no error
	}{
		{"valid", one, `{"format": "test-format", "version": 1, "other": [1, 2]}`, ""},
		{"in range", range2to3, `{"version": 3, "format": "test-format"}`, ""},
		{"escaped name", one, `{"format": "test\u002dformat", "version": 1}`, ""},
		{"empty", one, "", "empty, not a test file"},
		{"blank", one, " \n", "empty, not a test file"},
		{"truncated", one, `{"format": "test-format", "vers`, "invalid JSON at byte 31: unexpected end of JSON input"},
		{"not JSON", one, `format: test-format`, "invalid JSON at byte 2: invalid character 'o' in literal false (expecting 'a')"},
		{"trailing data", one, `{"format": "test-format", "version": 1} {}`, "invalid JSON at byte 41: invalid character '{' after top-level value"},
		{"array", one, `[1, 2]`, `not a test file (a JSON array, want an object with "format": "test-format")`},
		{"string", one, `"test-format"`, `not a test file (a JSON string, want an object with "format": "test-format")`},
		{"null", one, `null`, `not a test file (no "format": "test-format")`},
		{"no format", one, `{"version": 1}`, `not a test file (no "format": "test-format")`},
		{"other format", one, `{"format": "other", "version": 1}`, `not a test file (format "other", want "test-format")`},
		{"number format", one, `{"format": 7, "version": 1}`, `not a test file (format 7, want "test-format")`},
		{"null format", one, `{"format": null, "version": 1}`, `not a test file (format null, want "test-format")`},
		{"no version", one, `{"format": "test-format"}`, `missing "version"`},
		{"fractional version", one, `{"format": "test-format", "version": 1.5}`, "version 1.5, want a whole number from 1"},
		{"string version", one, `{"format": "test-format", "version": "1"}`, `version "1", want a whole number from 1`},
		{"version 0", one, `{"format": "test-format", "version": 0}`, "version 0, want a whole number from 1"},
		{"newer", one, `{"format": "test-format", "version": 2}`,
			"test-format version 2 is newer than this program reads (version 1): upgrade the program"},
		{"newer than range", range2to3, `{"format": "test-format", "version": 4}`,
			"test-format version 4 is newer than this program reads (versions 2 to 3): upgrade the program"},
		{"older", range2to3, `{"format": "test-format", "version": 1}`,
			"test-format version 1 is older than this program reads (versions 2 to 3)"},
		{"envelope", enveloped, `{"format": "machines", "kind": "test", "version": 3}`, ""},
		{"envelope of another kind", enveloped, `{"format": "machines", "kind": "model", "version": 3}`,
			`not a test file (kind "model", want "test")`},
		{"envelope without a kind", enveloped, `{"format": "machines", "version": 3}`, `not a test file (kind none, want "test")`},
		{"envelope newer", enveloped, `{"format": "machines", "kind": "test", "version": 4}`,
			"test version 4 is newer than this program reads (versions 1 to 3): upgrade the program"},
		{"legacy", enveloped, `{"format": "test-format", "version": 2}`, ""},
		{"legacy after the envelope", enveloped, `{"format": "test-format", "version": 3}`,
			"test-format version 3 is newer than this program reads (versions 1 to 2): upgrade the program"},
		{"legacy of another format", enveloped, `{"format": "other", "version": 1}`, `not a test file (format "other", want "machines" with "kind": "test")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f.Check([]byte(tc.data))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Errorf("error %v, want %s", err, tc.want)
			}
		})
	}
}

func TestCheckWrapsSyntaxError(t *testing.T) {
	f := Format{Name: "test-format", What: "a test file", Oldest: 1, Newest: 1}
	var syn *json.SyntaxError
	if err := f.Check([]byte(`{"format"`)); !errors.As(err, &syn) {
		t.Errorf("error %v does not wrap a *json.SyntaxError", err)
	}
}

func TestDecode(t *testing.T) {
	type file struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
		Size    int    `json:"size"`
	}
	f := Format{Name: "test-format", What: "a test file", Oldest: 1, Newest: 1}
	for _, tc := range []struct {
		name string
		data string
		want string // "" for no error
	}{
		{"valid", `{"format": "test-format", "version": 1, "size": 3}`, ""},
		{"header first", `{"format": "other", "version": 1, "size": "big"}`, `not a test file (format "other", want "test-format")`},
		{"unknown field", `{"format": "test-format", "version": 1, "sise": 3}`, `json: unknown field "sise"`},
		{"wrong type", `{"format": "test-format", "version": 1, "size": "big"}`, `field "size" holds a JSON string, want int`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got file
			err := f.Decode([]byte(tc.data), &got)
			switch {
			case tc.want != "":
				if err == nil || err.Error() != tc.want {
					t.Errorf("error %v, want %s", err, tc.want)
				}
			case err != nil:
				t.Errorf("unexpected error %v", err)
			case got != file{Format: "test-format", Version: 1, Size: 3}:
				t.Errorf("decoded %+v", got)
			}
		})
	}
}

func TestNumber(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"1.5", ""}, {" -2e3 ", ""}, {`"1"`, `is "1", want a number`}, {"null", "is null, want a number"},
		{"[1]", "is [1], want a number"}, {"1e999", "is 1e999, too large for a float64"}, {"true", "is true, want a number"},
	} {
		_, err := Number(json.RawMessage(tc.raw))
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
			t.Errorf("Number(%s): error %v, want %q", tc.raw, err, tc.want)
		}
	}
}

func TestDecodeObject(t *testing.T) {
	var v struct {
		N int `json:"n"`
	}
	for _, tc := range []struct{ data, want string }{
		{`{"n":1}`, ""},
		{`[1]`, "the thing is a JSON array, want an object"},
		{`{"n":1.5}`, `field "n" holds a JSON number 1.5, want int`},
		{`{"m":1}`, `json: unknown field "m"`},
	} {
		err := DecodeObject([]byte(tc.data), &v, "thing")
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
			t.Errorf("%s: error %v, want %q", tc.data, err, tc.want)
		}
	}
}
