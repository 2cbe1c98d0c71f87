// Package ad is the reverse-mode differentiation engine of the machines
// library.
//
// A Graph records operations on dense tensors as they are applied.
// Unlike a throw-away tape, a Graph can be replayed. After the caller
// changes the values of its inputs or parameters in place, Forward
// recomputes every node into the buffers it already owns, and Backward
// accumulates gradients into buffers that are likewise reused. A replay
// allocates nothing, which matters because the optimisers of a
// full-batch fit call Forward and Backward hundreds of times on the same
// graph.
//
// # Element type
//
// Tensors, graphs and nodes are generic over their element type, float32
// or float64; one graph holds a single type. Every operation has one
// implementation for both. Where the type matters, the operation chooses
// once per call, not per element. Matrix products go to the AVX/FMA
// kernels of internal/matmul, or to gonum's blas64 and blas32 where those
// are faster or the kernels are missing. Inner products go to gonum, and
// the exponential of the Gaussian kernel has a float32 routine of its
// own. Other transcendental functions (tanh, the logistic function, the
// exponentials and logarithm of the softmax) are evaluated in float64
// and rounded to the element type.
//
// Use float64 where precision matters:
//
//   - kernel machines, whose kernel matrices can be badly conditioned;
//   - differential equations and their adjoints;
//   - quasi-Newton methods such as L-BFGS, whose line searches compare
//     losses that differ in the last digits.
//
// Use float32 for throughput: image models trained by stochastic
// gradient descent. There half the memory traffic, and BLAS kernels that
// handle twice as many elements per instruction, matter more than the
// lost digits.
//
// # Layout
//
// A batch holds its samples first, as everywhere in the library (see the
// root package). A batch of vectors is a samples x features matrix, and
// a batch of images a four-dimensional tensor in NCHW order (image,
// channel, row, column). A linear layer is therefore MatMul(x, W, false,
// true), x times W transposed, W being outputs x inputs. AddRow adds a
// bias to every sample, and SoftmaxCrossEntropy takes samples x classes
// logits. The exceptions are the primitives of kernel machines, Gaussian
// and its combinations and SelectCols. They compare points stored as
// columns, the layout in which their loops run over contiguous memory;
// package kernel's layers take batches as rows and convert.
//
// # Images
//
// Conv2D convolves NCHW images with a bank of kernels [F C KH KW]
// (stride 1, zero padding, no bias). MaxPool2 halves and Upsample2
// doubles height and width; ReLU6 clamps to [0, 6]. Reshape flattens a
// batch of images into a matrix with a row per image, ready for a linear
// layer and for SoftmaxCrossEntropy: log-softmax followed by the negative
// log-likelihood of the true class, fused into one operation.
//
// Conv2D works directly on the padded image rows, without an im2col
// copy. It skips the input's gradient when the input has none, as the
// images fed to a first layer do. In float32 on amd64 processors with
// AVX and FMA it runs small assembly kernels that keep their sums in
// vector registers; elsewhere it goes through gonum's Ger and Gemv. The
// benchmarks compare them (go test -bench Conv ./ad), and the build tag
// noasm turns the assembly off.
//
// Each operation carries a hand-written backward pass. Some are fused
// where that pays: Gaussian builds a whole kernel matrix, and exploits
// symmetry when both arguments are the same node; SoftmaxCrossEntropy
// never materialises the probabilities' Jacobian. The tests check every
// backward pass against central finite differences (CheckGradient), and
// every operation in float32 against the same operation in float64.
package ad
