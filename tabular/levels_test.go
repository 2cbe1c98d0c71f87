package tabular

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/scale"
	"gonum.org/v1/gonum/mat"
)

// TestScaleLevels checks the scales of blocks of levels: every level of
// a block alike, rows of different levels the same distance apart, and a
// block of one level left as it was.
func TestScaleLevels(t *testing.T) {
	tests := []struct {
		name   string
		levels []int // each row's level; -1 for a level seen in no column
		width  int
		want   float64 // the scale of the block's columns, 0: unchanged
	}{
		{"even", []int{0, 1, 2, 0, 1, 2}, 3, math.Sqrt(1 - 3.0/9)},
		{"one rare", []int{0, 0, 0, 0, 0, 0, 0, 1, 2, 2}, 3, math.Sqrt(1 - (0.49 + 0.01 + 0.04))},
		{"an unseen level", []int{0, 1, 2, -1}, 3, math.Sqrt(1 - 3.0/16)},
		{"one level", []int{0, 0, 0}, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := len(tc.levels)
			x := mat.NewDense(n, tc.width+1, nil)
			for i, l := range tc.levels {
				x.Set(i, 0, float64(i)) // a numeric column before the block
				if l >= 0 {
					x.Set(i, 1+l, 1)
				}
			}
			in := scale.FitScaler(x)
			before := append([]float64(nil), in.Scale...)
			scaleLevels(in, x, []levelBlock{{1, tc.width}})
			if in.Scale[0] != before[0] {
				t.Errorf("the numeric column's scale moved from %v to %v", before[0], in.Scale[0])
			}
			for j := 1; j <= tc.width; j++ {
				want := tc.want
				if want == 0 {
					want = before[j]
				}
				if math.Abs(in.Scale[j]-want) > 1e-12 {
					t.Errorf("column %d: scale %v, want %v", j, in.Scale[j], want)
				}
			}
			if tc.want == 0 {
				return
			}
			z := in.Transform(x)
			var d []float64 // squared distances on the block of rows of different levels
			for i := range n {
				for k := i + 1; k < n; k++ {
					if tc.levels[i] != tc.levels[k] && tc.levels[i] >= 0 && tc.levels[k] >= 0 {
						d = append(d, blockDistance(z, i, k, 1, tc.width))
					}
				}
			}
			for _, v := range d {
				if math.Abs(v-d[0]) > 1e-9 {
					t.Errorf("squared distances %v between rows of different levels, want all alike", d)
					break
				}
			}
		})
	}
}

// blockDistance returns the squared distance of rows i and k of z over
// its columns start to start+width.
func blockDistance(z *mat.Dense, i, k, start, width int) float64 {
	var s float64
	for j := start; j < start+width; j++ {
		v := z.At(i, j) - z.At(k, j)
		s += v * v
	}
	return s
}

