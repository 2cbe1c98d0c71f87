package budget_test

import (
	"fmt"

	"github.com/parametric-machines/machines/internal/budget"
)

// A run is sized before it starts, and refused with what it would take.
func ExampleCost_Fits() {
	c := budget.Cost{Bytes: 40 << 30, Seconds: 3 * 86400}
	fmt.Println(c)
	fmt.Println(c.Fits(24<<30, 2))
	// Output:
	// about 40 GiB and 3 days
	// would take about 40 GiB of memory, more than the 24 GiB of this machine
}
