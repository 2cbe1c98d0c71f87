package tabular

import "github.com/parametric-machines/machines/dataset"

// ImportanceSource measures the permutation importance of md's input
// columns on the table of src as Importance does. A table of at most
// StreamRows rows is read whole. A larger one is read once, a chunk at a
// time, for a uniform sample of StreamRows of its rows drawn with
// opts.Seed (dataset.Sample), on which Importance measures: shuffling a
// column among all the rows would hold them all, where the sample's
// memory does not grow with the table. The interval, over the sample's
// rows, speaks of the sampling as well as of the shuffles; the
// Explanation's TableRows counts the table's rows, and its Warnings and
// Dropped are the sample's.
func (md *Model) ImportanceSource(src Source, opts ImportanceOptions) (*Explanation, error) {
	if _, err := opts.repeats(); err != nil {
		return nil, err
	}
	fr, first, err := openFirst(src)
	if err != nil {
		return nil, err
	}
	defer fr.Close()
	if first.Len() <= streamRows {
		return md.Importance(first, opts)
	}
	s := dataset.NewSample(streamRows, opts.Seed)
	if err := drawSample(s, fr, first, nil); err != nil {
		return nil, err
	}
	ex, err := md.Importance(s.Frame(), opts)
	if err != nil {
		return nil, err
	}
	ex.Data, ex.TableRows = fr.Name(), s.Seen()
	return ex, nil
}
