package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/internal/jsonfile"
	"github.com/parametric-machines/machines/kernel"
)

// The version of the model file this program writes and the kinds of
// model it knows.
const (
	modelVersion = 1
	kindKernel   = "kernel-machine"
)

// modelFormat is the model file's format; this program reads every
// version up to the one it writes.
var modelFormat = jsonfile.Format{Name: "machines-model", What: "a machines model file", Oldest: 1, Newest: modelVersion}

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
	md := new(modelFile)
	if err := modelFormat.Decode(data, md); err != nil {
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
