package pipeline

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"

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

// columnar returns the table of a CSV text as a file of the format.
func columnar(t testing.TB, text string, format dataset.TableFormat) []byte {
	t.Helper()
	f, err := dataset.NewFrameReader(strings.NewReader(text), "t", dataset.FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all, err := f.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := dataset.WriteFrame(&b, format, all); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A shard of any format is read by its first bytes, a chunk at a time,
// its columns by name in any order; a shard of other columns, or one
// that does not decode, is an error naming it.
func TestReadShard(t *testing.T) {
	const text = "a,b\n1,x\n2,y\n"
	dir := t.TempDir()
	files := map[string][]byte{
		"csv.csv":         []byte(text),
		"pq.parquet":      columnar(t, text, dataset.Parquet),
		"arrow.arrow":     columnar(t, text, dataset.Arrow),
		"parquet.bin":     columnar(t, text, dataset.Parquet),
		"other.parquet":   columnar(t, "a,c\n1,x\n", dataset.Parquet),
		"cut.parquet":     columnar(t, text, dataset.Parquet)[:40],
		"text.parquet":    []byte(text),
		"bad-rows.csv":    []byte("a,b\n1,x\n2\n"),
		"empty-parts.csv": []byte("a,b\n"),
		"swapped.csv":     []byte("b,a\nx,1\ny,2\n"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		file string
		rows int
		want string // in the error
	}{
		{"csv.csv", 2, ""},
		{"pq.parquet", 2, ""},
		{"arrow.arrow", 2, ""},
		{"parquet.bin", 2, ""},
		{"empty-parts.csv", 0, ""},
		{"swapped.csv", 2, ""},
		{"other.parquet", 0, "other.parquet: " + dataset.ErrSchema.Error()},
		{"cut.parquet", 0, "cut.parquet"},
		{"text.parquet", 0, "text.parquet: " + dataset.ErrFormat.Error()},
		{"bad-rows.csv", 0, "bad-rows.csv: row 3"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			rows := 0
			count := func(f *dataset.Frame) error {
				// The cells come in the order of sh.Columns, whatever the file's.
				if f.Len() > 0 && (f.Cell(0, 0) != "1" || f.Cell(0, 1) != "x") {
					t.Errorf("first row %q, %q; want 1 and x", f.Cell(0, 0), f.Cell(0, 1))
				}
				rows += f.Len()
				return nil
			}
			sh := shard{Path: filepath.Join(dir, tc.file), Columns: []string{"a", "b"}}
			columns, _, err := readShard(context.Background(), sh, count)
			switch {
			case tc.want == "" && (err != nil || rows != tc.rows || !slices.Equal(columns, sh.Columns)):
				t.Errorf("read %d rows of %q, %v; want %d of a and b", rows, columns, err, tc.rows)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// A shard on another file system than the local one is read from a
// local copy, which is removed after, and its errors name it.
func TestReadShardCopies(t *testing.T) {
	ctx := context.Background()
	good, bad := "memfs://shards/good.parquet", "memfs://shards/bad.csv"
	memfs.Write(good, columnar(t, "a,b\n1,x\n2,y\n", dataset.Parquet))
	memfs.Write(bad, []byte("a,b\n1,x\n2\n"))
	rows, copies := 0, ""
	count := func(f *dataset.Frame) error { rows, copies = rows+f.Len(), f.Name(); return nil }
	if _, _, err := readShard(ctx, shard{Path: good}, count); err != nil || rows != 2 {
		t.Fatalf("read %d rows, %v; want 2", rows, err)
	}
	if _, err := os.Stat(copies); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the copy %s left behind: %v", copies, err)
	}
	if _, _, err := readShard(ctx, shard{Path: bad}, count); err == nil || !strings.HasPrefix(err.Error(), bad+" (read from its copy") ||
		!strings.Contains(err.Error(), "bad.csv: row 3") {
		t.Errorf("error %v, want one naming %s and its row 3", err, bad)
	}
	// Its warnings name it too, not its copy.
	latin := "memfs://shards/latin.csv"
	memfs.Write(latin, []byte("a,b\n1,caf\xe9\n"))
	_, warnings, err := readShard(ctx, shard{Path: latin}, count)
	if err != nil || len(warnings) != 1 || !strings.HasPrefix(warnings[0].Message, latin+": not UTF-8") {
		t.Errorf("warnings %q, %v; want one of the text of %s", warnings, err, latin)
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

// A table with no rows, a bad line, or a shard whose columns are not the
// first's is an error that names the shard before any pipeline runs.
func TestFitTableErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shards []string
		want   string
	}{
		{"no rows", []string{"x,y\n", "x,y\n"}, "part-*.csv: " + dataset.ErrNoRows.Error()},
		{"bad line", []string{"x,y\n1,2\n", "x,y\n3,4\n5\n"}, "part-b.csv: row 3"},
		{"columns", []string{"x,y\n1,2\n", "x,z\n3,4\n"}, "part-b.csv: " + dataset.ErrSchema.Error()},
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

// Any two shards, each a file of any format, read as one table are its
// rows or an error naming one of them, never a panic.
func FuzzShards(f *testing.F) {
	f.Add([]byte("a,b\n1,2\n"), []byte("a,b\n3,4\n"))
	f.Add([]byte("a,b\n1,2"), []byte("a,b\n3\n"))
	f.Add([]byte("\"a\nb\",c\n1,2\n"), []byte("\"a\nb\",c\n\"3\n\",4\n"))
	f.Add([]byte(""), []byte("a\n"))
	f.Add(columnar(f, "a,b\n1,x\n", dataset.Parquet), columnar(f, "a,b\n2,y\n", dataset.Arrow))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		paths := writeFiles(t, t.TempDir(), string(a), string(b))
		columns, _, err := readShard(context.Background(), shard{Path: paths[0]}, func(*dataset.Frame) error { return nil })
		if err == nil {
			_, _, err = readShard(context.Background(), shard{Path: paths[1], Columns: columns}, func(*dataset.Frame) error { return nil })
		}
		if err != nil && !strings.Contains(err.Error(), paths[0]) && !strings.Contains(err.Error(), paths[1]) {
			t.Errorf("error %v names no shard", err)
		}
	})
}
