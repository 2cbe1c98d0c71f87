package crossval_test

import (
	"fmt"

	"github.com/parametric-machines/machines/crossval"
)

func ExampleStratified() {
	labels := []int{0, 0, 0, 0, 1, 1, 1, 1}
	for i, f := range crossval.Stratified(labels, 2, 1) {
		ones := 0
		for _, r := range f.Test {
			ones += labels[r]
		}
		fmt.Printf("fold %d: %d test rows, %d of class 1\n", i, len(f.Test), ones)
	}
	// Output:
	// fold 0: 4 test rows, 2 of class 1
	// fold 1: 4 test rows, 2 of class 1
}
