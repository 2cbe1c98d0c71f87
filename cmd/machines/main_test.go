package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

const overviewHead = "usage: machines <command> [flags]"

func TestHelp(t *testing.T) {
	type want struct {
		code           int
		stdout, stderr string // substrings; empty means the stream must be empty
	}
	tests := []struct {
		args []string
		want want
	}{
		{nil, want{2, "", overviewHead}},
		{[]string{"help"}, want{0, overviewHead, ""}},
		{[]string{"-h"}, want{0, overviewHead, ""}},
		{[]string{"-help"}, want{0, overviewHead, ""}},
		{[]string{"--help"}, want{0, overviewHead, ""}},
		{[]string{"help", "nosuch"}, want{2, "", `unknown command "nosuch"`}},
		{[]string{"help", "fit", "predict"}, want{2, "", "at most one command"}},
		{[]string{"nosuch"}, want{2, "", "machines: unknown command \"nosuch\"\nrun 'machines help'"}},
		{[]string{"help", "help"}, want{0, overviewHead, ""}},
		{[]string{"fitt"}, want{2, "", `unknown command "fitt"; did you mean "fit"?`}},
		{[]string{"FIT"}, want{2, "", `did you mean "fit"?`}},
		{[]string{"expriment"}, want{2, "", `did you mean "experiment"?`}},
		{[]string{"help", "sevre"}, want{2, "", `machines help: unknown command "sevre"; did you mean "serve"?`}},
		{[]string{"hlp"}, want{2, "", `did you mean "help"?`}},
		{[]string{"experiment", "polynomial", "-h"}, want{0, "usage: machines experiment", ""}},
		{[]string{"experiment", "-quick", "sine", "--help"}, want{0, "usage: machines experiment", ""}},
		{[]string{"fit", "-data", "x.csv", "-help"}, want{0, "usage: machines fit", ""}},
	}
	for _, c := range commands() {
		for _, args := range [][]string{{"help", c.name}, {c.name, "-h"}, {c.name, "-help"}, {c.name, "--help"}} {
			tests = append(tests, struct {
				args []string
				want want
			}{args, want{0, "usage: machines " + c.name, ""}})
		}
	}
	for _, test := range tests {
		t.Run(strings.Join(test.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(test.args, &stdout, &stderr)
			if code != test.want.code {
				t.Errorf("exit status %d, want %d", code, test.want.code)
			}
			for _, s := range []struct {
				name      string
				got, want string
			}{{"stdout", stdout.String(), test.want.stdout}, {"stderr", stderr.String(), test.want.stderr}} {
				if s.want == "" && s.got != "" || !strings.Contains(s.got, s.want) {
					t.Errorf("%s %q, want %q", s.name, s.got, s.want)
				}
			}
		})
	}
}

// TestRepeatedFlag checks that a flag given twice is refused before any
// work, where the flag package would keep the last value without a word,
// and that the help printed after a parse still lists the defaults.
func TestRepeatedFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", "-data", "x.csv", "-target", "a", "-target", "b", "-model", "m.json"}, "machines fit: -target is given twice"},
		{[]string{"predict", "-strict", "-model", "m.json", "-strict"}, "machines predict: -strict is given twice"},
		{[]string{"experiment", "-seed", "1", "depth", "-seed", "2"}, "machines experiment: -seed is given twice"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code != 2 || !strings.HasPrefix(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
	var stdout bytes.Buffer
	if code := run([]string{"fit", "-seed", "2", "-h"}, &stdout, io.Discard); code != 0 || !strings.Contains(stdout.String(), `(default "auto")`) || strings.Contains(stdout.String(), "panic") {
		t.Errorf("fit -seed 2 -h: exit %d, help:\n%s", code, stdout.String())
	}
}

// TestHelpNamesArguments checks that every flag's help names what its
// argument is ("-data file"), not the Go type the flag package shows by
// default ("-data string").
func TestHelpNamesArguments(t *testing.T) {
	goType := regexp.MustCompile(`(?m)^  -\S+ (string|int|uint|float|value)$`)
	for _, c := range commands() {
		var stdout bytes.Buffer
		run([]string{c.name, "-h"}, &stdout, io.Discard)
		for _, line := range goType.FindAllString(stdout.String(), -1) {
			t.Errorf("machines %s -h: %q names a Go type: name the argument in the flag's usage between backquotes", c.name, line)
		}
	}
}

// TestHelpListsEveryCommand checks that the overview names each command.
func TestHelpListsEveryCommand(t *testing.T) {
	var stdout bytes.Buffer
	run([]string{"help"}, &stdout, io.Discard)
	for _, c := range commands() {
		if !strings.Contains(stdout.String(), "\n  "+c.name+" ") {
			t.Errorf("overview does not list %s:\n%s", c.name, stdout.String())
		}
	}
}

// TestManualOverview checks that the package comment lists the commands
// as the overview prints them: the table of commands is their one source.
func TestManualOverview(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(src), "// The commands are")
	if !ok {
		t.Fatal("main.go has no list of the commands")
	}
	var listed []string
	for _, line := range strings.Split(block, "\n")[1:] {
		if text, ok := strings.CutPrefix(line, "//\t"); ok {
			listed = append(listed, text)
		} else if len(listed) > 0 {
			break
		}
	}
	if want := overview(); !slices.Equal(listed, want) {
		t.Errorf("the package comment lists\n%s\nwant, as the overview prints them,\n%s", strings.Join(listed, "\n"), strings.Join(want, "\n"))
	}
}

func TestUnknownFlag(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run([]string{c.name, "-foo"}, &stdout, &stderr); code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			want := "machines " + c.name + ": flag provided but not defined: -foo\n" +
				"run 'machines " + c.name + " -h' for usage\n"
			if stderr.String() != want || stdout.Len() != 0 {
				t.Errorf("stdout %q, stderr %q; want no output and stderr %q", stdout.String(), stderr.String(), want)
			}
		})
	}
}

