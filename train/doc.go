// Package train is the one training loop of the library: minibatch
// gradient descent over any model whose parameters live in an ad.Params.
// It shuffles with a seed, steps any optimiser of package optim, reports
// progress on a writer, holds out a validation split with early stopping,
// and writes checkpoints that a later run resumes from.
//
// A Model is a parameter set and a loss on a minibatch of example
// indices. The model owns its data and its graphs, so the same loop
// trains a finite machine with a read-out, a hypergraph machine or a
// kernel machine head, alone or together.
//
// Run draws the validation examples once from the seed and shuffles the
// rest anew every epoch. The shuffle of epoch e depends only on the seed
// and e, so a resumed run takes the same steps as an uninterrupted one.
// Run steps the optimiser after every minibatch. At the end it leaves the
// model with the parameters of the epoch of lowest validation loss, or of
// the last epoch without a validation split.
//
// A checkpoint holds the parameters, the best ones so far, the
// optimiser's state and the history. It is written after every epoch to
// a temporary file renamed into place, so an interrupted run loses at
// most the epoch it was in.
//
// Some models change between epochs. Package sculpt's network drops its
// pruned edges from its graphs, follows a schedule of penalties and
// takes a proximal step in its own data-parallel update. Such a model
// brings its own optimiser and rebuilds itself in BeforeEpoch. One that
// keeps a checkpoint of its own continues a run with FirstEpoch, which
// takes the shuffles the later epochs would have taken in one run.
package train
