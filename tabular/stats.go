package tabular

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/matmul"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Stats are the sufficient statistics of a plan's shallow machine over
// the rows added to them: the weighted sums of the rows' features z (the
// inputs and the anchors' kernel features, about the plan's shift), of
// z z^T and of z y^T (the Gram matrix and its right-hand side), of the
// targets y on the scale the machine fits, and the range of the targets.
// Sums of disjoint rows Merge into the sums of their union, in any order
// up to rounding, so that workers may each add up a part of a table.
// The exported fields are the sums, for encoding/json or encoding/gob;
// Plan.NewStats makes Stats that can Add rows.
//
// Add holds out one row in heldOutEvery, chosen by a hash of its line:
// its sums go to HeldOut alone, on which Solve chooses the cost, so
// that every row is summed once; Solve fits the machine to both.
type Stats struct {
	// Rows counts the rows added, held out or not, Dropped those left
	// out for a missing target; Weight is the sum of the rows' weights.
	Rows, Dropped int
	Weight        float64
	// Z, ZZ (row-major, upper triangle) and ZY (row-major, features by
	// outputs) are the weighted sums of z, z z^T and z y^T; Y and YY of y
	// and of its squares: over the rows not held out.
	Z, ZZ, ZY, Y, YY []float64
	// Low and High are each regression target's lowest and highest
	// value, in its units; nil until a row is added.
	Low, High []float64
	// HeldOut holds the counts and the sums of the rows that Add held
	// out; nil in its own, and nil for stats whose sums are of every
	// row.
	HeldOut *Stats

	// Log is what encoding the rows met that the sample's encoding never
	// did (levels it lacks, numbers far beyond its range, gaps), which
	// Solve warns of; nil until a row is added.
	Log *dataset.EncodeLog
	// Read holds the warnings of reading the rows (stray cells read as
	// missing, text that is not UTF-8), each naming its file, where the
	// rows are read apart from the fit, as machines-beam's workers read
	// them; Solve warns of them. Merged stats keep the first maxRead in
	// the order of their text and count the others in ReadMore, so that
	// the order of merging does not matter.
	Read     []dataset.Warning
	ReadMore int

	plan *Plan
	buf  []float64 // the features of the last chunk added
}

// heldOutEvery is one in how many rows Stats hold out.
const heldOutEvery = 10

// NewStats returns empty stats of the plan's machine.
func (p *Plan) NewStats() *Stats {
	s := p.newSums()
	s.HeldOut, s.plan = p.newSums(), p
	return s
}

// newSums returns Stats of the plan's width with every sum 0.
func (p *Plan) newSums() *Stats {
	w, k := p.Width(), p.Outputs()
	return &Stats{Z: make([]float64, w), ZZ: make([]float64, w*w), ZY: make([]float64, w*k),
		Y: make([]float64, k), YY: make([]float64, k)}
}

// Add adds the rows of a chunk of the table to the stats: those with a
// target, encoded as the plan's sample was. A chunk is a dataset.Frame
// with the sample's columns, such as the Frames of a
// dataset.FrameReader. Its errors name the row and the column at
// fault: a target that is not a number, a class the sample did not
// have, a weight that is not a number >= 0, a cell that does not fit
// its column.
func (s *Stats) Add(chunk *dataset.Frame) error {
	p := s.plan
	if p == nil {
		return errors.New("tabular: stats not made by Plan.NewStats cannot add rows")
	}
	c, err := p.chunkTargets(chunk)
	if err != nil {
		return err
	}
	s.Dropped += c.dropped
	if len(c.rows) == 0 {
		return nil
	}
	// The rows not held out, then those held out, so that each group's
	// features are a block of z.
	var kept, held []int
	for i, r := range c.rows {
		if holdsOut(chunk.Line(r)) {
			held = append(held, i)
		} else {
			kept = append(kept, i)
		}
	}
	if s.Log == nil {
		s.Log = p.model.Encoder.NewLog()
	}
	x, err := p.model.Encoder.TransformLog(chunk, pick(c.rows, slices.Concat(kept, held)), s.Log)
	if err != nil {
		return err
	}
	z := p.features(x, s.buf)
	s.buf = z.RawMatrix().Data
	n, width := z.Dims()
	s.count(c)
	if len(kept) > 0 {
		s.add(z.Slice(0, len(kept), 0, width).(*mat.Dense), c.subset(kept), p.shift)
	}
	if len(held) > 0 {
		h := c.subset(held)
		s.HeldOut.count(h)
		s.HeldOut.add(z.Slice(len(kept), n, 0, width).(*mat.Dense), h, p.shift)
	}
	return nil
}

// holdsOut reports whether Stats hold out the row on the given line: a
// hash of the line, so that the rows held out do not depend on how the
// table is cut into chunks.
func holdsOut(line int) bool {
	h := uint64(line) * 0x9e3779b97f4a7c15
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	return h%heldOutEvery == 0
}

