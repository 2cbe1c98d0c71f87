package tabular

import (
	"math"
	"slices"

	"github.com/parametric-machines/machines/internal/parallel"
)

// The shallow machine's one cost penalises its linear part and its
// kernel part alike. A table whose truth is nearly linear wants a small
// penalty on the linear part and a large one on the kernel part: with one
// cost, the selection either leaves the kernel free to fit the noise or
// shrinks the linear part with it. The selection therefore also weighs
// the kernel features down, the features [x, psi / sqrt(r)]: at cost c
// the linear part's penalty is c and the kernel's r c. The machine keeps
// its form; only its coefficients differ.

// kernelPenalties returns the ratios r, besides 1, of the kernel part's
// penalty to the linear part's at which the selection scores the shallow
// machine, at its best bandwidth by leave-one-out. Each call returns a
// fresh slice.
func kernelPenalties() []float64 { return []float64{10, 100, 1000} }

// penaltyBandwidths is the number of bandwidths, the best by
// leave-one-out, at which the selection also scores kernelPenalties:
// each ratio costs one more basis per bandwidth.
const penaltyBandwidths = 1

// shallowSettings are settings of the shallow machine by index: the
// bandwidths, the ratios of the kernel part's penalty to the linear
// part's as Candidate.KernelPenalty holds them (nil: 0 for every
// setting), and the bases of the settings built so far (nil entries for
// the others).
type shallowSettings struct {
	sigmas, ratios []float64
	bases          []*shallowBasis
}

// ratio returns the ratio of setting i as Candidate.KernelPenalty holds
// it.
func (set shallowSettings) ratio(i int) float64 {
	if set.ratios == nil {
		return 0
	}
	return set.ratios[i]
}

// kernelWeight returns the factor 1 / sqrt(r) of the kernel features of
// a setting of ratio r as Candidate.KernelPenalty holds it.
func kernelWeight(r float64) float64 { return 1 / math.Sqrt(orOne(r)) }

// orOne returns v, or 1 for 0.
func orOne(v float64) float64 {
	if v == 0 {
		return 1
	}
	return v
}

// withPenalties returns the settings of the pass's bandwidths and of
// kernelPenalties at the penaltyBandwidths best of kept by the
// leave-one-out scores loo, with kept and loo extended by the latter
// and their leave-one-out scores. The bases of the penalties are those
// of their bandwidth reweighted (see shallowBasis.reweighted): only
// their solvers are new.
func (pass *shallowPass) withPenalties(kept []int, loo []*bandwidthScores, val *validation, outputs, workers int) (shallowSettings, []int, []*bandwidthScores, error) {
	sp := pass.space
	set := shallowSettings{sigmas: slices.Clone(sp.sigmas), ratios: make([]float64, len(sp.sigmas)), bases: slices.Clone(pass.bases)}
	var added, parents []int
	for _, b := range bestBandwidths(loo, penaltyBandwidths) {
		for _, r := range kernelPenalties() {
			added, parents = append(added, len(set.sigmas)), append(parents, kept[b])
			set.sigmas, set.ratios = append(set.sigmas, sp.sigmas[kept[b]]), append(set.ratios, r)
			set.bases = append(set.bases, nil)
		}
	}
	err := parallel.Run(len(added), workers, func(i int) error {
		b, err := set.bases[parents[i]].reweighted(sp.in, kernelWeight(set.ratios[added[i]]))
		if err == nil {
			b.all, err = b.ridge(nil, sp.sub[0].w)
		}
		set.bases[added[i]] = b
		return err
	})
	if err != nil {
		return set, nil, nil, err
	}
	more, err := scoreShallow(sp.in, sp.sub, set, added, val, false, outputs, workers, nil)
	if err != nil {
		return set, nil, nil, err
	}
	return set, slices.Concat(kept, added), slices.Concat(loo, more), nil
}
