package kernel

import (
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// AutoAnchors is the number of rows up to which every training row is an
// anchor when Settings.Anchors is 0; larger sets get this many k-means++
// anchors, so that the cost of a fit grows linearly with the rows. It was
// chosen by measurement (see the package documentation).
const AutoAnchors = 100

// anchorCount returns the number of anchors for n training rows under the
// setting anchors (0: automatic).
func anchorCount(n, anchors int) int {
	if anchors == 0 {
		anchors = AutoAnchors
	}
	return min(n, anchors)
}

// seedAnchors returns m of the given rows of x (all of them if m >=
// len(rows)), chosen by k-means++ seeding: the first uniformly, each next
// one with probability proportional to its squared distance from the
// nearest anchor chosen so far. The anchors thus spread over the data
// instead of clustering where it is dense, which is what a Nystrom
// approximation needs. Fewer than m come back if the rows hold fewer than
// m distinct points. The result is sorted.
func seedAnchors(x mat.Matrix, rows []int, m int, rnd *rand.Rand) []int {
	if m >= len(rows) {
		return slices.Clone(rows)
	}
	pts := make([][]float64, len(rows))
	for i, r := range rows {
		pts[i] = mat.Row(nil, r, x)
	}
	dist := make([]float64, len(rows))
	for i := range dist {
		dist[i] = -1 // not yet measured
	}
	chosen := make([]int, 0, m)
	next := rnd.IntN(len(rows))
	for {
		chosen = append(chosen, rows[next])
		if len(chosen) == m {
			break
		}
		c := pts[next]
		total := 0.0
		for i, p := range pts {
			if v := floats.Distance(p, c, 2); dist[i] < 0 || v*v < dist[i] {
				dist[i] = v * v
			}
			total += dist[i]
		}
		if total == 0 {
			break
		}
		u := rnd.Float64() * total
		next = -1
		for i, v := range dist {
			if u -= v; u < 0 && v > 0 {
				next = i
				break
			}
		}
		if next < 0 { // rounding left u just above 0: take the last candidate
			for i := len(dist) - 1; i >= 0; i-- {
				if dist[i] > 0 {
					next = i
					break
				}
			}
		}
	}
	slices.Sort(chosen)
	return chosen
}
