package baseline

import (
	"fmt"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// FitSoftmaxPerceptron fits a perceptron classifier to the rows of x and
// their labels in [0, classes): its outputs are logits, fitted by the
// mean softmax cross-entropy plus weight decay. Settings are as for
// FitPerceptron, except that Standardize scales only the inputs.
func FitSoftmaxPerceptron(x mat.Matrix, labels []int, classes int, s PerceptronSettings) (*Perceptron, optim.Result, error) {
	n, d := x.Dims()
	if n == 0 || d == 0 || len(labels) != n || classes < 2 {
		return nil, optim.Result{}, fmt.Errorf("baseline: inputs %dx%d, %d labels and %d classes do not make a data set", n, d, len(labels), classes)
	}
	for i, l := range labels {
		if l < 0 || l >= classes {
			return nil, optim.Result{}, fmt.Errorf("baseline: label %d of row %d outside [0, %d)", l, i, classes)
		}
	}
	if s.WeightDecay < 0 {
		return nil, optim.Result{}, fmt.Errorf("baseline: weight decay %v, want >= 0", s.WeightDecay)
	}
	var in *scale.Scaler
	if s.Standardize {
		in = scale.FitScaler(x)
		x = in.Transform(x)
	}
	labels = append([]int(nil), labels...)
	return newObjective(x, classes, s, in, nil, func(g *ad.Graph[float64], pred *ad.Node[float64]) *ad.Node[float64] {
		return g.SoftmaxCrossEntropy(pred, labels)
	}).fit()
}

// Classify returns the index of the largest output of the perceptron for
// each row of x: its class, for a perceptron from FitSoftmaxPerceptron.
func (p *Perceptron) Classify(x mat.Matrix) []int {
	out := p.Predict(nil, x)
	r, _ := out.Dims()
	pred := make([]int, r)
	for i := range pred {
		pred[i] = floats.MaxIdx(out.RawRowView(i))
	}
	return pred
}
