package tabular

import (
	"github.com/parametric-machines/machines/dataset"
	"gonum.org/v1/gonum/mat"
)

// ScoreSource scores md on the table of src as Score does. A table of
// more than StreamRows rows is read a chunk at a time, and of each row
// only its targets and predictions are kept, a few numbers instead of
// its cells; a regression's targets are read in the unit of the first
// rows' (see dataset.Frame.TargetIn), a chunk at a time, the stray
// cells that Score drops dropped by the chunk's count, and the
// encoder's warnings count every row, with a target or not.
func (md *Model) ScoreSource(src Source, level float64) (*Evaluation, error) {
	if level != 0 {
		if err := md.CheckLevel(level); err != nil {
			return nil, err
		}
	}
	fr, first, err := openFirst(src)
	if err != nil {
		return nil, err
	}
	defer fr.Close()
	if first.Len() <= streamRows {
		return md.Score(first, level)
	}
	if md.Encoder == nil {
		whole, err := readWhole(src)
		if err != nil {
			return nil, err
		}
		return md.Score(whole, level)
	}
	var sc streamedScores
	if md.Task != Classification {
		sc.units = targetUnits(first, md.TargetNames())
	}
	next := func() (*dataset.Frame, error) {
		if first != nil {
			f := first
			first = nil
			return f, nil
		}
		return fr.Read(streamChunk)
	}
	warnings, err := md.Encoder.TransformEach(next, func(f *dataset.Frame, x *mat.Dense) error {
		return sc.add(md, f, x, level)
	})
	if err != nil {
		return nil, err
	}
	k := md.Machine.Outputs()
	t := &dataset.Target{Rows: make([]int, len(sc.pred)/k), Values: sc.values, Labels: sc.labels}
	e := evaluate(md, mat.NewDense(len(t.Rows), k, sc.pred), t)
	e.Dropped, e.Warnings = sc.dropped, append(warnings, sc.alike.warnings(md.Target)...)
	if level != 0 {
		sc.cov.set(&e, level)
	}
	return &e, nil
}

// streamedScores is what ScoreSource keeps of the rows with a target:
// the machine's outputs, the targets, and the intervals' coverage.
type streamedScores struct {
	pred, values []float64
	labels       []int
	dropped      int
	cov          coverage
	units        []string // the units of a regression's targets in the first rows
	alike        inCase   // the rows of classes in another case
}

// add adds the rows with a target of the chunk f, whose inputs are x.
func (sc *streamedScores) add(md *Model, f *dataset.Frame, x *mat.Dense, level float64) error {
	c, values, labels, err := md.chunkLabels(f, sc.units, &sc.alike)
	if err != nil {
		return err
	}
	sc.dropped += c.dropped
	if len(c.rows) == 0 {
		return nil
	}
	x = pickRows(x, c.rows)
	pred, err := md.predictFinite(f, c.rows, x)
	if err != nil {
		return err
	}
	sc.pred = append(sc.pred, pred.RawMatrix().Data...)
	sc.values, sc.labels = append(sc.values, values...), append(sc.labels, labels...)
	if level != 0 {
		return sc.cov.add(md, x, values, labels, level)
	}
	return nil
}
