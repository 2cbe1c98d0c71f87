package kernel

import (
	"fmt"
	"math"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/mat"
)

// Predictor computes a machine's predictions batch after batch. The
// anchors' states, which every prediction reads, are computed once when
// the Predictor is made, and the graphs of the queries are built once
// for each batch size and replayed, so that a warm Predictor allocates
// nothing but the result (none when dst is given). A Predictor is not
// safe for concurrent use; make one per goroutine.
//
// A row's prediction does not depend on the other rows of its batch: the
// queries are computed in chunks of at most predictChunk rows, padded to
// a power of two of at least predictMinRows, and every padded size takes
// the same products. Machine.Predict is a Predictor's Predict, so it
// gives the same bits for a row as any batch holding it.
type Predictor struct {
	m *Machine
	// anchors holds the anchors' states of the blocks that the kernels
	// read, each Dims[i] x anchors.
	anchors []*ad.Tensor[float64]
	// graphs holds the graph of the queries by padded size.
	graphs map[int]*queryGraph
}

// queryGraph is the forward pass of a machine on a fixed number of
// queries, replayed for each chunk.
type queryGraph struct {
	g   ad.Graph[float64]
	x   *ad.Tensor[float64] // the standardised queries, inputs x size
	out *ad.Tensor[float64] // the output block, Outputs() x size
}

// The chunks of a Predictor: at most predictChunk rows, padded to at
// least predictMinRows so that no product of the queries is thin enough
// for the engine to route it to other code than a large batch's.
const (
	predictChunk   = 256
	predictMinRows = 8
)

// NewPredictor returns a Predictor of m, which must not change while the
// Predictor is in use.
func (m *Machine) NewPredictor() *Predictor {
	var g ad.Graph[float64]
	net := build(m.Architecture, &g, g.Input(ad.FromMatrix(m.A)), g.Input(ad.FromMatrix(m.C)), g.Input(ad.FromMatrix(m.Anchors.T())), nil)
	p := &Predictor{m: m, graphs: map[int]*queryGraph{}}
	for _, s := range net.states {
		p.anchors = append(p.anchors, s.Value)
	}
	return p
}

// Predict writes the machine's output for each row of x to the rows of
// dst (len(rows) x Outputs()), as Machine.Predict does. dst may be nil,
// in which case a new matrix is allocated and returned.
func (p *Predictor) Predict(dst *mat.Dense, x mat.Matrix) *mat.Dense {
	m := p.m
	n, d := x.Dims()
	if d != m.Inputs() {
		panic(fmt.Sprintf("kernel: %d input columns for a machine of %d inputs", d, m.Inputs()))
	}
	if dst == nil {
		dst = mat.NewDense(n, m.Outputs(), nil)
	} else if r, c := dst.Dims(); r != n || c != m.Outputs() {
		panic(mat.ErrShape)
	}
	for lo := 0; lo < n; lo += predictChunk {
		p.chunk(dst, x, lo, min(n, lo+predictChunk))
	}
	return dst
}

// chunk predicts rows lo to hi-1 of x into the same rows of dst.
func (p *Predictor) chunk(dst *mat.Dense, x mat.Matrix, lo, hi int) {
	m := p.m
	q := p.graph(paddedSize(hi - lo))
	size := q.x.Cols()
	for i := range m.Inputs() {
		row := q.x.Data[i*size : (i+1)*size]
		for j := lo; j < hi; j++ {
			v := x.At(j, i)
			if m.Input != nil {
				v = m.Input.TransformValue(i, v)
			}
			row[j-lo] = v
		}
		clear(row[hi-lo:])
	}
	q.g.Forward()
	for k := range m.Outputs() {
		row := q.out.Data[k*size : (k+1)*size]
		for j := lo; j < hi; j++ {
			v := row[j-lo]
			if m.Output != nil {
				v = m.Output.InvertValue(k, v)
			}
			if m.LogTarget {
				v = math.Expm1(v)
			}
			dst.Set(j, k, v)
		}
	}
}

// paddedSize returns the number of queries a chunk of n rows is computed
// as: the least power of two of at least n and predictMinRows.
func paddedSize(n int) int {
	size := predictMinRows
	for size < n {
		size *= 2
	}
	return size
}

// graph returns the graph of size queries, building it on first use.
func (p *Predictor) graph(size int) *queryGraph {
	if q, ok := p.graphs[size]; ok {
		return q
	}
	m := p.m
	q := &queryGraph{x: ad.NewTensor[float64](m.Inputs(), size)}
	fixed := make([]*ad.Node[float64], len(p.anchors))
	for i, s := range p.anchors {
		fixed[i] = q.g.Input(s)
	}
	net := buildFrom(m.Architecture, &q.g, q.g.Input(ad.FromMatrix(m.A)), q.g.Input(ad.FromMatrix(m.C)), q.g.Input(q.x), nil, fixed)
	q.out = net.out.Value
	p.graphs[size] = q
	return q
}
