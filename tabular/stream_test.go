package tabular

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
)

// textSource returns the Source of CSV texts, one for each reading; the
// last is read again.
func textSource(texts ...string) Source {
	i := 0
	return func() (*dataset.FrameReader, io.Closer, error) {
		text := texts[min(i, len(texts)-1)]
		i++
		fr, err := dataset.NewFrameReader(strings.NewReader(text), "table.csv", dataset.FrameOptions{})
		return fr, io.NopCloser(nil), err
	}
}

// A small table is fitted as Fit fits it; a larger one is streamed, fits
// the plan of a sample, and predicts about as well as Fit does.
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
			if md.Fit.Rows != tc.rows || md.Fit.Data != "table.csv" {
				t.Errorf("fit of %d rows of %s, want %d of table.csv", md.Fit.Rows, md.Fit.Data, tc.rows)
			}
			f, err := dataset.ReadFrame(strings.NewReader(text), "table.csv")
			if err != nil {
				t.Fatal(err)
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
	bad := strings.Replace(text, "\n", "\n0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.1,k1,abc\n", 1)
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
