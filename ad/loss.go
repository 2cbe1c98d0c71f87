package ad

import (
	"fmt"
	"math"
)

type mse[T Float] struct{}

// MSE returns the mean over all elements of (pred - target)^2 as a 1x1
// node.
func (g *Graph[T]) MSE(pred, target *Node[T]) *Node[T] {
	if !pred.Value.sameShape(target.Value) {
		panic(fmt.Errorf("%w: ad: MSE of shapes %v and %v", ErrShape, pred.Value.Shape, target.Value.Shape))
	}
	return g.apply(mse[T]{}, []int{1, 1}, pred, target)
}

func (mse[T]) forward(out *Node[T]) {
	p, t := out.inputs[0].Value.Data, out.inputs[1].Value.Data
	var s T
	for i, pi := range p {
		d := pi - t[i]
		s += d * d
	}
	out.Value.Data[0] = s / T(len(p))
}

func (mse[T]) backward(out *Node[T]) {
	p, t := out.inputs[0], out.inputs[1]
	c := 2 * out.Grad.Data[0] / T(p.Value.Len())
	for i, pi := range p.Value.Data {
		d := c * (pi - t.Value.Data[i])
		if p.Grad != nil {
			p.Grad.Data[i] += d
		}
		if t.Grad != nil {
			t.Grad.Data[i] -= d
		}
	}
}

// softmaxCE keeps the class probabilities of the last forward pass for
// the backward pass. The exponentials, their sums and the loss are
// computed in float64 whatever the element type.
type softmaxCE[T Float] struct {
	labels []int
	prob   *Tensor[T]
}

// SoftmaxCrossEntropy returns the mean over samples of the cross-entropy
// between softmax(logits) and the true classes, as a 1x1 node. logits is
// samples x classes (a row per sample); labels holds one class index per
// sample. The graph keeps labels, not a copy, so a minibatch loop may
// overwrite it in place before each Forward.
func (g *Graph[T]) SoftmaxCrossEntropy(logits *Node[T], labels []int) *Node[T] {
	n, k := logits.Value.Rows(), logits.Value.Cols()
	if len(labels) != n {
		panic(fmt.Errorf("%w: ad: %d labels for logits of shape %v (samples x classes)", ErrShape, len(labels), logits.Value.Shape))
	}
	o := &softmaxCE[T]{labels: labels, prob: NewTensor[T](n, k)}
	return g.apply(o, []int{1, 1}, logits)
}

func (o *softmaxCE[T]) forward(out *Node[T]) {
	z := out.inputs[0].Value
	n, k := z.Rows(), z.Cols()
	loss := 0.0
	for j := range n {
		row, p := z.Data[j*k:(j+1)*k], o.prob.Data[j*k:(j+1)*k]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = math.Max(mx, float64(v))
		}
		s := 0.0
		for c, v := range row {
			e := math.Exp(float64(v) - mx)
			p[c] = T(e)
			s += e
		}
		for c := range p {
			p[c] = T(float64(p[c]) / s)
		}
		y := o.labels[j]
		if y < 0 || y >= k {
			panic(fmt.Errorf("%w: ad: label %d of sample %d outside 0..%d", ErrValue, y, j, k-1))
		}
		loss -= float64(row[y]) - mx - math.Log(s)
	}
	out.Value.Data[0] = T(loss / float64(n))
}

func (o *softmaxCE[T]) backward(out *Node[T]) {
	dz := out.inputs[0].Grad
	if dz == nil {
		return
	}
	n, k := dz.Rows(), dz.Cols()
	c := out.Grad.Data[0] / T(n)
	for i, p := range o.prob.Data {
		dz.Data[i] += c * p
	}
	for j, y := range o.labels {
		dz.Data[j*k+y] -= c
	}
}

// Correct returns the number of rows of scores (a row per sample, as
// SoftmaxCrossEntropy's logits) whose largest entry is at the sample's
// label: the hits of a classifier, for its accuracy.
func Correct[T Float](scores *Tensor[T], labels []int) int {
	k := scores.Len() / len(labels)
	n := 0
	for i, l := range labels {
		row := scores.Data[i*k : (i+1)*k]
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		if best == l {
			n++
		}
	}
	return n
}
