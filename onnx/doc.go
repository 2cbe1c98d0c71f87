// Package onnx exports the library's models as ONNX models, the format
// that ONNX Runtime and the field's other runtimes read, so that a model
// fitted here can run where this library does not.
//
// Kernel builds the graph of a fitted finite-depth kernel machine with
// its preprocessing, and Write saves a model atomically. The graph takes
// the raw feature columns, one input per column named after it, each of
// shape [N, 1] with a dynamic batch dimension N:
//
//   - a numeric column is a double, NaN where the cell is missing;
//   - a boolean or categorical column is a string, the cell's text as the
//     CSV file has it (trimmed): true, false, yes or no in any case for a
//     boolean, a level for a category, and for a missing cell the empty
//     string or NA, N/A, ?, NaN or null in any case.
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
// The models use opset 17 of the default domain and version 2 of
// ai.onnx.ml, at IR version 8.
package onnx
