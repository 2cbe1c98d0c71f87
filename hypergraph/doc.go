// Package hypergraph implements the hypergraph machines of section 3.1 of
// the paper: neural architectures written as directed hypergraphs whose
// vertices are spaces and whose hyperedges are maps.
//
// # Hypergraphs
//
// A Hypergraph has named vertices and hyperedges. A hyperedge reads a set
// of source vertices and writes a set of target vertices (Definition 4);
// either set may be empty, and the two may overlap. Paths and cycles
// follow Definition 5; a hyperedge whose sources and targets overlap is a
// cycle of length 1. The line graph (Definition 6) has a vertex per
// hyperedge and an edge E -> E' when E writes a vertex that E' reads. It
// is a machines.Graph: its minimal-height layering orders the hyperedges,
// and its cycles give the hypergraph's. A *CycleError names a cycle, as
// in "v1 -E2-> v3 -E4-> v1".
//
// # Machines
//
// A nonlinear hypergraph representation gives each vertex v a Space M_v
// and each hyperedge E a Map p_E from the spaces of its sources to those
// of its targets. Each p_E extends to an endofunction of M = ⊕_v M_v.
// When the hypergraph is acyclic, their dependency graph is part of the
// line graph, so f = Σ_E p_E is a machine. A Machine builds the stable
// state h = g + f(h) onto an ad.Graph one layer of hyperedges at a time
// (Corollary 1). Each vertex's state is its input plus the contributions
// of the hyperedges that write it, complete before any hyperedge reads
// it. Gradients flow through it like through any other part of the graph.
//
// The map of a hyperedge is any ad.Layer: this package's own kinds
// (Linear, Conv, Each, Reshape), a layer of another family, or a
// Machine, which is itself a layer. Like every layer, a Machine holds no
// parameter. Init registers those of its hyperedges in an ad.Params, each
// under the edge's name, and Apply reads them from there. Package model
// builds, trains, saves and exports such compositions.
//
// Vertices carry activations and hyperedges are the linear maps between
// them, as in Figure 2 of the paper; see Machine for how this fits the
// form h = g + f(h).
//
// # Spec files
//
// An architecture can be written as a JSON spec file and built with
// LoadSpec and FromSpec:
//
//	{
//	  "format": "machines",
//	  "kind": "hypergraph-spec",
//	  "version": 2,
//	  "inputs": ["x"],
//	  "outputs": ["y"],
//	  "vertices": [
//	    {"name": "x", "shape": [4]},
//	    {"name": "h", "shape": [16], "activation": "relu"},
//	    {"name": "y", "shape": [3]}
//	  ],
//	  "edges": [
//	    {"name": "E1", "kind": "dense", "sources": ["x"], "targets": ["h"]},
//	    {"name": "E2", "kind": "dense", "sources": ["h"], "targets": ["y"]}
//	  ]
//	}
//
// The header is the module's envelope, shared by every file it writes;
// spec files written before it, with "format": "machines-hypergraph" and
// version 1, are read too. A shape is [D] for a vector or [C, H, W] for
// an image with C channels.
// Activations are identity (the default), relu, relu6, tanh and sigmoid.
// "inputs" and "outputs" may be left out: inputs are then the vertices
// that no edge writes, outputs the other vertices that no edge reads.
// The map kinds are
//
//	linear    bias-free dense map from the concatenated sources to the
//	          concatenated targets, all vectors
//	dense     the same with a bias
//	conv3x3   bias-free 3x3 convolution with same padding from the stacked
//	          channels of the sources to those of the targets, all images
//	          of one height and width
//	identity, relu, relu6, tanh, sigmoid
//	          the function applied to each source, sent to the target in
//	          the same position
//	maxpool   [C, H, W] to [C, H/2, W/2], the maximum of each 2x2 block
//	upsample  [C, H, W] to [C, 2H, 2W], each pixel repeated
//	flatten   [C, H, W] to [C*H*W]
//
// The kinds from identity on pair the sources with the targets position by
// position, so they need as many of each. Weights start uniform in
// ±sqrt(6 / (fan-in + fan-out)) and biases at zero.
//
// Loading refuses, with an error that says where:
//
//   - a file of another format or of a later version;
//   - unknown fields, vertex names, kinds or activations;
//   - duplicate names;
//   - a cycle, named;
//   - shapes that a hyperedge's kind cannot map, the hyperedge named.
//
// A machine and its parameters are saved as a model of package model.
package hypergraph
