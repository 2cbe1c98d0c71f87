package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/tabular"
)

func runScore(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("score", "usage: machines score -model FILE -data FILE [-json FILE]")
	var (
		tf       = addTableFlags(fs, labelledHelp)
		interval = fs.Float64("interval", 0, "also report the coverage and mean width of the conformal prediction intervals of this `level`\n(classification: the coverage and mean size of the prediction sets)")
		jsonPath = fs.String("json", "", "also write the scores to this JSON `file`")
	)
	if err := parseCommand(fs, args, stderr, "model", "data"); err != nil {
		return err
	}
	if *jsonPath != "" {
		if err := checkOutput("json", *jsonPath, "scores.json"); err != nil {
			return err
		}
	}
	if err := checkOverwrites(tf.inputs(), []pathFlag{{"json", *jsonPath}}); err != nil {
		return err
	}
	md, level, err := loadModel(fs, *tf.model, *interval)
	if err != nil {
		return err
	}
	e, name, err := scoreTable(md, *tf.data, *tf.sep, *tf.strict, level, stderr)
	if err != nil {
		return err
	}
	reportLabelled(stderr, "score", md, name, e.Rows+e.Dropped, e.Dropped, e.Warnings)
	fmt.Fprintf(stdout, "score: %d rows: %s\n", e.Rows, e)
	if *jsonPath != "" {
		return writeJSON(*jsonPath, e)
	}
	return nil
}

// scoreTable scores md on the table at path, or standard input (path
// "-"), with tabular.Model.ScoreSource, which streams a large table. A
// model of version 1 (no encoder) scores standard input read whole with
// Score, since ScoreSource reads a large table twice for it. It returns
// the table's name.
func scoreTable(md *tabular.Model, path, sep string, strict bool, level float64, stderr io.Writer) (*tabular.Evaluation, string, error) {
	if path == "-" && md.Encoder == nil {
		f, err := loadTable(path, sep, strict, stderr, "score")
		if err != nil {
			return nil, "", err
		}
		e, err := md.Score(f, level)
		return e, f.Name(), err
	}
	name := path
	e, err := md.ScoreSource(func() (*dataset.TableReader, error) {
		fr, err := openTable(path, sep, strict)
		if err == nil {
			describeFormat(stderr, "score", fr)
			name = fr.Name()
		}
		return fr, err
	}, level)
	return e, name, err
}

// reportLabelled says on stderr how many of the rows of the table name
// were left out for a missing target, and prints the encoder's warnings
// about the others.
func reportLabelled(stderr io.Writer, cmd string, md *tabular.Model, name string, rows, dropped int, warnings []dataset.Warning) {
	if dropped > 0 {
		fmt.Fprintf(stderr, "machines %s: %s: left out %d of %d rows with no value in column %q\n", cmd, name, dropped, rows, strings.Join(md.TargetNames(), ","))
	}
	printWarnings(stderr, cmd, warnings)
}

// writeJSON writes v to path as indented JSON, atomically.
func writeJSON(path string, v any) error {
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}