// TestExperimentFlagOrder checks that the flags of experiment may come
// before or after the name: the flag package stops at the first argument
// that is not a flag.
func TestExperimentFlagOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"flag before name", []string{"experiment", "-quick", "oneshot"}, "oneshot needs -data"},
		{"flags around name", []string{"experiment", "-seed", "3", "oneshot", "-maxfreq", "0"}, "maxfreq 0"},
		{"unknown name after flags", []string{"experiment", "-quick", "nosuch"}, `unknown experiment "nosuch"`},
		{"two names", []string{"experiment", "sine", "-quick", "polynomial"}, `want one experiment name, got ["sine" "polynomial"]`},
		{"no name", []string{"experiment", "-quick"}, "missing experiment name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit status %d, stderr %q; want 2 and a mention of %q", code, stderr.String(), tc.want)
			}
		})
	}
}

// TestExperimentFlagsAfterNameApply runs an experiment with flags on both
// sides of its name and checks that the report records them.
func TestExperimentFlagsAfterNameApply(t *testing.T) {
	if testing.Short() || underRace {
		t.Skip("runs the polynomial experiment, single-threaded: 9 minutes under the race detector")
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"experiment", "-quick", "polynomial", "-seed", "7", "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, stderr.String())
	}
	raw, err := os.ReadFile(filepath.Join(out, "polynomial.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Seed  uint64 `json:"seed"`
		Quick bool   `json:"quick"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Seed != 7 || !rep.Quick {
		t.Errorf("report has seed %d quick %v, want 7 true", rep.Seed, rep.Quick)
	}
}

func TestVersionLine(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build information", nil, "machines (devel), no build information"},
		{"no version", &debug.BuildInfo{GoVersion: "go1.24.0"}, "machines (devel), go1.24.0"},
		{
			"source tree",
			&debug.BuildInfo{GoVersion: "go1.24.0", Main: debug.Module{Version: "(devel)"},
				Settings: settings("vcs", "git", "vcs.revision", "abc123", "vcs.modified", "false")},
			"machines (devel), revision abc123, go1.24.0",
		},
		{
			"dirty tree",
			&debug.BuildInfo{GoVersion: "go1.24.0", Main: debug.Module{Version: "(devel)"},
				Settings: settings("vcs.revision", "abc123", "vcs.modified", "true")},
			"machines (devel), revision abc123 (dirty), go1.24.0",
		},
		{
			"module version",
			&debug.BuildInfo{GoVersion: "go1.23.4", Main: debug.Module{Version: "v1.2.3"}},
			"machines v1.2.3, go1.23.4",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionLine(tc.bi); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestVersionCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"version"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d; stderr %q", code, stderr.String())
	}
	got := stdout.String()
	if !strings.HasPrefix(got, "machines ") || !strings.HasSuffix(got, ", "+runtime.Version()+"\n") {
		t.Errorf("stdout %q, want machines VERSION, ..., %s", got, runtime.Version())
	}
}

// TestErrorPrefix checks that each error is printed with one prefix, also
// when the package behind a command begins its errors with the command's
// name.
func TestErrorPrefix(t *testing.T) {
	fail := func(err error) command {
		return command{name: "bench", run: func([]string, io.Writer, io.Writer) error { return err }}
	}
	for _, tc := range []struct {
		name string
		err  error
		code int
		want string
	}{
		{"package prefix", errors.New("bench: W1: boom"), 1, "machines bench: W1: boom\n"},
		{"other prefix", errors.New("dataset: x.csv: empty"), 1, "machines bench: dataset: x.csv: empty\n"},
		{"name inside", errors.New("benchmark bench: failed"), 1, "machines bench: benchmark bench: failed\n"},
		{"usage", usagef("bench: -runs 0"), 2, "machines bench: -runs 0\nrun 'machines bench -h' for usage\n"},
		{"bare ErrHelp", flag.ErrHelp, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			c := fail(tc.err)
			if code := exitStatus(c, c.run(nil, &stdout, &stderr), &stdout, &stderr); code != tc.code || stderr.String() != tc.want {
				t.Errorf("exit status %d, stderr %q; want %d and %q", code, stderr.String(), tc.code, tc.want)
			}
		})
	}
}

// TestNoDoubledPrefix runs commands that fail inside the packages behind
// them and checks that no prefix is said twice.
func TestNoDoubledPrefix(t *testing.T) {
	few := t.TempDir() // fewer training images than a minibatch
	writeIDX(t, few, "train", 16, 8, 3)
	writeIDX(t, few, "t10k", 8, 8, 3)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"experiment of a package", []string{"experiment", "sculpt", "-data", few, "-out", t.TempDir()},
			"machines experiment: sculpt: 14 training images after holding out 2 for validation, fewer than a batch of 32\n"},
		{"sculpt", []string{"sculpt", "-data", few, "-out", t.TempDir()},
			"machines sculpt: 14 training images after holding out 2 for validation, fewer than a batch of 32\n"},
		{"experiment writing its report", []string{"experiment", "polynomial", "-quick", "-out", "/dev/null/out"},
			"machines experiment: mkdir /dev/null: not a directory\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != 1 || !strings.HasSuffix(stderr.String(), tc.want) {
				t.Errorf("exit status %d, stderr %q; want 1 and %q at its end", code, stderr.String(), tc.want)
			}
		})
	}
}

func Example_help() {
	run([]string{"help", "version"}, os.Stdout, os.Stderr)
	// Output:
	// usage: machines version
	//
	// prints the module version, the VCS revision and the Go version of this build
}
