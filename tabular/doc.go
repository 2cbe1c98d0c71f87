// Package tabular fits kernel machines to tables: the learner of
// machines fit as a library. Fit reads the target columns and the inputs
// of a dataset.Frame, encodes the inputs (numbers, categories, dates),
// chooses the machine and its settings by cross-validation (package
// kernel) and returns a Model, which predicts new rows with conformal
// prediction intervals (regression) or prediction sets
// (classification), scores labelled rows, measures the importance of
// each input column, and saves itself as the model file that every
// command of machines reads (predict, score, explain, export, serve).
// Options configures the fit; its zero value is machines fit without
// flags.
//
// Fitting a CSV file and predicting new rows (FitFile and PredictFile
// read the files; Fit and Predict take a dataset.Frame):
//
//	model, _, err := tabular.FitFile("houses.csv", []string{"price"}, tabular.Options{})
//	if err != nil {
//		log.Fatal(err)
//	}
//	pred, _, err := model.PredictFile("new_houses.csv")
//	if err != nil {
//		log.Fatal(err)
//	}
//	fmt.Println(mat.Formatted(pred.Values))
//
// A classifier's Prediction holds the class of each row and the
// probability of each class. Model.Save writes the model file; Load reads
// every version of it that machines fit has written, and onnx.Tabular
// exports the model to ONNX.
package tabular
