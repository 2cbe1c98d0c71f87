package tabular

import (
	"fmt"
	"math"
)

// ShallowKernel is the kernel of the shallow machine's level: the
// Gaussian exp(-|x - a|^2 / (2 sigma^2)) or the Laplacian
// exp(-|x - a|_1 / sigma), the product over the inputs of
// one-dimensional Laplacians. The Laplacian falls off at every input's
// difference alike and has a kink where they are equal: rows apart along
// one input (a group's code, a step in time) are far whatever the others,
// as a tree's split puts them, where the Gaussian smooths across them.
// The deep machine's kernels are Gaussians.
type ShallowKernel int

const (
	// AutoKernel is the Gaussian, but Fit fits a regression whose cost
	// and bandwidth it searches twice, with either kernel, and keeps the
	// fit of lower held-out loss (see Result.KernelLosses).
	AutoKernel ShallowKernel = iota
	// GaussianKernel is the Gaussian alone.
	GaussianKernel
	// LaplacianKernel is the Laplacian alone.
	LaplacianKernel
)

func (k ShallowKernel) String() string {
	switch k {
	case AutoKernel:
		return "auto"
	case GaussianKernel:
		return "gaussian"
	case LaplacianKernel:
		return "laplacian"
	}
	return fmt.Sprintf("ShallowKernel(%d)", int(k))
}

// ParseShallowKernel parses the names that String returns.
func ParseShallowKernel(s string) (ShallowKernel, error) {
	for _, v := range []ShallowKernel{AutoKernel, GaussianKernel, LaplacianKernel} {
		if s == v.String() {
			return v, nil
		}
	}
	return 0, fmt.Errorf("tabular: unknown shallow kernel %q (want auto, gaussian or laplacian)", s)
}

// kernelDistance returns what the exponent of a shallow machine's kernel
// scales: the squared distance between u and v, or for the Laplacian the
// sum of their absolute differences.
func kernelDistance(u, v []float64, laplacian bool) float64 {
	if !laplacian {
		return sqDistance(u, v)
	}
	var s float64
	for i, x := range u {
		s += math.Abs(x - v[i])
	}
	return s
}

// kernelGamma returns the factor of kernelDistance in the exponent of
// the kernel of bandwidth sigma.
func kernelGamma(sigma float64, laplacian bool) float64 {
	if laplacian {
		return 1 / sigma
	}
	return 1 / (2 * sigma * sigma)
}
