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
// linearly between knots and held constant beyond the first and the last.
// Like a tree's splits it keeps only the order of the values, so that a
// skewed column's long tail no longer dominates the distances that a
// Gaussian kernel sees (R's CO2 table: carbon dioxide concentrations of 95
// to 1000, most of the uptake's change below 250).
type QuantileMap struct {
	// Knots[j] are the increasing values of column j at which its map
	// takes the values Ranks[j], non-decreasing in [0, 1]. Nil knots
	// leave the column as it is: a column of at most two distinct
	// values, which no monotone map changes after standardising.
	Knots, Ranks [][]float64
}

// QuantileKnots is the most knots a column's map keeps: columns of more
// distinct values are mapped through their quantiles at 0, 1/100, ...,
// 1.
const QuantileKnots = 101

// FitQuantileMap returns the map of each column of a to its empirical
// distribution function over the rows of a. It panics if a value is NaN.
func FitQuantileMap(a mat.Matrix) *QuantileMap {
	r, c := a.Dims()
	q := &QuantileMap{Knots: make([][]float64, c), Ranks: make([][]float64, c)}
	col := make([]float64, r)
	for j := range c {
		mat.Col(col, j, a)
		if i := slices.IndexFunc(col, math.IsNaN); i >= 0 {
			panic(fmt.Errorf("%w: scale: column %d, row %d is NaN", ad.ErrValue, j, i))
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
		q.Knots[j], q.Ranks[j] = knots, ranks
	}
	return q
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
	switch {
	case knots == nil || math.IsNaN(v):
		return v
	case v <= knots[0]:
		return ranks[0]
	case v >= knots[len(knots)-1]:
		return ranks[len(ranks)-1]
	}
	k := sort.SearchFloat64s(knots, v) // knots[k-1] < v <= knots[k]
	t := (v - knots[k-1]) / (knots[k] - knots[k-1])
	return ranks[k-1] + t*(ranks[k]-ranks[k-1])
}

// Check returns an error unless q maps cols columns with knots that a
// map fitted to data could have: at least two per mapped column, as many
// ranks, finite and increasing knots, non-decreasing ranks in [0, 1].
func (q *QuantileMap) Check(cols int) error {
	if len(q.Knots) != cols || len(q.Ranks) != cols {
		return fmt.Errorf("%d knot lists and %d rank lists for %d columns", len(q.Knots), len(q.Ranks), cols)
	}
	for j, knots := range q.Knots {
		ranks := q.Ranks[j]
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
