// Package bench defines the library's timed workloads, described in
// WORKLOADS.md in this directory. The suites are:
//
//   - default: this library against the paper's PyTorch and Julia
//     prototypes, with the data and initial values those measurements
//     used (w4_data.json, embedded);
//   - machines: the passes of finite-depth machines;
//   - tabular: fits of the default kernel machine on Friedman 1, to be
//     read against the random forest timed by friedman_rf.py;
//   - sculpt: an epoch of package sculpt on Fashion-MNIST, on one core and
//     on every core;
//   - onnx: inference with a sculpted machine in the library and, as
//     exported by package onnx, in ONNX Runtime;
//   - serve: machines serve on loopback loaded by Debian's wrk (serve.lua,
//     embedded), also through model replacements and a SIGTERM.
//
// Timings are medians of repeated samples after a warm-up, single-threaded
// unless a workload's Procs says otherwise; Run sets GOMAXPROCS while it
// measures. Each workload carries the figure it should reach on the
// project's machines, so that the command can print both.
package bench
