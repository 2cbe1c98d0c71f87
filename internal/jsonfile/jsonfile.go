// Package jsonfile reads the module's versioned JSON files: objects whose
// "format" field names their schema and whose "version" field, a whole
// number from 1, says which revision of the schema the rest follows.
//
// The header is checked before the rest is decoded, because a file of
// another format or of another version need not follow this schema, and
// decoding it anyway would report a confusing field rather than the real
// problem. The errors say what was found and what was wanted but not the
// file, which the caller names.
package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Envelope is the "format" of the module's files of one envelope: an
// object whose "kind" says what it holds ("model", "params", ...) and
// whose "version" is that kind's.
const Envelope = "machines"

// Format is a versioned JSON file format.
type Format struct {
	// Name is the value of the "format" field: Envelope, or an older
	// format's own name, such as "machines-model".
	Name string
	// Kind, for a format of the envelope, is the value of the "kind"
	// field.
	Kind string
	// What says what a file of the format is, for messages, such as
	// "a machines model file".
	What string
	// Oldest and Newest are the first and last versions this program
	// reads.
	Oldest, Newest int
	// Legacy, for a format of the envelope, is the "format" its files
	// had before the envelope, whose versions from Oldest to
	// LegacyNewest are read too (the envelope's versions continue
	// theirs). Empty if there was none.
	Legacy       string
	LegacyNewest int
}

// Header is the head of every file of the module, embedded first in the
// structs that files decode into: its "format", "kind" and "version".
type Header struct {
	Format  string `json:"format"`
	Kind    string `json:"kind,omitempty"`
	Version int    `json:"version"`
}

// SetHeader sets the header to to. A struct that embeds Header has the
// method too, so that code writing files of several kinds, such as
// package checkpoint, can stamp any of them.
func (h *Header) SetHeader(to Header) { *h = to }

// Header returns the header of the files of f that this program writes:
// its newest version.
func (f Format) Header() Header { return Header{Format: f.Name, Kind: f.Kind, Version: f.Newest} }

// Check checks that data is one JSON object whose "format" is f.Name (and
// "kind" f.Kind, if set) and whose "version" is between f.Oldest and
// f.Newest, or whose "format" is f.Legacy and "version" between f.Oldest
// and f.LegacyNewest. A syntax error is returned wrapped, with its offset
// in the message.
func (f Format) Check(data []byte) error {
	var head struct {
		Format  json.RawMessage `json:"format"`
		Kind    json.RawMessage `json:"kind"`
		Version json.RawMessage `json:"version"`
	}
	if len(bytes.TrimSpace(data)) == 0 {
		// Say so rather than "unexpected end of JSON input": a run
		// stopped before it wrote anything, or a name mistaken.
		return fmt.Errorf("empty, not %s", f.What)
	}
	if err := json.Unmarshal(data, &head); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return fmt.Errorf("invalid JSON at byte %d: %w", syn.Offset, err)
		}
		// Otherwise data is valid JSON but not an object, as the fields
		// of head take any value.
		found := "value"
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			found = te.Value
		}
		return fmt.Errorf("not %s (a JSON %s, want an object with \"format\": %s)", f.What, found, f.want())
	}
	if head.Format == nil {
		return fmt.Errorf("not %s (no \"format\": %s)", f.What, f.want())
	}
	var name string
	isString := json.Unmarshal(head.Format, &name) == nil
	switch {
	case isString && f.Legacy != "" && name == f.Legacy:
		return f.checkVersion(head.Version, name, f.LegacyNewest)
	case !isString || name != f.Name:
		return fmt.Errorf("not %s (format %s, want %s)", f.What, head.Format, f.want())
	}
	if f.Kind != "" {
		var kind string
		if json.Unmarshal(head.Kind, &kind) != nil || kind != f.Kind {
			return fmt.Errorf("not %s (kind %s, want %q)", f.What, orNone(head.Kind), f.Kind)
		}
	}
	return f.checkVersion(head.Version, f.name(), f.Newest)
}

// want says in messages what the "format" field should hold.
func (f Format) want() string {
	if f.Kind != "" {
		return fmt.Sprintf("%q with \"kind\": %q", f.Name, f.Kind)
	}
	return strconv.Quote(f.Name)
}

// name names the format in messages: its kind in the envelope.
func (f Format) name() string {
	if f.Kind != "" {
		return f.Kind
	}
	return f.Name
}

// checkVersion checks a "version" against Oldest and newest.
func (f Format) checkVersion(raw json.RawMessage, name string, newest int) error {
	if raw == nil {
		return errors.New("missing \"version\"")
	}
	v, err := strconv.Atoi(string(raw))
	switch {
	case err != nil || v < 1:
		return fmt.Errorf("version %s, want a whole number from 1", raw)
	case v > newest:
		return fmt.Errorf("%s version %d is newer than this program reads (%s): upgrade the program", name, v, versions(f.Oldest, newest))
	case v < f.Oldest:
		return fmt.Errorf("%s version %d is older than this program reads (%s)", name, v, versions(f.Oldest, newest))
	}
	return nil
}

func orNone(raw json.RawMessage) string {
	if raw == nil {
		return "none"
	}
	return string(raw)
}

func versions(oldest, newest int) string {
	if oldest == newest {
		return fmt.Sprintf("version %d", newest)
	}
	return fmt.Sprintf("versions %d to %d", oldest, newest)
}

// Decode checks data as Check does and decodes it into dst, refusing the
// fields that dst does not have.
func (f Format) Decode(data []byte, dst any) error {
	if err := f.Check(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		// The default message names the Go struct rather than the JSON.
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("field %q holds a JSON %s, want %v", te.Field, te.Value, te.Type)
		}
		return err
	}
	return nil
}

// Number parses a JSON value that must be a finite number. Its errors
// read as a predicate of the value's position ("a[1][2] is ..."), which
// the caller names.
func Number(raw json.RawMessage) (float64, error) {
	s := string(bytes.TrimSpace(raw))
	if s == "" || s[0] == '"' || s[0] == '[' || s[0] == '{' || s == "null" || s == "true" || s == "false" {
		return 0, fmt.Errorf("is %s, want a number", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case math.IsInf(v, 0):
		return 0, fmt.Errorf("is %s, too large for a float64", s)
	case err != nil:
		return 0, fmt.Errorf("is %s, want a number", s)
	}
	return v, nil
}

// DecodeObject decodes data, one JSON object called what ("machine"),
// into v, refusing fields that v does not have. Its errors say which
// field holds a value of the wrong type.
func DecodeObject(data []byte, v any, what string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field == "":
		return fmt.Errorf("the %s is a JSON %s, want an object", what, te.Value)
	case errors.As(err, &te):
		return fmt.Errorf("field %q holds a JSON %s, want %v", te.Field, te.Value, te.Type)
	}
	return err
}
