package tabular_test

import (
	"fmt"
	"log"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/tabular"
	"gonum.org/v1/gonum/mat"
)

// Fitting a CSV file and predicting new rows, as the package
// documentation shows it.
func Example() {
	train, err := dataset.LoadFrame("testdata/houses.csv")
	if err != nil {
		log.Fatal(err)
	}
	model, _, err := tabular.Fit(train, []string{"price"}, tabular.Options{})
	if err != nil {
		log.Fatal(err)
	}
	rows, err := dataset.LoadFrame("testdata/new_houses.csv")
	if err != nil {
		log.Fatal(err)
	}
	pred, _, err := model.Predict(rows)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.0f\n", mat.Formatted(pred.Values))
	// Output:
	// ⎡124⎤
	// ⎢315⎥
	// ⎣212⎦
}
