package main

import (
	"os"
	"path/filepath"
)

// pathFlag is a flag that names a file or a directory, with its value.
type pathFlag struct {
	name, path string
}

// checkOverwrites refuses, before any work, a command line whose
// outputs would write over one of its inputs, or over one another: an
// output must not be an input, nor an earlier output. Standard input and
// output ("-") and flags not given (empty) are never the same file as
// another. Two paths name the same file when they lead to it by other
// routes (a symbolic link, a hard link, "..").
func checkOverwrites(inputs, outputs []pathFlag) error {
	for i, out := range outputs {
		for _, in := range inputs {
			if samePath(in.path, out.path) {
				return overwriteError(out, in, "its input")
			}
		}
		for _, prev := range outputs[:i] {
			if samePath(prev.path, out.path) {
				return overwriteError(out, prev, "another output")
			}
		}
	}
	return nil
}

// overwriteError says that the output out would write over the file of
// flag f, which is what.
func overwriteError(out, f pathFlag, what string) error {
	return usagef("-%s %s: is the file of -%s %s: the command would write over %s; name another file",
		out.name, out.path, f.name, f.path, what)
}

// samePath reports whether the paths a and b name the same file: the
// same file on disk when both exist, or else the same cleaned absolute
// path.
func samePath(a, b string) bool {
	if a == "" || b == "" || a == "-" || b == "-" {
		return false
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// explainOutputs returns the files that explain writes: -json, and the
// PNG and SVG pictures of -figure.
func explainOutputs(jsonPath, figBase string) []pathFlag {
	outs := []pathFlag{{"json", jsonPath}}
	if figBase != "" {
		outs = append(outs, pathFlag{"figure", figBase + ".png"}, pathFlag{"figure", figBase + ".svg"})
	}
	return outs
}
