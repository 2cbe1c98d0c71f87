// Package train is the one training loop of the library: minibatch
// gradient descent over any model whose parameters live in an
// ad.Params, with a seeded shuffle, any optimiser of package optim,
// progress on a writer, a validation split with early stopping, and
// checkpoints that a later run resumes from.
//
// A Model is a parameter set and a loss on a minibatch of example
// indices; the model owns its data and its graphs, so the same loop
// trains a finite machine with a read-out, a hypergraph machine or a
// kernel machine head, alone or together. Run draws the validation
// examples once from the seed, shuffles the rest anew every epoch (the
// shuffle of epoch e depends only on the seed and e, which is what
// makes a resumed run take the same steps as an uninterrupted one),
// steps the optimiser after every minibatch, and at the end leaves the
// model with the parameters of the epoch of lowest validation loss (the
// last epoch without a validation split).
//
// A checkpoint holds the parameters, the best ones so far, the
// optimiser's state and the history; it is written after every epoch
// to a temporary file renamed into place, so that an interrupted run
// loses at most the epoch it was in.
//
// A model that changes between epochs, such as package sculpt's network,
// whose pruned edges leave its graphs, whose penalty follows a schedule
// and whose optimiser does the data-parallel update with a proximal
// step, brings its own optimiser and rebuilds itself in BeforeEpoch;
// one that keeps a checkpoint of its own continues a run with
// FirstEpoch, which takes the shuffles the later epochs would have
// taken in one run.
package train
