package tabular

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"gonum.org/v1/gonum/mat"
)

// convertTable writes the CSV table at path in the given format to dir
// and returns the new file's path.
func convertTable(t *testing.T, path, dir string, format dataset.TableFormat, ext string) string {
	t.Helper()
	f, err := dataset.LoadFrame(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := dataset.WriteFrame(&buf, format, f); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, filepath.Base(path)+ext)
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestColumnarFiles fits a regression and a classifier to their tables
// as CSV, Parquet and Arrow files, and predicts new rows from each
// format: the models and their predictions are the same.
func TestColumnarFiles(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Costs: []float64{0.01}, Bandwidths: []float64{1}, Seed: 1}
	for _, tc := range []struct{ train, target, fresh string }{
		{"testdata/houses.csv", "price", "testdata/new_houses.csv"},
		{"testdata/cls_train.csv", "color", "testdata/cls_train.csv"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			var first *mat.Dense
			for _, format := range []struct {
				format dataset.TableFormat
				ext    string
			}{{dataset.CSV, ""}, {dataset.Parquet, ".parquet"}, {dataset.Arrow, ".arrow"}} {
				train, fresh := tc.train, tc.fresh
				if format.format != dataset.CSV {
					train = convertTable(t, tc.train, dir, format.format, format.ext)
					fresh = convertTable(t, tc.fresh, dir, format.format, format.ext)
				}
				md, _, err := FitFile(train, []string{tc.target}, opts)
				if err != nil {
					t.Fatal(err)
				}
				p, _, err := md.PredictFile(fresh)
				if err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = p.Values
					continue
				}
				if !mat.Equal(p.Values, first) {
					t.Errorf("%s: predictions\n%v\nwant those of CSV\n%v", format.format, mat.Formatted(p.Values), mat.Formatted(first))
				}
			}
		})
	}
}
