package tabular

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/parametric-machines/machines/internal/numeric"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// ShallowAnchors and DeepAnchors are the numbers of rows up to which
// every training row is an anchor of the shallow and the deep machine
// when Settings.Anchors is 0; larger sets get that many k-means++
// anchors, so that the cost of a fit grows linearly with the rows. The
// deep machine's fits, whose work is rows x anchors per level, take most
// of the time of a large fit, so it has fewer; docs/learner.md gives the
// measurements behind both. The shallow machine grows its anchors in
// its final fit while leave-one-out on all the rows says they pay
// beyond its noise (see growAnchors), rather than on every table: more
// anchors cost time also where they gain nothing.
const (
	ShallowAnchors = 100
	DeepAnchors    = 80
)

// anchorGrowth returns the counts of anchors beyond ShallowAnchors that
// the shallow machine's fit to n rows of that many inputs tries (see
// growAnchors): none on at most ShallowAnchors rows, every one of them
// an anchor already, else ShallowAnchors doubled up to
// streamAnchorsMax, the last cut to n (all the rows), and on beyond it
// up to growMax while the count is at most one per growShare rows and
// the basis (rows x (inputs + anchors)) at most growCells: beyond them
// the time of the fit (the rows times the square of its width) and its
// memory outgrow what more anchors gain.
func anchorGrowth(n, inputs int) []int {
	if n <= ShallowAnchors {
		return nil
	}
	var counts []int
	for m := 2 * ShallowAnchors; m <= streamAnchorsMax || m <= growMax && m <= n/growShare && n*(inputs+m) <= growCells; m *= 2 {
		if m >= n {
			return append(counts, n)
		}
		counts = append(counts, m)
	}
	return counts
}

// growMax, growShare and growCells bound the counts of anchors beyond
// streamAnchorsMax that anchorGrowth tries: at most growMax, at most one
// anchor per growShare rows, and a basis of at most growCells features
// of the rows, 256 MB a copy, which holds growMax anchors up to about
// StreamRows rows.
const (
	growMax   = 1600
	growShare = 2
	growCells = 32_000_000
)

// anchorCount returns the number of anchors for n training rows under the
// setting anchors, or auto when anchors is 0.
func anchorCount(n, anchors, auto int) int {
	if anchors == 0 {
		anchors = auto
	}
	return min(n, anchors)
}

// anchorRows returns the rows of x that anchor a machine of family f
// (Shallow or Deep) under Settings s, seeded by seed: as many as
// Settings.Anchors, or by default ShallowAnchors or DeepAnchors, chosen by
// seedAnchors.
func anchorRows(f Family, x mat.Matrix, s Settings, seed uint64) []int {
	auto := DeepAnchors
	if f == Shallow {
		auto = ShallowAnchors
	}
	n, _ := x.Dims()
	return seedAnchors(x, numeric.Indices(n), anchorCount(n, s.Anchors, auto), rand.New(rand.NewPCG(seed, anchorStream)))
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
			if v := sqDistance(p, c); dist[i] < 0 || v < dist[i] {
				dist[i] = v
			}
			total += dist[i]
		}
		if total == 0 {
			break
		}
		next = drawWeighted(dist, rnd.Float64()*total)
	}
	slices.Sort(chosen)
	return chosen
}

// moreAnchors returns m rows of x that continue the k-means++ seeding
// (see seedAnchors) of the anchors have, in the order drawn, with the
// random stream of seed: each with probability proportional to its
// squared distance from the nearest anchor so far. The first k of them
// after have are then the anchors that a count of len(have)+k adds,
// whatever m. Fewer come back if x holds fewer distinct points.
func moreAnchors(x, have *mat.Dense, m int, seed uint64) *mat.Dense {
	rnd := rand.New(rand.NewPCG(seed, anchorStream))
	n, d := x.Dims()
	na, _ := have.Dims()
	dist := make([]float64, n)
	for i := range n {
		dist[i] = math.Inf(1)
		for j := range na {
			dist[i] = min(dist[i], sqDistance(x.RawRowView(i), have.RawRowView(j)))
		}
	}
	var rows []int
	for len(rows) < m {
		total := floats.Sum(dist)
		if !(total > 0) {
			break
		}
		next := drawWeighted(dist, rnd.Float64()*total)
		rows = append(rows, next)
		for i := range n {
			dist[i] = min(dist[i], sqDistance(x.RawRowView(i), x.RawRowView(next)))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	out := mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		out.SetRow(i, x.RawRowView(r))
	}
	return out
}

// drawWeighted returns the index i of weights at which the running sum
// of weights passes u, u drawn uniformly below their sum: i with
// probability proportional to weights[i]. Should rounding leave u above
// the sum, it returns the last index of a weight above 0, so that a
// point already an anchor, at distance 0, is never drawn.
func drawWeighted(weights []float64, u float64) int {
	next := -1
	for i, v := range weights {
		if v > 0 {
			next = i
			if u -= v; u < 0 {
				break
			}
		}
	}
	return next
}