// TestFitScalesLevels fits a table of a numeric column, a boolean, a
// categorical column of two levels and one of three, and checks the
// input scaler of the model: the three levels share the scale
// sqrt(1 - sum p^2), the other columns keep their standard deviations.
func TestFitScalesLevels(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,flag,side,colour,y\n")
	colours := []string{"red", "red", "red", "green", "blue", "blue"}
	for i := range 30 {
		c := colours[i%len(colours)]
		fmt.Fprintf(&b, "%d,%v,%s,%s,%g\n", i, i%3 == 0, []string{"left", "right"}[i%2], c, float64(i%7)+float64(len(c)))
	}
	f, err := dataset.ReadFrame(strings.NewReader(b.String()), "levels.csv")
	if err != nil {
		t.Fatal(err)
	}
	md, _, err := Fit(f, []string{"y"}, Options{Family: Shallow, InputScale: LinearInputs})
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := md.Encoder.Transform(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	sd := scale.FitScaler(x).Scale
	names := md.Encoder.Names()
	level := math.Sqrt(1 - (1.0/9 + 1.0/36 + 0.25)) // blue, green, red: 1/3, 1/6, 1/2 of the rows
	levels := 0
	for j, name := range names {
		want := sd[j]
		if strings.HasPrefix(name, "colour") {
			want = level
			levels++
		}
		if got := md.Machine.Input.Scale[j]; math.Abs(got-want) > 1e-12 {
			t.Errorf("column %s: scale %v, want %v", name, got, want)
		}
	}
	if levels != 3 {
		t.Errorf("columns %q: %d of colour's levels, want 3", names, levels)
	}
}

// codeTable returns a table of the given rows: a numeric column g, row
// i's code(i) ("NA": missing), an input x, and a target y(g, x) plus a
// little noise.
func codeTable(t *testing.T, rows int, code func(i int) string, y func(g, x float64) float64) *dataset.Frame {
	t.Helper()
	var b strings.Builder
	b.WriteString("g,x,y\n")
	rnd := rand.New(rand.NewPCG(3, 4))
	for i := range rows {
		g := code(i)
		v, _ := strconv.ParseFloat(g, 64)
		x := rnd.Float64()
		fmt.Fprintf(&b, "%s,%.4f,%.4f\n", g, x, y(v, x)+0.1*rnd.NormFloat64())
	}
	f, err := dataset.ReadFrame(strings.NewReader(b.String()), "codes.csv")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestCodeColumns checks which numeric columns are tried by their codes:
// codeMinLevels values or more, with codeMinRows rows to a value on
// average (codeSmallMinRows in a table of fewer than codeMinTableRows
// rows, so that a table of 30 rows may try one), missing cells not
// counted; whole numbers, or fractions in a table of fewer than
// codeMinTableRows rows; at most codeMaxColumns of whole numbers and as
// many of fractions.
func TestCodeColumns(t *testing.T) {
	mod := func(k int) func(i int) string { return func(i int) string { return strconv.Itoa(100 + i%k) } }
	grid := func(k int) func(i int) string {
		return func(i int) string { return strconv.FormatFloat(2.51*float64(i%k), 'g', -1, 64) }
	}
	tests := []struct {
		name  string
		rows  int
		code  func(i int) string
		codes bool
	}{
		{"codes", 1000, mod(60), true},
		{"fractions in a small table", codeMinTableRows - 1, grid(60), true},
		{"fractions in a large table", codeMinTableRows, grid(60), false},
		{"too few values", 1000, mod(codeMinLevels - 1), false},
		{"too few rows", 1000, mod(1000/codeMinRows + 1), false},
		{"a small table", codeMinTableRows - 1, mod((codeMinTableRows - 1) / codeSmallMinRows), true},
		{"too few rows in a small table", 300, mod(300/codeSmallMinRows + 1), false},
		{"a table of 30 rows", codeMinLevels * codeSmallMinRows, mod(codeMinLevels), true},
		{"a table of 29 rows", codeMinLevels*codeSmallMinRows - 1, mod(codeMinLevels), false},
		{"missing cells left out", 1100, func(i int) string {
			if i%11 == 0 {
				return "NA" // filled with a mean that is no whole number
			}
			return mod(60)(i)
		}, true},
		{"missing cells not counted", 1100, func(i int) string {
			if i%4 == 0 {
				return "NA"
			}
			return mod(66)(i)
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := codeTable(t, tc.rows, tc.code, func(g, x float64) float64 { return x })
			if got := codesOf(t, f, "g", "x"); tc.codes != (len(got) == 1) || (tc.codes && got[0] != "g") {
				t.Errorf("codeColumns = %q, want g %v", got, tc.codes)
			}
		})
	}
	// More than codeMaxColumns such columns are quantities: none is tried.
	var b strings.Builder
	for j := range codeMaxColumns + 1 {
		fmt.Fprintf(&b, "g%d,", j)
	}
	b.WriteString("y\n")
	for i := range 1000 {
		for j := range codeMaxColumns + 1 {
			fmt.Fprintf(&b, "%d,", (i*(j+1))%50)
		}
		fmt.Fprintf(&b, "%d\n", i%7)
	}
	f, err := dataset.ReadFrame(strings.NewReader(b.String()), "many.csv")
	if err != nil {
		t.Fatal(err)
	}
	features := f.Columns()[:codeMaxColumns+1]
	if got := codesOf(t, f, features...); got != nil {
		t.Errorf("%d columns of codes: codeColumns = %q, want none", len(features), got)
	}
	if got := codesOf(t, f, features[:codeMaxColumns]...); len(got) != codeMaxColumns {
		t.Errorf("%d columns of codes: codeColumns = %q, want all", codeMaxColumns, got)
	}
	// Whole numbers and fractions are counted apart: many fractions are
	// quantities, and do not keep a table's whole numbers from being tried.
	wholes, fractions := codeMaxColumns, codeMaxColumns+1
	b.Reset()
	for j := range wholes + fractions {
		fmt.Fprintf(&b, "c%d,", j)
	}
	b.WriteString("y\n")
	for i := range codeMinTableRows - 1 {
		for j := range wholes + fractions {
			v := float64((i * (j + 1)) % 50)
			if j >= wholes {
				v += 0.5
			}
			fmt.Fprintf(&b, "%g,", v)
		}
		fmt.Fprintf(&b, "%d\n", i%7)
	}
	if f, err = dataset.ReadFrame(strings.NewReader(b.String()), "mixed.csv"); err != nil {
		t.Fatal(err)
	}
	features = f.Columns()[:wholes+fractions]
	if got := codesOf(t, f, features...); !slices.Equal(got, features[:wholes]) {
		t.Errorf("%d columns of whole numbers, %d of fractions: codeColumns = %q, want %q", wholes, fractions, got, features[:wholes])
	}
	if some := features[wholes-1 : wholes+codeMaxColumns]; !slices.Equal(codesOf(t, f, some...), some) {
		t.Errorf("1 column of whole numbers, %d of fractions: codeColumns = %q, want all", codeMaxColumns, codesOf(t, f, some...))
	}
}

// TestCodesLower checks the margin by which the codes must lower the
// held-out loss to be kept: a millionth of it in a table of
// codeMinTableRows rows or more, codeSmallMargin of it in a smaller one,
// and more in a table of fewer than codeMarginRows rows, as one over the
// square root of the rows.
func TestCodesLower(t *testing.T) {
	if got := codeMargin(codeMarginRows); got != codeSmallMargin {
		t.Errorf("margin on %d rows %v, want %v", codeMarginRows, got, codeSmallMargin)
	}
	small := codeMarginRows / 4
	if got, want := codeMargin(small), 2*codeSmallMargin; math.Abs(got-want) > 1e-12 {
		t.Errorf("margin on %d rows %v, want %v", small, got, want)
	}
	b, between := 2.0, 2-1.5*codeSmallMargin*2
	if !codesLower(between, b, codeMarginRows) || codesLower(between, b, small) {
		t.Errorf("loss %v against %v: kept on %d rows %v, on %d rows %v; want kept on the larger table only",
			between, b, codeMarginRows, codesLower(between, b, codeMarginRows), small, codesLower(between, b, small))
	}
	for _, b := range []float64{2, -2} {
		slightly, clearly := b-codeSmallMargin/2*math.Abs(b), b-2*codeSmallMargin*math.Abs(b)
		if !codesLower(slightly, b, codeMinTableRows) {
			t.Errorf("loss %v against %v on %d rows: codes not kept, want kept", slightly, b, codeMinTableRows)
		}
		if codesLower(slightly, b, codeMinTableRows-1) {
			t.Errorf("loss %v against %v on %d rows: codes kept, want not", slightly, b, codeMinTableRows-1)
		}
		if !codesLower(clearly, b, codeMinTableRows-1) {
			t.Errorf("loss %v against %v on %d rows: codes not kept, want kept", clearly, b, codeMinTableRows-1)
		}
	}
}

// codesOf returns codeColumns of the named features of f.
func codesOf(t *testing.T, f *dataset.Frame, features ...string) []string {
	t.Helper()
	enc, _, err := dataset.FitEncoder(f, features, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := enc.Transform(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return codeColumns(enc, x)
}

// TestFitChoosesCodes fits a column of codes whose groups each have
// their own offset, which the fit encodes by its codes too, and a column
// whose codes are a quantity the target follows smoothly, which it
// leaves as it is, in a table of codeMinTableRows rows, in a smaller one
// and in one of fewer than codeMarginRows rows.
func TestFitChoosesCodes(t *testing.T) {
	offsets := rand.New(rand.NewPCG(5, 6)).Perm(20)
	tests := []struct {
		name  string
		y     func(g, x float64) float64
		codes bool
	}{
		{"groups", func(g, x float64) float64 { return float64(offsets[int(g)]) / 5 }, true},
		{"quantity", func(g, x float64) float64 { return g / 5 }, false},
	}
	for _, tc := range tests {
		for _, rows := range []int{codeMinTableRows, 200, 60} {
			t.Run(fmt.Sprintf("%s/%d rows", tc.name, rows), func(t *testing.T) { fitCodes(t, rows, tc.y, tc.codes) })
		}
	}
	// Groups whose offsets are faint beside the quantity leave the
	// held-out residuals of a small table too little clustered to try.
	t.Run("faint groups/200 rows", func(t *testing.T) {
		fitCodes(t, 200, func(g, x float64) float64 { return g/5 + 0.0046*float64(offsets[int(g)]) }, false)
	})
}

// fitCodes fits a table of rows rows of codeTable's column g of 20 codes
// and target y, and checks that g is encoded by its codes as codes says,
// the codes scaled together, and that a code unseen in training encodes
// and predicts as no group.
func fitCodes(t *testing.T, rows int, y func(g, x float64) float64, codes bool) {
	f := codeTable(t, rows, func(i int) string { return strconv.Itoa(i % 20) }, y)
	// The Gaussian's: where the Laplacian's fit wins, its machine
	// extrapolates the unseen code's value, 99, beyond the groups'.
	md, rep, err := Fit(f, []string{"y"}, Options{Family: Shallow, ShallowKernel: GaussianKernel})
	if err != nil {
		t.Fatal(err)
	}
	// In a small table, a column whose residuals do not cluster by its
	// values is not tried (see clusteredColumns): no losses.
	if l := rep.CodeLosses; rows < codeMinTableRows && !codes {
		if l != nil {
			t.Errorf("code losses %v: want none, the column untried", l)
		}
	} else if len(l) != 2 || math.IsInf(l[1], 0) || codesLower(l[1], l[0], rows) != codes {
		t.Errorf("code losses %v: want the second lower enough %v", l, codes)
	}
	if got := md.Encoder.Rules()[0].Codes != nil; got != codes {
		t.Fatalf("g encoded by its codes %v, want %v", got, codes)
	}
	if !codes {
		return
	}
	// The codes scaled together as a categorical column's levels.
	if got := levelBlocks(md.Encoder); len(got) != 1 || got[0] != (levelBlock{1, 20}) {
		t.Errorf("blocks of levels %v, want the 20 codes after g's value", got)
	}
	test, err := dataset.ReadFrame(strings.NewReader("g,x\n99,0.5\n"), "unseen.csv")
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := md.Encoder.Transform(test, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := mat.Sum(x.Slice(0, 1, 1, 21)); s != 0 {
		t.Errorf("an unseen code encodes with %v codes set, want none", s)
	}
	if p := md.Machine.Predict(nil, x).At(0, 0); math.IsNaN(p) || p < 0 || p > 4 {
		t.Errorf("an unseen code predicts %v, want a value among the groups'", p)
	}
}

// TestClusteredColumns checks the screen of the columns of a small
// table: residuals that are an offset per value of column g plus noise
// cluster by g's values, not by those of column x, which takes a value
// per row in turn over the groups.
func TestClusteredColumns(t *testing.T) {
	f := codeTable(t, 200, func(i int) string { return strconv.Itoa(i % 20) }, func(g, x float64) float64 { return 0 })
	enc, _, err := dataset.FitEncoder(f, []string{"g", "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := enc.Transform(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(7, 8))
	offsets := rnd.Perm(20)
	n, _ := x.Dims()
	y, pred := mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
	for r := range n {
		x.Set(r, 1, float64(r%7))
		y.Set(r, 0, float64(offsets[r%20])/10+rnd.NormFloat64())
	}
	parts := []heldPart{{rows: problemData{x: x}, y: y, predict: pred}}
	noLog := func(string, ...any) {}
	if got := clusteredColumns(enc, parts, []string{"g", "x"}, "a test", noLog); !slices.Equal(got, []string{"g"}) {
		t.Errorf("clustered columns %q, want g", got)
	}
	if f, _, _ := groupedF(parts, 1); f > 3 {
		t.Errorf("F of residuals grouped by x %.3g, want about 1", f)
	}
}

// TestGroupedF checks the F statistic's degrees of freedom, pooled over
// the parts (folds) and over the outputs, all but one for a classifier,
// whose one-hot residuals sum to zero; its value on residuals that are
// a group's offset and noise against a hand count; and its ends.
func TestGroupedF(t *testing.T) {
	const rows, groups = 30, 5
	x := mat.NewDense(rows, 1, nil)
	labels := make([]int, rows)
	for r := range rows {
		x.Set(r, 0, float64(r%groups))
		labels[r] = r % 3
	}
	zero := func(k int) *mat.Dense { return mat.NewDense(rows, k, nil) }
	reg := heldPart{rows: problemData{x: x}, y: mat.NewDense(rows, 1, nil), predict: zero(1)}
	cls := heldPart{rows: problemData{x: x, labels: labels}, y: oneHot(labels, 3), predict: zero(3)}
	for _, tc := range []struct {
		name   string
		parts  []heldPart
		d1, d2 float64
	}{
		{"regression", []heldPart{reg}, groups - 1, rows - groups},
		{"two folds", []heldPart{reg, reg}, 2 * (groups - 1), 2 * (rows - groups)},
		{"classifier of 3 classes", []heldPart{cls}, 2 * (groups - 1), 2 * (rows - groups)},
	} {
		if _, d1, d2 := groupedF(tc.parts, 0); d1 != tc.d1 || d2 != tc.d2 {
			t.Errorf("%s: degrees of freedom %v and %v, want %v and %v", tc.name, d1, d2, tc.d1, tc.d2)
		}
	}
	// Residuals: group g's rows hold g + (-1, 1, -1, ...) in turn (six
	// rows a group, so the noise sums to zero in each). Between groups:
	// 6 * sum (g - 2)^2 = 60 on 4; within: 30 on 25.
	y := mat.NewDense(rows, 1, nil)
	for r := range rows {
		y.Set(r, 0, float64(r%groups)+float64(1-2*((r/groups)%2)))
	}
	reg.y = y
	if f, _, _ := groupedF([]heldPart{reg}, 0); math.Abs(f-(60.0/4)/(30.0/25)) > 1e-12 {
		t.Errorf("F %v, want %v", f, (60.0/4)/(30.0/25))
	}
	for r := range rows {
		y.Set(r, 0, float64(r%groups))
	}
	if f, d1, d2 := groupedF([]heldPart{reg}, 0); !math.IsInf(f, 1) {
		t.Errorf("F of residuals constant within groups %v, want +Inf", f)
	} else if p := upperTail(f, d1, d2); !(p < codeScreenLevel) {
		t.Errorf("upper tail of F = +Inf %v, want below %v: the column tried", p, codeScreenLevel)
	}
	reg.y = mat.NewDense(rows, 1, nil)
	if f, _, _ := groupedF([]heldPart{reg}, 0); f != 0 {
		t.Errorf("F of zero residuals %v, want 0", f)
	}
}

// TestFitScreensCodes checks that a small table's column of codes is
// screened by the ridge's residuals and then the shallow machine's and
// tried; that a column the ridge leaves unclustered (a quantity fitted by
// a line) costs no shallow pass: the fit's log names no other screen; and
// that one whose curve the ridge misses and the kernel fits is not tried.
func TestFitScreensCodes(t *testing.T) {
	offsets := rand.New(rand.NewPCG(5, 6)).Perm(20)
	tests := []struct {
		name    string
		y       func(g, x float64) float64
		screens []string
		tried   bool
	}{
		{"groups", func(g, x float64) float64 { return float64(offsets[int(g)]) / 5 }, []string{"a ridge regression", "the shallow machine"}, true},
		{"quantity", func(g, x float64) float64 { return g / 5 }, []string{"a ridge regression"}, false},
		{"curve", func(g, x float64) float64 { return (g - 9.5) * (g - 9.5) / 20 }, []string{"a ridge regression", "the shallow machine"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var screens []string
			log := func(line string) {
				if rest, ok := strings.CutPrefix(line, "the held-out residuals of "); ok {
					screens = append(screens, rest[:strings.Index(rest, " grouped")])
				}
			}
			f := codeTable(t, 200, func(i int) string { return strconv.Itoa(i % 20) }, tc.y)
			_, rep, err := Fit(f, []string{"y"}, Options{Family: Shallow, Log: log})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(screens, tc.screens) {
				t.Errorf("screens %q, want %q", screens, tc.screens)
			}
			if tried := rep.CodeLosses != nil; tried != tc.tried {
				t.Errorf("column tried by its codes %v, want %v", tried, tc.tried)
			}
		})
	}
}

// TestFitTakesCodesPass checks that a fit takes over the shallow
// machine's pass that the choice of codes ran on its inputs (see
// Settings.pass), for a regression and a classifier: the pass on the
// inputs without codes, and the trial's on the inputs with them, whose
// scores on the best bandwidths the fit completes first. Each gives the same
// machine as a fit that runs the pass again, its scores kept rather than
// scored anew; a fit on other inputs, or one that searches nothing,
// leaves the pass; and a trial whose inputs are so wide that a fit on
// them would choose its settings on fewer rows keeps no scores.
func TestFitTakesCodesPass(t *testing.T) {
	curve := func(g, x float64) float64 { return (g - 9.5) * (g - 9.5) / 20 }
	for _, tc := range []struct {
		name     string
		classify bool
		fixed    bool // the cost and bandwidth given: nothing searched
		inputs   InputScale
	}{
		{"regression", false, false, AutoInputs},
		{"classifier", true, false, AutoInputs},
		{"fixed", false, true, AutoInputs},
		{"linear inputs", false, false, LinearInputs}, // no pass before the selection's
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := codesData(t, 200, 20, curve, tc.classify)
			s := Settings{InputScale: tc.inputs}
			if tc.fixed {
				s.Costs, s.Bandwidths = []float64{0.1}, []float64{1}
			}
			base, trial := d.passes(t, s)
			for _, c := range []struct {
				name  string
				x     *mat.Dense
				pass  *encodingPass
				taken bool
			}{
				{"without codes", d.x, base, !tc.fixed},
				{"with codes", d.xc, trial, !tc.fixed},
				{"with codes, the pass without", d.xc, base, false},
			} {
				scores := c.pass.p.pass
				want := d.fit(t, c.x, s, nil)
				if got := d.fit(t, c.x, s, c.pass); got != want {
					t.Errorf("%s: a machine other than the fit's that runs the pass again", c.name)
				}
				if c.pass.p.pass != scores {
					t.Errorf("%s: the pass's scores scored anew", c.name)
				}
				// The trial scores the best bandwidths alone.
				if full, want := len(scores.listed()) == len(shallowBandwidths()), c.pass == base || c.taken; full != want {
					t.Errorf("%s: the pass's scores on every bandwidth %v, want %v", c.name, full, want)
				}
			}
		})
	}
	t.Run("wide", func(t *testing.T) {
		if testing.Short() {
			t.Skip("fits of 900 rows of 258 inputs")
		}
		// MaxLevels codes and 200 anchors: a fit of 900 rows chooses its
		// shallow settings on 400 rows with the codes, and on 450 without
		// them (see shallowRows).
		d := codesData(t, 900, dataset.MaxLevels, curve, false)
		s := Settings{Family: Shallow, Anchors: 200}
		_, trial := d.passes(t, s)
		if trial.p.pass != nil {
			n, _ := trial.p.pass.space.sub[0].x.Dims()
			t.Fatalf("a trial on %d inputs kept its scores on %d rows for a fit on %d", d.xc.RawMatrix().Cols, n, len(trial.sval.rows))
		}
		if got, want := d.fit(t, d.xc, s, trial), d.fit(t, d.xc, s, nil); got != want {
			t.Error("a machine other than the fit's that runs the pass again")
		}
	})
	// Fit hands on the pass of the encoding it keeps.
	offsets := rand.New(rand.NewPCG(5, 6)).Perm(20)
	for _, tc := range []struct {
		name string
		y    func(g, x float64) float64
	}{
		{"groups", func(g, x float64) float64 { return float64(offsets[int(g)]) / 5 }}, // codes kept
		{"curve", curve}, // codes not tried
	} {
		t.Run(tc.name, func(t *testing.T) {
			var progress strings.Builder
			screened := false // by the shallow machine's pass
			log := func(line string) { screened = screened || strings.Contains(line, "residuals of the shallow machine") }
			f := codeTable(t, 200, func(i int) string { return strconv.Itoa(i % 20) }, tc.y)
			if _, _, err := Fit(f, []string{"y"}, Options{Family: Shallow, Log: log, Progress: &progress}); err != nil {
				t.Fatal(err)
			}
			if !screened {
				t.Fatal("the shallow machine's pass not run")
			}
			if !strings.Contains(progress.String(), "taken from the choice of codes") {
				t.Error("the pass not taken over")
			}
		})
	}
}

// codeData is codeTable's table encoded without its column g's codes
// and with them, its targets, and labels that say whether a target
// exceeds 1 for a classifier.
type codeData struct {
	enc, codes *dataset.Encoder
	x, xc      *mat.Dense
	y          mat.Matrix // nil for a classifier
	labels     []int
}

// codesData returns codeData of a table of rows rows of k codes and
// targets y.
func codesData(t *testing.T, rows, k int, y func(g, x float64) float64, classify bool) *codeData {
	t.Helper()
	f := codeTable(t, rows, func(i int) string { return strconv.Itoa(i % k) }, y)
	d := &codeData{}
	var err error
	if d.enc, _, err = dataset.FitEncoder(f, []string{"g", "x"}, nil); err != nil {
		t.Fatal(err)
	}
	if d.codes, err = d.enc.WithCodes(f, nil, []string{"g"}); err != nil {
		t.Fatal(err)
	}
	if d.x, _, err = d.enc.Transform(f, nil); err != nil {
		t.Fatal(err)
	}
	if d.xc, _, err = d.codes.Transform(f, nil); err != nil {
		t.Fatal(err)
	}
	target, err := f.Target("y", false)
	if err != nil {
		t.Fatal(err)
	}
	if !classify {
		d.y = mat.NewDense(rows, 1, target.Values)
		return d
	}
	d.labels = make([]int, rows)
	for i, v := range target.Values {
		if v > 1 {
			d.labels[i] = 1
		}
	}
	return d
}

// passes returns the shallow machine's pass on the inputs without codes
// and the trial's on those with them, as chooseCodes runs them.
func (d *codeData) passes(t *testing.T, s Settings) (base, trial *encodingPass) {
	t.Helper()
	s.levels = levelBlocks(d.enc)
	classes := 0
	if d.y == nil {
		classes = 2
	}
	base, err := newEncodingPass(d.x, d.y, d.labels, classes, s)
	if err != nil {
		t.Fatal(err)
	}
	s.levels = levelBlocks(d.codes)
	if trial, err = base.other(d.xc, s); err != nil {
		t.Fatal(err)
	}
	return base, trial
}

// fit returns the machine, as JSON, of a fit on the inputs x (d.x or
// d.xc) with the pass handed on, if not nil.
func (d *codeData) fit(t *testing.T, x *mat.Dense, s Settings, pass *encodingPass) string {
	t.Helper()
	s.levels, s.pass = levelBlocks(d.enc), pass
	if x == d.xc {
		s.levels = levelBlocks(d.codes)
	}
	var (
		m   *Machine
		err error
	)
	if d.y == nil {
		m, _, err = FitClassifier(x, d.labels, 2, s)
	} else {
		m, _, err = FitRegression(x, d.y, s)
	}
	if err != nil {
		t.Fatal(err)
	}
	return marshal(t, m)
}

// TestRidgeHeldOut checks that the ridge's leave-one-out prediction of a
// row does not depend on the row's own target, as a fit's would.
func TestRidgeHeldOut(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 12))
	n := 30
	x, y := mat.NewDense(n, 2, nil), make([]float64, n)
	for r := range n {
		x.Set(r, 0, rnd.NormFloat64())
		x.Set(r, 1, float64(r%5))
		y[r] = x.At(r, 0) + rnd.NormFloat64()
	}
	rows := make([]int, n)
	for r := range rows {
		rows[r] = r
	}
	run := &fitRun{task: Regression, outputs: 1, x: x, t: &dataset.Target{Rows: rows, Values: y}}
	parts := run.ridgeHeldOut()
	if len(parts) != 1 {
		t.Fatalf("%d parts, want 1", len(parts))
	}
	// With the row's target replaced by its held-out prediction, the
	// prediction stays: the fit on all the rows would move with it.
	held := parts[0].predict.At(0, 0)
	moved := slices.Clone(y)
	moved[0] = held
	again := (&fitRun{task: Regression, outputs: 1, x: x, t: &dataset.Target{Rows: rows, Values: moved}}).ridgeHeldOut()
	if got := again[0].predict.At(0, 0); math.Abs(got-held) > 1e-9 {
		t.Errorf("held-out prediction %v with the row's target %v, %v with %v: want the same", held, y[0], got, held)
	}
}

// TestFitChoosesCodesTogether fits two columns of groups with their own
// offsets and a column of codes that are a quantity: the fit encodes
// the two by their codes, together, and leaves the third as it is.
func TestFitChoosesCodesTogether(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 10))
	a, b := rnd.Perm(12), rnd.Perm(15)
	var sb strings.Builder
	sb.WriteString("g,h,q,y\n")
	for i := range codeMinTableRows {
		g, h, q := i%12, (i/12)%15, (i*7)%11
		fmt.Fprintf(&sb, "%d,%d,%d,%.4f\n", g, h, q, float64(a[g])/4+float64(b[h])/6+float64(q)/5+0.1*rnd.NormFloat64())
	}
	f, err := dataset.ReadFrame(strings.NewReader(sb.String()), "groups.csv")
	if err != nil {
		t.Fatal(err)
	}
	md, _, err := Fit(f, []string{"y"}, Options{Family: Shallow})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, true, false} {
		r := md.Encoder.Rules()[i]
		if got := r.Codes != nil; got != want {
			t.Errorf("column %s by its codes %v, want %v", r.Name, got, want)
		}
	}
}

