// Package experiment reproduces the numerical experiments of "Parametric
// machines" (arXiv 2007.02777): one function per experiment, each writing
// a JSON report that scripts can read and the paper's figures as PNG and
// SVG.
//
// Figure 3 compares finite-depth kernel machines with perceptrons of about
// the same number of parameters, and with kernel ridge regression, on
// small regression problems: Polynomial (3a, 3b), Sine (3c) and SineCost
// (3d). Every baseline is trained in earnest: the perceptrons by
// full-batch L-BFGS with a weight decay chosen by cross-validation on the
// training set, kernel ridge with its bandwidth and penalty chosen by
// leave-one-out cross-validation. The settings each model used are part of
// the report.
//
// Figure 4 is OneShot: an infinite-depth kernel machine trained on 1, 5
// or 10 images per class of an IDX data set, against k-nearest-neighbours,
// kernel ridge, a softmax perceptron and a CNN. Every model, the machine
// included, picks its setting on a validation draw of other training
// images. Only the picked setting's test accuracy enters the table. The
// machine and each baseline are compared seed by seed, with a paired t
// interval and a sign test. docs/results-paper.md has the results.
//
// # The authors' protocols
//
// Config.Protocol Paper runs sine (SinePaper) and oneshot (OneShotPaper)
// as the authors' code runs them, read from their repositories
// (Veos-Digital/finite-depth-kernel-machines and
// infinite-depth-kernel-machines). That is their data, models, penalties,
// optimisers and schedules, with one cost for all models. For oneshot it
// is also their checkpoint rule, the epoch of the lowest penalised test
// loss, which the report calls a choice made on the test set. These
// protocols answer "does this library reproduce the paper?"; the fair
// ones answer "is the kernel machine better?". docs/results-paper.md
// compares the paper's claim, the authors' protocol run by this library
// and by their code, and the fair protocol.
package experiment
