package pipeline_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/parametric-machines/machines/beam/pipeline"
	"github.com/parametric-machines/machines/dataset"
)

// Fit fits a table of four CSV shards on Beam's in-process runner and
// writes the model file that machines predict reads.
func ExampleFit() {
	dir, err := os.MkdirTemp("", "pipeline-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	x, y := dataset.Friedman1(400, rand.New(rand.NewPCG(1, 0)))
	for s := range 4 {
		var b strings.Builder
		b.WriteString("x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,y\n")
		for i := s * 100; i < (s+1)*100; i++ {
			for _, v := range x.RawRowView(i) {
				fmt.Fprintf(&b, "%.6f,", v)
			}
			fmt.Fprintf(&b, "%.6f\n", y[i])
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.csv", s)), []byte(b.String()), 0o644); err != nil {
			fmt.Println(err)
			return
		}
	}
	job := pipeline.Job{Data: filepath.Join(dir, "part-*.csv"), Target: "y", Model: filepath.Join(dir, "model.json"), Seed: 1}
	md, res, err := pipeline.Fit(context.Background(), job)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s of %d rows in %d shards\n", md.Task, md.Fit.Rows, res.Shards)
	// Output: regression of 400 rows in 4 shards
}
