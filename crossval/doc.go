// Package crossval splits a training set into the folds of k-fold
// cross-validation.
//
// Folds are drawn from a seeded shuffle, so the same seed gives the same
// folds on every machine. Stratified folds give every fold each class in
// proportion to its frequency, which keeps a rare class from vanishing from
// a fold's training part. Grouped folds keep the rows of a group (a
// patient, a site) in one test part, so that a model is never judged on a
// group it has seen. Forward folds move forward in time, each trained on
// the rows before the block it holds out.
//
// Package tabular selects its machine's settings with these folds; the
// experiments select the perceptrons' weight decay with them.
package crossval
