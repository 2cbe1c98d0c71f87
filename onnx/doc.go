// Package onnx exports the library's models as ONNX models, the format
// that ONNX Runtime and the field's other runtimes read, so that a model
// fitted here can run where this library does not.
//
// Tabular builds the graph of a model of package tabular, preprocessing
// included. Model builds that of a model of package model, whatever its
// layers' families, and Finite that of a finite machine. Write saves a
// model atomically. The tests run every kind in ONNX Runtime and compare
// its outputs with the library's.
//
// # Kernel machines
//
// The graph of Tabular takes the raw feature columns, one input per
// column named after it, each of shape [N, 1] with a dynamic batch
// dimension N:
//
//   - a numeric column is a double, NaN where the cell is missing;
//   - a date column is a double too, the days since 1970-01-01 00:00 UTC
//     with the time of day as their fraction (ONNX has no operator that
//     reads a date), NaN where the cell is missing; the graph adds the
//     sine and cosine of their phase in the column's cycles with Mod,
//     Mul, Sin and Cos;
//   - a boolean, categorical or ordinal column is a string, the cell's
//     text as the CSV file has it (trimmed): true, false, yes or no, or
//     their other spellings y, n, t, f, 1 and 0, in any case for a
//     boolean (as predict reads them, see dataset.ParseTruth), a level for a category, and for a missing cell
//     the empty string or NA, N/A, ?, NaN or null in any case.
//
// Categories enter as strings so that a user passes the table as it is,
// with no vocabulary to apply by hand. The graph maps a column's texts to
// codes with the LabelEncoder of the ai.onnx.ml domain, which ONNX Runtime
// has long supported, and one-hot encodes the codes with Equal on
// integers: ONNX's Equal compares strings only from opset 19, which the
// ONNX of Debian 12 (1.12, opset 17) cannot check. A level not seen in
// training encodes as no level at all, as dataset.Encoder does, except
// one that is a single level in another case of its ASCII letters (MALE
// for Male), read as that level after StringNormalizer lowers its case
// in the C locale, which every runtime has: the library reads other
// letters in another case so too (ÉTÉ for Été), the graph as no level,
// and the graph does not trim spaces, which the readers of tables do.
// A boolean cell that spells neither a yes nor a no makes the row's
// outputs NaN, where the library would report an error.
//
// Missing cells are imputed and flagged as the model's dataset.Encoder
// says. Then come the machine's quantile map, if it has one, the input
// scaler, the machine and a regression's output scaler. The quantile map
// interpolates each column between its knots with Sub, Mul, Max, Min and
// MatMul. The anchors' stable states do not depend on the inputs: they
// are computed at export and stored as constants. A regression model has
// the output "prediction", [N, 1], in the units of the target. A
// classifier has "scores" (the machine's outputs, [N, K]),
// "probabilities" (their softmax) and "label" (the most probable class,
// [N] strings). Everything is computed in float64, as the library does.
//
// # Models
//
// Model exports a model of package model, built in code, loaded from a
// file or sculpted (the sculpt-model.json that package sculpt writes),
// as one graph: its inputs and outputs are the input and output spaces,
// named after them, images [N, C, H, W] and vectors [N, D] with a
// dynamic batch N; an output is what Model.Predict returns. Only the
// live layers, those on a path to an output, are exported: a sculpted
// machine has its pruned edges removed already, and a layer nothing
// reads costs nothing in the runtime. The graph computes in the model's
// element type; the spaces' states sum their input and the layers'
// contributions in the order the library does. Every layer of the
// library's families is exported:
//
//   - hypergraph's own kinds (linear and dense maps, 3x3 convolutions,
//     the pointwise kinds, pooling, upsampling, Reshape and Flatten);
//   - a hypergraph machine as a layer, its own live edges inline, its
//     parameters under its name;
//   - finite.Layer, dense, convolutional (1-D and 2-D) and recurrent,
//     unrolled as Finite does, with its inputs y0 and z0 of any number
//     of channels up to the machine's;
//   - kernel.Layer, as Tabular exports a fitted machine: its anchors'
//     states are computed at export and stored as constants;
//   - infinite.Layer solved by RK4 on a fixed grid (Tol 0), unrolled
//     step by step: the anchors' trajectory does not depend on the input,
//     so it is solved at export, and the states and coefficients that
//     each stage reads are constants; the batch's solve, RK4 on the
//     separable form z' = Φ(t, ψ + z C(t)), is written out stage by
//     stage;
//   - ode.Layer with an ode.MLP field solved by RK4 (Steps above 0),
//     unrolled step by step.
//
// The solves of the last two are computed in float64, as the library
// computes them, between casts in a float32 model. Some layers are
// refused, with an error that names the layer and says why:
//
//   - an infinite-depth layer with Tol above 0 and a neural ODE with
//     Steps 0: their adaptive solves choose their step sizes from the
//     data, which a graph of fixed steps cannot do;
//   - a neural ODE whose field is not an ode.MLP, and any other layer
//     written in Go.
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
// # ONNX Runtime
//
// ONNX Runtime's CPU provider has no float64 Conv, so in float64 a
// convolution is written out as shifted copies of the padded signal
// times the kernel as a matrix, and the 2x upsampling as a broadcast and
// a reshape. Its graph optimiser fuses a multiplication by a single
// constant next to a matrix product into the product with a float32
// factor, so a finite machine's per-channel scaling multiplies by a
// diagonal matrix instead. The tests require the runtime's outputs to
// agree with the library's within 1e-5 of their largest magnitude in
// float32 and 1e-9 in float64.
//
// The models use opset 17 of the default domain and version 2 of
// ai.onnx.ml, at IR version 8.
package onnx
