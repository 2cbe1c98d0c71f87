package tabular_test

import (
	"fmt"
	"log"

	"github.com/parametric-machines/machines/tabular"
	"gonum.org/v1/gonum/mat"
)

// Fitting a CSV file and predicting new rows, as the package
// documentation shows it.
func Example() {
	model, _, err := tabular.FitFile("testdata/houses.csv", []string{"price"}, tabular.Options{})
	if err != nil {
		log.Fatal(err)
	}
	pred, _, err := model.PredictFile("testdata/new_houses.csv")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.0f\n", mat.Formatted(pred.Values))
	// Output:
	// ⎡118⎤
	// ⎢309⎥
	// ⎣208⎦
}
