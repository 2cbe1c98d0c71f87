package kernel

import (
	"fmt"

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
	x   *ad.Tensor[float64] // the queries, inputs x size
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
	net := build(m.Architecture, &g, g.Input(ad.FromMatrix(m.A)), g.Input(ad.FromMatrix(m.C)), g.Input(ad.FromMatrix(m.Anchors.T())), nil, m.InputBlock)
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
	n := p.check(x)
	dst = p.alloc(dst, n)
	for lo := 0; lo < n; lo += predictChunk {
		hi := min(n, lo+predictChunk)
		out, size := p.chunk(x, lo, hi)
		for k := range p.m.Outputs() {
			for j := lo; j < hi; j++ {
				dst.Set(j, k, out[k*size+j-lo])
			}
		}
	}
	return dst
}

// check panics if x does not have the machine's inputs, and returns its
// rows.
func (p *Predictor) check(x mat.Matrix) int {
	n, d := x.Dims()
	if d != p.m.Inputs() {
		panic(fmt.Errorf("%w: kernel: %d input columns for a machine of %d inputs", ad.ErrShape, d, p.m.Inputs()))
	}
	return n
}

// alloc returns dst, or a new matrix if it is nil, of n rows and the
// machine's outputs; it panics if dst has other dimensions.
func (p *Predictor) alloc(dst *mat.Dense, n int) *mat.Dense {
	if dst == nil {
		return mat.NewDense(n, p.m.Outputs(), nil)
	}
	if r, c := dst.Dims(); r != n || c != p.m.Outputs() {
		panic(fmt.Errorf("%w: kernel: dst is %d×%d for %d rows of %d outputs", ad.ErrShape, r, c, n, p.m.Outputs()))
	}
	return dst
}

// chunk computes the machine's outputs for rows lo to hi-1 of x, and returns them as Outputs() rows of size
// values, row j of x in column j-lo; they stay valid until the next
// chunk.
func (p *Predictor) chunk(x mat.Matrix, lo, hi int) (out []float64, size int) {
	m := p.m
	q := p.graph(paddedSize(hi - lo))
	size = q.x.Cols()
	for i := range m.Inputs() {
		row := q.x.Data[i*size : (i+1)*size]
		for j := lo; j < hi; j++ {
			row[j-lo] = x.At(j, i)
		}
		clear(row[hi-lo:])
	}
	q.g.Forward()
	return q.out.Data, size
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
	net := buildFrom(m.Architecture, &q.g, q.g.Input(ad.FromMatrix(m.A)), q.g.Input(ad.FromMatrix(m.C)), q.g.Input(q.x), nil, fixed, m.InputBlock)
	q.out = net.out.Value
	p.graphs[size] = q
	return q
}
