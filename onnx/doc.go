// Package onnx exports the library's models as ONNX models, the format
// that ONNX Runtime and the field's other runtimes read, so that a model
// fitted here can run where this library does not.
//
// Kernel builds the graph of a fitted finite-depth kernel machine with its
// preprocessing, Model that of a model of package model, Finite that of
// a finite machine, and Write saves a model atomically. The tests run
// every kind in ONNX Runtime and compare its outputs with the library's.
//
// # Kernel machines
//
// The graph of Kernel takes
// the raw feature columns, one input per column named after it, each of
// shape [N, 1] with a dynamic batch dimension N:
//
//   - a numeric column is a double, NaN where the cell is missing;
//   - a boolean, categorical or ordinal column is a string, the cell's
//     text as the CSV file has it (trimmed): true, false, yes or no in any
//     case for a boolean, a level for a category, and for a missing cell
//     the empty string or NA, N/A, ?, NaN or null in any case.
//
// Categories enter as strings so that a user passes the table as it is,
// with no vocabulary to apply by hand. The graph maps a column's texts to
// codes with the LabelEncoder of the ai.onnx.ml domain, which ONNX Runtime
// has long supported, and one-hot encodes the codes with Equal on
// integers: ONNX's Equal compares strings only from opset 19, which the
// ONNX of Debian 12 (1.12, opset 17) cannot check. A level not seen in
// training encodes as no level at all, as dataset.Encoder does; a boolean
// cell that is neither true nor false makes the row's outputs NaN, where
// the library would report an error.
//
// Missing cells are imputed and flagged as the dataset.Encoder of the
// model says; then come the input scaler, the machine (its anchors' stable
// states are computed once, at export, and stored as constants: they do
// not depend on the inputs), and the output scaler of a regression. A
// regression model has the output "prediction", [N, 1], in the units of
// the target. A classifier has "scores" (the machine's outputs, [N, K]),
// "probabilities" (their softmax) and "label" (the most probable class,
// [N] strings). Everything is computed in float64, as the library does.
//
// # Models
//
// Model exports a model of package model, such as the sculpt-model.json
// that package sculpt writes: its inputs and outputs are the input and
// output spaces, named after them, images [N, C, H, W] and vectors
// [N, D] with a dynamic batch N; an output is what Model.Predict
// returns. Only the live layers, those on a path to an output, are
// exported: a sculpted machine has its pruned edges removed already, and
// a layer nothing reads costs nothing in the runtime. The graph computes
// in the model's element type; the spaces' states sum their input and
// the layers' contributions in the order the library does.
//
// # Finite machines
//
// Finite exports a dense, convolutional or recurrent machine of package
// finite for signals of one shape, which the graph fixes (the batch stays
// dynamic). Its input "y0" is the input block and its output "z" the
// stable state of all channels, as a Layer computes for a zero z0.
// The solve is unrolled block by block: the state of block i is the
// activation, scaled, of the product of the weight's block row with the
// states of the blocks before it. A recurrent machine is unrolled time
// step by time step and, within each, block by block, an order that
// respects every dependency its mask allows; its graph grows with the
// signal's length.
//
// # What is not exported
//
// The infinite-depth machines of package kernel/infinite are not: the
// library saves no file of them, and their stable state is an ODE solve
// (RK4 or adaptive Dormand-Prince) anchored on the training inputs'
// trajectories, which this package does not unroll. Hypergraph machines
// built by hypergraph.New from maps written in Go, and finite machines
// with activations other than tanh, sigmoid, relu and identity, are
// refused with an error that names the part.
//
// # ONNX Runtime
//
// ONNX Runtime's CPU provider has no float64 Conv, so in float64 a
// convolution is written out as shifted copies of the padded signal
// times the kernel as a matrix, and the 2x upsampling as a broadcast and
// a reshape. Its graph optimiser fuses a multiplication by a single
// constant next to a matrix product into the product with a float32
// factor, so a finite machine's per-channel scaling multiplies by a
// diagonal matrix instead. With these, the tests measure the runtime's
// outputs within 1e-6 of their largest magnitude of the library's in
// float32 and 2e-15 in float64; they require 1e-5 and 1e-9.
//
// The models use opset 17 of the default domain and version 2 of
// ai.onnx.ml, at IR version 8.
package onnx
