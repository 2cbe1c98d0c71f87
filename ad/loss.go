package ad

import (
	"fmt"
	"math"
)

type mse struct{}

// MSE returns the mean over all elements of (pred - target)^2 as a 1x1
// node.
func (g *Graph) MSE(pred, target *Node) *Node {
	if !pred.Value.sameShape(target.Value) {
		panic(fmt.Sprintf("ad: MSE of shapes %v and %v", pred.Value.Shape, target.Value.Shape))
	}
	return g.apply(mse{}, []int{1, 1}, pred, target)
}

func (mse) forward(out *Node) {
	p, t := out.inputs[0].Value.Data, out.inputs[1].Value.Data
	s := 0.0
	for i, pi := range p {
		d := pi - t[i]
		s += d * d
	}
	out.Value.Data[0] = s / float64(len(p))
}

func (mse) backward(out *Node) {
	p, t := out.inputs[0], out.inputs[1]
	c := 2 * out.Grad.Data[0] / float64(p.Value.Len())
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
// the backward pass.
type softmaxCE struct {
	labels []int
	prob   *Tensor
}

// SoftmaxCrossEntropy returns the mean over samples of the cross-entropy
// between softmax(logits) and the true classes, as a 1x1 node. logits is
// classes x samples (a column per sample); labels holds one class index
// per sample. The graph keeps labels, not a copy, so a minibatch loop may
// overwrite it in place before each Forward.
func (g *Graph) SoftmaxCrossEntropy(logits *Node, labels []int) *Node {
	k, n := logits.Value.Rows(), logits.Value.Cols()
	if len(labels) != n {
		panic(fmt.Sprintf("ad: %d labels for %d samples", len(labels), n))
	}
	o := &softmaxCE{labels: labels, prob: NewTensor(k, n)}
	return g.apply(o, []int{1, 1}, logits)
}

func (o *softmaxCE) forward(out *Node) {
	z := out.inputs[0].Value
	k, n := z.Rows(), z.Cols()
	p := o.prob.Data
	loss := 0.0
	for j := range n {
		mx := math.Inf(-1)
		for c := range k {
			mx = math.Max(mx, z.Data[c*n+j])
		}
		s := 0.0
		for c := range k {
			e := math.Exp(z.Data[c*n+j] - mx)
			p[c*n+j] = e
			s += e
		}
		for c := range k {
			p[c*n+j] /= s
		}
		y := o.labels[j]
		if y < 0 || y >= k {
			panic(fmt.Sprintf("ad: label %d of sample %d outside 0..%d", y, j, k-1))
		}
		loss -= z.Data[y*n+j] - mx - math.Log(s)
	}
	out.Value.Data[0] = loss / float64(n)
}

func (o *softmaxCE) backward(out *Node) {
	dz := out.inputs[0].Grad
	if dz == nil {
		return
	}
	n := dz.Cols()
	c := out.Grad.Data[0] / float64(n)
	for i, p := range o.prob.Data {
		dz.Data[i] += c * p
	}
	for j, y := range o.labels {
		dz.Data[y*n+j] -= c
	}
}
