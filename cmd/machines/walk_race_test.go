//go:build race

package main

// raceSlowdown stretches the walker's patience (walkSilence) under the
// race detector, which makes every run several times slower.
const raceSlowdown = 10

// walkValues is the number of values of each case the walker runs: under
// the race detector the first only, so that every flag is still walked
// and the package's tests fit in go test's default 10 minutes.
const walkValues = 1
