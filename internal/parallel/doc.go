// Package parallel is the module's one worker pool: Run executes
// independent jobs by index on a fixed number of goroutines.
//
// The rule that keeps parallel results reproducible: a job writes only
// results of its own (its slot of a slice indexed by the job), and the
// caller combines them after Run returns, in the order of the indices.
// Then the outcome does not depend on the number of workers or on their
// scheduling, bit for bit, floating-point sums included. Jobs must not
// share a random source; each draws from its own, seeded by its index.
//
// The cross-validation of package kernel, the engine's Gaussian kernel,
// the infinite-depth classifier's scores, sculpting's workers and the
// experiments run their jobs here.
package parallel
