package tabular

import "github.com/parametric-machines/machines/dataset"

// PredictFile predicts the rows of the table at path, a CSV, Parquet or
// Arrow file or a glob pattern of such files, read as dataset.LoadTable
// reads it: see Predict. To predict a table larger than memory, give
// PredictEach the parts of a dataset.TableReader.
func (md *Model) PredictFile(path string) (*Prediction, []dataset.Warning, error) {
	f, err := dataset.LoadTable(path)
	if err != nil {
		return nil, nil, err
	}
	return md.Predict(f)
}
