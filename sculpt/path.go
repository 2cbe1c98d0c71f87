package sculpt

import (
	"maps"
	"math"
	"slices"
)

// DefaultPath is the regularisation path of `machines sculpt -path`:
// from half the default penalty to four times it by half octaves, where
// on Fashion-MNIST whole octaves jumped from 36 live edges to 4.
var DefaultPath = func() []float64 {
	var path []float64
	for k := -2; k <= 4; k++ {
		path = append(path, DefaultLambda*math.Pow(2, float64(k)/2))
	}
	return path
}()

// DefaultPathTolerance is Config.PathTolerance's default: half a point of
// validation accuracy.
const DefaultPathTolerance = 0.005

// PathPoint is one point of a regularisation path: the machine after
// training with one penalty, starting where the previous point ended.
type PathPoint struct {
	Lambda             float64 `json:"lambda"`
	LambdaEffective    float64 `json:"lambda_effective"`
	Epochs             int     `json:"epochs"` // epochs trained at this point
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

// path trains along Config.Path with warm starts: the penalty epochs of
// the schedule are shared out among the points (at least one each).
// After each point a copy of the machine is fine-tuned without the
// penalty for Config.Finetune epochs (at least one), as a run without a
// path is at its end, so that every architecture is judged as it would
// serve rather than while still shrinking, and its validation accuracy,
// live edges and FLOPs are recorded; the path goes on from the point's
// weights before that fine-tuning. The machine kept is the fine-tuned
// copy of the point of fewest FLOPs whose validation accuracy is within
// PathTolerance of the first point's, or of the first point within
// Budget.
func (r *run) path() error {
	c := r.cfg
	perPoint := max(1, int(math.Round(float64(c.Epochs-c.Finetune)/float64(len(c.Path)))))
	type snapshot struct {
		weights map[string][]float32
		pruned  map[string]bool
	}
	// Training changes the state's maps in place, so snapshots are
	// copies both ways.
	save := func() snapshot { return snapshot{cloneWeights(r.st.Weights), maps.Clone(r.st.Pruned)} }
	restore := func(s snapshot) { r.st.Weights, r.st.Pruned = cloneWeights(s.weights), maps.Clone(s.pruned) }
	train := func(lambda float64, epochs int) error {
		r.pathLambda = &lambda
		return r.trainEpochs(epochs)
	}
	var tuned []snapshot // each point's fine-tuned machine
	for _, lambda := range c.Path {
		if err := train(lambda, perPoint); err != nil {
			return err
		}
		onPath := save()
		if err := train(0, max(1, c.Finetune)); err != nil {
			return err
		}
		last := r.st.History[len(r.st.History)-1]
		tuned = append(tuned, save())
		restore(onPath)
		r.pathPoints = append(r.pathPoints, PathPoint{Lambda: lambda, LambdaEffective: lambda * lambdaScale(r.train.N),
			Epochs: perPoint, ValidationAccuracy: last.ValidationAccuracy, EdgesLive: last.EdgesLive, FLOPsLive: last.FLOPsLive})
		r.logf("path: lambda %.3g (%.3g effective): validation accuracy %.4f after fine-tuning, %d live edges, %d FLOPs per image\n",
			lambda, lambda*lambdaScale(r.train.N), last.ValidationAccuracy, last.EdgesLive, last.FLOPsLive)
		if last.EdgesLive == 0 || (c.Budget > 0 && last.EdgesLive <= c.Budget) {
			break
		}
	}
	r.chosen = choosePoint(r.pathPoints, c.PathTolerance, c.Budget)
	p := r.pathPoints[r.chosen]
	r.logf("path: keeping lambda %.3g: %d live edges, %d FLOPs per image, validation accuracy %.4f\n",
		p.Lambda, p.EdgesLive, p.FLOPsLive, p.ValidationAccuracy)
	restore(tuned[r.chosen])
	return nil
}

func cloneWeights(w map[string][]float32) map[string][]float32 {
	out := make(map[string][]float32, len(w))
	for name, v := range w {
		out[name] = slices.Clone(v)
	}
	return out
}

// choosePoint returns the index of the point of fewest FLOPs (the later
// on ties) whose validation accuracy is at least the first point's less
// tol; with a budget of edges that the last point meets, the last point.
func choosePoint(points []PathPoint, tol float64, budget int) int {
	last := len(points) - 1
	if budget > 0 && points[last].EdgesLive <= budget {
		return last
	}
	best := 0
	for i, p := range points {
		if p.ValidationAccuracy >= points[0].ValidationAccuracy-tol && p.FLOPsLive <= points[best].FLOPsLive {
			best = i
		}
	}
	return best
}

// pathSeries returns the path as FLOPs and validation accuracy in percent.
func (rep *Report) pathSeries() (x, y []float64) {
	for _, p := range rep.Path {
		x = append(x, float64(p.FLOPsLive))
		y = append(y, 100*p.ValidationAccuracy)
	}
	return x, y
}
