package parallel_test

import (
	"fmt"

	"github.com/parametric-machines/machines/internal/parallel"
)

// Each job writes its own slot; the sum is taken afterwards in index
// order, so that it is the same for any number of workers.
func ExampleRun() {
	squares := make([]float64, 10)
	err := parallel.Run(len(squares), 3, func(i int) error {
		squares[i] = float64(i * i)
		return nil
	})
	var sum float64
	for _, v := range squares {
		sum += v
	}
	fmt.Println(sum, err)

	// Output:
	// 285 <nil>
}
