package checkpoint_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/parametric-machines/machines/internal/checkpoint"
	"github.com/parametric-machines/machines/internal/jsonfile"
)

// state is a loop's state: what it needs to go on after the last epoch.
type state struct {
	jsonfile.Header
	Epochs int `json:"epochs"`
}

// A loop loads its checkpoint when it starts (no file: a fresh start)
// and saves it after every epoch; a second run resumes where the first
// stopped.
func ExampleFile() {
	dir, err := os.MkdirTemp("", "checkpoint")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	f := checkpoint.File{Path: filepath.Join(dir, "checkpoint.json"),
		Format: jsonfile.Format{Name: jsonfile.Envelope, Kind: "example-state", What: "an example state", Oldest: 1, Newest: 1}}
	for run := 1; run <= 2; run++ {
		var s state
		found, err := f.Load(&s)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("run %d: checkpoint found %v, resuming after epoch %d\n", run, found, s.Epochs)
		for range 3 {
			s.Epochs++
			if err := f.Save(&s); err != nil {
				log.Fatal(err)
			}
		}
	}
	// Output:
	// run 1: checkpoint found false, resuming after epoch 0
	// run 2: checkpoint found true, resuming after epoch 3
}
