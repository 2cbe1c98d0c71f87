// Package kernel implements the finite-depth kernel machines of section 4.2
// of "Parametric machines" (Vertechi and Bergomi, arXiv 2007.02777).
//
// The machine space X is split by a filtration dims = [d0, d1, ..., dn]
// into blocks of those sizes. An augmenter A maps an input x to the
// initial condition g = A x in X. Block i > 0 of the stable state is
//
//	h_i = (A x)_i + sum_j K_i(h_<i, h_<i(s_j)) c_j,
//
// where K_i is a Gaussian kernel on the blocks before i (additive: a sum of
// one Gaussian per block; multiplicative: one Gaussian on all of them) and
// the sum runs over anchor points s_j. Each level reads only blocks below
// it, so the machine is a sum of square-zero machines with an acyclic
// dependency graph and its stable state is computed level by level in
// n steps: the forward pass. The last block is the output.
//
// A machine of one level may take the Laplacian
// exp(-|h - h'|_1 / sigma) instead (Architecture.Laplacian): a product of
// one-dimensional kernels, which sets points apart along any one
// coordinate.
//
// By the representer theorem (Theorem 6 of the paper) an optimal machine
// needs anchors only at the training points; for larger data a Nystrom
// subset of m points keeps the cost at m columns per level. Training
// minimises the data loss (mean squared error or softmax cross-entropy)
// plus cost * (|A|^2 + the RKHS norm of the machine), with L-BFGS by
// default.
//
// Package tabular fits these machines to tables: it chooses the
// architecture, the cost and the bandwidth by cross-validation, and
// encodes, scales and calibrates around the machine.
package kernel
