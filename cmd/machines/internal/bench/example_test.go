package bench_test

import (
	"fmt"
	"log"

	"github.com/parametric-machines/machines/cmd/machines/internal/bench"
)

// Each workload carries the time it should take on the project's
// machines, if it has a goal of its own, and what the paper's prototypes
// measured. Listing a suite does no work: a workload prepares its data
// only when Run measures it.
func ExampleSuite() {
	fmt.Println(bench.Suites())
	ws, err := bench.Suite("default")
	if err != nil {
		log.Fatal(err)
	}
	for _, w := range ws {
		target := "-"
		if w.Target > 0 {
			target = w.Target.String()
		}
		fmt.Printf("%-21s %-7s %-6s %s\n", w.Name, w.Dtype, target, w.Unit)
	}

	// Output:
	// [default machines tabular sculpt onnx serve]
	// W1                    float64 -      512x512 product
	// W1                    float32 -      512x512 product
	// W3                    float32 2.3ms  conv fwd+kernel grads, batch 32
	// W4                    float64 50µs   loss+gradient
	// W4b                   float64 300µs  loss+gradient
	// W4fit                 float64 60ms   500-iteration L-BFGS fit
	// volterra-general-100  float64 -      trapezoidal solve, 100 steps
	// volterra-general-1000 float64 -      trapezoidal solve, 1000 steps
	// volterra-fast-100     float64 -      RK4 solve of the Theorem 5 ODE, 100 steps
	// volterra-fast-1000    float64 -      RK4 solve of the Theorem 5 ODE, 1000 steps
}

// The machines suite is judged by ratios of its timings rather than by
// the times themselves, which depend on the processor. The results here
// are made up, as Run would report them.
func ExampleRatios() {
	results := []bench.Result{
		{Name: "conv-medium-forward", MedianNS: 400_000},
		{Name: "conv-medium-backward", MedianNS: 360_000},
		{Name: "conv-medium-gradient", MedianNS: 900_000},
		{Name: "conv-medium-reference", MedianNS: 250_000},
	}
	for _, r := range bench.Ratios(results) {
		fmt.Printf("%-28s %.2f (goal %g) met: %v\n", r.Name, r.Value, r.Goal, r.Met())
	}

	// Output:
	// conv-medium backward/forward 0.90 (goal 1) met: true
	// conv-medium gradient/forward 2.25 (goal 2) met: false
	// conv-medium forward/reference 1.60 (goal 2) met: true
}
