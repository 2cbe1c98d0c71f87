package finite

// convPlan solves a convolutional machine block by block over all
// positions and samples. The unfolded state has row c*K+k for channel c
// and kernel position k, the order of the columns of W viewed as a
// D x (D*K) matrix, so that the channels before block i are the first
// off[i]*K rows. The backward pass reads the flipped weight, whose row j
// holds W[i, j, k] at column i*K+k, and the state unfolded with the
// opposite shifts.
func convPlan(dims, pad, shape []int) plan {
	off := offsets(dims)
	d := off[len(dims)]
	p := plan{kind: Conv, d: d, shape: shape, positions: 1}
	for _, n := range shape {
		p.positions *= n
	}
	switch len(pad) {
	case 1:
		for k := -pad[0]; k <= pad[0]; k++ {
			p.taps = append(p.taps, []int{k})
		}
	case 2:
		for a := -pad[0]; a <= pad[0]; a++ {
			for b := -pad[1]; b <= pad[1]; b++ {
				p.taps = append(p.taps, []int{a, b})
			}
		}
	}
	p.k = len(p.taps)
	for i := range dims {
		p.fwd = append(p.fwd, step{r0: off[i], r1: off[i+1], t1: p.positions, segs: nonEmpty(seg{0, off[i] * p.k})})
	}
	for j := len(dims) - 1; j >= 0; j-- {
		p.bwd = append(p.bwd, step{r0: off[j], r1: off[j+1], t1: p.positions, segs: nonEmpty(seg{off[j+1] * p.k, d * p.k})})
	}
	p.grad = p.fwd
	return p
}
