package sculpt

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/hypergraph"
)

// Node indices of an Arch: the input is node 0, the hidden nodes are 1..N
// and the logits are node N+1.

// Arch is a sculptable architecture: an input image, hidden nodes that
// apply ReLU6 and a resampling, 3x3 convolutions between nodes and linear
// heads from each hidden node into the class logits. It is the generous
// architecture that sculpting starts from; which of its edges are still
// live is kept apart, as a set of edge names.
type Arch struct {
	// Channels, Rows and Cols are the shape of an input image, and
	// Classes the number of logits.
	Channels int `json:"channels"`
	Rows     int `json:"rows"`
	Cols     int `json:"cols"`
	Classes  int `json:"classes"`
	// Width is the number of channels of every hidden node.
	Width int `json:"width"`
	// Nodes are the hidden nodes, in order; Nodes[k-1] is node k.
	Nodes []Node `json:"nodes"`
	// Edges are the edges with weights: every conv and every head.
	Edges []ArchEdge `json:"edges"`
}

// Node is a hidden node: its state, an image of In rows and columns,
// passes through ReLU6 and then Resample, which makes it an image of Out
// rows and columns.
type Node struct {
	Resample string `json:"resample"` // "identity", "maxpool" or "upsample"
	In       [2]int `json:"in"`       // rows and columns before resampling
	Out      [2]int `json:"out"`      // and after
}

// ArchEdge is an edge with weights from node From to node To (see Arch
// for the numbering): Kind "conv3x3" or "linear".
type ArchEdge struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	From int    `json:"from"`
	To   int    `json:"to"`
}

// Generous returns the generous architecture for images of the given
// shape and number of classes, with nodes hidden nodes of width channels.
//
// The nodes zigzag between resolutions: node 1 max-pools the input size,
// every odd-numbered node after it max-pools or upsamples, bouncing
// between half and a quarter of the input size (as far as the size
// divides), and every even-numbered node keeps its size. Each node reads
// the output of the previous one (node 1 the input) through a 3x3
// convolution, and also the output of every earlier node of the same
// size; each node has a linear head into the logits. Generous panics if
// a count is not positive.
func Generous(channels, rows, cols, classes, nodes, width int) *Arch {
	if channels < 1 || rows < 1 || cols < 1 || classes < 1 || nodes < 1 || width < 1 {
		panic(fmt.Errorf("%w: sculpt: generous architecture of %d nodes of %d channels for %d classes of %dx%dx%d images", ad.ErrShape,
			nodes, width, classes, channels, rows, cols))
	}
	a := &Arch{Channels: channels, Rows: rows, Cols: cols, Classes: classes, Width: width}
	outs := [][2]int{{rows, cols}} // output size of each node so far, input first
	zigzag(rows, cols, nodes, func(k int, n Node) {
		a.Nodes = append(a.Nodes, n)
		for j, o := range outs {
			if o == n.In {
				a.Edges = append(a.Edges, ArchEdge{Name: "c" + strconv.Itoa(j) + "." + strconv.Itoa(k), Kind: "conv3x3", From: j, To: k})
			}
		}
		outs = append(outs, n.Out)
	})
	for k := 1; k <= nodes; k++ {
		a.Edges = append(a.Edges, ArchEdge{Name: "h" + strconv.Itoa(k), Kind: "linear", From: k, To: nodes + 1})
	}
	return a
}

// zigzag calls visit with the hidden nodes 1 to nodes of the generous
// architecture for images of rows x cols, in order (see Generous).
func zigzag(rows, cols, nodes int, visit func(k int, n Node)) {
	hi := 0 // deepest level: size divided by 2^hi
	for hi < 2 && rows%(2<<hi) == 0 && cols%(2<<hi) == 0 {
		hi++
	}
	lo := min(1, hi)
	size := func(l int) [2]int { return [2]int{rows >> l, cols >> l} }
	level, down := 0, true
	for k := 1; k <= nodes; k++ {
		n := Node{Resample: "identity", In: size(level)}
		if k%2 == 1 {
			switch {
			case level < lo, down && level < hi:
				n.Resample, level = "maxpool", level+1
			case down && level > lo, !down && level > lo:
				n.Resample, level, down = "upsample", level-1, false
			case !down && level < hi:
				n.Resample, level, down = "maxpool", level+1, true
			}
		}
		n.Out = size(level)
		visit(k, n)
	}
}

// Edge returns the index of the edge with the given name, or -1.
func (a *Arch) Edge(name string) int {
	return slices.IndexFunc(a.Edges, func(e ArchEdge) bool { return e.Name == name })
}

// channels returns the number of channels of node k.
func (a *Arch) channels(k int) int {
	if k == 0 {
		return a.Channels
	}
	return a.Width
}

// outSize returns the rows and columns of the output of node k.
func (a *Arch) outSize(k int) [2]int {
	if k == 0 {
		return [2]int{a.Rows, a.Cols}
	}
	return a.Nodes[k-1].Out
}

