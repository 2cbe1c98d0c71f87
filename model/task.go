package model

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/parametric-machines/machines/ad"
)

// Task is a model's training problem on a data set, what train.Run
// trains (it implements train.Model), and what Evaluate scores: the mean
// loss of the model's one output on the samples of a minibatch, plus
// the penalties its layers add (a kernel machine's cost times its norm).
//
// A Task keeps one graph per batch size it is given, so that a short last
// minibatch, or a validation batch, is computed on exactly its own
// samples, never with rows left over from a longer one.
type Task[T ad.Float] struct {
	m      *Model[T]
	x      []*ad.Tensor[T]
	n      int
	labels []int         // a classification's classes, or nil
	y      *ad.Tensor[T] // a regression's targets, or nil
	graphs map[int]*taskGraph[T]
	err    error // of the data
}

type taskGraph[T ad.Float] struct {
	*pass[T]
	labels []int         // the minibatch's classes, which the loss reads
	y      *ad.Tensor[T] // the minibatch's targets
	data   *ad.Node[T]   // the mean loss of the data
	loss   *ad.Node[T]   // data plus penalties
}

// Classifier returns the task of classifying the samples of x (one
// tensor per input, the samples first) into labels, by the mean softmax
// cross-entropy of the model's one output, whose size is the number of
// classes.
func (m *Model[T]) Classifier(labels []int, x ...*ad.Tensor[T]) *Task[T] {
	t := m.task(x)
	if t.err == nil && len(labels) != t.n {
		t.err = fmt.Errorf("model: %d labels for %d samples", len(labels), t.n)
	}
	if t.err == nil {
		_, shapes := m.Outputs()
		if len(shapes) != 1 || len(shapes[0]) != 1 {
			t.err = fmt.Errorf("model: a classifier needs one vector output, the model has outputs of shapes %v", shapes)
		} else {
			for i, l := range labels {
				if l < 0 || l >= shapes[0][0] {
					t.err = fmt.Errorf("model: label %d of sample %d is not one of the %d classes of the output", l, i, shapes[0][0])
					break
				}
			}
		}
	}
	t.labels = labels
	return t
}

// Regressor returns the task of predicting y, a tensor of the samples'
// targets in the shape of the model's one output, from the samples of x,
// by the mean squared error.
func (m *Model[T]) Regressor(y *ad.Tensor[T], x ...*ad.Tensor[T]) *Task[T] {
	t := m.task(x)
	if t.err == nil {
		_, shapes := m.Outputs()
		if len(shapes) != 1 || y == nil || !slices.Equal(y.Shape, append([]int{t.n}, shapes[0]...)) {
			t.err = fmt.Errorf("model: regression targets must be one tensor [samples, %v] for the model's one output, given %v", shapes, shapeOf(y))
		}
	}
	t.y = y
	return t
}

func shapeOf[T ad.Float](t *ad.Tensor[T]) []int {
	if t == nil {
		return nil
	}
	return t.Shape
}

func (m *Model[T]) task(x []*ad.Tensor[T]) *Task[T] {
	n, err := m.checkData(x)
	if err == nil {
		_, err = m.Machine()
	}
	return &Task[T]{m: m, x: x, n: n, err: err, graphs: map[int]*taskGraph[T]{}}
}

// Len returns the number of samples, the n to give train.Run.
func (t *Task[T]) Len() int { return t.n }

// Params implements train.Model.
func (t *Task[T]) Params() *ad.Params[T] { return &t.m.params }

// Loss implements train.Model: it returns the mean loss over the samples
// listed in batch, penalties included, and with backward leaves its
// gradient in the model's parameters. A layer's numerical failure is
// returned as an error naming the layer.
func (t *Task[T]) Loss(batch []int, backward bool) (float64, error) {
	tg, err := t.graph(len(batch))
	if err != nil {
		return math.NaN(), err
	}
	t.load(tg, batch)
	tg.g.Forward()
	if err := tg.g.Err(); err != nil {
		return math.NaN(), err
	}
	if backward {
		tg.g.Backward(tg.loss)
		if err := tg.g.Err(); err != nil {
			return math.NaN(), err
		}
	}
	return float64(tg.loss.Scalar()), nil
}

// load copies the samples of batch, and their labels or targets, into
// the graph's inputs.
func (t *Task[T]) load(tg *taskGraph[T], batch []int) {
	tg.load(t.x, batch)
	for j, i := range batch {
		if t.labels != nil {
			tg.labels[j] = t.labels[i]
		} else {
			size := tg.y.Len() / len(batch)
			copy(tg.y.Data[j*size:(j+1)*size], t.y.Data[i*size:(i+1)*size])
		}
	}
}

// graph returns the task's graph for batches of n samples.
func (t *Task[T]) graph(n int) (*taskGraph[T], error) {
	if t.err != nil {
		return nil, t.err
	}
	if tg, ok := t.graphs[n]; ok {
		return tg, nil
	}
	p, err := t.m.newPass(n)
	if err != nil {
		return nil, err
	}
	tg := &taskGraph[T]{pass: p}
	g, out := &p.g, p.outputs[0]
	if t.labels != nil {
		tg.labels = make([]int, n)
		tg.data = g.SoftmaxCrossEntropy(out, tg.labels)
	} else {
		tg.y = ad.NewTensor[T](out.Value.Shape...)
		tg.data = g.MSE(g.Reshape(out, n, -1), g.Input(ad.View(tg.y.Data, n, tg.y.Len()/n)))
	}
	tg.loss = tg.data
	for _, pen := range p.penalties {
		tg.loss = g.Add(tg.loss, g.Reshape(pen, 1, 1))
	}
	t.graphs[n] = tg
	return tg, nil
}

// Score is what Evaluate measures.
type Score struct {
	// Loss is the mean loss of the data, without the penalties.
	Loss float64 `json:"loss"`
	// Accuracy is the fraction of samples whose largest score is their
	// class, for a classification; NaN for a regression.
	Accuracy float64 `json:"accuracy"`
	Samples  int     `json:"samples"`
}

// Evaluate returns the loss and accuracy of the model on every sample of
// the task, computed in batches of batch samples (0 means PredictBatch).
// A negative batch panics with ad.ErrValue.
func (t *Task[T]) Evaluate(batch int) (Score, error) {
	if batch < 0 {
		panic(fmt.Errorf("%w: model: Evaluate in batches of %d samples", ad.ErrValue, batch))
	}
	batch = cmp.Or(batch, PredictBatch)
	if t.err != nil {
		return Score{}, t.err
	}
	var loss float64
	correct := 0
	for lo := 0; lo < t.n; lo += batch {
		rows := seq(lo, min(lo+batch, t.n))
		tg, err := t.graph(len(rows))
		if err != nil {
			return Score{}, err
		}
		t.load(tg, rows)
		tg.g.Forward()
		if err := tg.g.Err(); err != nil {
			return Score{}, fmt.Errorf("model: samples %d to %d: %w", lo, rows[len(rows)-1], err)
		}
		loss += float64(tg.data.Scalar()) * float64(len(rows))
		if t.labels != nil {
			correct += ad.Correct(tg.outputs[0].Value, tg.labels)
		}
	}
	s := Score{Loss: loss / float64(t.n), Accuracy: math.NaN(), Samples: t.n}
	if t.labels != nil {
		s.Accuracy = float64(correct) / float64(t.n)
	}
	return s, nil
}
