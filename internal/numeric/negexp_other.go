//go:build !amd64 || noasm

package numeric

// Without assembly NegExp runs its loop on every element.
const (
	expVec  = false
	expVec8 = false
)

func negExpX4(x []float64, c float64) { negExpGo(x, c) }

func negExpX8(x []float64, c float64) { negExpGo(x, c) }
