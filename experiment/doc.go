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
package experiment
