package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// manualUsages returns the usage lines of the package comment, each
// joined with its continuation lines, by command.
func manualUsages(t *testing.T) map[string][]string {
	t.Helper()
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	usages := map[string][]string{}
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		line, ok := strings.CutPrefix(lines[i], "//\tmachines ")
		if !ok {
			continue
		}
		for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, `\`) + " " + strings.TrimSpace(strings.TrimPrefix(lines[i], "//"))
		}
		name, _, _ := strings.Cut(line, " ")
		usages[name] = append(usages[name], line)
	}
	return usages
}

// definedFlags returns the flags that "machines name -h" lists.
func definedFlags(t *testing.T, name string) map[string]bool {
	t.Helper()
	var stdout, stderr bytes.Buffer
	run([]string{name, "-h"}, &stdout, &stderr)
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(stdout.String(), -1) {
		flags[m[1]] = true
	}
	return flags
}

// The manual's usage lines name only flags that their command defines,
// and every command has one, so that the manual cannot drift from the
// flags.
func TestManualUsage(t *testing.T) {
	usages := manualUsages(t)
	flagWord := regexp.MustCompile(`(?:^|[\s\[|])-([a-z][a-z0-9-]*)`)
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			lines := usages[c.name]
			if len(lines) == 0 {
				t.Fatalf("the manual has no usage line for %s", c.name)
			}
			defined := definedFlags(t, c.name)
			for _, line := range lines {
				for _, m := range flagWord.FindAllStringSubmatch(line, -1) {
					if !defined[m[1]] {
						t.Errorf("the manual's usage line\n\tmachines %s\nnames -%s, which %s does not define", line, m[1], c.name)
					}
				}
			}
		})
	}
}
