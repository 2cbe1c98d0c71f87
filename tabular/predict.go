package tabular

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/numeric"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Prediction holds a model's predictions for rows of a table. A row
// whose machine outputs are not all finite numbers (its inputs lie far
// outside the training data) has NaN values, no label and no set.
type Prediction struct {
	// Values holds a regression's predictions, one column per target;
	// for a classifier the probability of each class, one column per
	// class in the order of Model.Classes.
	Values *mat.Dense
	// Labels holds a classifier's predicted class for each row: the most
	// probable one.
	Labels []string
	// Lower and Upper hold the ends of a regression's prediction
	// intervals, and Sets a classifier's prediction sets: the classes
	// whose conformal score is within the level's threshold. They are
	// nil without a level.
	Lower, Upper *mat.Dense
	Sets         [][]string
	// Scores holds the machine's outputs: a classifier's calibrated
	// class scores, whose softmax is Values.
	Scores *mat.Dense
}

// NonFinite returns the rows whose machine outputs are not all finite
// numbers.
func (p *Prediction) NonFinite() []int { return nonFinite(p.Scores) }

// Predict predicts the rows of f. The warnings are the encoder's about
// the rows (levels not seen in training, and the like).
func (md *Model) Predict(f *dataset.Frame) (*Prediction, []dataset.Warning, error) {
	return md.PredictInterval(f, 0)
}

// Probabilities returns a classifier's probability of each class for
// each row of f, one column per class in the order of Model.Classes.
func (md *Model) Probabilities(f *dataset.Frame) (*mat.Dense, error) {
	if md.Task != Classification {
		return nil, errors.New("probabilities: the model is a regression")
	}
	p, _, err := md.Predict(f)
	if err != nil {
		return nil, err
	}
	return p.Values, nil
}

