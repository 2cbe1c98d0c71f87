package pipeline

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
)

// writeFiles writes each text as a file under dir and returns the paths.
func writeFiles(t testing.TB, dir string, texts ...string) []string {
	t.Helper()
	paths := make([]string, len(texts))
	for i, text := range texts {
		paths[i] = filepath.Join(dir, "part-"+string(rune('a'+i))+".csv")
		if err := os.WriteFile(paths[i], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// Shards read as one table hold the bytes of their concatenation, less
// the later headers, and a line with no end ends.
func TestTableConcatenates(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shards []string
		want   string
	}{
		{"one", []string{"a,b\n1,2\n"}, "a,b\n1,2\n"},
		{"headers", []string{"a,b\n1,2\n", "a,b\n3,4\n5,6\n"}, "a,b\n1,2\n3,4\n5,6\n"},
		{"no end", []string{"a,b\n1,2", "a,b\n3,4"}, "a,b\n1,2\n3,4\n"},
		{"crlf and bom", []string{"\xef\xbb\xbfa,b\r\n1,2\r\n", "\xef\xbb\xbfa,b\r\n3,4\r\n"}, "a,b\n1,2\r\n3,4\r\n"},
		{"header only", []string{"a,b\n1,2\n", "a,b\n", "a,b\n3,4\n"}, "a,b\n1,2\n3,4\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			paths := writeFiles(t, t.TempDir(), tc.shards...)
			got, err := io.ReadAll(newTable(context.Background(), "t", paths))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("read %q, want %q", got, tc.want)
			}
		})
	}
}

// A shard whose header differs is an error naming it.
func TestTableHeaderDiffers(t *testing.T) {
	paths := writeFiles(t, t.TempDir(), "a,b\n1,2\n", "a,c\n3,4\n")
	_, err := io.ReadAll(newTable(context.Background(), "t", paths))
	if err == nil || !strings.Contains(err.Error(), paths[1]) || !strings.Contains(err.Error(), `"a,c"`) {
		t.Errorf("error %v, want one naming %s and its header", err, paths[1])
	}
}

// An error at a line of the table names the shard and the shard's line.
func TestTableLocates(t *testing.T) {
	paths := writeFiles(t, t.TempDir(), "a,b\n1,2\n3,4", "a,b\n5,6\n7\n", "a,b\n8,9\n")
	tb := newTable(context.Background(), "t", paths)
	fr, err := dataset.NewFrameReader(tb, "t", dataset.FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = fr.ReadAll()
	var pe *dataset.ParseError
	if !errors.As(tb.locate(err), &pe) || pe.File != paths[1] || pe.Row != 3 {
		t.Fatalf("located %v, want %s: row 3", tb.locate(err), paths[1])
	}
	other := errors.New("other")
	if tb.locate(other) != other {
		t.Error("an error of no line changed")
	}
}

// The errors of a job found before any work name the flag.
func TestJobCheck(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.json")
	for _, tc := range []struct {
		job  Job
		want string
	}{
		{Job{Target: "y", Model: model}, "-data"},
		{Job{Data: "x", Model: model}, "-target"},
		{Job{Data: "x", Target: "y"}, "-model"},
		{Job{Data: "x", Target: "y", Model: model, Anchors: -1}, "-anchors -1"},
		{Job{Data: "x", Target: "y", Model: dir}, dir},
	} {
		err := tc.job.Check()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %s", tc.job, err, tc.want)
		}
	}
	if err := (&Job{Data: "x", Target: "y", Model: model}).Check(); err != nil {
		t.Errorf("a good job: %v", err)
	}
}

// A glob that matches no file is an error naming the flag.
func TestShardsNoMatch(t *testing.T) {
	glob := filepath.Join(t.TempDir(), "part-*.csv")
	if _, err := Shards(context.Background(), glob); err == nil || !strings.Contains(err.Error(), "-data") {
		t.Errorf("error %v, want one naming -data", err)
	}
	paths := writeFiles(t, filepath.Dir(glob), "a\n1\n", "a\n2\n")
	got, err := Shards(context.Background(), glob)
	if err != nil || strings.Join(got, " ") != strings.Join(paths, " ") {
		t.Errorf("shards %v, %v; want %v", got, err, paths)
	}
	defer func(n int) { maxShards = n }(maxShards)
	maxShards = 1
	if _, err := Shards(context.Background(), glob); err == nil || !strings.Contains(err.Error(), "2 files match, more than 1") {
		t.Errorf("error %v, want one of too many files", err)
	}
}

// A table with no rows, or with a bad line, is an error that names the
// shard before any pipeline runs.
func TestFitTableErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shards []string
		want   string
	}{
		{"no rows", []string{"x,y\n", "x,y\n"}, "part-a.csv"},
		{"bad line", []string{"x,y\n1,2\n", "x,y\n3,4\n5\n"}, "part-b.csv: row 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.shards...)
			job := Job{Data: filepath.Join(dir, "part-*.csv"), Target: "y", Model: filepath.Join(dir, "m.json")}
			_, _, err := Fit(context.Background(), job)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
}

// Any two shards read as one table are the table or an error, never a
// panic, and an error located in a shard names one of them.
func FuzzTable(f *testing.F) {
	f.Add([]byte("a,b\n1,2\n"), []byte("a,b\n3,4\n"))
	f.Add([]byte("a,b\n1,2"), []byte("a,b\n3\n"))
	f.Add([]byte("\"a\nb\",c\n1,2\n"), []byte("\"a\nb\",c\n\"3\n\",4\n"))
	f.Add([]byte(""), []byte("a\n"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		paths := writeFiles(t, t.TempDir(), string(a), string(b))
		tb := newTable(context.Background(), "t", paths)
		fr, err := dataset.NewFrameReader(tb, "t", dataset.FrameOptions{})
		if err == nil {
			_, err = fr.ReadAll()
		}
		var pe *dataset.ParseError
		if errors.As(tb.locate(err), &pe) && pe.Row > 0 && pe.File != paths[0] && pe.File != paths[1] {
			t.Errorf("error %v located in no shard", tb.locate(err))
		}
	})
}
