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
	"io"
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
	if err := run(*data, *target, *fresh, *path, os.Stdout, os.Stderr); err != nil {
		log.Fatal(err)
	}
}

// run fits the table at data to its target columns, prints to stdout
// the predictions of the rows at fresh and the importance of each input
// column, and writes the model to path unless it is empty. The fit's
// log and warnings go to stderr.
func run(data, target, fresh, path string, stdout, stderr io.Writer) error {
	train, err := dataset.LoadFrame(data)
	if err != nil {
		return err
	}
	opts := tabular.Options{Log: func(line string) { fmt.Fprintln(stderr, "tabular:", line) }}
	model, report, err := tabular.Fit(train, strings.Split(target, ","), opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s on %d rows: training %s\n", model.Task, report.Rows, report.Training)

	rows, err := dataset.LoadFrame(fresh)
	if err != nil {
		return err
	}
	pred, warnings, err := model.PredictInterval(rows, 0.9)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	for i := range rows.Len() {
		if model.Task == tabular.Classification {
			fmt.Fprintf(stdout, "row %d: %s, 90%% prediction set {%s}\n", i+1, pred.Labels[i], strings.Join(pred.Sets[i], ", "))
			continue
		}
		fmt.Fprintf(stdout, "row %d: %.4g, 90%% interval [%.4g, %.4g]\n", i+1, pred.Values.At(i, 0), pred.Lower.At(i, 0), pred.Upper.At(i, 0))
	}

	ex, err := model.Importance(train, tabular.ImportanceOptions{Seed: 1})
	if err != nil {
		return err
	}
	for _, c := range ex.Columns {
		fmt.Fprintf(stdout, "importance of %s: %.3f [%.3f, %.3f]\n", c.Column, c.Importance, c.Lower, c.Upper)
	}
	if path == "" {
		return nil
	}
	if err := model.Save(path); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "wrote", path)
	return nil
}
