package main

import (
	"fmt"
	"testing"

	"github.com/parametric-machines/machines/kernel"
)

func TestZZTmp(t *testing.T) {
	for _, c := range []struct {
		name string
		sh   fitShape
		s    kernel.Settings
	}{
		{"f5kA1000", fitShape{rows: 5000, inputs: 10, outputs: 1, cells: 55000}, kernel.Settings{Anchors: 1000, Costs: []float64{0.01}, Bandwidths: []float64{1}}},
		{"f20kfixed", fitShape{rows: 20000, inputs: 10, outputs: 1, cells: 220000}, kernel.Settings{Costs: []float64{0.01}, Bandwidths: []float64{1}}},
		{"f5kdims", fitShape{rows: 5000, inputs: 10, outputs: 1, cells: 55000}, kernel.Settings{Dims: []int{10, 10, 1}, Anchors: 300}},
	} {
		z := sizeFit(c.sh, c.s)
		fmt.Printf("%s shallow %.3g s %.3g MB deep %.3g s %.3g MB\n", c.name, z.shallow.seconds, z.shallow.bytes/1e6, z.deep.seconds, z.deep.bytes/1e6)
	}
}
