// Package machines implements the framework of parametric machines: neural
// architectures seen as a single endofunction of one global space, solved
// for a stable state instead of being composed layer after layer.
//
// # Machines and stable states
//
// Let M be the direct sum of all the spaces a network computes with:
// its input, every hidden layer and its output. A layer l_i reads some of
// these spaces and writes another, so it extends to a map M → M. The
// whole network is the single map f = Σ l_i, shortcut connections
// included. Given an input g embedded in M, the activations of every
// layer, kept side by side in one element h of M, satisfy
//
//	h = g + f(h).
//
// A Machine is an f for which this equation has exactly one solution h for
// every g, called the stable state. Equivalently, id - f is invertible and
// h = (id - f)⁻¹ g. Here M is ℝᶜ, and a batch of inputs is a *mat.Dense
// with one sample per row and one coordinate of M per column.
//
// # Depth
//
// The stable state is the limit of h_0 = g, h_{n+1} = g + f(h_n), which
// Iterate computes. The depth of f is the first n at which the sequence
// stops moving. A nilpotent linear map has finite depth. A layer that
// never reads what it writes (a square-zero machine) has depth one: its
// stable state is g + f(g). A contraction usually has infinite depth, yet
// the sequence converges geometrically. Result reports the depth reached,
// and a *ConvergenceError reports a sequence that diverges or stalls.
//
// # Independence and sums
//
// f does not depend on f' when adding anything in the image of f' to the
// input of f never changes its output. For machines on coordinate blocks
// this is a matter of footprints: f does not depend on f' when f' writes
// no coordinate that f reads (see Block and Spanner). If f does not depend
// on f', then f + f' is a machine, and its stable state is the composition
// S_{f'} ∘ S_f: first settle f, then f'. If neither depends on the other,
// S_{f+f'} = S_f + S_{f'} - id, and the two settle side by side.
//
// # Layering
//
// For a Sum of many terms, the dependency graph has an edge i -> j when
// term j depends on term i. If it is acyclic, Graph.Layers groups the
// terms into layers by the length of the longest chain of dependencies
// leading to them. Terms in one layer are mutually independent, and every
// term depends only on earlier layers. The stable state of the sum is then
// computed layer by layer (Corollary 1 of the paper). A feedforward
// network is the special case of one square-zero term per layer, and its
// forward pass is exactly this computation. A *CycleError names a cycle in
// the graph.
//
// # One layout for samples
//
// Every batch in the library holds its samples first. A matrix has a row
// per sample and a column per coordinate: Iterate's h and g, the tables of
// package dataset and the layers of every family. A tensor has the sample
// as its leading dimension: images N×C×H×W, signals N×C×L. This is the
// layout of the data people have (CSV files, gonum's statistics, image
// files, PyTorch's batch-first tensors). A program passes data between
// the packages without transposing it.
//
// The paper writes samples as columns, a layer being W·X. Where an
// algorithm runs faster that way (the solve of a finite machine, the
// kernel matrices of a kernel machine), the package converts inside. The
// few lower-level types that expose the working layout (finite.Solver,
// ad.Gaussian) say so. Shape errors name the layout they expected.
//
// A model made of several layers keeps its parameters in one
// ad.Params, in which each layer registers its tensors by name, and
// package train is the loop that trains any such model.
//
// # The reference semantics
//
// The families of the other packages are machines in this sense. Each
// solves for its stable state in the way its structure allows, on
// tensors rather than one matrix. This package is the semantics they
// implement and the check they are held to. Package hypergraph orders a
// machine's edges by the layering of Graph. Package volterra bounds its
// fixed point at each grid point by this package's Settings. The tests of
// finite, kernel, hypergraph and volterra embed a machine of each family
// in M as a Machine and compare its solver with Iterate. A new family
// should do the same.
//
// # Conventions
//
// Results are written to a dst argument, which is resized when empty.
// Shape mismatches and invalid settings are programming errors. They
// panic with an error that wraps one of package ad's kinds (ad.ErrShape,
// ad.ErrValue, ...), which errors.Is tells apart. Failures to converge are
// returned as errors. Settings, whose zero value selects the defaults,
// control tolerance and iteration count.
package machines