// add adds the features z of the rows of chunk c, less shift, to the
// sums. It overwrites z.
func (s *Stats) add(z *mat.Dense, c *chunkRows, shift []float64) {
	n, width := z.Dims()
	_, k := c.y.Dims()
	// The rows of z and y less the shift, times the square roots of the
	// weights: the sums are then their products.
	y := mat.NewDense(n, k, nil)
	for i := range n {
		w := c.weight(i)
		sw := math.Sqrt(w)
		row := z.RawRowView(i)
		for j, v := range row {
			v -= shift[j]
			s.Z[j] += w * v
			row[j] = sw * v
		}
		for j, v := range c.y.RawRowView(i) {
			s.Y[j] += w * v
			s.YY[j] += w * v * v
			y.Set(i, j, sw*v)
		}
	}
	// The upper triangle of z^T z; the lower one stays 0.
	matmul.Gram(z.RawMatrix(), blas64.Symmetric{Uplo: blas.Upper, N: width, Stride: width, Data: s.ZZ})
	matmul.F64(blas.Trans, blas.NoTrans, 1, z.RawMatrix(), y.RawMatrix(), 1, blas64.General{Rows: width, Cols: k, Data: s.ZY, Stride: k})
}

// count counts the rows of chunk c, their weights and their targets'
// range.
func (s *Stats) count(c *chunkRows) {
	n, k := c.y.Dims()
	s.Rows += n
	s.Weight += c.total
	if c.raw == nil {
		return
	}
	if s.Low == nil {
		s.Low, s.High = slices.Repeat([]float64{math.Inf(1)}, k), slices.Repeat([]float64{math.Inf(-1)}, k)
	}
	for j := range k {
		for i := range n {
			v := c.raw.At(i, j)
			s.Low[j], s.High[j] = math.Min(s.Low[j], v), math.Max(s.High[j], v)
		}
	}
}

// Merge adds the sums of other, of other rows of the same plan, to s.
func (s *Stats) Merge(other *Stats) error {
	if len(other.Z) != len(s.Z) || len(other.ZZ) != len(s.ZZ) || len(other.ZY) != len(s.ZY) || len(other.Y) != len(s.Y) || len(other.YY) != len(s.YY) {
		return fmt.Errorf("tabular: merging stats of %d features and %d outputs into stats of %d and %d",
			len(other.Z), len(other.Y), len(s.Z), len(s.Y))
	}
	if other.HeldOut != nil {
		if s.HeldOut == nil {
			s.HeldOut = other.HeldOut.zero()
		}
		if err := s.HeldOut.Merge(other.HeldOut); err != nil {
			return err
		}
	}
	s.Rows += other.Rows
	s.Dropped += other.Dropped
	s.Weight += other.Weight
	s.Read, s.ReadMore = mergeRead(s.Read, other.Read, s.ReadMore+other.ReadMore)
	if other.Log != nil {
		if s.Log == nil {
			s.Log = new(dataset.EncodeLog)
		}
		if err := s.Log.Merge(other.Log); err != nil {
			return err
		}
	}
	for _, pair := range [][2][]float64{{s.Z, other.Z}, {s.ZZ, other.ZZ}, {s.ZY, other.ZY}, {s.Y, other.Y}, {s.YY, other.YY}} {
		for i, v := range pair[1] {
			pair[0][i] += v
		}
	}
	if other.Low == nil {
		return nil
	}
	if s.Low == nil {
		s.Low, s.High = slices.Clone(other.Low), slices.Clone(other.High)
		return nil
	}
	if len(other.Low) != len(s.Low) || len(other.High) != len(s.High) {
		return errors.New("tabular: merging stats of targets' ranges of different lengths")
	}
	for j := range s.Low {
		s.Low[j], s.High[j] = math.Min(s.Low[j], other.Low[j]), math.Max(s.High[j], other.High[j])
	}
	return nil
}

// reset empties the stats and their held-out stats, of no row again,
// keeping their memory.
func (s *Stats) reset() {
	for _, sums := range [][]float64{s.Z, s.ZZ, s.ZY, s.Y, s.YY} {
		clear(sums)
	}
	s.Rows, s.Dropped, s.Weight, s.Low, s.High, s.Log = 0, 0, 0, nil, nil, nil
	s.Read, s.ReadMore = nil, 0
	if s.HeldOut != nil {
		s.HeldOut.reset()
	}
}

// encodeWarnings returns the warnings of acc's Log, as the plan's encoder
// words them, each said to be of rows beyond the sample (the encoder was
// made on the sample, where none of them arose).
func (p *Plan) encodeWarnings(acc *Stats) []dataset.Warning {
	if acc.Log == nil {
		return nil
	}
	warnings := p.model.Encoder.Warnings(acc.Log)
	for i := range warnings {
		warnings[i].Message = "in the rows beyond the sample, which the encoding was made on: " + warnings[i].Message
	}
	return warnings
}

// maxRead is the most warnings of reading that Stats keep.
const maxRead = 20

// mergeRead returns the first maxRead of the warnings a and b in the
// order of their text, and more plus the number of the others.
func mergeRead(a, b []dataset.Warning, more int) ([]dataset.Warning, int) {
	if len(b) == 0 {
		return a, more
	}
	all := slices.SortedFunc(slices.Values(slices.Concat(a, b)), func(v, w dataset.Warning) int {
		return strings.Compare(v.String(), w.String())
	})
	if len(all) > maxRead {
		more += len(all) - maxRead
		all = all[:maxRead:maxRead]
	}
	return all, more
}

