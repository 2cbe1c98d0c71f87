//go:build race

package main

// raceSlowdown stretches the walker's patience (walkSilence) under the
// race detector, which makes every run several times slower.
const raceSlowdown = 10
