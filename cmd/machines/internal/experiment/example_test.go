package experiment_test

import (
	"fmt"
	"log"
	"os"

	"github.com/parametric-machines/machines/cmd/machines/internal/experiment"
)

// Names lists the experiments that Run accepts.
func ExampleNames() {
	fmt.Println(experiment.Names())

	// Output:
	// [depth oneshot polynomial sculpt shift sine sine-cost]
}

// Run writes an experiment's figures and its JSON report into Config.Out.
// The depth experiment trains nothing, which makes it the quickest: it
// solves a convolutional and a recurrent machine of random weights and
// draws the state after each step of the solve.
func ExampleRun() {
	dir, err := os.MkdirTemp("", "experiment")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	r, err := experiment.Run("depth", experiment.Config{Out: dir, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range r.Models {
		fmt.Printf("%s: %d parameters, solved in %d steps\n", m.Name, m.Params, m.Iterations)
	}
	// The directory holds the figures, as PNG and SVG, and the report.
	files, err := os.ReadDir(dir)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		fmt.Println(f.Name())
	}

	// Output:
	// conv machine: 300 parameters, solved in 4 steps
	// recurrent machine: 240 parameters, solved in 16 steps
	// depth-conv.png
	// depth-conv.svg
	// depth-recur.png
	// depth-recur.svg
	// depth.json
}