// Live returns which edges and nodes are live when the edges in pruned
// are removed: a hidden node is live while some live edge reads it and
// some live edge writes it, and an edge is live while it is not pruned
// and its ends are live. The input and the logits are always live. The
// results are indexed like Edges and like the nodes 0..N+1.
func (a *Arch) Live(pruned map[string]bool) (edges, nodes []bool) {
	n := len(a.Nodes)
	nodes = make([]bool, n+2)
	for i := range nodes {
		nodes[i] = true
	}
	edges = make([]bool, len(a.Edges))
	for {
		in, out := make([]bool, n+2), make([]bool, n+2)
		for i, e := range a.Edges {
			edges[i] = !pruned[e.Name] && nodes[e.From] && nodes[e.To]
			if edges[i] {
				out[e.From], in[e.To] = true, true
			}
		}
		changed := false
		for k := 1; k <= n; k++ {
			if nodes[k] && !(in[k] && out[k]) {
				nodes[k], changed = false, true
			}
		}
		if !changed {
			return edges, nodes
		}
	}
}

// Vertex names of the spec of an Arch.
func inVertex(k int) string { return "n" + strconv.Itoa(k) }

func (a *Arch) outVertex(k int) string {
	switch {
	case k == 0:
		return "x"
	case a.Nodes[k-1].Resample == "identity":
		return inVertex(k)
	default:
		return inVertex(k) + "r"
	}
}

// Spec returns the hypergraph spec of the architecture with the edges in
// pruned removed, and with them the nodes that are no longer live (see
// Live). A node becomes the vertex nK, with ReLU6, followed when it
// resamples by the vertex nKr and the resampling edge rK; a head is a
// flatten edge fK into the vector vertex vK and the linear edge hK into
// the vertex logits. The input vertex is x.
func (a *Arch) Spec(pruned map[string]bool) *hypergraph.Spec {
	liveEdges, liveNodes := a.Live(pruned)
	s := &hypergraph.Spec{Inputs: []string{"x"}, Outputs: []string{"logits"}}
	s.Vertices = append(s.Vertices, hypergraph.VertexSpec{Name: "x", Shape: []int{a.Channels, a.Rows, a.Cols}})
	for k, n := range a.Nodes {
		k++
		if !liveNodes[k] {
			continue
		}
		s.Vertices = append(s.Vertices, hypergraph.VertexSpec{Name: inVertex(k), Shape: []int{a.Width, n.In[0], n.In[1]}, Activation: ad.ReLU6})
		if n.Resample != "identity" {
			out := a.outVertex(k)
			s.Vertices = append(s.Vertices, hypergraph.VertexSpec{Name: out, Shape: []int{a.Width, n.Out[0], n.Out[1]}})
			s.Edges = append(s.Edges, hypergraph.EdgeSpec{Name: "r" + strconv.Itoa(k), Kind: n.Resample,
				Sources: []string{inVertex(k)}, Targets: []string{out}})
		}
	}
	s.Vertices = append(s.Vertices, hypergraph.VertexSpec{Name: "logits", Shape: []int{a.Classes}})
	for i, e := range a.Edges {
		if !liveEdges[i] {
			continue
		}
		switch e.Kind {
		case "conv3x3":
			s.Edges = append(s.Edges, hypergraph.EdgeSpec{Name: e.Name, Kind: e.Kind,
				Sources: []string{a.outVertex(e.From)}, Targets: []string{inVertex(e.To)}})
		case "linear":
			k := e.From
			o := a.outSize(k)
			v := "v" + strconv.Itoa(k)
			s.Vertices = append(s.Vertices, hypergraph.VertexSpec{Name: v, Shape: []int{a.Width * o[0] * o[1]}})
			s.Edges = append(s.Edges,
				hypergraph.EdgeSpec{Name: "f" + strconv.Itoa(k), Kind: "flatten", Sources: []string{a.outVertex(k)}, Targets: []string{v}},
				hypergraph.EdgeSpec{Name: e.Name, Kind: e.Kind, Sources: []string{v}, Targets: []string{"logits"}})
		}
	}
	return s
}

// EdgeFLOPs returns the floating-point operations of edge i for one
// image in the forward pass: two per multiply-add of its convolution or
// matrix product.
func (a *Arch) EdgeFLOPs(i int) int {
	e := a.Edges[i]
	o := a.outSize(e.From)
	if e.Kind == "linear" {
		return 2 * a.Classes * a.Width * o[0] * o[1]
	}
	return 2 * 9 * a.channels(e.From) * a.Width * o[0] * o[1]
}

// EdgeParams returns the number of weights of edge i.
func (a *Arch) EdgeParams(i int) int {
	e := a.Edges[i]
	if e.Kind == "linear" {
		o := a.outSize(e.From)
		return a.Classes * a.Width * o[0] * o[1]
	}
	return 9 * a.channels(e.From) * a.Width
}

// Count returns the number of live edges, their weights and their
// forward FLOPs per image (see EdgeFLOPs) when the edges in pruned are
// removed.
func (a *Arch) Count(pruned map[string]bool) (edges, params, flops int) {
	live, _ := a.Live(pruned)
	for i, ok := range live {
		if ok {
			edges++
			params += a.EdgeParams(i)
			flops += a.EdgeFLOPs(i)
		}
	}
	return edges, params, flops
}
