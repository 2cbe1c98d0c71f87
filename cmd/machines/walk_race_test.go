//go:build race

package main

// raceSlowdown stretches the walker's patience (walkSilence) under the
// race detector, which makes every run several times slower.
const raceSlowdown = 10

// walkValues is the number of values of each case the walker runs: under
// the race detector the first only, so that every flag is still walked
// and the package's tests fit in go test's default 10 minutes.
const walkValues = 1

// underRace is true under the race detector: tests whose work is long
// and single-threaded (an experiment end to end) or that limit the
// address space (which the detector's shadow memory exceeds) skip.
const underRace = true

// walkSkipped names the walkers that do not run under the race
// detector, with why: their commands compute for minutes between two
// lines of output at its pace, and their concurrency is run under it
// by TestSculptCommand and the tests of cmd/machines/internal/experiment.
var walkSkipped = map[string]string{
	"sculpt":     "sculpt's runs take minutes between two lines under the race detector",
	"experiment": "the experiments' runs take minutes between two lines under the race detector",
}
