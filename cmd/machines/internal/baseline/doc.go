// Package baseline provides reference models to compare the library's
// machines against.
//
// KernelRidge is kernel ridge regression with a Gaussian kernel
//
//	k(u, v) = exp(-|u - v|² / (2σ²)).
//
// Given training inputs x_1, ..., x_n and targets Y (one column per output),
// it solves (K + λI) α = Y, where K is the n×n kernel matrix, and predicts
// f(x) = Σ_i k(x, x_i) α_i. By the representer theorem this is the function
// of the kernel's reproducing kernel Hilbert space that minimises
// Σ_i |f(x_i) - y_i|² + λ|f|², the same optimality the paper's kernel
// machines rely on, here with a single fixed kernel and no architecture.
//
// The width σ and the penalty λ can be given or left for Fit to choose by
// exact leave-one-out cross-validation. For ridge regression the residual at
// x_i of the model fitted without sample i has the closed form
//
//	r_i = (y_i - ŷ_i) / (1 - H_ii) = [(K + λI)⁻¹ Y]_i / [(K + λI)⁻¹]_ii,
//
// with H = K (K + λI)⁻¹ the hat matrix, so no refitting is needed. With the
// eigendecomposition K = Q diag(d) Qᵀ, computed once per candidate σ, both
// the numerator and the denominator cost O(n²) per output for each
// candidate λ.
//
// Classification works through one-hot targets (1 in the column of the class):
// fit one output per class and predict the class whose output is largest.
//
// The classifiers of the few-shot experiment are NearestNeighbours (on
// raw or standardised inputs), FitSoftmaxPerceptron (a perceptron with a
// softmax cross-entropy head, fitted by L-BFGS) and FitCNN (convolution
// blocks, a hidden layer and the same head). The CNN's network computes
// in float32, as CNNs usually are, under L-BFGS in float64. The speed of
// float32 lets a run of ten seeds and three shot counts fit in ten
// minutes.
package baseline
