//go:build !amd64 || noasm

package numeric

// Without assembly rotateRows runs its loop on every element.
const (
	rotVec  = false
	rotVec8 = false
)

func rotX4(x, y []float64, c, s float64) { rotGo(x, y, c, s) }

func rotX8(x, y []float64, c, s float64) { rotGo(x, y, c, s) }
