// Package bench defines the library's timed workloads: the ones of the
// project's WORKLOADS.md that measure this library against the paper's
// PyTorch and Julia prototypes, with the data and initial values those
// measurements used (w4_data.json, embedded).
//
// Timings are single-threaded medians of repeated samples after a
// warm-up; Run sets GOMAXPROCS to 1 while it measures. Each workload
// carries the figure it should reach on the project's machines, so that
// the command can print both.
package bench
