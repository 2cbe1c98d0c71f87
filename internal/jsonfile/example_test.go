package jsonfile_test

import (
	"fmt"

	"github.com/parametric-machines/machines/internal/jsonfile"
)

// A reader of version 1 and 2 of a format checks the header of each file
// before it trusts the rest.
func ExampleFormat_Check() {
	f := jsonfile.Format{Name: "machines-model", What: "a machines model file", Oldest: 1, Newest: 2}
	for _, data := range []string{
		`{"format": "machines-model", "version": 2, "weights": [1, 2]}`,
		`{"format": "machines-sculpt-checkpoint", "version": 2}`,
		`{"format": "machines-model", "version": 3}`,
		`[1, 2, 3]`,
	} {
		fmt.Println(f.Check([]byte(data)))
	}

	// Output:
	// <nil>
	// not a machines model file (format "machines-sculpt-checkpoint", want "machines-model")
	// machines-model version 3 is newer than this program reads (versions 1 to 2): upgrade the program
	// not a machines model file (a JSON array, want an object with "format": "machines-model")
}

// Decode checks the header and then refuses fields the destination does
// not know, so that a misspelt field is an error rather than a silent
// zero.
func ExampleFormat_Decode() {
	f := jsonfile.Format{Name: "machines-model", What: "a machines model file", Oldest: 1, Newest: 1}
	var model struct {
		Format  string    `json:"format"`
		Version int       `json:"version"`
		Weights []float64 `json:"weights"`
	}
	err := f.Decode([]byte(`{"format": "machines-model", "version": 1, "weights": [0.5, -1]}`), &model)
	fmt.Println(model.Weights, err)

	err = f.Decode([]byte(`{"format": "machines-model", "version": 1, "weigths": [0.5, -1]}`), &model)
	fmt.Println(err)

	// Output:
	// [0.5 -1] <nil>
	// json: unknown field "weigths"
}
