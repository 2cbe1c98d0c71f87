// Package scale holds the maps a learner applies to numeric columns
// around a model, so that the model sees inputs on comparable scales and
// regression targets of unit spread.
//
// A Scaler standardises each column to mean 0 and standard deviation 1.
// A QuantileMap, fitted by FitQuantileMap, maps each column of more than
// two values to its training rows' distribution function. It keeps only
// the order of the values, as a tree's splits do, so that a skewed
// column's tail no longer dominates a distance.
//
// The tabular learner's machine stores the maps it was fitted through
// (tabular.Machine's Quantiles, Input and Output), and a baseline
// perceptron its Input and Output.
package scale
