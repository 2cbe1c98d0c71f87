package sculpt

// fallback is an epoch of a run without a path that the run may go back
// to if its penalty prunes every edge: its machine, and its accuracy and
// size as a point of a path, for choosePoint.
type fallback struct {
	epoch int // from 1
	point PathPoint
	snap  snapshot
}

// keepFallback records the machine of the epoch just ended, of the given
// validation accuracy, live edges and FLOPs, as a fallback if it may be
// chosen: one with a live edge (an empty machine is what falling back
// escapes, however accurate a majority class makes it); a run prunes
// more as it goes, so that of the epochs of equal FLOPs the most
// accurate is kept, and those below pathThreshold of the best so far
// are dropped.
func (r *run) keepFallback(epoch int, acc float64, live, flops int) {
	if live == 0 {
		return
	}
	p := PathPoint{ValidationAccuracy: acc, EdgesLive: live, FLOPsLive: flops}
	if n := len(r.fallbacks); n > 0 && r.fallbacks[n-1].point.FLOPsLive == flops {
		if acc <= r.fallbacks[n-1].point.ValidationAccuracy {
			return
		}
		r.fallbacks = r.fallbacks[:n-1]
	}
	r.fallbacks = append(r.fallbacks, fallback{epoch: epoch, point: p, snap: r.save()})
	low := pathThreshold(r.fallbackPoints(), r.cfg.PathTolerance, r.val.N)
	kept := r.fallbacks[:0]
	for _, f := range r.fallbacks {
		if f.point.ValidationAccuracy >= low {
			kept = append(kept, f)
		}
	}
	clear(r.fallbacks[len(kept):])
	r.fallbacks = kept
}

// fallbackPoints returns the fallbacks' points.
func (r *run) fallbackPoints() []PathPoint {
	points := make([]PathPoint, len(r.fallbacks))
	for i, f := range r.fallbacks {
		points[i] = f.point
	}
	return points
}

// fallBack goes back, in a run whose penalty has pruned every edge, to
// the epoch that a path would keep of those before (the machine of
// fewest FLOPs within Config.PathTolerance, or the standard error, of
// the best validation accuracy), and fine-tunes it for Config.Finetune
// epochs without the penalty. A machine that predicts one class whatever
// the image is no result; the run's validation images choose the
// machine, as on a path. It does nothing when there is no epoch to go
// back to: every edge pruned in the first epoch, or in a resumed run
// before any epoch since the resumption kept live edges.
func (r *run) fallBack() error {
	if len(r.fallbacks) == 0 {
		return nil
	}
	i, _ := choosePoint(r.fallbackPoints(), r.cfg.PathTolerance, 0, r.val.N)
	f := r.fallbacks[i]
	r.restore(f.snap)
	r.fellBack, r.fallbacks = f.epoch, nil
	done := len(r.st.History)
	r.finetuneFrom = done
	r.cfg.Epochs = done + r.cfg.Finetune
	r.logf("sculpt: every edge is pruned after epoch %d; going back to epoch %d (validation accuracy %.4f, %d live edges), the sparsest within the tolerance of the best validation accuracy, and fine-tuning it for %d epochs without the penalty\n",
		done, f.epoch, f.point.ValidationAccuracy, f.point.EdgesLive, r.cfg.Finetune)
	return r.trainEpochs(r.cfg.Finetune)
}
