package sculpt

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
)

// TestWarnData checks the warnings of data that train a machine that
// cannot be good, or whose test accuracy misleads, and that data of
// none of them are not warned of.
func TestWarnData(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(train, test *dataset.Images) (*dataset.Images, *dataset.Images)
		want string // "" for no warning
	}{
		{"none", func(train, test *dataset.Images) (*dataset.Images, *dataset.Images) { return train, test }, ""},
		{"small images", func(_, _ *dataset.Images) (*dataset.Images, *dataset.Images) {
			rnd := rand.New(rand.NewPCG(4, 4))
			return blobs(rnd, 160, 4, 3), blobs(rnd, 60, 4, 3)
		}, "images of 4x4 pixels are small for the architecture, whose nodes pool them down to 1x1"},
		{"images of a prime side", func(_, _ *dataset.Images) (*dataset.Images, *dataset.Images) {
			rnd := rand.New(rand.NewPCG(4, 4))
			return blobs(rnd, 160, 5, 3), blobs(rnd, 60, 5, 3)
		}, "images of 5x5 pixels are small for the architecture, whose convolutions read 3x3 pixels"},
		{"unbalanced", func(train, test *dataset.Images) (*dataset.Images, *dataset.Images) {
			kept := 0
			for i, y := range train.Labels {
				if y == 1 && kept < 2 {
					kept++
				} else if y == 1 {
					train.Labels[i] = 0
				}
			}
			return train, test
		}, `of class "b": a machine that answers "a" whatever the image scores a test accuracy of 0.4167`},
		{"a class untested", func(train, test *dataset.Images) (*dataset.Images, *dataset.Images) {
			for i, y := range test.Labels {
				if y == 2 {
					test.Labels[i] = 0
				}
			}
			return train, test
		}, `no test image of 1 of the 3 classes ("c"): the test accuracy says nothing of them`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			train, test := tc.edit(smallData())
			dir := t.TempDir()
			c := smallConfig(dir)
			c.Epochs, c.Finetune = 1, 0
			var log bytes.Buffer
			c.Progress = &log
			c.Warnings = []string{"the loader's"}
			if _, err := Run(train, test, c); err != nil {
				t.Fatal(err)
			}
			got := log.String()
			if tc.want == "" && strings.Contains(got, "warning") || !strings.Contains(got, tc.want) || strings.Count(got, "warning") > 1 {
				t.Errorf("log %q; want one warning %q", got, tc.want)
			}
			// sculpt.json holds the caller's warnings, then the run's
			// as logged.
			b, err := os.ReadFile(filepath.Join(dir, ReportFile))
			if err != nil {
				t.Fatal(err)
			}
			var rep struct{ Warnings []string }
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			n := len(rep.Warnings)
			if n != 1+strings.Count(got, "warning") || rep.Warnings[0] != "the loader's" ||
				n == 2 && (!strings.Contains(rep.Warnings[1], tc.want) || !strings.Contains(got, "sculpt: warning: "+rep.Warnings[1]+"\n")) {
				t.Errorf("%s: warnings %q; want the loader's, then the one logged in %q", ReportFile, rep.Warnings, got)
			}
		})
	}
}
