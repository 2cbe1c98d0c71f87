// Package ad is the reverse-mode differentiation engine of the machines
// library.
//
// A Graph records operations on dense float64 tensors as they are applied.
// Unlike a throw-away tape, a Graph can be replayed: after the caller
// changes the values of its inputs or parameters in place, Forward
// recomputes every node into the buffers it already owns and Backward
// accumulates gradients into buffers that are likewise reused. The
// optimisers of a full-batch fit call Forward and Backward hundreds of
// times on the same graph, and reusing the buffers is what makes that
// cheap: an allocate-per-call version of the kernel-machine loss was
// measured 4-5x slower.
//
// Matrices follow the mathematical convention of the paper: the columns
// of a data matrix are samples and its rows are coordinates, so a linear
// layer is W*X and a Gaussian kernel compares columns.
//
// Each operation carries a hand-written backward pass. Some are fused
// where that pays: Gaussian builds a whole kernel matrix (and exploits
// symmetry when both arguments are the same node), SoftmaxCrossEntropy
// never materialises the probabilities' Jacobian. Every backward pass is
// checked against central finite differences by CheckGradient in the
// tests.
package ad
