package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/kernel"
)

// The model file's format name, the version this program writes and reads,
// and the kinds of model it knows.
const (
	modelFormat  = "machines-model"
	modelVersion = 1
	kindKernel   = "kernel-machine"
)

// The tasks a model can be fitted for.
const (
	taskRegression     = "regression"
	taskClassification = "classification"
)

// modelFile is the JSON content of a model file written by fit.
type modelFile struct {
	Format   string          `json:"format"`
	Version  int             `json:"version"`
	Kind     string          `json:"kind"`
	Task     string          `json:"task"`
	Features []string        `json:"features"`
	Target   string          `json:"target"`
	Classes  []string        `json:"classes,omitempty"`
	Machine  *kernel.Machine `json:"machine"`
}

// writeModel checks md and writes it to path, replacing the file
// atomically. The header fields come one per line, the machine last on a
// single line, so that the head of the file tells what it holds.
func writeModel(path string, md *modelFile) error {
	if err := md.check(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// The outer Machine field, left nil, hides md's.
	head, err := json.MarshalIndent(struct {
		*modelFile
		Machine *kernel.Machine `json:"machine,omitempty"`
	}{modelFile: md}, "", "  ")
	if err != nil {
		return err
	}
	body, err := json.Marshal(md.Machine)
	if err != nil {
		return err
	}
	// head is "{\n  ...\n}": reopen it to append the machine.
	head = bytes.TrimSuffix(head, []byte("\n}"))
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%s,\n  \"machine\": %s\n}\n", head, body)
		return err
	})
}

// readModel reads and checks the model file at path. Its errors name the
// file.
func readModel(path string) (*modelFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s: truncated or not JSON: %v (at byte %d)", path, err, se.Offset)
		}
		return nil, fmt.Errorf("%s: truncated or not JSON: %v", path, err)
	}
	// Look at the format and version first: a file of another format or
	// of a later version need not follow the rest of this schema.
	var head struct {
		Format  string          `json:"format"`
		Version json.RawMessage `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.Format != modelFormat {
		return nil, fmt.Errorf("%s is not a machines model file (no \"format\": %q)", path, modelFormat)
	}
	if head.Version == nil {
		return nil, fmt.Errorf("%s: missing field \"version\"", path)
	}
	version, err := strconv.Atoi(string(head.Version))
	if err != nil || version < 1 {
		return nil, fmt.Errorf("%s: format version %s, want a whole number from 1", path, head.Version)
	}
	if version > modelVersion {
		return nil, fmt.Errorf("%s has format version %d; this machines reads version %d: upgrade machines", path, version, modelVersion)
	}

	md := new(modelFile)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(md); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%s: field %q holds a JSON %s, want %v", path, te.Field, te.Value, te.Type)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := md.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return md, nil
}

// check reports what makes md unusable for predict. The machine itself
// has been checked by its decoder, or is checked by its encoder.
func (md *modelFile) check() error {
	if md.Kind != kindKernel {
		return fmt.Errorf("unknown model kind %q; this machines knows %q", md.Kind, kindKernel)
	}
	if md.Task != taskRegression && md.Task != taskClassification {
		return fmt.Errorf("unknown task %q, want %q or %q", md.Task, taskRegression, taskClassification)
	}
	if md.Target == "" {
		return errors.New("missing field \"target\"")
	}
	if len(md.Features) == 0 {
		return errors.New("missing field \"features\"")
	}
	for i, f := range md.Features {
		switch {
		case f == "":
			return fmt.Errorf("feature %d has an empty name", i)
		case f == md.Target:
			return fmt.Errorf("the target %q is also a feature", f)
		case slices.Contains(md.Features[:i], f):
			return fmt.Errorf("feature %q is listed twice", f)
		}
	}
	m := md.Machine
	if m == nil {
		return errors.New("missing field \"machine\"")
	}
	if m.A == nil {
		// Only a machine built in code, not a decoded one, lacks A.
		return errors.New("the machine has no matrix a")
	}
	if m.Inputs() != len(md.Features) {
		return fmt.Errorf("the machine has %d inputs for the %d features %q", m.Inputs(), len(md.Features), md.Features)
	}
	switch md.Task {
	case taskRegression:
		if md.Classes != nil {
			return errors.New("a regression model lists classes")
		}
		if m.Outputs() != 1 {
			return fmt.Errorf("the machine has %d outputs, want 1 for regression", m.Outputs())
		}
	case taskClassification:
		if len(md.Classes) < 2 {
			return fmt.Errorf("a classification model needs at least 2 classes, the file lists %d", len(md.Classes))
		}
		for i, c := range md.Classes {
			if slices.Contains(md.Classes[:i], c) {
				return fmt.Errorf("class %q is listed twice", c)
			}
		}
		if m.Outputs() != len(md.Classes) {
			return fmt.Errorf("the machine has %d outputs for %d classes", m.Outputs(), len(md.Classes))
		}
		if m.Output != nil {
			return errors.New("a classification machine has an output scaler")
		}
	}
	return nil
}
