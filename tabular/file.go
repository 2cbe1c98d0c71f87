package tabular

import "github.com/parametric-machines/machines/dataset"

// PredictFile predicts the rows of the CSV file at path, read as
// dataset.LoadFrame reads it: see Predict.
func (md *Model) PredictFile(path string) (*Prediction, []dataset.Warning, error) {
	f, err := dataset.LoadFrame(path)
	if err != nil {
		return nil, nil, err
	}
	return md.Predict(f)
}
