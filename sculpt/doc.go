// Package sculpt implements the architecture search of section 3.1 of the
// paper, "Hypergraph networks sculpting" (Figure 2): a generous
// hypergraph machine is trained with a group-lasso penalty on the weights
// of its edges, and the edges whose weights vanish are pruned, leaving a
// smaller architecture carved out of the generous one.
//
// # The generous architecture
//
// Generous builds it from the image shape and a node budget: an input
// node; hidden nodes, each a ReLU6 followed by a resampling (identity,
// 2x2 max-pool or 2x upsample) whose sizes zigzag between a half and a
// quarter of the input size; a bias-free 3x3 convolution into each node
// from every earlier node whose output has the size the node reads; and a
// bias-free linear head from every hidden node into the class logits,
// which sum. Arch.Spec writes it as a hypergraph spec (package
// hypergraph), nodes as vertices with activations and the convolutions
// and heads as hyperedges.
//
// # Penalty, proximal step and pruning
//
// The loss is the cross-entropy plus λ Σ_E sqrt(n_E) |w_E|, the Euclidean
// norm of each edge's n_E weights weighted by the square root of their
// number, so that λ is a shrinkage per weight comparable across the
// small convolutions and the large heads. Adam takes the steps of the
// cross-entropy; after each, by default, a proximal step shrinks each
// edge's weights towards zero by lr·λ·sqrt(n_E) in norm and sets them to
// exactly zero when their norm is smaller (block soft-thresholding,
// optim.GroupLasso.Prox). Config.Plain instead adds the penalty's
// subgradient to the gradient; Adam then keeps norms hovering well above
// zero, as the authors' plain SGD does, and few edges are pruned.
//
// An edge is pruned when its norm falls below Config.Tol, and its weights
// are frozen from then on; a hidden node is pruned when all its inputs or
// all its outputs are, and the edges hanging on it with it. At the end of
// each epoch the machine is rebuilt from the smaller hypergraph with the
// surviving weights: pruned edges are removed, not multiplied by zero,
// and cost nothing afterwards. The last Config.Finetune epochs train the
// sculpted machine without the penalty.
//
// # Runs, checkpoints and results
//
// Run trains for Config.Epochs epochs, testing after each, and writes a
// checkpoint after each, atomically, to Config.Out; with Config.Resume it
// continues from there. Each epoch starts a fresh Adam on the rebuilt
// machine and shuffles the minibatches with a generator seeded by the
// seed and the epoch, so that a resumed run is the run that was
// interrupted, and an interruption loses at most the epoch in progress.
// At the end Run writes the report sculpt.json, the final
// machine, DOT files of the architecture before and after, and pictures
// of it (Figure 2a-c). The minibatch is split over Config.Workers
// goroutines (by default min(2, GOMAXPROCS)), each with its own copy of
// the graph, and their gradients are summed.
package sculpt
