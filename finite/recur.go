package finite

// recurPlan solves a recurrent machine over its filtration: time blocks
// of timeblock steps in order, and within each the channel blocks in
// order. Tap k reads the state k steps back. The unfolded state has row
// k*D+c for channel c and delay k, the order of the columns of W viewed
// as a D x ((pad+1)*D) matrix. The mask keeps, for delays shorter than
// timeblock, only the blocks strictly below the diagonal (the source may
// lie in the same time block) and, for longer delays, every block (the
// source lies in an earlier time block). The backward pass runs the
// same filtration in reverse, with the weight transposed per delay and
// the state unfolded forward in time.
func recurPlan(dims []int, pad, timeblock, length int) plan {
	off := offsets(dims)
	d := off[len(dims)]
	p := plan{kind: Recur, d: d, k: pad + 1, shape: []int{length}, positions: length, tapMajor: true}
	for k := 0; k <= pad; k++ {
		p.taps = append(p.taps, []int{-k})
	}
	fwdSegs := func(i int) []seg {
		var ss []seg
		for k := 0; k <= pad; k++ {
			if k < timeblock {
				ss = append(ss, seg{k * d, k*d + off[i]})
			} else {
				ss = append(ss, seg{k * d, (k + 1) * d})
			}
		}
		return nonEmpty(ss...)
	}
	bwdSegs := func(j int) []seg {
		var ss []seg
		for k := 0; k <= pad; k++ {
			if k < timeblock {
				ss = append(ss, seg{k*d + off[j+1], (k + 1) * d})
			} else {
				ss = append(ss, seg{k * d, (k + 1) * d})
			}
		}
		return nonEmpty(ss...)
	}
	for t0 := 0; t0 < length; t0 += timeblock {
		t1 := min(length, t0+timeblock)
		for i := range dims {
			p.fwd = append(p.fwd, step{r0: off[i], r1: off[i+1], t0: t0, t1: t1, segs: fwdSegs(i)})
		}
	}
	for t0 := (length - 1) / timeblock * timeblock; t0 >= 0; t0 -= timeblock {
		t1 := min(length, t0+timeblock)
		for j := len(dims) - 1; j >= 0; j-- {
			p.bwd = append(p.bwd, step{r0: off[j], r1: off[j+1], t0: t0, t1: t1, segs: bwdSegs(j)})
		}
	}
	for i := range dims {
		p.grad = append(p.grad, step{r0: off[i], r1: off[i+1], t1: length, segs: fwdSegs(i)})
	}
	return p
}
