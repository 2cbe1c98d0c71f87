package onnx

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/tabular"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Tolerances of the agreement with the library: relative differences
// in float64.
const (
	tolDouble = 1e-9
)

// fitted is a kernel model fitted on a table, with the table.
type fitted struct {
	km    kernelModel
	frame *dataset.Frame
}

// fitTable fits a kernel machine to the table f as "machines fit" does,
// with the cost and bandwidth fixed and few iterations: the agreement, not
// the fit, is under test.
func fitTable(t *testing.T, f *dataset.Frame, target string, ignore []string, classify bool, comb kernel.Combine) fitted {
	return fitTableWith(t, f, target, ignore, nil, classify, tabular.Settings{Kernel: comb, Costs: []float64{0.01}, Bandwidths: []float64{1}, MaxIter: 30, Seed: 1})
}

// fitTableWith is fitTable with the given settings, and the numeric
// columns named in codes encoded by their codes too.
func fitTableWith(t *testing.T, f *dataset.Frame, target string, ignore, codes []string, classify bool, s tabular.Settings) fitted {
	t.Helper()
	tg, err := f.Target(target, classify)
	if err != nil {
		t.Fatal(err)
	}
	var features []string
	for _, c := range f.Columns() {
		if c != target && !slices.Contains(ignore, c) {
			features = append(features, c)
		}
	}
	enc, _, err := dataset.FitEncoder(f, features, tg.Rows)
	if err == nil && codes != nil {
		enc, err = enc.WithCodes(f, tg.Rows, codes)
	}
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := enc.Transform(f, tg.Rows)
	if err != nil {
		t.Fatal(err)
	}
	km := kernelModel{Encoder: enc, Features: features, Target: target}
	if classify {
		km.Machine, _, err = tabular.FitClassifier(x, tg.Labels, len(tg.Classes), s)
		km.Classes = tg.Classes
	} else {
		km.Machine, _, err = tabular.FitRegression(x, mat.NewDense(len(tg.Values), 1, tg.Values), s)
	}
	if err != nil {
		t.Fatal(err)
	}
	return fitted{km: km, frame: f}
}

// rawInputs returns the model's inputs for every row of f: the cells of
// each feature column as the exported graph reads them.
func rawInputs(t *testing.T, km kernelModel, f *dataset.Frame) map[string]tensorJSON {
	t.Helper()
	kinds := make(map[string]string)
	if km.Encoder != nil {
		for _, r := range km.Encoder.Rules() {
			kinds[r.Name] = r.Kind
		}
	}
	in := make(map[string]tensorJSON)
	for _, name := range km.Features {
		col, err := f.Column(name)
		if err != nil {
			t.Fatal(err)
		}
		cells := make([]string, f.Len())
		for i := range cells {
			cells[i] = f.Cell(i, col)
		}
		if kinds[name] != "numeric" && kinds[name] != "date" {
			in[name] = stringColumn(cells)
			continue
		}
		v := make([]float64, len(cells))
		for i, c := range cells {
			if v[i], err = rawNumber(kinds[name], c); err != nil {
				t.Fatalf("column %q, row %d: %v", name, i, err)
			}
		}
		in[name] = doubleColumn(v)
	}
	return in
}

// rawNumber returns the double that an exported graph takes for a cell of
// a numeric or date column.
func rawNumber(kind, cell string) (float64, error) {
	switch {
	case slices.Contains(dataset.MissingTexts(), strings.ToLower(cell)):
		return math.NaN(), nil
	case kind == "date":
		day, ok := dataset.ParseDate(cell)
		if !ok {
			return 0, fmt.Errorf("%q is not a date", cell)
		}
		return dataset.Days(day), nil
	}
	return strconv.ParseFloat(cell, 64)
}

