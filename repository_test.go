package machines_test

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// conflictLines returns the numbers of the lines of r that begin or end
// a merge's conflict (git's markers), which a merge can leave behind.
func conflictLines(r io.Reader) []int {
	var lines []int
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		if l := sc.Text(); strings.HasPrefix(l, "<<<<<<< ") || strings.HasPrefix(l, ">>>>>>> ") {
			lines = append(lines, n)
		}
	}
	return lines
}

func TestConflictLines(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"a\nb\n", 0},
		{"a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> branch\n", 2},
		{"a <<<<<<< b\n======= \n", 0},
	} {
		if got := conflictLines(strings.NewReader(tc.text)); len(got) != tc.want {
			t.Errorf("%q: %v, want %d lines", tc.text, got, tc.want)
		}
	}
}

// walkRepository calls check on each file of the repository whose
// extension is one of exts, outside testdata, node_modules and hidden
// folders.
func walkRepository(t *testing.T, exts []string, check func(path string, f *os.File)) {
	t.Helper()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !slices.Contains(exts, filepath.Ext(path)) {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		check(path, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoConflictMarkers fails on a source or documentation file of the
// repository that a merge left with its conflict unresolved.
func TestNoConflictMarkers(t *testing.T) {
	walkRepository(t, []string{".go", ".md", ".py", ".s", ".mod", ".yml", ".yaml"}, func(path string, f *os.File) {
		if lines := conflictLines(f); len(lines) > 0 {
			t.Errorf("%s: a merge's conflict markers on lines %v", path, lines)
		}
	})
}

// The targets of a Markdown document's links: inline links and
// reference definitions. Code blocks and code spans are removed first.
var (
	codeFence  = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```")
	codeSpan   = regexp.MustCompile("`[^`\\n]*`")
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)`)
	refLink    = regexp.MustCompile(`(?m)^\s*\[[^\]]+\]:\s*<?([^\s>]+)`)
	urlScheme  = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// brokenLinks returns the relative links of the Markdown document text,
// the file at path, whose target is not a file or folder of the
// repository whose root is the working directory.
func brokenLinks(path, text string) []string {
	text = codeSpan.ReplaceAllString(codeFence.ReplaceAllString(text, ""), "")
	var broken []string
	for _, re := range []*regexp.Regexp{inlineLink, refLink} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			link := m[1]
			target, _, _ := strings.Cut(link, "#")
			if target == "" || urlScheme.MatchString(link) {
				continue
			}
			target = filepath.Join(filepath.Dir(path), filepath.FromSlash(target))
			if _, err := os.Stat(target); err != nil || !filepath.IsLocal(target) {
				broken = append(broken, link)
			}
		}
	}
	return broken
}

func TestBrokenLinks(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// A link out of the repository and back in resolves here, but not in
	// another copy of it.
	outAndBack := "../" + filepath.Base(wd) + "/README.md"
	for _, tc := range []struct {
		path, text string
		want       []string
	}{
		{"README.md", "[a](docs/examples.md), [b](CHANGELOG.md#unreleased), [c](docs/serving)", nil},
		{"docs/examples.md", "[a](../README.md) [b](https://example.com/x.md) [c](#set-up)", nil},
		{"README.md", "[a](docs/missing.md) and [b](docs/examples.md)", []string{"docs/missing.md"}},
		{"docs/examples.md", "[a](README.md)", []string{"README.md"}},
		{"README.md", "[a](" + outAndBack + ")", []string{outAndBack}},
		{"README.md", "[a]: docs/gone.md\n", []string{"docs/gone.md"}},
		{"README.md", "`[a](gone.md)`\n```\n[b](gone.md)\n```\n", nil},
	} {
		if got := brokenLinks(tc.path, tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q: %q, want %q", tc.path, tc.text, got, tc.want)
		}
	}
}

// TestMarkdownLinks fails on a relative link of a Markdown document of the
// repository that leads to no file of it.
func TestMarkdownLinks(t *testing.T) {
	walkRepository(t, []string{".md"}, func(path string, f *os.File) {
		text, err := io.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, link := range brokenLinks(path, string(text)) {
			t.Errorf("%s: the link %s leads to no file of the repository", path, link)
		}
	})
}
