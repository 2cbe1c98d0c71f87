//go:build !race

package main

// raceSlowdown stretches the walker's patience (walkSilence) under the
// race detector; without it, not at all.
const raceSlowdown = 1