// readWarnings returns the warnings of reading the rows of acc, and one
// that counts those it leaves out.
func readWarnings(acc *Stats) []dataset.Warning {
	warnings := slices.Clone(acc.Read)
	if acc.ReadMore > 0 {
		warnings = append(warnings, dataset.Warning{Rows: acc.ReadMore, Message: fmt.Sprintf(
			"and %d more warnings of reading the table's files, each like those above", acc.ReadMore)})
	}
	return warnings
}

// zero returns stats of the shape of s, of no row.
func (s *Stats) zero() *Stats {
	return &Stats{Z: make([]float64, len(s.Z)), ZZ: make([]float64, len(s.ZZ)), ZY: make([]float64, len(s.ZY)),
		Y: make([]float64, len(s.Y)), YY: make([]float64, len(s.YY))}
}

// chunkRows are the rows of a chunk that have a target: their targets on
// the scale the machine fits (y) and in their units (raw; nil for a
// classifier), their weights (nil for 1) and the weights' sum.
type chunkRows struct {
	rows    []int
	dropped int
	y, raw  *mat.Dense
	w       []float64
	total   float64
}

// weight returns the weight of the i-th row with a target.
func (c *chunkRows) weight(i int) float64 {
	if c.w == nil {
		return 1
	}
	return c.w[i]
}

// subset returns the listed rows of c, without the dropped rows.
func (c *chunkRows) subset(list []int) *chunkRows {
	out := &chunkRows{rows: pick(c.rows, list), y: pickRows(c.y, list), w: pick(c.w, list), total: float64(len(list))}
	if c.raw != nil {
		out.raw = pickRows(c.raw, list)
	}
	if c.w != nil {
		out.total = floats.Sum(out.w)
	}
	return out
}

// chunkTargets reads the targets and the weights of the rows of f.
func (p *Plan) chunkTargets(f *dataset.Frame) (*chunkRows, error) {
	c, values, labels, err := p.model.chunkLabels(f, p.units, nil)
	if err != nil {
		return nil, err
	}
	c.total = float64(len(c.rows))
	if p.weight != "" && len(c.rows) > 0 {
		w, err := readColumn(f, p.weight, c.rows, parseWeight)
		if err != nil {
			return nil, err
		}
		c.w, c.total = w, floats.Sum(w)
	}
	return c, p.fitScale(f, c, values, labels)
}

// chunkLabels returns the rows of f that have every target of md, with
// their values (a regression's, row by row, read in the targets' units;
// see targetsIn) or labels, which index md's classes. A target that is
// not a number, beyond the strays that dataset.Frame.Target drops, or a
// class that md does not know, is an error that names its row and
// column. A class in another case is one with alike, of a table scored,
// as scoredClass reads it, and none without, of a fit's chunks.
func (md *Model) chunkLabels(f *dataset.Frame, units []string, alike *inCase) (c *chunkRows, values []float64, labels []int, err error) {
	names := md.TargetNames()
	if md.Task != Classification {
		t, err := targetsIn(f, names, units)
		if err != nil {
			return nil, nil, nil, err
		}
		return &chunkRows{rows: t.Rows, dropped: t.Dropped}, t.Values, nil, nil
	}
	col, err := f.Column(names[0])
	if err != nil {
		return nil, nil, nil, err
	}
	c = new(chunkRows)
	for r := range f.Len() {
		if slices.Contains(dataset.MissingTexts(), strings.ToLower(f.Cell(r, col))) {
			c.dropped++
			continue
		}
		l := md.scoredClass(f.Cell(r, col), alike)
		if l < 0 {
			return nil, nil, nil, fmt.Errorf("%s: row %d, column %q: class %q is not one of the model's %d classes",
				f.Name(), f.Line(r), names[0], f.Cell(r, col), len(md.Classes))
		}
		c.rows = append(c.rows, r)
		labels = append(labels, l)
	}
	return c, nil, labels, nil
}

// fitScale sets the targets of c, rows of f, on the scale the machine
// fits from their values (a regression's, row by row) or labels.
func (p *Plan) fitScale(f *dataset.Frame, c *chunkRows, values []float64, labels []int) error {
	if len(c.rows) == 0 {
		return nil
	}
	if labels != nil {
		c.y = oneHot(labels, p.Outputs())
		return nil
	}
	c.raw = mat.NewDense(len(c.rows), p.Outputs(), values)
	y := c.raw
	if p.model.Machine.LogTarget {
		k := p.Outputs()
		for i, v := range values {
			if v < 0 {
				return fmt.Errorf("%s: row %d, column %q: %v is negative, and the plan fits log(1 + y), which needs nonnegative targets",
					f.Name(), f.Line(c.rows[i/k]), p.model.TargetNames()[i%k], v)
			}
		}
		var err error
		if y, err = log1p(c.raw); err != nil {
			return err
		}
	}
	if p.out != nil {
		y = p.out.Transform(y)
	}
	c.y = y
	return nil
}
