package main

import (
	"flag"
	"fmt"
	"io"
)

// newFlagSet returns the flag set of a command whose usage message is
// usage (the command line, and what the command does if that needs
// saying) followed by the flags.
func newFlagSet(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\n\nflags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseCommand parses a command's arguments and requires the flags named.
func parseCommand(fs *flag.FlagSet, args []string, stderr io.Writer, required ...string) error {
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	return requireFlags(fs, required...)
}

// tableFlags are the flags of the commands that apply a model of fit to
// a table: predict, score and explain.
type tableFlags struct {
	model, data, sep *string
	strict           *bool
}

// addTableFlags defines -model, -data (described by dataHelp), -sep and
// -strict.
func addTableFlags(fs *flag.FlagSet, dataHelp string) tableFlags {
	return tableFlags{
		model:  fs.String("model", "", "the model JSON `file` written by machines fit (required)"),
		data:   fs.String("data", "", dataHelp+" (required)"),
		sep:    sepFlag(fs),
		strict: strictFlag(fs),
	}
}

// inputs returns the files the flags name.
func (tf tableFlags) inputs() []pathFlag {
	return append([]pathFlag{{"model", *tf.model}}, dataInputs(*tf.data)...)
}

// labelledHelp describes the -data of the commands that score a model.
const labelledHelp = "labelled data: a CSV, Parquet or Arrow `file` with the model's input columns and its target column,\na quoted glob pattern of such files read as one table, or - for standard input"
