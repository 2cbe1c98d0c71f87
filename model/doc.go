// Package model composes machines of every family into one model, the
// way the paper composes architectures: named spaces, and layers between
// them whose sum, ordered by its dependency graph, is a machine; the
// forward pass is its stable state, computed layer by layer
// (Corollary 1).
//
// A Model is built with Input, which names an input space, Add, which
// applies a layer (any ad.Layer: hypergraph's own maps, a whole
// hypergraph machine, finite, kernel and infinite-depth kernel machines,
// neural ODEs) to spaces and names the space it writes, and Into, which
// adds a layer's output to an existing space (a shortcut):
//
//	m := model.New[float32](nil)
//	x := m.Input("image", 1, 28, 28)
//	h := m.Add("conv", hypergraph.Conv[float32]{Out: []int{8}}, x)
//	h = m.Add("machine", finite.Layer[float32]{Kind: finite.Conv, Dims: []int{8, 8}, Pad: []int{1, 1}}, h)
//	h = m.Add("flat", hypergraph.Flatten[float32](), h)
//	m.Add("logits", kernel.Layer[float32]{Architecture: kernel.Architecture{Dims: []int{16, 10}}, Anchors: 32}, h)
//
// Each layer is initialised as it is added, on the shapes of the spaces
// it reads, and its parameters are named after it ("conv.weight"); they
// live in the model's one ad.Params. A sequential model is the chain
// above; several inputs, and several layers into one space, are the
// general case. The model is a hypergraph.Machine whose hyperedges are
// the layers (Machine), and so a layer of a larger model in turn.
//
// # Training and evaluating
//
// Classifier and Regressor make a Task of a data set (tensors with the
// samples first, as everywhere in the library): what train.Run trains,
// and what Evaluate scores. A model never computes on a batch its graph
// was not built for: a Task builds one graph per batch size it meets and
// keeps it, so that the short last minibatch of an epoch and the
// validation batches of train.Run are computed on their own samples
// only. Predict computes the outputs of new samples likewise. A layer's
// numerical failure, a solver that does not converge, comes back as the
// error of the step, naming the layer.
//
// # Files
//
// Save writes one file holding the architecture, as a hypergraph spec
// whose edges carry each layer's kind and settings, the parameters and
// the model's Meta (the names of a classifier's classes, how images
// become its inputs), which a server answers in;
// Load reads it back into a model ready to predict, train or export
// (package onnx). The saved hypergraph machines of earlier versions, such
// as those package sculpt wrote, still load. A file is refused, with an
// error that says where, if it is not a model file, if its spec does not
// hold together, or if its parameters do not fit the spec, and before
// the layers it describes allocate more parameters than its size could
// hold.
package model
