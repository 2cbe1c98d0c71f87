package tabular

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parametric-machines/machines/dataset"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// textSource returns the Source of CSV texts, one for each reading; the
// last is read again.
func textSource(texts ...string) Source {
	i := 0
	return func() (*dataset.TableReader, error) {
		text := texts[min(i, len(texts)-1)]
		i++
		return dataset.NewTableReader(strings.NewReader(text), "table.csv", dataset.FrameOptions{})
	}
}

// A small table is fitted as Fit fits it; a larger one is streamed, fits
// the plan of a sample, and predicts about as well as Fit does with as
// many anchors.
func TestFitSource(t *testing.T) {
	defer func(n int) { streamRows = n }(streamRows)
	streamRows = 300
	test, err := dataset.ReadFrame(strings.NewReader(friedmanCSV(1000, 9, false)), "test.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rows   int
		phases []string
	}{
		{300, []string{"read", "fit"}},
		{1500, []string{"sample", "plan", "add", "solve"}},
	} {
		t.Run(fmt.Sprint(tc.rows), func(t *testing.T) {
			text := friedmanCSV(tc.rows, 5, false)
			opts := Options{Seed: 2, Family: Shallow}
			md, rep, err := FitSource(textSource(text), []string{"y"}, opts)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range md.Fit.Phases {
				names = append(names, p.Name)
			}
			if !slices.Equal(names, tc.phases) || !slices.Equal(rep.Phases, md.Fit.Phases) {
				t.Errorf("phases %v, want %v", names, tc.phases)
			}
			summary := strings.Join(rep.Summary(md), "\n")
			if strings.Contains(summary, "streamed in chunks: sample") != (tc.rows > streamRows) {
				t.Errorf("summary:\n%s", summary)
			}
			if streamed := tc.rows > streamRows; streamed && runtime.GOOS == "linux" && (!(md.Fit.Phases[1].CPUSeconds > 0) || !strings.Contains(summary, "(CPU ")) {
				t.Errorf("the plan's CPU time %v s; summary:\n%s", md.Fit.Phases[1].CPUSeconds, summary)
			}
			if md.Fit.Rows != tc.rows || md.Fit.Data != "table.csv" {
				t.Errorf("fit of %d rows of %s, want %d of table.csv", md.Fit.Rows, md.Fit.Data, tc.rows)
			}
			f, err := dataset.ReadFrame(strings.NewReader(text), "table.csv")
			if err != nil {
				t.Fatal(err)
			}
			if tc.rows > streamRows {
				opts.Anchors = StreamAnchors(tc.rows)
			}
			want, _, err := Fit(f, []string{"y"}, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := md.Score(test, 0)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := want.Score(test, 0)
			if err != nil {
				t.Fatal(err)
			}
			if tc.rows <= streamRows && *got.R2 != *ref.R2 {
				t.Errorf("held-out R^2 %v, want Fit's %v", *got.R2, *ref.R2)
			}
			if *got.R2 < *ref.R2-0.02 {
				t.Errorf("held-out R^2 %v, Fit's %v", *got.R2, *ref.R2)
			}
		})
	}
}

// A table that changes between the two readings of a streamed fit is an
// error, as is a bad row that the sample missed.
func TestFitSourceErrors(t *testing.T) {
	defer func(n int) { streamRows = n }(streamRows)
	streamRows = 200
	text := friedmanCSV(400, 5, false)
	bad := strings.Replace(text, "\n", "\n0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.1,k1,inf\n", 1)
	for _, tc := range []struct {
		name string
		src  Source
		want []string
	}{
		{"changed", textSource(text, friedmanCSV(401, 5, false)), []string{"401 rows on the second reading, 400 on the first"}},
		{"bad target", textSource(text, bad), []string{"row 2", `"y"`}},
		{"empty", textSource("x,y\n"), []string{"table.csv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := FitSource(tc.src, []string{"y"}, Options{Seed: 1})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %s", err, w)
				}
			}
		})
	}
}