// PredictInterval predicts the rows of f with, at a level between 0 and
// 1, conformal prediction intervals (regression) or sets
// (classification) made of the held-out residuals or scores of the
// setting the fit chose: a new row exchangeable with the training rows
// has its target inside its interval or set with probability at least
// the level. Level 0 predicts without them.
func (md *Model) PredictInterval(f *dataset.Frame, level float64) (*Prediction, []dataset.Warning, error) {
	var out *Prediction
	warnings, err := md.PredictEach(func() (*dataset.Frame, error) {
		if f == nil {
			return nil, io.EOF
		}
		part := f
		f = nil
		return part, nil
	}, level, func(_ *dataset.Frame, p *Prediction) error {
		out = p
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, warnings, nil
}

// PredictEach predicts a table that comes in parts, so that its memory
// does not grow with the table: it calls next for each part until next
// returns io.EOF, and each with the part and its predictions. It returns
// the encoder's warnings about the whole table.
func (md *Model) PredictEach(next func() (*dataset.Frame, error), level float64, each func(f *dataset.Frame, p *Prediction) error) ([]dataset.Warning, error) {
	if level != 0 {
		if err := md.CheckLevel(level); err != nil {
			return nil, err
		}
	}
	return md.inputsEach(next, func(f *dataset.Frame, x *mat.Dense) error {
		p, err := md.predictInputs(x, level)
		if err != nil {
			return err
		}
		return each(f, p)
	})
}

// CheckLevel reports why md has no prediction intervals or sets of the
// given level.
func (md *Model) CheckLevel(level float64) error {
	_, err := md.HalfWidths(level)
	return err
}

// HalfWidths returns the conformal half width of each regression target
// for the given level, on the scale the machine fits, as
// Machine.PredictInterval takes them; for a classifier the
// threshold of the scores 1 - p of the classes in a prediction set.
func (md *Model) HalfWidths(level float64) ([]float64, error) {
	if !(level > 0 && level < 1) {
		return nil, fmt.Errorf("level %v: want a level between 0 and 1, such as 0.9", level)
	}
	if md.Intervals == nil {
		return nil, errors.New("the model holds no held-out residuals (a fit chooses its settings by cross-validation unless one cost and one bandwidth are given; " +
			"files before version 3, and classifiers' before version 6, have none)")
	}
	h := make([]float64, len(md.Intervals.Residuals))
	for j, r := range md.Intervals.Residuals {
		h[j] = conformal(r, level)
		if math.IsInf(h[j], 1) {
			return nil, fmt.Errorf("level %v: %d held-out residuals are too few for that level; want at most %.3g",
				level, len(r), float64(len(r))/float64(len(r)+1))
		}
	}
	return h, nil
}

// Encode returns the machine's inputs for the rows of f, and the
// encoder's warnings about them.
func (md *Model) Encode(f *dataset.Frame) (*mat.Dense, []dataset.Warning, error) {
	return md.inputs(f, nil)
}

// EncodeColumn encodes the cells of feature j into column j of the
// machine's inputs x, as dataset.Encoder.EncodeColumn does; a model file
// of version 1, without an encoder, takes numbers only, none of them NaN.
func (md *Model) EncodeColumn(x *mat.Dense, j int, numbers []float64, texts []string) (*dataset.Warning, error) {
	if md.Encoder != nil {
		return md.Encoder.EncodeColumn(x, j, numbers, texts)
	}
	for i, v := range numbers {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("input %q, row %d: null, but this model (a version 1 file) takes numbers only", md.Features[j], i+1)
		}
		x.Set(i, j, v)
	}
	return nil, nil
}

// PredictEncoded predicts the rows of the machine's inputs x, as Encode
// returns them, with intervals or sets of the level if not 0 (see
// PredictInterval). p, if not nil, is the machine's predictor to use, one
// per goroutine.
func (md *Model) PredictEncoded(p *Predictor, x *mat.Dense, level float64) (*Prediction, error) {
	var h []float64
	if level != 0 {
		var err error
		if h, err = md.HalfWidths(level); err != nil {
			return nil, err
		}
	}
	if p == nil {
		p = md.Machine.NewPredictor()
	}
	out := new(Prediction)
	if md.Task == Regression {
		if h != nil {
			out.Values, out.Lower, out.Upper = p.PredictInterval(nil, nil, nil, x, h)
		} else {
			out.Values = p.Predict(nil, x)
		}
		out.Scores = out.Values
		return out, nil
	}
	out.Scores = p.Predict(nil, x)
	n, k := out.Scores.Dims()
	out.Values = mat.NewDense(n, k, nil)
	out.Labels = make([]string, n)
	if h != nil {
		out.Sets = make([][]string, n)
	}
	for i := range n {
		probs := out.Values.RawRowView(i)
		if !numeric.AllFinite(out.Scores.RawRowView(i)) {
			for j := range probs {
				probs[j] = math.NaN()
			}
			continue
		}
		out.Labels[i] = md.Classes[classOf(probs, out.Scores.RawRowView(i))]
		if h != nil {
			out.Sets[i] = predictionSet(md.Classes, probs, h[0])
		}
	}
	return out, nil
}

// predictInputs is PredictEncoded with a predictor of its own.
func (md *Model) predictInputs(x *mat.Dense, level float64) (*Prediction, error) {
	return md.PredictEncoded(nil, x, level)
}

// predictionSet returns the classes whose score 1 - p is at most the
// threshold, in the order of classes.
func predictionSet(classes []string, p []float64, threshold float64) []string {
	set := []string{}
	for j, v := range p {
		if 1-v <= threshold {
			set = append(set, classes[j])
		}
	}
	return set
}

// classOf writes the softmax of a classifier's scores to p and returns
// the predicted class: the most probable one, the first of equals. It is
// the one rule of every command and of Score and Importance.
func classOf(p, scores []float64) int {
	softmaxTo(p, scores)
	return floats.MaxIdx(p)
}

// softmaxTo writes the softmax of the scores x to dst.
func softmaxTo(dst, x []float64) {
	hi := math.Inf(-1)
	for _, v := range x {
		hi = math.Max(hi, v)
	}
	var sum float64
	for i, v := range x {
		dst[i] = math.Exp(v - hi)
		sum += dst[i]
	}
	for i := range dst {
		dst[i] /= sum
	}
}

// conformal returns the half width of a conformal prediction interval of
// the given level (between 0 and 1) from held-out absolute residuals,
// sorted in increasing order, of rows exchangeable with the new ones: the
// ceil((n+1) level)-th smallest of the n residuals, so that a new row's
// residual falls below it with probability at least level. It is +Inf
// when there are too few residuals for that level.
func conformal(residuals []float64, level float64) float64 {
	n := len(residuals)
	k := int(math.Ceil(float64(n+1) * level))
	switch {
	case k > n:
		return math.Inf(1)
	case k < 1:
		return 0
	}
	return residuals[k-1]
}
