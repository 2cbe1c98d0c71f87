//go:build !race

package main

// raceSlowdown stretches the walker's patience (walkSilence) under the
// race detector; without it, not at all.
const raceSlowdown = 1

// walkValues is the number of values of each case the walker runs:
// without the race detector, all of them.
const walkValues = 1 << 30

// underRace is true under the race detector.
const underRace = false

// walkSkipped names the walkers that do not run: without the race
// detector, none.
var walkSkipped map[string]string
