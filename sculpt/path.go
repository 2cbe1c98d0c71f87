package sculpt

import (
	"cmp"
	"maps"
	"math"
	"slices"
)

// DefaultPath returns the regularisation path of `machines sculpt
// -path`: from half the default penalty to four times it by half
// octaves, since whole octaves can jump from most edges live to few. The
// slice is the caller's.
func DefaultPath() []float64 {
	var path []float64
	for k := -2; k <= 4; k++ {
		path = append(path, DefaultLambda*math.Pow(2, float64(k)/2))
	}
	return path
}

// DefaultPathTolerance is Config.PathTolerance's default: half a point of
// validation accuracy.
const DefaultPathTolerance = 0.005

// PathRefinements is the number of points a path adds at most, after
// its grid, between the point kept so far and the first sparser one: on
// Fashion-MNIST the grid's half octaves still jump from 20 live edges to
// 9, or from 21 to 4.
const PathRefinements = 3

// PathPoint is one point of a regularisation path: the machine after
// training with one penalty, starting where the grid's previous point
// ended or, for a refinement, from the point kept before it.
type PathPoint struct {
	Lambda             float64 `json:"lambda"`
	LambdaEffective    float64 `json:"lambda_effective"`
	Epochs             int     `json:"epochs"` // epochs trained with the penalty at this point
	Refined            bool    `json:"refined,omitempty"`
	ValidationAccuracy float64 `json:"validation_accuracy"`
	EdgesLive          int     `json:"edges_live"`
	FLOPsLive          int     `json:"flops_live"`
}

func pathIncreasing(path []float64) bool {
	for i, l := range path {
		if !(l >= 0) || math.IsInf(l, 0) || (i > 0 && l <= path[i-1]) {
			return false
		}
	}
	return true
}

// snapshot is a copy of a run's weights and pruned edges.
type snapshot struct {
	weights map[string][]float32
	pruned  map[string]bool
}

// Training changes the state's maps in place, so snapshots are copies
// both ways.
func (r *run) save() snapshot { return snapshot{cloneWeights(r.st.Weights), maps.Clone(r.st.Pruned)} }
func (r *run) restore(s snapshot) {
	r.st.Weights, r.st.Pruned = cloneWeights(s.weights), maps.Clone(s.pruned)
}

// path trains along Config.Path with warm starts, then refines it (see
// the package documentation). Each point trains the penalty epochs of a
// run without a path, Epochs-Finetune, so that it is trained at least as
// long as that run at its penalty: with a share of them each (one epoch
// on Fashion-MNIST), the path jumped from 26 live edges to 4 between two
// points, and its 26-edge point scored 0.6 points below the plain run's
// 15-edge machine on the validation split.
func (r *run) path() error {
	c := r.cfg
	perPoint := max(1, c.Epochs-c.Finetune)
	// onPath and tuned hold each point's machine before and after its
	// fine-tuning, in the order of r.pathPoints, of increasing penalty.
	var onPath, tuned []snapshot
	point := func(at int, lambda float64, refined bool) error {
		r.pathLambda = &lambda
		if err := r.trainEpochs(perPoint); err != nil {
			return err
		}
		on := r.save()
		zero := 0.0
		r.pathLambda = &zero
		if err := r.trainEpochs(max(1, c.Finetune)); err != nil {
			return err
		}
		last := r.st.History[len(r.st.History)-1]
		p := PathPoint{Lambda: lambda, LambdaEffective: lambda * lambdaScale(r.train.N),
			Epochs: perPoint, Refined: refined, ValidationAccuracy: last.ValidationAccuracy, EdgesLive: last.EdgesLive, FLOPsLive: last.FLOPsLive}
		r.pathPoints = slices.Insert(r.pathPoints, at, p)
		onPath = slices.Insert(onPath, at, on)
		tuned = slices.Insert(tuned, at, r.save())
		r.restore(on)
		r.logf("path: lambda %.3g (%.3g effective): validation accuracy %.4f after fine-tuning, %d live edges, %d FLOPs per image\n",
			lambda, p.LambdaEffective, p.ValidationAccuracy, p.EdgesLive, p.FLOPsLive)
		return nil
	}
	for _, lambda := range c.Path {
		if err := point(len(r.pathPoints), lambda, false); err != nil {
			return err
		}
		last := r.pathPoints[len(r.pathPoints)-1]
		if last.EdgesLive == 0 || (c.Budget > 0 && last.EdgesLive <= c.Budget) {
			break
		}
	}
	for range PathRefinements {
		from, lambda, ok := refinement(r.pathPoints, c.PathTolerance, c.Budget, r.val.N)
		if !ok {
			break
		}
		r.restore(onPath[from])
		at, _ := slices.BinarySearchFunc(r.pathPoints, lambda, func(p PathPoint, l float64) int { return cmp.Compare(p.Lambda, l) })
		if err := point(at, lambda, true); err != nil {
			return err
		}
	}
	r.chosen, r.threshold = choosePoint(r.pathPoints, c.PathTolerance, c.Budget, r.val.N)
	p := r.pathPoints[r.chosen]
	r.logf("path: keeping lambda %.3g: %d live edges, %d FLOPs per image, validation accuracy %.4f\n",
		p.Lambda, p.EdgesLive, p.FLOPsLive, p.ValidationAccuracy)
	r.restore(tuned[r.chosen])
	return nil
}

