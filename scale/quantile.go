package scale

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/parametric-machines/machines/ad"
	"gonum.org/v1/gonum/mat"
)

// QuantileMap maps columns of a data matrix to their empirical
// distribution function over the rows it was fitted to: a value becomes
// the fraction of those rows below it, ties counted half, interpolated
// linearly between knots and continued linearly beyond the first and the
// last, so that a machine's linear part still extrapolates a value beyond
// the training range. Like a tree's splits it keeps only the order of
// the values, so that a skewed column's long tail no longer dominates the
// distances that a Gaussian kernel sees (R's CO2 table: carbon dioxide
// concentrations of 95 to 1000, most of the uptake's change below 250).
type QuantileMap struct {
	// Knots[j] are the increasing values of column j at which its map
	// takes the values Ranks[j], non-decreasing in [0, 1]. Nil knots
	// leave the column as it is: a column of at most two distinct
	// values, which no monotone map changes after standardising.
	Knots, Ranks [][]float64
	// Tails[j] are the slopes of column j's map below its first knot
	// and above its last: the rise of the ranks over the outer
	// QuantileTail of its knots, divided by those knots' span (nil for a
	// column left as it is). Nil Tails hold every map constant beyond its
	// end knots, as the maps of model files before the tails did.
	Tails [][]float64
}

// QuantileTail is the share of a map's knots at each end whose slope
// continues the map beyond its end knots: wide enough that one outlying
// value does not set it, narrow enough that the slope is the tail's.
const QuantileTail = 0.1

// QuantileKnots is the most knots a column's map keeps: columns of more
// distinct values are mapped through their quantiles at 0, 1/100, ...,
// 1.
const QuantileKnots = 101

// FitQuantileMap returns the map of each column of a to its empirical
// distribution function over the rows of a. It panics if a value is NaN.
func FitQuantileMap(a mat.Matrix) *QuantileMap {
	r, c := a.Dims()
	q := &QuantileMap{Knots: make([][]float64, c), Ranks: make([][]float64, c), Tails: make([][]float64, c)}
	col := make([]float64, r)
	for j := range c {
		mat.Col(col, j, a)
		if slices.ContainsFunc(col, math.IsNaN) {
			panic(fmt.Errorf("%w: scale: column %d holds NaN", ad.ErrValue, j))
		}
		slices.Sort(col)
		distinct := slices.Compact(slices.Clone(col))
		if len(distinct) <= 2 {
			continue
		}
		knots := distinct
		if len(knots) > QuantileKnots {
			knots = make([]float64, QuantileKnots)
			for k := range knots {
				knots[k] = col[int(math.Round(float64(k*(r-1))/float64(QuantileKnots-1)))]
			}
			knots = slices.Compact(knots)
		}
		ranks := make([]float64, len(knots))
		for k, v := range knots {
			below, _ := slices.BinarySearch(col, v)
			above := sort.SearchFloat64s(col, math.Nextafter(v, math.Inf(1)))
			ranks[k] = (float64(below) + float64(above-below)/2) / float64(r)
		}
		q.Knots[j], q.Ranks[j], q.Tails[j] = knots, ranks, tailSlopes(knots, ranks)
	}
	return q
}

// tailSlopes returns the slopes of the map of knots to ranks over its
// outer QuantileTail of knots at the low end and at the high end.
func tailSlopes(knots, ranks []float64) []float64 {
	n := len(knots) - 1
	m := max(1, int(math.Round(QuantileTail*float64(n))))
	return []float64{
		(ranks[m] - ranks[0]) / (knots[m] - knots[0]),
		(ranks[n] - ranks[n-m]) / (knots[n] - knots[n-m]),
	}
}

// Transform returns a new matrix holding the mapped columns of a.
func (q *QuantileMap) Transform(a mat.Matrix) *mat.Dense {
	r, c := a.Dims()
	if len(q.Knots) != c {
		panic(fmt.Errorf("%w: scale: quantile map of %d columns applied to %d", ad.ErrShape, len(q.Knots), c))
	}
	out := mat.NewDense(r, c, nil)
	out.Apply(func(_, j int, v float64) float64 { return q.TransformValue(j, v) }, a)
	return out
}

// TransformValue maps the value v of column j, as Transform does; NaN
// stays NaN.
func (q *QuantileMap) TransformValue(j int, v float64) float64 {
	knots, ranks := q.Knots[j], q.Ranks[j]
	if knots == nil || math.IsNaN(v) {
		return v
	}
	low, high := q.TailSlopes(j)
	switch last := len(knots) - 1; {
	case v <= knots[0]:
		return ranks[0] - low*(knots[0]-v)
	case v >= knots[last]:
		return ranks[last] + high*(v-knots[last])
	}
	k := sort.SearchFloat64s(knots, v) // knots[k-1] < v <= knots[k]
	t := (v - knots[k-1]) / (knots[k] - knots[k-1])
	return ranks[k-1] + t*(ranks[k]-ranks[k-1])
}

// TailSlopes returns the slopes of column j's map below its first knot
// and above its last: 0 for a map without Tails.
func (q *QuantileMap) TailSlopes(j int) (low, high float64) {
	if q.Tails == nil || q.Tails[j] == nil {
		return 0, 0
	}
	return q.Tails[j][0], q.Tails[j][1]
}

// Check returns an error unless q maps cols columns with knots that a
// map fitted to data could have: at least two per mapped column, as many
// ranks, finite and increasing knots, non-decreasing ranks in [0, 1],
// and, if q has Tails, two finite nonnegative slopes per mapped column.
func (q *QuantileMap) Check(cols int) error {
	if len(q.Knots) != cols || len(q.Ranks) != cols || (q.Tails != nil && len(q.Tails) != cols) {
		return fmt.Errorf("%d knot lists, %d rank lists and %d tail lists for %d columns", len(q.Knots), len(q.Ranks), len(q.Tails), cols)
	}
	for j, knots := range q.Knots {
		ranks := q.Ranks[j]
		if err := q.checkTails(j); err != nil {
			return err
		}
		switch {
		case knots == nil && ranks == nil:
			continue
		case len(knots) < 2 || len(knots) != len(ranks):
			return fmt.Errorf("column %d: %d knots and %d ranks, want as many and at least 2", j, len(knots), len(ranks))
		}
		for k, v := range knots {
			r := ranks[k]
			switch {
			case !finite(v) || (k > 0 && v <= knots[k-1]):
				return fmt.Errorf("column %d: knot %d (%v) is not finite or not above the one before", j, k, v)
			case !(r >= 0 && r <= 1) || (k > 0 && r < ranks[k-1]):
				return fmt.Errorf("column %d: rank %d (%v) is outside [0, 1] or below the one before", j, k, r)
			}
		}
	}
	return nil
}

// checkTails returns an error unless column j's tails, if q has any,
// are two finite nonnegative slopes for a mapped column and none for
// another.
func (q *QuantileMap) checkTails(j int) error {
	if q.Tails == nil {
		return nil
	}
	tails := q.Tails[j]
	switch {
	case q.Knots[j] == nil && tails == nil:
		return nil
	case q.Knots[j] == nil || len(tails) != 2:
		return fmt.Errorf("column %d: %d tail slopes for %d knots, want 2 for a mapped column and none for another", j, len(tails), len(q.Knots[j]))
	case !finite(tails[0]) || !finite(tails[1]) || tails[0] < 0 || tails[1] < 0:
		return fmt.Errorf("column %d: tail slopes %v are not finite and nonnegative", j, tails)
	}
	return nil
}
