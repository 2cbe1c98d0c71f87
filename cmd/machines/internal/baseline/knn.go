package baseline

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// NearestNeighbours is a k-nearest-neighbour classifier by Euclidean
// distance. Set K and Standardize, call Fit, then Predict.
type NearestNeighbours struct {
	// K is the number of neighbours that vote; 0 means 1.
	K int
	// Standardize measures distances between inputs scaled by the
	// training inputs' mean and standard deviation per column. Columns
	// constant in the training inputs add the same to every distance
	// from a new input, so they are dropped rather than divided by a
	// zero spread.
	Standardize bool

	x      *mat.Dense
	labels []int
	mean   []float64
	scale  []float64 // 1/std, or 0 for a dropped column
}

// Fit keeps the training inputs, one per row, and their labels. It
// returns an error if the data are empty, their sizes differ or K is
// larger than the number of rows.
func (m *NearestNeighbours) Fit(x *mat.Dense, labels []int) error {
	r, c := x.Dims()
	if r == 0 || c == 0 || len(labels) != r {
		return fmt.Errorf("baseline: %dx%d inputs and %d labels do not make a data set", r, c, len(labels))
	}
	if m.k() > r {
		return fmt.Errorf("baseline: %d neighbours from %d training rows", m.k(), r)
	}
	m.x, m.labels, m.mean, m.scale = mat.DenseCopyOf(x), append([]int(nil), labels...), nil, nil
	if m.Standardize {
		m.mean, m.scale = make([]float64, c), make([]float64, c)
		for j := range c {
			col := mat.Col(nil, j, x)
			var s, s2 float64
			for _, v := range col {
				s += v
			}
			mean := s / float64(r)
			for _, v := range col {
				s2 += (v - mean) * (v - mean)
			}
			m.mean[j] = mean
			if sd := math.Sqrt(s2 / float64(r)); sd > 0 {
				m.scale[j] = 1 / sd
			}
		}
		for i := range r {
			m.transform(m.x.RawRowView(i))
		}
	}
	return nil
}

func (m *NearestNeighbours) k() int { return max(m.K, 1) }

func (m *NearestNeighbours) transform(row []float64) {
	for j, v := range row {
		row[j] = (v - m.mean[j]) * m.scale[j]
	}
}

// Predict returns the label of each row of x: the most common label of
// its K nearest training rows, ties going to the tied label with the
// nearest row.
func (m *NearestNeighbours) Predict(x *mat.Dense) []int {
	r, c := x.Dims()
	if _, cx := m.x.Dims(); c != cx {
		panic(mat.ErrShape)
	}
	k := m.k()
	n, _ := m.x.Dims()
	pred := make([]int, r)
	q := make([]float64, c)
	// The k nearest so far, nearest first.
	idx, dist := make([]int, 0, k), make([]float64, 0, k)
	votes := map[int]int{}
	for i := range r {
		copy(q, x.RawRowView(i))
		if m.Standardize {
			m.transform(q)
		}
		idx, dist = idx[:0], dist[:0]
		for j := range n {
			d := sqDist(q, m.x.RawRowView(j))
			if len(idx) == k && d >= dist[k-1] {
				continue
			}
			if len(idx) < k {
				idx, dist = append(idx, 0), append(dist, 0)
			}
			p := len(idx) - 1
			for ; p > 0 && dist[p-1] > d; p-- {
				idx[p], dist[p] = idx[p-1], dist[p-1]
			}
			idx[p], dist[p] = j, d
		}
		clear(votes)
		top := 0
		for _, j := range idx {
			votes[m.labels[j]]++
			top = max(top, votes[m.labels[j]])
		}
		// Walking from the nearest, the first label with the top count
		// wins a tie.
		for _, j := range idx {
			if votes[m.labels[j]] == top {
				pred[i] = m.labels[j]
				break
			}
		}
	}
	return pred
}
