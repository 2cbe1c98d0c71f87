// Package optim fits parameters held in one flat []float64.
//
// Full-batch fits, which suit the small data sets of kernel machines, go
// through Minimize: L-BFGS (the default) or nonlinear conjugate gradients
// from gonum's optimize package, with the loss and its gradient computed
// together in one call. Minibatch training uses the steppers Adam and SGD,
// which update the vector in place from a gradient.
package optim