// A streamed fit and score read a regression's target as Fit and Score
// do: in its unit of measure, dropping a stray cell. The add pass read
// each cell as a plain number and refused 8.3 kg on the first row, after
// the sample's fit had read it. The fit counts the rows it drops among
// the table's, not the sample's.
func TestStreamTargetUnit(t *testing.T) {
	defer func(n int) { streamRows = n }(streamRows)
	streamRows = 200
	lines := strings.Split(strings.TrimSuffix(friedmanCSV(600, 3, false), "\n"), "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] += " kg"
		if i%10 == 0 {
			lines[i] = lines[i][:strings.LastIndex(lines[i], ",")] + ",NA"
		}
	}
	comma := strings.LastIndex(lines[591], ",")
	lines[591] = lines[591][:comma] + ",oops"
	text := strings.Join(lines, "\n") + "\n"
	var dropped []string
	log := func(line string) {
		if strings.Contains(line, "dropped") {
			dropped = append(dropped, line)
		}
	}
	md, _, err := FitSource(textSource(text), []string{"y"}, Options{Seed: 1, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if md.Fit.Rows != 539 || md.Fit.Dropped != 61 {
		t.Errorf("fit of %d rows, %d dropped; want 539, and 60 NA and the stray", md.Fit.Rows, md.Fit.Dropped)
	}
	// The table's count, not the sample's.
	if want := []string{`table.csv: dropped 61 of 600 rows with no value in column "y"`}; !slices.Equal(dropped, want) {
		t.Errorf("said %q, want %q", dropped, want)
	}
	got, err := md.ScoreSource(textSource(text), 0)
	if err != nil {
		t.Fatal(err)
	}
	f, err := dataset.ReadFrame(strings.NewReader(text), "table.csv")
	if err != nil {
		t.Fatal(err)
	}
	want, err := md.Score(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() || got.Rows != 539 || got.Dropped != 61 || !(*got.R2 > 0.5) {
		t.Errorf("streamed scores %s on %d rows (%d dropped), want %s on 539 (61)", got, got.Rows, got.Dropped, want)
	}
}

// A streamed classification knows every class of the table, also one
// whose rows the uniform sample missed: its first row joins the sample.
// The add pass refused it, after the plan's work, as a class the model
// did not know.
func TestStreamRareClass(t *testing.T) {
	defer func(n int) { streamRows = n }(streamRows)
	streamRows = 200
	lines := strings.Split(friedmanCSV(600, 5, true), "\n")
	lines[590] = lines[590][:strings.LastIndex(lines[590], ",")] + ",rare"
	md, _, err := FitSource(textSource(strings.Join(lines, "\n")), []string{"y"}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(md.Classes, []string{"high", "low", "rare"}) || md.Fit.Rows != 600 {
		t.Errorf("classes %q on %d rows, want high, low and rare on 600", md.Classes, md.Fit.Rows)
	}
}

// A chunk's target is read in the unit of the plan's sample: 2.5k is
// 2500 in a chunk without plain numbers, whose own cells would make k a
// unit.
func TestStatsTargetUnit(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(friedmanCSV(100, 4, false), "\n"), "\n")
	for i := 1; i < len(lines); i++ {
		comma := strings.LastIndex(lines[i], ",")
		y := fmt.Sprintf(",%d", 100+8*i)
		if i%2 == 0 {
			y = fmt.Sprintf(",%d.5k", i%7+1)
		}
		lines[i] = lines[i][:comma] + y
	}
	f, err := dataset.ReadFrame(strings.NewReader(strings.Join(lines, "\n")), "sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(f, []string{"y"}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	chunk := chunks(t, lines[0]+"\n0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.1,k1,2.5k\n0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.1,k1,3k\n", 10)[0]
	s := p.NewStats()
	if err := s.Add(chunk); err != nil {
		t.Fatal(err)
	}
	if s.Low[0] != 2500 || s.High[0] != 3000 {
		t.Errorf("targets from %v to %v, want 2500 to 3000", s.Low[0], s.High[0])
	}
}

// A large table's streamed scores are Score's on the whole table.
func TestScoreSource(t *testing.T) {
	defer func(n int) { streamRows = n }(streamRows)
	for _, tc := range []struct {
		name     string
		classify bool
		level    float64
	}{{"regression", false, 0.9}, {"classifier", true, 0.8}} {
		t.Run(tc.name, func(t *testing.T) {
			streamRows = StreamRows
			train, err := dataset.ReadFrame(strings.NewReader(friedmanCSV(300, 1, tc.classify)), "train.csv")
			if err != nil {
				t.Fatal(err)
			}
			md, _, err := Fit(train, []string{"y"}, Options{Seed: 1, Family: Shallow})
			if err != nil {
				t.Fatal(err)
			}
			text := friedmanCSV(1000, 2, tc.classify)
			text = strings.Replace(text, "\n", "\n0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.1,k1,NA\n", 1)
			f, err := dataset.ReadFrame(strings.NewReader(text), "table.csv")
			if err != nil {
				t.Fatal(err)
			}
			want, err := md.Score(f, tc.level)
			if err != nil {
				t.Fatal(err)
			}
			streamRows = 300
			got, err := md.ScoreSource(textSource(text), tc.level)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() || got.Rows != 1000 || got.Dropped != 1 || *got.Coverage != *want.Coverage {
				t.Errorf("streamed scores %s on %d rows (%d dropped), want %s", got, got.Rows, got.Dropped, want)
			}
		})
	}
}

// Progress says the rows read, their rate and the time left, at most
// once a second.
func TestStreamProgress(t *testing.T) {
	if got, want := progressLine("adding up the rows", 500, 1000, 2*time.Second), "tabular: adding up the rows: 500 rows of 1000; 2 s left (250 rows/s)"; got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
	if got, want := progressLine("reading a sample", 700, 0, time.Second), "tabular: reading a sample: 700 rows (700 rows/s)"; got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
	var b strings.Builder
	st := &stream{opts: Options{Progress: &b}}
	since := time.Now().Add(-time.Second)
	st.progress("adding up the rows", 500, 1000, since)
	st.progress("adding up the rows", 600, 1000, since)
	if n := strings.Count(b.String(), "\n"); n != 1 {
		t.Errorf("%d lines of progress within a second, want 1:\n%s", n, b.String())
	}
}

// A plan fits the shallow machine alone, on weights it can sum.
func TestNewPlanOptions(t *testing.T) {
	f, err := dataset.ReadFrame(strings.NewReader(friedmanCSV(100, 1, true)), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{Family: Deep}, {Dims: []int{3, 2}}, {Costs: []float64{1}}, {Bandwidths: []float64{1}}, {Balance: true}} {
		var oe *OptionError
		if _, err := NewPlan(f, []string{"y"}, opts); !errors.As(err, &oe) {
			t.Errorf("%+v: error %v, want an OptionError", opts, err)
		}
	}
}

// A streamed fit's anchors grow like the square root of the rows,
// between ShallowAnchors and 400; its stats hold out one row in ten.
func TestStreamAnchors(t *testing.T) {
	for _, tc := range []struct{ rows, want int }{{20001, 141}, {100000, 316}, {1000, 100}, {1000000, 400}, {1e8, 400}} {
		if got := StreamAnchors(tc.rows); got != tc.want {
			t.Errorf("StreamAnchors(%d) = %d, want %d", tc.rows, got, tc.want)
		}
	}
	held := 0
	for line := range 100000 {
		if holdsOut(line) {
			held++
		}
	}
	if held < 9700 || held > 10300 {
		t.Errorf("%d of 100000 rows held out, want about 10000", held)
	}
}

// A glob of CSV files is one table: whole when the files together are
// small, streamed when they are large, and fitted as the one file that
// holds their rows is.
func TestFitFileGlob(t *testing.T) {
	defer func(n int) { streamRows = n }(streamRows)
	streamRows = 300
	for _, rows := range []int{240, 1500} {
		t.Run(fmt.Sprint(rows), func(t *testing.T) {
			if rows > streamRows && testing.Short() {
				t.Skip("streamed: in the full run only, being slow; TestFitSource streams under -short")
			}
			dir := t.TempDir()
			text := friedmanCSV(rows, 7, false)
			lines := strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
			header, body := lines[0], lines[1:]
			third := len(body) / 3
			for i, part := range [][]string{body[:third], body[third : 2*third], body[2*third:]} {
				name := filepath.Join(dir, fmt.Sprintf("part-%d.csv", i))
				if err := os.WriteFile(name, []byte(header+strings.Join(part, "")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			whole := filepath.Join(t.TempDir(), "whole.csv")
			if err := os.WriteFile(whole, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			opts := Options{Seed: 3, Family: Shallow}
			got, _, err := FitFile(filepath.Join(dir, "part-*.csv"), []string{"y"}, opts)
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := FitFile(whole, []string{"y"}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got.Fit.Rows != rows {
				t.Fatalf("fitted %d rows of the glob, want %d", got.Fit.Rows, rows)
			}
			test, err := dataset.ReadFrame(strings.NewReader(friedmanCSV(50, 8, false)), "test.csv")
			if err != nil {
				t.Fatal(err)
			}
			p, _, err := got.Predict(test)
			if err != nil {
				t.Fatal(err)
			}
			q, _, err := want.Predict(test)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(p.Values, q.Values, 1e-9) {
				t.Errorf("the glob's predictions differ from the whole file's: %v against %v", mat.Row(nil, 0, p.Values), mat.Row(nil, 0, q.Values))
			}
		})
	}
}

// Options that a plan cannot take read a large table whole, every row
// of it, and fit it as Fit does.
func TestFitSourceWhole(t *testing.T) {
	defer func(n int) { streamRows = n }(streamRows)
	streamRows = 300
	md, _, err := FitSource(textSource(friedmanCSV(500, 4, false)), []string{"y"}, Options{Seed: 1, Family: Deep, Costs: []float64{0.1}, Bandwidths: []float64{1}, MaxIter: 20})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range md.Fit.Phases {
		names = append(names, p.Name)
	}
	if md.Fit.Rows != 500 || !slices.Equal(names, []string{"read", "fit"}) {
		t.Errorf("fitted %d rows in phases %v, want 500 in read and fit", md.Fit.Rows, names)
	}
}

// The second reading adds the chunks in batches, a worker's stats
// emptied and reused from one batch to the next: its sums are those of
// the chunks added one after the other.
func TestStreamAdd(t *testing.T) {
	n := 3*runtime.GOMAXPROCS(0)*streamChunk + 100
	text := friedmanCSV(n, 4, false)
	frames := chunks(t, text, streamChunk)
	p, err := NewPlan(chunks(t, text, 300)[0], []string{"y"}, Options{Seed: 1, Anchors: 20})
	if err != nil {
		t.Fatal(err)
	}
	st := &stream{rows: n}
	got, err := st.add(textSource(text), p)
	if err != nil {
		t.Fatal(err)
	}
	want := addAll(t, p, frames)
	if got.Rows != n || got.HeldOut.Rows != want.HeldOut.Rows {
		t.Errorf("%d rows, %d held out; want %d and %d", got.Rows, got.HeldOut.Rows, n, want.HeldOut.Rows)
	}
	for name, pair := range map[string][2][]float64{"ZZ": {want.ZZ, got.ZZ}, "ZY": {want.ZY, got.ZY}, "held-out ZZ": {want.HeldOut.ZZ, got.HeldOut.ZZ}} {
		if d := floats.Distance(pair[0], pair[1], math.Inf(1)) / floats.Norm(pair[0], math.Inf(1)); !(d < 1e-12) {
			t.Errorf("%s differs by %g of its size", name, d)
		}
	}
}

// A streamed regression warns of a target far from its sample's that
// only the whole table holds, as a typo makes it.
func TestStreamFarTarget(t *testing.T) {
	defer func(n int) { streamRows = n }(streamRows)
	streamRows = 300
	lines := strings.Split(friedmanCSV(1500, 5, false), "\n")
	row := strings.Split(lines[1000], ",")
	row[len(row)-1] = "1e6"
	lines[1000] = strings.Join(row, ",") // line 1001 of the file
	var log []string
	opts := Options{Seed: 2, Family: Shallow, Log: func(l string) { log = append(log, l) }}
	_, rep, err := FitSource(textSource(strings.Join(lines, "\n")), []string{"y"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	const want = "a row beyond the sample holds 1e+06"
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0].Message, want) || rep.Warnings[0].Column != "y" {
		t.Errorf("warnings %v, want one of y: %s", rep.Warnings, want)
	}
	if !slices.ContainsFunc(log, func(l string) bool { return strings.Contains(l, want) }) {
		t.Errorf("log %q, want the warning", log)
	}
}

// A streamed fit warns of what the rows beyond its sample hold that the
// sample's encoding never met: a level, a stray cell, a gap (all on a
// line that the sample lacks, since it holds a level the sample lacks).
func TestStreamWarnsBeyondSample(t *testing.T) {
	defer func(n int) { streamRows = n }(streamRows)
	streamRows = 300
	lines := strings.Split(friedmanCSV(1500, 5, false), "\n")
	set := func(line, field int, cell string) {
		row := strings.Split(lines[line-1], ",")
		row[field] = cell
		lines[line-1] = strings.Join(row, ",")
	}
	set(1001, 10, "k9")  // kind
	set(1001, 0, "oops") // x0
	set(1001, 1, "")     // x1
	_, rep, err := FitSource(textSource(strings.Join(lines, "\n")), []string{"y"}, Options{Seed: 2, Family: Shallow})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`column "kind": in the rows beyond the sample, which the encoding was made on: `,
		`table.csv: 1 stray cell, not of its column's kind, is read as missing: line 1001, column "x0"`,
		`column "x1": in the rows beyond the sample, which the encoding was made on: line 1001 has no value`,
	} {
		if !slices.ContainsFunc(rep.Warnings, func(w dataset.Warning) bool { return strings.HasPrefix(w.String(), want) }) {
			t.Errorf("warnings %q, want one beginning %q", rep.Warnings, want)
		}
	}
}
