// Tabular fits a model to a CSV table from Go with package tabular,
// predicts new rows with 90% prediction intervals (or, for a classifier,
// prediction sets), prints the importance of each input column, and
// saves the model as the model file that machines predict, score,
// explain, export and serve read.
//
//	go run ./examples/tabular -data tabular/testdata/houses.csv -target price \
//		-new tabular/testdata/new_houses.csv -model /tmp/houses.json
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/tabular"
)

func main() {
	data := flag.String("data", "tabular/testdata/houses.csv", "the training table: a CSV file with a header row")
	target := flag.String("target", "price", "the column to predict")
	fresh := flag.String("new", "tabular/testdata/new_houses.csv", "the rows to predict: a CSV file with the input columns")
	path := flag.String("model", "", "also write the model file here")
	flag.Parse()

	train, err := dataset.LoadFrame(*data)
	if err != nil {
		log.Fatal(err)
	}
	opts := tabular.Options{Log: func(line string) { fmt.Fprintln(os.Stderr, "tabular:", line) }}
	model, report, err := tabular.Fit(train, strings.Split(*target, ","), opts)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s on %d rows: training %s\n", model.Task, report.Rows, report.Training)

	rows, err := dataset.LoadFrame(*fresh)
	if err != nil {
		log.Fatal(err)
	}
	pred, warnings, err := model.PredictInterval(rows, 0.9)
	if err != nil {
		log.Fatal(err)
	}
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "warning:", w)
	}
	for i := range rows.Len() {
		if model.Task == tabular.Classification {
			fmt.Printf("row %d: %s, 90%% prediction set {%s}\n", i+1, pred.Labels[i], strings.Join(pred.Sets[i], ", "))
			continue
		}
		fmt.Printf("row %d: %.4g, 90%% interval [%.4g, %.4g]\n", i+1, pred.Values.At(i, 0), pred.Lower.At(i, 0), pred.Upper.At(i, 0))
	}

	ex, err := model.Importance(train, tabular.ImportanceOptions{Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range ex.Columns {
		fmt.Printf("importance of %s: %.3f [%.3f, %.3f]\n", c.Column, c.Importance, c.Lower, c.Upper)
	}
	if *path != "" {
		if err := model.Save(*path); err != nil {
			log.Fatal(err)
		}
		fmt.Println("wrote", *path)
	}
}
