package tabular

import (
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
)

// The importance on a table of more than streamRows rows is the
// importance on the seeded sample of it; a smaller table's is the
// importance on all its rows.
func TestImportanceSource(t *testing.T) {
	defer func(n int) { streamRows = n }(streamRows)
	streamRows = 300
	train, err := dataset.ReadFrame(strings.NewReader(friedmanCSV(300, 1, false)), "train.csv")
	if err != nil {
		t.Fatal(err)
	}
	md, _, err := Fit(train, []string{"y"}, Options{Seed: 1, Family: Shallow})
	if err != nil {
		t.Fatal(err)
	}
	opts := ImportanceOptions{Repeats: 3, Seed: 5}
	for _, tc := range []struct {
		name      string
		rows      int
		tableRows int // 0: not sampled
	}{{"small", 300, 0}, {"large", 1000, 1000}} {
		t.Run(tc.name, func(t *testing.T) {
			text := friedmanCSV(tc.rows, 2, false)
			f, err := dataset.ReadFrame(strings.NewReader(text), "table.csv")
			if err != nil {
				t.Fatal(err)
			}
			if tc.tableRows > 0 {
				s := dataset.NewSample(streamRows, opts.Seed)
				s.Add(f)
				f = s.Frame()
			}
			want, err := md.Importance(f, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := md.ImportanceSource(textSource(text), opts)
			if err != nil {
				t.Fatal(err)
			}
			if got.Rows != min(tc.rows, streamRows) || got.TableRows != tc.tableRows || got.Data != "table.csv" {
				t.Errorf("measured on %d rows of %s, %d in the table; want %d of table.csv, %d", got.Rows, got.Data, got.TableRows, min(tc.rows, streamRows), tc.tableRows)
			}
			got.TableRows = 0
			if a, b := marshal(t, got), marshal(t, want); a != b {
				t.Errorf("importance\n%s\nwant that of the sample\n%s", a, b)
			}
		})
	}
	if _, err := md.ImportanceSource(func() (*dataset.TableReader, error) {
		t.Fatal("the table is read with repeats out of range")
		return nil, nil
	}, ImportanceOptions{Repeats: MaxRepeats + 1}); err == nil {
		t.Error("no error for repeats out of range")
	}
}

// marshal returns v as JSON.
func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// heapReader reads r and records the live heap after every step bytes.
type heapReader struct {
	r          io.Reader
	read, next int
	step       int
	heap       []uint64
}

func (h *heapReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.read += n
	if h.read >= h.next {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		h.heap = append(h.heap, ms.HeapAlloc)
		h.next += h.step
	}
	return n, err
}

// The memory of ImportanceSource does not grow with the rows of a large
// table: the live heap while it reads the last rows is about that while
// it read the first, where holding the rows read would grow it by tens
// of megabytes.
func TestImportanceSourceMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 150,000 rows")
	}
	defer func(n int) { streamRows = n }(streamRows)
	streamRows = 200
	train, err := dataset.ReadFrame(strings.NewReader(friedmanCSV(200, 1, false)), "train.csv")
	if err != nil {
		t.Fatal(err)
	}
	md, _, err := Fit(train, []string{"y"}, Options{Seed: 1, Family: Shallow})
	if err != nil {
		t.Fatal(err)
	}
	text := friedmanCSV(150000, 2, false)
	h := &heapReader{r: strings.NewReader(text), step: len(text) / 10}
	ex, err := md.ImportanceSource(func() (*dataset.TableReader, error) {
		return dataset.NewTableReader(h, "large.csv", dataset.FrameOptions{})
	}, ImportanceOptions{Repeats: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ex.TableRows != 150000 || len(h.heap) < 10 {
		t.Fatalf("%d rows read, %d heap readings; want 150000 and 10", ex.TableRows, len(h.heap))
	}
	const slack = 12 << 20
	if first, last := h.heap[1], h.heap[len(h.heap)-1]; last > first+slack {
		t.Errorf("the live heap grew from %d MB to %d MB while reading the table", first>>20, last>>20)
	}
}
