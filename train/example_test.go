package train_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/optim"
	"github.com/parametric-machines/machines/train"
)

// line is y = a x + b fitted by least squares: a parameter set, a graph
// over a minibatch, and the data it indexes.
type line struct {
	params ad.Params[float64]
	g      ad.Graph[float64]
	x, y   *ad.Tensor[float64] // the minibatch, a row per example
	loss   *ad.Node[float64]
	xs, ys []float64
}

func newLine(xs, ys []float64, batch int) *line {
	l := &line{xs: xs, ys: ys, x: ad.NewTensor[float64](batch, 1), y: ad.NewTensor[float64](batch, 1)}
	a := l.params.Use(&l.g, "a", ad.NewTensor[float64](1, 1))
	b := l.params.Use(&l.g, "b", ad.NewTensor[float64](1, 1))
	pred := l.g.AddRow(l.g.MatMul(l.g.Input(l.x), a, false, false), b)
	l.loss = l.g.MSE(pred, l.g.Input(l.y))
	return l
}

func (l *line) Params() *ad.Params[float64] { return &l.params }

func (l *line) Loss(batch []int, backward bool) (float64, error) {
	for j, i := range batch {
		l.x.Data[j], l.y.Data[j] = l.xs[i], l.ys[i]
	}
	l.g.Forward()
	if backward {
		l.g.Backward(l.loss)
	}
	return l.loss.Scalar(), nil
}

// Fit a line to 100 noisy points with Adam, holding 20 out to pick the
// best epoch.
func ExampleRun() {
	rnd := rand.New(rand.NewPCG(1, 1))
	xs, ys := make([]float64, 100), make([]float64, 100)
	for i := range xs {
		xs[i] = rnd.Float64()*2 - 1
		ys[i] = 3*xs[i] - 1 + 0.1*rnd.NormFloat64()
	}
	model := newLine(xs, ys, 10)
	res, err := train.Run[float64](model, 100, train.Config{
		Epochs: 100, Batch: 10, Validation: 0.2, Optimizer: &optim.Adam{LR: 0.05},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := model.Params()
	fmt.Printf("%d training and %d validation examples\n", res.Train, res.Validation)
	fmt.Printf("a = %.1f, b = %.1f\n", p.Value("a").Data[0], p.Value("b").Data[0])
	// Output:
	// 80 training and 20 validation examples
	// a = 3.0, b = -1.0
}
