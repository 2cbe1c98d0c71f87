// Package sculpt implements the architecture search of section 3.1 of the
// paper, "Hypergraph networks sculpting" (Figure 2). A generous
// hypergraph machine is trained with a group-lasso penalty on the weights
// of its edges. The edges whose weights vanish are pruned, which leaves a
// smaller architecture carved out of the generous one.
//
// # The generous architecture
//
// Generous builds it from the image shape and a node budget:
//
//   - an input node;
//   - hidden nodes, each a ReLU6 followed by a resampling (identity, 2x2
//     max-pool or 2x upsample), whose sizes zigzag between a half and a
//     quarter of the input size;
//   - a bias-free 3x3 convolution into each node from every earlier node
//     whose output has the size the node reads;
//   - a bias-free linear head from every hidden node into the class
//     logits, which sum.
//
// Arch.Spec writes it as a hypergraph spec (package hypergraph): nodes as
// vertices with activations, convolutions and heads as hyperedges.
//
// # Penalty, proximal step and pruning
//
// The loss is the cross-entropy plus λ Σ_E sqrt(n_E) |w_E|: the Euclidean
// norm of each edge's n_E weights, weighted by the square root of their
// number. λ is then a shrinkage per weight, comparable across the small
// convolutions and the large heads. Adam takes the steps of the
// cross-entropy. After each, by default, a proximal step shrinks each
// edge's weights towards zero by lr·λ·sqrt(n_E) in norm, and sets them to
// exactly zero when their norm is smaller (block soft-thresholding,
// optim.GroupLasso.Prox). Config.Plain adds the penalty's subgradient to
// the gradient instead; Adam then keeps norms hovering above zero, as the
// authors' plain SGD does, and few edges are pruned.
//
// An edge is pruned when its norm falls below Config.Tol, and its weights
// are frozen from then on. A hidden node is pruned when all its inputs or
// all its outputs are, and the edges hanging on it with it. At the end of
// each epoch the machine is rebuilt from the smaller hypergraph with the
// surviving weights: pruned edges are removed, not multiplied by zero.
// The last Config.Finetune epochs train the sculpted machine without the
// penalty.
//
// # A penalty that means the same on any data set
//
// The proximal step removes lr·λ·sqrt(n_E) of an edge's norm per step,
// while Adam moves it by at most lr·sqrt(n_E). An edge survives when its
// gradient keeps pointing the same way more than a fraction λ of the
// time; an edge the data do not need dies after about |w_E|/(lr·λ)
// steps. Two things therefore decide what is pruned. Both are fixed so
// that the defaults prune as much on a thousand images as on sixty
// thousand:
//
//   - The number of steps. Without Config.Epochs a run takes about
//     DefaultSteps minibatch steps, fine-tuning in the last 3/7 of them.
//     With a fixed number of epochs, a small set would prune nothing at
//     the default penalty and everything at a large one.
//   - The data size. A small set is fitted closely, and then even the
//     edges it does not need keep consistent gradients. Config.Lambda is
//     the weight at ReferenceImages training images and is multiplied by
//     (ReferenceImages/n)^(1/4) for n images. docs/results-paper.md
//     gives the runs that chose the exponent.
//
// The loss scale needs no rule: the cross-entropy's gradients reach the
// step only through Adam, which normalises them.
//
// Run holds out a validation split of the training images (by default
// 10%, at most 5,000) and reports the accuracy on it after each epoch;
// RunValid takes validation images of their own instead (the first
// 5,000), such as those of a valid folder. The test images are
// classified once, at the end, so that nothing is chosen on them.
//
// # The regularisation path
//
// With Config.Path (`machines sculpt -path`), Run trains along increasing
// penalties. Each point starts where the previous one ended, and trains
// as many epochs with its penalty as a run without a path does before
// fine-tuning. Each point is judged on a copy fine-tuned without the
// penalty for Config.Finetune epochs: its validation accuracy, live edges
// and FLOPs.
//
// A point may be kept if its validation accuracy is at least the best
// point's less Config.PathTolerance or, if larger, the standard error of
// the best point's accuracy, sqrt(p(1-p)/n) on n validation images: the
// one-standard-error rule of Breiman et al. (1984). The best point is the
// reference, not the densest, because each point is one noisy draw and
// the first is trained least. The standard error matters on small
// validation sets, which cannot tell close machines apart.
//
// Then, up to PathRefinements times, the path adds a point between the
// sparsest point that may be kept and the first sparser one, trained
// from the kept point's machine at the penalty halfway between them on a
// logarithmic scale: between two points of the grid the live edges can
// fall steeply. The copy kept is that of the point of fewest FLOPs that
// may be kept (the more accurate of equal FLOPs), or of the first point
// within Config.Budget edges, and it is tested once. The report holds
// every point, in the order of their penalties, and the threshold, which
// `machines sculpt -path` draws as accuracy against FLOPs. A path cannot
// be resumed.
//
// # The authors' protocol
//
// Config.Paper (`machines sculpt -protocol paper`) trains as the authors'
// code does (Veos-Digital/hypergraph_machines): plain SGD at 3e-3 on
// minibatches of 128 for 100 epochs, no fine-tuning, and their penalty
// added as a subgradient. Their penalty is the sum over edges of a
// coefficient times the edge's RMS norm |w|/sqrt(n). For a convolution
// into a node the coefficient is Lambda (1) times the node's incoming
// edges beyond 3, so that nodes with 3 or fewer are not penalised. For a
// head it is Lambda, except for the first head, which the bound on the
// index in their code leaves out. It is not scaled to the data size. An
// edge is pruned when its RMS norm falls below Tol (1e-6). The
// architecture, the validation split and the rest of the run are this
// package's.
//
// # Runs, checkpoints and results
//
// Run trains for Config.Epochs epochs with the library's one training
// loop, train.Run. It validates after each epoch and writes a checkpoint
// to Config.Out, atomically; with Config.Resume it continues from there.
// The weights of every edge live in one ad.Params. Before each epoch the
// graphs are rebuilt without the pruned edges, and a fresh update is
// made: Adam, the epoch's penalty and the pruning, which train.Run calls
// as its optimiser after each minibatch. train.Run shuffles the
// minibatches with a generator seeded by the seed and the epoch, and
// leaves out the last partial one. A resumed run (from its next epoch,
// with train.Config.FirstEpoch) is therefore the run that was
// interrupted, and an interruption loses at most the epoch in progress.
// At the end Run writes the report sculpt.json, the final machine and
// DOT files of the architecture before and after. The report holds what
// the command needs to draw Figure 2a-c, and the warnings about the data
// (Report.Warnings).
//
// The minibatch is split over Config.Workers goroutines (by default one
// per core, GOMAXPROCS, at most one per image), each with its own copy of
// the graph. In the update, each worker sums the gradients of its own
// share of the edges and takes their Adam and proximal steps, so that
// every core is busy throughout a step. A run is reproducible for a given
// seed and number of workers. Another number sums the gradient in
// another order, which changes the float32 weights a little; the
// checkpoint records the number, and a run resumed with another says so
// on Config.Progress and goes on.
//
// Resuming refuses, saying what to do:
//
//   - a checkpoint of more epochs than Config.Epochs;
//   - one with a weight larger than training at its learning rate for its
//     epochs could make (Adam moves a weight by a few learning rates a
//     step at most): such a file is damaged, and would end in a loss that
//     is not finite;
//   - one whose every edge is pruned, and a missing one.
//
// A run whose every edge is pruned stops its penalty after that epoch: no
// later one could change the machine, which predicts one class whatever
// the image. It goes back to the sparsest of its earlier epochs within
// Config.PathTolerance (or the standard error) of the best validation
// accuracy, as a path chooses among its points, and fine-tunes that
// machine without the penalty for Config.Finetune epochs
// (Report.FellBack). Without an earlier epoch with a live edge (every
// edge pruned in the first, or since the run was resumed) it ends with
// no edge.
//
// # Sizing
//
// Run sizes a run before it builds anything. The generous architecture's
// edges, weights, FLOPs per image and states per image are counted node
// by node, without building it. From them come the memory (weights with
// their gradients, Adam's moments, copies and JSON; the states of the
// training and evaluation graphs; the images) and the time, at a speed of
// training calibrated on two cores. A run of more weights than
// hypergraph.MaxParams, or that would not fit the machine's memory or a
// week, is refused with an error that says what it would take. The
// estimate is printed on Config.Progress; a test holds it against a run's
// heap.
package sculpt