// kernelCase exports fm as a case of runAgreement on every row of the
// table f (nil: fm's own table): its diff is the largest relative
// difference of the runtime's outputs from the library's predictions,
// and it fails t if a label differs.
func kernelCase(t *testing.T, name string, fm fitted, f *dataset.Frame, tol float64) agreementCase {
	t.Helper()
	model, err := kernelGraph(fm.km)
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		f = fm.frame
	}
	x, _, err := fm.km.Encoder.Transform(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := fm.km.Machine.Predict(nil, x)
	diff := func(t *testing.T, out map[string]tensorJSON) float64 {
		n, k := want.Dims()
		var worst float64
		compare := func(name string, got []float64, want func(i, j int) float64) {
			if len(got) != n*k {
				t.Fatalf("output %q has %d values, want %d", name, len(got), n*k)
			}
			for i := range n {
				for j := range k {
					worst = math.Max(worst, relDiff(got[i*k+j], want(i, j)))
				}
			}
		}
		if fm.km.Classes == nil {
			compare(OutputPrediction, out[OutputPrediction].doubles(), want.At)
			if fm.km.HalfWidth != nil {
				_, lower, upper := fm.km.Machine.PredictInterval(nil, nil, nil, x, fm.km.HalfWidth)
				compare(OutputLower, out[OutputLower].doubles(), lower.At)
				compare(OutputUpper, out[OutputUpper].doubles(), upper.At)
			}
			return worst
		}
		compare(OutputScores, out[OutputScores].doubles(), want.At)
		p := mat.NewDense(n, k, nil)
		for i := range n {
			softmax(p.RawRowView(i), want.RawRowView(i))
		}
		compare(OutputProbabilities, out[OutputProbabilities].doubles(), p.At)
		labels := out[OutputLabel].Data
		for i := range n {
			if w := fm.km.Classes[floats.MaxIdx(want.RawRowView(i))]; labels[i] != w {
				t.Errorf("row %d: label %v, want %q", i, labels[i], w)
			}
		}
		return worst
	}
	return agreementCase{name: name, path: writeModel(t, model), inputs: rawInputs(t, fm.km, f), tol: tol, diff: diff}
}

// softmax writes the softmax of x to dst, as "machines predict" does.
func softmax(dst, x []float64) {
	hi := floats.Max(x)
	for i, v := range x {
		dst[i] = math.Exp(v - hi)
	}
	floats.Scale(1/floats.Sum(dst), dst)
}

