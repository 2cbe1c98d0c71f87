package finite

// offsets returns the first channel of every block and, last, D.
func offsets(dims []int) []int {
	off := make([]int, len(dims)+1)
	for i, d := range dims {
		off[i+1] = off[i] + d
	}
	return off
}

// densePlan solves block by block over all samples at once. The
// unfolded state is the state itself (one tap, so both orders of the
// unfolded state agree and the plan counts as tap-major), so the forward
// step of block i reads the columns 0..off[i] of W, and the backward step
// of block j the rows off[j+1]..D of W, transposed.
func densePlan(dims []int) plan {
	off := offsets(dims)
	d := off[len(dims)]
	p := plan{kind: Dense, d: d, k: 1, positions: 1, tapMajor: true}
	for i := range dims {
		p.fwd = append(p.fwd, step{r0: off[i], r1: off[i+1], t1: 1, segs: nonEmpty(seg{0, off[i]})})
	}
	for j := len(dims) - 1; j >= 0; j-- {
		p.bwd = append(p.bwd, step{r0: off[j], r1: off[j+1], t1: 1, segs: nonEmpty(seg{off[j+1], d})})
	}
	p.grad = p.fwd
	return p
}

// nonEmpty returns the segments that hold at least one row, merging
// those that touch.
func nonEmpty(ss ...seg) []seg {
	var out []seg
	for _, s := range ss {
		if s.lo >= s.hi {
			continue
		}
		if n := len(out); n > 0 && out[n-1].hi == s.lo {
			out[n-1].hi = s.hi
			continue
		}
		out = append(out, s)
	}
	return out
}