func cloneWeights(w map[string][]float32) map[string][]float32 {
	out := make(map[string][]float32, len(w))
	for name, v := range w {
		out[name] = slices.Clone(v)
	}
	return out
}

// refinement returns the penalty of a point to add to a path of points
// of increasing penalty, to be trained from the machine of point from:
// the point choosePoint keeps. Its penalty bisects, on a logarithmic
// scale, the step from the point before the first sparser one after the
// kept point to that sparser one (halves it if the step starts at
// zero), so that repeated refinements close in on the first machine
// sparser than the kept one. It reports false when no later point is
// sparser by two edges or more.
func refinement(points []PathPoint, tol float64, budget, n int) (from int, lambda float64, ok bool) {
	i, _ := choosePoint(points, tol, budget, n)
	j := i + 1
	for j < len(points) && points[j].EdgesLive >= points[i].EdgesLive {
		j++
	}
	if j == len(points) || points[j].EdgesLive == points[i].EdgesLive-1 {
		return 0, 0, false
	}
	a, b := points[j-1].Lambda, points[j].Lambda
	if a == 0 {
		return i, b / 2, true
	}
	return i, math.Sqrt(a * b), true
}

// choosePoint returns the index of the point of fewest FLOPs (on ties
// the more accurate, then the earlier) whose validation accuracy, measured on n images, is at least
// pathThreshold's, and that threshold; with a budget of edges that the
// last point meets, it returns the last point and no threshold.
func choosePoint(points []PathPoint, tol float64, budget, n int) (int, float64) {
	last := len(points) - 1
	if budget > 0 && points[last].EdgesLive <= budget {
		return last, 0
	}
	low := pathThreshold(points, tol, n)
	chosen := 0
	for i, p := range points {
		c := points[chosen]
		if p.ValidationAccuracy >= low && (p.FLOPsLive < c.FLOPsLive || p.FLOPsLive == c.FLOPsLive && p.ValidationAccuracy > c.ValidationAccuracy) {
			chosen = i
		}
	}
	return chosen, low
}

// pathThreshold returns the validation accuracy a point of the path
// must reach to be kept: the best point's, measured on n images, less
// tol or, if larger, its standard error, the one-standard-error rule of
// Breiman et al. (1984). The best point rather than the densest is the
// reference because each is one noisy draw and the first is trained
// least; the standard error keeps a small validation split from telling
// apart machines it cannot.
func pathThreshold(points []PathPoint, tol float64, n int) float64 {
	best := 0.0
	for _, p := range points {
		best = max(best, p.ValidationAccuracy)
	}
	return best - max(tol, math.Sqrt(best*(1-best)/float64(n)))
}