// randomTable returns a table of n rows with every kind of column and
// missing cells in each, written in assorted cases, and a numeric target
// y and a class target c that depend on the columns. With unseen, some
// categories are ones that a table without it never holds.
func randomTable(t *testing.T, n int, unseen bool, rnd *rand.Rand) *dataset.Frame {
	t.Helper()
	missing := []string{"", "NA", "na", "N/A", "?", "NaN", "null", "NULL"}
	colours := []string{"red", "green", "blue", "Blue"}
	sizes := []string{"S", "M", "L"}
	if unseen {
		colours = append(colours, "purple")
		sizes = append(sizes, "XL")
	}
	var b strings.Builder
	b.WriteString("x1,x2,flag,colour,size,y,c\n")
	for i := range n {
		x1, x2 := rnd.NormFloat64(), 10*rnd.Float64()
		flag := rnd.IntN(2) == 1
		colour := rnd.IntN(len(colours))
		flagText := []string{"false", "no", "FALSE"}[rnd.IntN(3)]
		if flag {
			flagText = []string{"TRUE", "Yes", "true"}[rnd.IntN(3)]
		}
		cells := []string{strconv.FormatFloat(x1, 'g', -1, 64), strconv.FormatFloat(x2, 'g', -1, 64),
			flagText, colours[colour], sizes[rnd.IntN(len(sizes))]}
		for j := range cells {
			if rnd.Float64() < 0.1 {
				cells[j] = missing[rnd.IntN(len(missing))]
			}
		}
		y := math.Sin(x1) + x2/10 + 0.5*float64(colour)
		if flag {
			y++
		}
		c := "lo"
		switch {
		case i%7 == 0:
			c = "mid"
		case y > 2:
			c = "hi"
		}
		fmt.Fprintf(&b, "%s,%s,%s\n", strings.Join(cells, ","), strconv.FormatFloat(y, 'g', -1, 64), c)
	}
	f, err := dataset.ReadFrame(strings.NewReader(b.String()), "random.csv")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestKernelRandom checks exported models of every task and kernel on
// random tables with every kind of column, missing cells, and levels
// not seen in training, against the library's predictions.
func TestKernelRandom(t *testing.T) {
	needRuntime(t)
	var cases []agreementCase
	for _, tc := range []struct {
		target   string
		classify bool
		comb     kernel.Combine
	}{
		{"y", false, kernel.Additive},
		{"y", false, kernel.Multiplicative},
		{"c", true, kernel.Additive},
		{"c", true, kernel.Multiplicative},
	} {
		rnd := rand.New(rand.NewPCG(1, 2))
		other := []string{"y", "c"}
		fm := fitTable(t, randomTable(t, 150, false, rnd), tc.target, other, tc.classify, tc.comb)
		if !tc.classify {
			fm.km.HalfWidth = []float64{0.3} // on the standardised scale
		}
		// 150 rows beyond the anchors exercise the batch dimension.
		cases = append(cases, kernelCase(t, fmt.Sprintf("%s-%v", tc.target, tc.comb), fm, randomTable(t, 300, true, rnd), tolDouble))
	}
	runAgreement(t, cases)
}

// TestKernelShallow checks exported shallow machines, as fit chooses
// them by default, with calibrated outputs: a regression with its
// intervals, and a classifier, each also on inputs mapped through their
// quantiles, which the new rows' values beyond the training range test
// at their ends; and sums of machines, as fit averages them: of shallow
// machines, and of a shallow and a deep one; and the average of the
// machines of the inputs as they are and of their quantiles, also with a
// linear machine.
func TestKernelShallow(t *testing.T) {
	needRuntime(t)
	var cases []agreementCase
	for _, tc := range []struct {
		target   string
		classify bool
		inputs   tabular.InputScale
		sum      string // "", "shallow" or "deep": the machine added
	}{
		{"y", false, tabular.LinearInputs, ""},
		{"c", true, tabular.LinearInputs, ""},
		{"y", false, tabular.QuantileInputs, ""},
		{"c", true, tabular.QuantileInputs, ""},
		{"y", false, tabular.LinearInputs, "shallow"},
		{"c", true, tabular.LinearInputs, "shallow"},
		{"y", false, tabular.LinearInputs, "deep"},
		{"c", true, tabular.LinearInputs, "deep"},
		{"y", false, tabular.LinearInputs, "other"},
		{"c", true, tabular.QuantileInputs, "other"},
		{"y", false, tabular.QuantileInputs, "linear"},
	} {
		name := tc.target + "-" + tc.inputs.String()
		if tc.sum != "" {
			name += "-sum-" + tc.sum
		}
		rnd := rand.New(rand.NewPCG(5, 6))
		other := []string{"y", "c"}
		table := randomTable(t, 120, false, rnd)
		fm := fitTableWith(t, table, tc.target, other, nil, tc.classify, tabular.Settings{Family: tabular.Shallow, InputScale: tc.inputs})
		if len(fm.km.Machine.Dims) != 2 {
			t.Fatalf("%s: dims %v: not a shallow machine", name, fm.km.Machine.Dims)
		}
		if got := fm.km.Machine.Quantiles != nil; got != (tc.inputs == tabular.QuantileInputs) {
			t.Fatalf("%s: quantile map %v, want it with inputs %v", name, got, tc.inputs)
		}
		switch tc.sum {
		case "shallow":
			// The machine again at another bandwidth, its outputs
			// halved, added to it.
			more := *fm.km.Machine.Machine
			more.Bandwidth *= 2.5
			more.A, more.C = mat.DenseCopyOf(more.A), mat.DenseCopyOf(more.C)
			more.A.Scale(0.5, more.A)
			more.C.Scale(-0.5, more.C)
			fm.km.Machine.Sum = []*kernel.Machine{&more}
		case "deep":
			// A deep machine of the same table's columns added to it.
			deep := fitTable(t, table, tc.target, other, tc.classify, kernel.Additive).km.Machine.Machine
			if len(deep.Dims) < 3 {
				t.Fatalf("%s: dims %v: not a deep machine", name, deep.Dims)
			}
			fm.km.Machine.Sum = []*kernel.Machine{deep}
		case "other":
			// The machine of the inputs' other encoding weighing a
			// quarter, as fit averages them.
			inputs := tabular.QuantileInputs
			if tc.inputs == tabular.QuantileInputs {
				inputs = tabular.LinearInputs
			}
			o := fitTableWith(t, table, tc.target, other, nil, tc.classify, tabular.Settings{Family: tabular.Shallow, InputScale: inputs})
			fm.km.Machine.Other, fm.km.Machine.OtherWeight = o.km.Machine, 0.25
			// The regression's own on the log scale, as if fitted
			// there: its intervals about the average are then
			// asymmetric.
			fm.km.Machine.LogTarget = !tc.classify
		case "linear":
			// The average of the two encodings' machines and a linear
			// machine of the inputs as they are (no kernel part, on
			// the targets' own scale), as fit hedges.
			o := fitTableWith(t, table, tc.target, other, nil, tc.classify, tabular.Settings{Family: tabular.Shallow, InputScale: tabular.LinearInputs})
			lin := fitTableWith(t, table, tc.target, other, nil, tc.classify, tabular.Settings{Family: tabular.Shallow, InputScale: tabular.LinearInputs})
			lin.km.Machine.C.Zero()
			fm.km.Machine.Other, fm.km.Machine.OtherWeight = o.km.Machine, 0.25
			fm.km.Machine.Linear, fm.km.Machine.LinearWeight = lin.km.Machine, 0.25
			// And the machine of the training mean, its coefficients
			// 0, as the fits of 2026-11-30 wrote it.
			mean := fitTableWith(t, table, tc.target, other, nil, tc.classify, tabular.Settings{Family: tabular.Shallow, InputScale: tabular.LinearInputs})
			mean.km.Machine.A.Zero()
			mean.km.Machine.C.Zero()
			fm.km.Machine.Mean, fm.km.Machine.MeanWeight = mean.km.Machine, 0.25
			fm.km.Machine.LogTarget = true
		}
		if !tc.classify {
			fm.km.HalfWidth = []float64{0.4}
			// Bounds narrower than the targets (about -1 to 4.5)
			// bind on many rows, and on the intervals' ends: the
			// export must apply them as Predict does.
			fm.km.Machine.Range = [][2]float64{{0.5, 2.5}}
		}
		cases = append(cases, kernelCase(t, name, fm, randomTable(t, 200, true, rnd), tolDouble))
	}
	runAgreement(t, cases)
}

// TestKernelTables checks exported models fitted to real tables: numbers
// with missing cells (airquality), categories (esoph, warpbreaks, infert)
// and classes (iris, infert), against the library's predictions; esoph's
// counts also as a machine of log targets, which predicts exp(output) - 1.
func TestKernelTables(t *testing.T) {
	needRuntime(t)
	var cases []agreementCase
	for _, tc := range []struct {
		table, target       string
		classify, logTarget bool
	}{
		{"iris", "class", true, false},
		{"airquality", "Ozone", false, false},
		{"esoph", "ncases", false, false},
		{"esoph", "ncases", false, true},
		{"infert", "case", true, false},
		{"warpbreaks", "breaks", false, false},
	} {
		for _, comb := range []kernel.Combine{kernel.Additive, kernel.Multiplicative} {
			name := fmt.Sprintf("%s-%v", tc.table, comb)
			if tc.logTarget {
				name += "-log"
			}
			f, err := dataset.LoadFrame(filepath.Join("testdata", tc.table+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			fm := fitTable(t, f, tc.target, nil, tc.classify, comb)
			fm.km.Machine.LogTarget = tc.logTarget
			if !tc.classify {
				fm.km.HalfWidth = []float64{0.2}
			}
			cases = append(cases, kernelCase(t, name, fm, nil, tolDouble))
		}
	}
	runAgreement(t, cases)
}

// TestKernelOneInput checks the graph of a table of one input, whose
// standardisation divides by a single scale: ONNX Runtime folds such a
// division into the MatMul after it as a float32 factor (MatMulScaleFusion),
// which moved predictions by 1e-7 relative, where they agree to the last
// few bits when that product is a Mul.
func TestKernelOneInput(t *testing.T) {
	var b strings.Builder
	b.WriteString("body,brain\n")
	rnd := rand.New(rand.NewPCG(5, 6))
	for range 50 {
		body := math.Exp(rnd.Float64()*14 - 5) // 0.007 to 8,000
		fmt.Fprintf(&b, "%.4g,%.4g\n", body, math.Pow(body, 0.75)*(1+rnd.Float64()/5))
	}
	f, err := dataset.ReadFrame(strings.NewReader(b.String()), "mammals.csv")
	if err != nil {
		t.Fatal(err)
	}
	fm := fitTable(t, f, "brain", nil, false, kernel.Additive)
	runAgreement(t, []agreementCase{kernelCase(t, "one input", fm, nil, 1e-12)})
}

// TestKernelLaplacian checks the export of a shallow machine of the
// Laplacian kernel, exp(-|x - a|_1 / sigma), on numbers, booleans and
// categories: a graph of the Gaussian's squared distances would be far
// from the library's predictions.
func TestKernelLaplacian(t *testing.T) {
	rnd := rand.New(rand.NewPCG(8, 3))
	fm := fitTableWith(t, randomTable(t, 60, false, rnd), "y", nil, nil, false,
		tabular.Settings{Family: tabular.Shallow, ShallowKernel: tabular.LaplacianKernel, Seed: 1})
	if !fm.km.Machine.Laplacian {
		t.Fatal("the machine's kernel is not the Laplacian")
	}
	runAgreement(t, []agreementCase{kernelCase(t, "laplacian", fm, nil, 1e-12)})
}

// TestKernelUnreadable checks what the exported graph does with cells the
// library would refuse or not know: a boolean that is neither true nor
// false makes the row's outputs NaN, and only that row's; an unseen
// category is no level at all, as in the library.
func TestKernelUnreadable(t *testing.T) {
	needRuntime(t)
	rnd := rand.New(rand.NewPCG(3, 4))
	fm := fitTable(t, randomTable(t, 60, false, rnd), "y", []string{"c"}, false, kernel.Additive)
	model, err := kernelGraph(fm.km)
	if err != nil {
		t.Fatal(err)
	}
	path := writeModel(t, model)
	in := map[string]tensorJSON{
		"x1":     doubleColumn([]float64{0.5, 0.5}),
		"x2":     doubleColumn([]float64{3, 3}),
		"flag":   stringColumn([]string{"maybe", "yes"}),
		"colour": stringColumn([]string{"red", "purple"}),
		"size":   stringColumn([]string{"S", "S"}),
	}
	got := runModel(t, path, in)[OutputPrediction].doubles()
	if !math.IsNaN(got[0]) || math.IsNaN(got[1]) {
		t.Fatalf("predictions %v, want NaN for the row with flag \"maybe\" only", got)
	}
	f, err := dataset.ReadFrame(strings.NewReader("x1,x2,flag,colour,size\n0.5,3,yes,purple,S\n"), "unseen.csv")
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := fm.km.Encoder.Transform(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := fm.km.Machine.Predict(nil, x).At(0, 0); relDiff(got[1], want) > tolDouble {
		t.Errorf("unseen colour: prediction %v, want %v", got[1], want)
	}
}

// TestKernelSpellings checks the graph beside the library on the texts
// that predict reads though training wrote them otherwise: a boolean's
// other spellings (Y, t, 1, n, f, 0 in any case) and a level in another
// case, read as the one level it matches (RED as red), but not where it
// matches two (BLUE, for blue and Blue) or none (XL).
func TestKernelSpellings(t *testing.T) {
	needRuntime(t)
	rnd := rand.New(rand.NewPCG(3, 4))
	fm := fitTable(t, randomTable(t, 60, false, rnd), "y", []string{"c"}, false, kernel.Additive)
	odd, err := dataset.ReadFrame(strings.NewReader("x1,x2,flag,colour,size\n"+
		"0.5,3,Y,RED,s\n0.5,3,n,Green,M\n0.1,7,T,BLUE,l\n-1,2,f,blue,XL\n1,1,1,gReEn,NA\n0,5,0,Red,S\n"), "odd.csv")
	if err != nil {
		t.Fatal(err)
	}
	if _, warnings, err := fm.km.Encoder.Transform(odd, nil); err != nil || len(warnings) != 5 {
		t.Fatalf("the library's warnings %v (error %v), want 5: of flag's spellings, of colour's and size's unseen levels and levels in another case", warnings, err)
	}
	runAgreement(t, []agreementCase{kernelCase(t, "odd", fm, odd, tolDouble)})
	// A batch of no rows runs too, though StringNormalizer takes one
	// string at least.
	model, err := kernelGraph(fm.km)
	if err != nil {
		t.Fatal(err)
	}
	path := writeModel(t, model)
	none := map[string]tensorJSON{"x1": doubleColumn(nil), "x2": doubleColumn(nil), "flag": stringColumn(nil), "colour": stringColumn(nil), "size": stringColumn(nil)}
	if got := runModel(t, path, none)[OutputPrediction]; len(got.Data) != 0 || !slices.Equal(got.Dims, []int{0, 1}) {
		t.Errorf("prediction of no rows %+v, want dims [0 1]", got)
	}
}

// TestReadLevels checks which levels the graph reads in another case:
// those that no other level is in another case, and none of a column
// that lost its rare levels, one of which a text may have been.
func TestReadLevels(t *testing.T) {
	for _, tc := range []struct {
		levels []string
		other  bool
		want   []string // the keys read lowered, nil for no StringNormalizer
	}{
		{[]string{"Blue", "Été", "blue", "red"}, false, []string{"Été", "red"}},
		{[]string{"Blue", "red"}, true, nil},
		{[]string{"B", "b"}, false, nil},
	} {
		b := newBuilder("levels")
		b.readLevels("c", tc.levels, tc.other)
		var normalised bool
		var keys []string
		for _, n := range b.g.Node {
			normalised = normalised || n.GetOpType() == "StringNormalizer"
			if n.GetOpType() == "LabelEncoder" && slices.Contains(n.GetInput(), "c") {
				continue
			}
			for _, a := range n.GetAttribute() {
				if a.GetName() == "keys_strings" {
					for _, k := range a.GetStrings() {
						keys = append(keys, string(k))
					}
				}
			}
		}
		if normalised != (tc.want != nil) || !slices.Equal(keys, tc.want) {
			t.Errorf("levels %q, other %v: StringNormalizer %v, keys %q; want keys %q", tc.levels, tc.other, normalised, keys, tc.want)
		}
	}
}

// TestKernelDates checks// TestKernelDates checks// TestKernelDates checks a date column's rule in the exported graph, which
// takes the days since 1970, beside the library's, which reads the dates:
// times of day, missing cells and dates after the training ones.
func TestKernelDates(t *testing.T) {
	needRuntime(t)
	var b strings.Builder
	b.WriteString("day,x,y\n")
	rnd := rand.New(rand.NewPCG(5, 6))
	for i := range 40 {
		day := fmt.Sprintf("%d-%02d-%02d", 2022+i%3, 1+i%12, 1+i%28)
		switch i % 10 {
		case 3:
			day = "NA"
		case 7:
			day += "T06:30:00Z"
		}
		fmt.Fprintf(&b, "%s,%.3f,%.3f\n", day, rnd.Float64(), float64(i%12)+rnd.Float64())
	}
	f, err := dataset.ReadFrame(strings.NewReader(b.String()), "dates.csv")
	if err != nil {
		t.Fatal(err)
	}
	fm := fitTable(t, f, "y", nil, false, kernel.Additive)
	if k := fm.km.Encoder.Rules()[0]; k.Kind != "date" || !k.Indicator || len(k.Cycles) != 3 {
		t.Fatalf("first rule %+v, want a date column with the year's, the week's and the day's cycles and a missing indicator", k)
	}
	later, err := dataset.ReadFrame(strings.NewReader("day,x\n2025-06-01,0.5\n2024-03-03 12:00,0.2\n,0.7\n"), "later.csv")
	if err != nil {
		t.Fatal(err)
	}
	// Tighter than tolDouble: the graph must reduce the days to each
	// cycle before it turns them into an angle, as the encoder does;
	// without that the phases of dates near 20,000 days drift by 1e-11.
	const tol = 1e-13
	runAgreement(t, []agreementCase{kernelCase(t, "training", fm, nil, tol), kernelCase(t, "later", fm, later, tol)})
}

// TestKernelOrdinal checks an ordinal column's rule in the exported graph
// beside the library's on the cells it has no level for: a missing cell
// and an unseen level both take the training mean, and a seen level its
// number.
func TestKernelOrdinal(t *testing.T) {
	needRuntime(t)
	f, err := dataset.LoadFrame(filepath.Join("testdata", "esoph.csv"))
	if err != nil {
		t.Fatal(err)
	}
	fm := fitTable(t, f, "ncases", nil, false, kernel.Additive)
	if k := fm.km.Encoder.Rules()[0]; k.Name != "agegp" || k.Kind != "ordinal" {
		t.Fatalf("first rule %+v, want the ordinal agegp", k)
	}
	odd, err := dataset.ReadFrame(strings.NewReader("agegp,alcgp,tobgp,ncontrols\n"+
		"85+,0-39g/day,0-9g/day,10\nNA,40-79,10-19,5\n45-54,120+,,20\n25-34,0-39G/DAY,0-9G/Day,3\n"), "odd.csv")
	if err != nil {
		t.Fatal(err)
	}
	runAgreement(t, []agreementCase{kernelCase(t, "odd", fm, odd, tolDouble)})
}

// TestKernelCodes checks a numeric column's codes in the exported graph
// beside the library's: a code seen in training sets its column, and a
// value not among the codes, a fraction or a missing cell sets none.
func TestKernelCodes(t *testing.T) {
	needRuntime(t)
	var b strings.Builder
	b.WriteString("school,x,y\n")
	rnd := rand.New(rand.NewPCG(7, 8))
	for i := range 60 {
		school := strconv.Itoa(10 + i%12)
		if i%17 == 5 {
			school = "NA"
		}
		fmt.Fprintf(&b, "%s,%.3f,%.3f\n", school, rnd.Float64(), float64(i%12%5)+rnd.Float64())
	}
	f, err := dataset.ReadFrame(strings.NewReader(b.String()), "schools.csv")
	if err != nil {
		t.Fatal(err)
	}
	fm := fitTableWith(t, f, "y", nil, []string{"school"}, false, tabular.Settings{Family: tabular.Shallow})
	if k := fm.km.Encoder.Rules()[0]; len(k.Codes) != 12 || !k.Indicator {
		t.Fatalf("first rule %+v, want 12 codes and a missing indicator", k)
	}
	odd, err := dataset.ReadFrame(strings.NewReader("school,x\n12,0.5\n99,0.2\nNA,0.7\n12.5,0.1\n21,0.3\n"), "odd.csv")
	if err != nil {
		t.Fatal(err)
	}
	runAgreement(t, []agreementCase{kernelCase(t, "training", fm, nil, tolDouble), kernelCase(t, "odd", fm, odd, tolDouble)})
}