// cellTable returns a table of rows rows whose target is an offset per
// cell of the categorical columns plus noise (or whether that exceeds
// 0.4, for classes), with a numeric column x of noise too when numeric
// is set.
func cellTable(t *testing.T, rows int, numeric, classes bool) *dataset.Frame {
	t.Helper()
	var b strings.Builder
	b.WriteString("group,side,")
	if numeric {
		b.WriteString("x,")
	}
	b.WriteString("y\n")
	rnd := rand.New(rand.NewPCG(5, 6))
	groups := []string{"ctrl", "trt1", "trt2"}
	for i := range rows {
		g, side := i%3, []string{"left", "right"}[(i/3)%2]
		fmt.Fprintf(&b, "%s,%s,", groups[g], side)
		if numeric {
			fmt.Fprintf(&b, "%.4f,", rnd.Float64())
		}
		y := 0.4*float64(g) + rnd.NormFloat64()
		if classes {
			fmt.Fprintf(&b, "%v\n", y > 0.4)
		} else {
			fmt.Fprintf(&b, "%.4f\n", y)
		}
	}
	f, err := dataset.ReadFrame(strings.NewReader(b.String()), "cells.csv")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestAllCategorical checks that a table's inputs count as all
// categorical only when no column is of another kind.
func TestAllCategorical(t *testing.T) {
	for _, numeric := range []bool{false, true} {
		f := cellTable(t, 30, numeric, false)
		features := []string{"group", "side"}
		if numeric {
			features = append(features, "x")
		}
		enc, _, err := dataset.FitEncoder(f, features, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := allCategorical(enc); got == numeric {
			t.Errorf("numeric column %v: all categorical %v", numeric, got)
		}
	}
}

// TestBelowBest checks the candidate one step of the grid below the
// best's cost: at the best's bandwidth and scale only, and the best
// itself when none was scored there.
func TestBelowBest(t *testing.T) {
	c := func(cost, bw float64, logTarget bool) Candidate {
		return Candidate{Cost: cost, Bandwidth: bw, LogTarget: logTarget, Shallow: true}
	}
	sel := &Selection{Candidates: []Candidate{
		c(0.03, 1, false), c(0.1, 1, true), c(0.1, 2, false), c(0.3, 1, false), c(0.1, 1, false), c(1e-4, 2, false),
	}}
	for _, tc := range []struct{ best, want int }{
		{3, 4}, // 0.3 at bandwidth 1: 0.1 there, not on the log scale nor at bandwidth 2
		{4, 0}, // 0.1: 0.03
		{0, 0}, // 0.03: 0.01 was not scored
		{5, 5}, // the grid's lowest cost
		{1, 1}, // on the log scale, 0.03 was not scored
	} {
		sel.Best = tc.best
		if got := belowBest(sel); got != tc.want {
			t.Errorf("best %+v: candidate %d, want %d", sel.Candidates[tc.best], got, tc.want)
		}
	}
}

// TestFitLowerCost checks that a small regression whose inputs are all
// categorical takes the cost one step of the grid below the folds' best
// at its bandwidth, and that a numeric input or a classification keeps
// the folds' best.
func TestFitLowerCost(t *testing.T) {
	grid := shallowCosts()
	for _, tc := range []struct {
		name    string
		rows    int
		numeric bool
		task    string
		lower   bool
	}{
		{"categorical", 30, false, Regression, true},
		{"numeric", 30, true, Regression, false},
		{"classification", 30, false, Classification, false},
		{"more than evidenceRows", evidenceRows + 30, false, Regression, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := cellTable(t, tc.rows, tc.numeric, tc.task == Classification)
			_, rep, err := Fit(f, []string{"y"}, Options{Task: tc.task, InputScale: LinearInputs, TargetScale: LinearScale})
			if err != nil {
				t.Fatal(err)
			}
			sel := rep.Result.Selection
			chosen := sel.Candidates[sel.Best]
			lowest := -1 // the lowest loss on the folds at the chosen bandwidth
			for i, c := range sel.Candidates {
				if c.Bandwidth == chosen.Bandwidth && (lowest < 0 || c.Loss < sel.Candidates[lowest].Loss) {
					lowest = i
				}
			}
			want := sel.Candidates[lowest].Cost
			k := slices.Index(grid, want)
			if k < 1 || !slices.ContainsFunc(sel.Candidates, func(c Candidate) bool { return c.Cost == grid[k-1] && c.Bandwidth == chosen.Bandwidth }) {
				t.Fatalf("the folds' best cost %g has no lower neighbour scored: the test needs other rows", want)
			}
			if tc.lower {
				want = grid[k-1]
			}
			if chosen.Cost != want {
				t.Errorf("chosen cost %g at bandwidth %g, want %g (lower %v)", chosen.Cost, chosen.Bandwidth, want, tc.lower)
			}
		})
	}
}

// TestFitRacesLevelsAsOneInput checks that the default fit counts a
// column's block of levels as one input where it decides the deep
// machine's race (raceInputs): 200 rows of a column of 50 groups and one
// of noise are 51 inputs as encoded by the groups' levels, or 52 by a
// code's value and its codes, within deepRowsPerInput rows of each, but
// 2 or 3 as counted, which leave the deep machine out, as the log says.
func TestFitRacesLevelsAsOneInput(t *testing.T) {
	offsets := rand.New(rand.NewPCG(5, 6)).Perm(50)
	for _, tc := range []struct {
		name   string
		code   func(i int) string
		inputs int
	}{
		{"categorical", func(i int) string { return fmt.Sprintf("g%d", i%50) }, 2},
		{"codes", func(i int) string { return strconv.Itoa(i % 50) }, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("g,x,y\n")
			rnd := rand.New(rand.NewPCG(3, 4))
			for i := range 200 {
				fmt.Fprintf(&b, "%s,%.4f,%.4f\n", tc.code(i), rnd.Float64(), float64(offsets[i%50])/10+0.1*rnd.NormFloat64())
			}
			f, err := dataset.ReadFrame(strings.NewReader(b.String()), "groups.csv")
			if err != nil {
				t.Fatal(err)
			}
			var progress strings.Builder
			md, rep, err := Fit(f, []string{"y"}, Options{Progress: &progress})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(levelBlocks(md.Encoder)); got != 1 {
				t.Fatalf("%d blocks of levels, want g's", got)
			}
			if deep := slices.ContainsFunc(rep.Result.Selection.Candidates, func(c Candidate) bool { return !c.Shallow }); deep {
				t.Errorf("the deep machine raced on 200 rows of which g's 50 levels or codes are 50 inputs as encoded")
			}
			want := fmt.Sprintf("the deep machine left out: 200 training rows for %d inputs as encoded (a column's levels or codes counted as one)", tc.inputs)
			if !strings.Contains(progress.String(), want) {
				t.Errorf("the log does not say %q:\n%s", want, progress.String())
			}
		})
	}
}

// TestShapeLevels checks that the shape of a fit, which its estimate
// reads, holds the blocks of the inputs' levels: racesDeep counts each
// as one input there too.
func TestShapeLevels(t *testing.T) {
	var b strings.Builder
	b.WriteString("g,x,y\n")
	for i := range 60 {
		fmt.Fprintf(&b, "g%d,%d,%d.5\n", i%5, i, i%7)
	}
	f, err := dataset.ReadFrame(strings.NewReader(b.String()), "shape.csv")
	if err != nil {
		t.Fatal(err)
	}
	run := &fitRun{names: []string{"y"}, f: f, rep: new(Report)}
	if err := run.read(); err != nil {
		t.Fatal(err)
	}
	if got, want := run.shape().levels, []levelBlock{{0, 5}}; !slices.Equal(got, want) {
		t.Errorf("the shape's blocks of levels %v, want %v", got, want)
	}
}
