package tabular_test

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/tabular"
)

// Fitting a table a chunk at a time: a plan chosen on a sample (here the
// whole small table), stats added up over chunks of rows on two workers
// and merged, and the machine solved from their sum.
func ExamplePlan() {
	sample, err := dataset.LoadFrame("testdata/houses.csv")
	if err != nil {
		log.Fatal(err)
	}
	plan, err := tabular.NewPlan(sample, []string{"price"}, tabular.Options{})
	if err != nil {
		log.Fatal(err)
	}
	file, err := os.Open("testdata/houses.csv")
	if err != nil {
		log.Fatal(err)
	}
	defer file.Close()
	rows, err := dataset.NewFrameReader(file, "houses.csv", dataset.FrameOptions{})
	if err != nil {
		log.Fatal(err)
	}
	workers := []*tabular.Stats{plan.NewStats(), plan.NewStats()}
	for i := 0; ; i++ {
		chunk, err := rows.Read(16)
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		if err := workers[i%2].Add(chunk); err != nil {
			log.Fatal(err)
		}
	}
	if err := workers[0].Merge(workers[1]); err != nil {
		log.Fatal(err)
	}
	model, _, err := plan.Solve(workers[0])
	if err != nil {
		log.Fatal(err)
	}
	pred, _, err := model.PredictFile("testdata/new_houses.csv")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d rows; predictions %.0f\n", workers[0].Rows, pred.Values.RawMatrix().Data)
	// Output:
	// 60 rows; predictions [118 311 210]
}
