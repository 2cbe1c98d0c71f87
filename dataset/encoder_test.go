package dataset

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// checkMatrix compares x with the rows want, written out by hand.
func checkMatrix(t *testing.T, x *mat.Dense, want [][]float64) {
	t.Helper()
	r, c := x.Dims()
	if r != len(want) || c != len(want[0]) {
		t.Fatalf("matrix is %d×%d, want %d×%d", r, c, len(want), len(want[0]))
	}
	for i, row := range want {
		for j, w := range row {
			if got := x.At(i, j); !scalar.EqualWithinAbsOrRel(got, w, 1e-12, 1e-12) {
				t.Errorf("x[%d][%d] = %v, want %v", i, j, got, w)
			}
		}
	}
}

func loadMessy(t *testing.T) *Frame {
	t.Helper()
	f, err := LoadFrame(filepath.Join("testdata", "messy.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestEncoder encodes testdata/messy.csv, in which every column has a gap:
//
//	len  supp  dose  fresh
//	4.2  VC    0.5   TRUE
//	11.5 OJ          FALSE
//	     VC    1     True
//	7.3  NA    2
//	5.8  OJ    1e3   no
func TestEncoder(t *testing.T) {
	f := loadMessy(t)
	e, warnings, err := FitEncoder(f, []string{"len", "supp", "dose", "fresh"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings %v", warnings)
	}
	wantNames := []string{"len", "len:missing", "supp=OJ", "supp=VC", "supp:missing",
		"dose", "dose:missing", "fresh", "fresh:missing"}
	if got := e.Names(); !slices.Equal(got, wantNames) {
		t.Errorf("names %q, want %q", got, wantNames)
	}
	if e.Width() != len(wantNames) {
		t.Errorf("width %d, want %d", e.Width(), len(wantNames))
	}
	if got, want := e.Widths(), []int{2, 3, 2, 2}; !slices.Equal(got, want) {
		t.Errorf("widths %v, want %v", got, want)
	}
	if got, want := e.Features(), []string{"len", "supp", "dose", "fresh"}; !slices.Equal(got, want) {
		t.Errorf("features %q, want %q", got, want)
	}
	x, warnings, err := e.Transform(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings %v", warnings)
	}
	// len: mean (4.2+11.5+7.3+5.8)/4 = 7.2. supp: OJ and VC tie with two
	// rows each; OJ comes first. dose: mean (0.5+1+2+1000)/4 = 250.875.
	// fresh: two of four true.
	checkMatrix(t, x, [][]float64{
		{4.2, 0, 0, 1, 0, 0.5, 0, 1, 0},
		{11.5, 0, 1, 0, 0, 250.875, 1, 0, 0},
		{7.2, 1, 0, 1, 0, 1, 0, 1, 0},
		{7.3, 0, 1, 0, 1, 2, 0, 0.5, 1},
		{5.8, 0, 1, 0, 0, 1000, 0, 0, 0},
	})

	// Selected rows, in the order given.
	x, _, err = e.Transform(f, []int{4, 0})
	if err != nil {
		t.Fatal(err)
	}
	checkMatrix(t, x, [][]float64{
		{5.8, 0, 1, 0, 0, 1000, 0, 0, 0},
		{4.2, 0, 0, 1, 0, 0.5, 0, 1, 0},
	})
}

// TestEncoderTrainingRows fits on rows without gaps: no indicator columns,
// but missing cells elsewhere are still imputed from the training rows.
func TestEncoderTrainingRows(t *testing.T) {
	f := readFrameString(t, `x,c,b
1,u,yes
2,v,no
3,v,yes
4,w,yes
NA,,
`)
	e, _, err := FitEncoder(f, []string{"x", "c", "b"}, []int{0, 1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.Names(), []string{"x", "c=u", "c=v", "c=w", "b"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	x, _, err := e.Transform(f, []int{4, 0})
	if err != nil {
		t.Fatal(err)
	}
	// Mean 2.5, most frequent level v, three of four yes.
	checkMatrix(t, x, [][]float64{
		{2.5, 0, 1, 0, 0.75},
		{1, 1, 0, 0, 1},
	})

	// Fitting on other rows learns other values.
	e, _, err = FitEncoder(f, []string{"x", "c", "b"}, []int{3, 0})
	if err != nil {
		t.Fatal(err)
	}
	x, _, err = e.Transform(f, []int{4, 1})
	if err != nil {
		t.Fatal(err)
	}
	// Mean 2.5, levels u and w tied (u first), two of two yes; level v
	// was not seen.
	checkMatrix(t, x, [][]float64{
		{2.5, 1, 0, 1},
		{2, 0, 0, 0},
	})
}

// TestEncoderMean checks that the mean of huge numbers does not overflow.
func TestEncoderMean(t *testing.T) {
	f := readFrameString(t, "x\n1.5e308\n1.7e308\nNA\n")
	e, _, err := FitEncoder(f, []string{"x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := e.Transform(f, []int{2})
	if err != nil {
		t.Fatal(err)
	}
	checkMatrix(t, x, [][]float64{{1.6e308, 1}})
}

func TestEncoderUnseen(t *testing.T) {
	train := readFrameString(t, "a,b,c\nx,p,1\ny,q,2\nx,p,3\n")
	// Columns in another order, an extra column, unseen levels.
	test := readFrameString(t, "c,extra,b,a\n1,0,q,z\n2,0,r,x\n3,0,s,w\n4,0,p,NA\n")
	e, _, err := FitEncoder(train, []string{"a", "b", "c"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, warnings, err := e.Transform(test, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkMatrix(t, x, [][]float64{
		{0, 0, 0, 1, 1},
		{1, 0, 0, 0, 2},
		{0, 0, 0, 0, 3},
		{1, 0, 1, 0, 4},
	})
	want := []Warning{
		{Column: "a", Value: "z", Rows: 2, Message: `2 rows hold levels not seen in training, such as "z"; they are encoded as no level at all`},
		{Column: "b", Value: "r", Rows: 2, Message: `2 rows hold levels not seen in training, such as "r"; they are encoded as no level at all`},
		{Column: "a", Rows: 1, Message: `line 5 has no value, where every training row had one: read as the most frequent training level, "x"; the model never met this column empty`},
	}
	if !slices.Equal(warnings, want) {
		t.Errorf("warnings\n%v\nwant\n%v", warnings, want)
	}
	if got, want := warnings[0].String(), `column "a": 2 rows hold levels not seen in training, such as "z"; they are encoded as no level at all`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}

func TestEncoderIDWarning(t *testing.T) {
	var b strings.Builder
	b.WriteString("name,group,x\n")
	for i := range 20 {
		// 19 distinct names in 20 rows, two groups.
		fmt.Fprintf(&b, "n%d,g%d,%d\n", min(i, 18), i%2, i)
	}
	f := readFrameString(t, b.String())
	_, warnings, err := FitEncoder(f, []string{"name", "group", "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || warnings[0].Column != "name" || warnings[0].Rows != 20 {
		t.Fatalf("warnings %v, want one about column name", warnings)
	}
	want := `column "name": 19 different texts in 20 rows: it looks like an identifier, which cannot help to predict; consider leaving it out or carrying it as an id`
	if got := warnings[0].String(); got != want {
		t.Errorf("warning\n%s\nwant\n%s", got, want)
	}
	// Fewer distinct values is not an identifier.
	_, warnings, err = FitEncoder(f, []string{"name"}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 18, 19, 19})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings %v for 11 texts in 13 rows", warnings)
	}
}

func TestFitEncoderErrors(t *testing.T) {
	f := readFrameString(t, "x,e,i\n1,,2\n2,NA,Inf\n")
	for _, test := range []struct {
		features []string
		err      error
		msg      string
	}{
		{[]string{"x", "e"}, ErrEmptyColumn, `test.csv: column "e": column has no values: every row is missing one`},
		{[]string{"i"}, ErrInf, `test.csv: row 3, column "i": value is infinite: "Inf"`},
		{[]string{"x", "y"}, ErrNoColumn, `test.csv: column "y": no such column; the file has "x", "e", "i"`},
	} {
		_, _, err := FitEncoder(f, test.features, nil)
		if !errors.Is(err, test.err) {
			t.Errorf("FitEncoder(%q): error %v does not wrap %v", test.features, err, test.err)
		}
		if err == nil || err.Error() != test.msg {
			t.Errorf("FitEncoder(%q): error\n%v\nwant\n%s", test.features, err, test.msg)
		}
	}
}

func TestTransformErrors(t *testing.T) {
	train := readFrameString(t, "n,b,c\n1,true,u\n2,false,v\n")
	e, _, err := FitEncoder(train, []string{"n", "b", "c"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		name, data string
		err        error
		msg        string
	}{
		{"text in numeric, read strictly", "n,b,c\n1,true,u\nabc,true,u\n", ErrNumber,
			`new.csv: row 3, column "n": not a number: "abc"; the column held numbers in training`},
		{"infinity", "n,b,c\n1e999,true,u\n", ErrInf,
			`new.csv: row 2, column "n": value is infinite: "1e999"; the column held numbers in training`},
		{"text in boolean", "n,b,c\n1,true,u\n2,maybe,u\n", ErrBoolean,
			`new.csv: row 3, column "b": not a boolean: "maybe"; the column held true/false or yes/no in training`},
		{"missing column", "n,c\n1,u\n", ErrNoColumn,
			`new.csv: column "b": no such column; the file has "n", "c"`},
		{"missing columns", "B\n1\n", ErrNoColumn,
			`new.csv: column "n": no such column; the file has "B"; it lacks the inputs "b", "c" too`},
	} {
		t.Run(test.name, func(t *testing.T) {
			r, err := NewFrameReader(strings.NewReader(test.data), "new.csv", FrameOptions{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			f, err := r.ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = e.Transform(f, nil)
			if !errors.Is(err, test.err) {
				t.Errorf("error %v does not wrap %v", err, test.err)
			}
			if err == nil || err.Error() != test.msg {
				t.Errorf("error\n%v\nwant\n%s", err, test.msg)
			}
		})
	}
}

// TestTruthSpellings checks that a boolean column reads, after
// training, another spelling of a yes or a no as the value it spells,
// warned of as a level not seen in training, in Transform and in
// EncodeColumn, and that a column of such spellings is not boolean at
// fit.
func TestTruthSpellings(t *testing.T) {
	for _, tc := range []struct {
		train, cells string // the training column, and the new cells separated by |
		want         []float64
		warning      string // the start of the warning, none if empty
	}{
		{"yes|no|yes", "Y|n|TRUE|no|1|f|0|t", []float64{1, 0, 1, 0, 1, 0, 0, 1},
			`6 rows hold levels not seen in training, such as "Y"; they are encoded as the yes or no as spelled`},
		{"true|false|false", "True|FALSE|1|0", []float64{1, 0, 1, 0}, `2 rows hold levels not seen in training, such as "1"`},
		{"TRUE|FALSE|TRUE", "true|no|Yes", []float64{1, 0, 1}, ""},
	} {
		train := readFrameString(t, "b\n"+strings.ReplaceAll(tc.train, "|", "\n")+"\n")
		e, _, err := FitEncoder(train, []string{"b"}, nil)
		if err != nil || e.Rules()[0].Kind != "boolean" {
			t.Fatalf("train %s: error %v, or not boolean", tc.train, err)
		}
		cells := strings.Split(tc.cells, "|")
		x, warnings, err := e.Transform(readFrameString(t, "b\n"+strings.Join(cells, "\n")+"\n"), nil)
		if err != nil {
			t.Fatalf("cells %s: %v", tc.cells, err)
		}
		dst := mat.NewDense(len(cells), 1, nil)
		w, err := e.EncodeColumn(dst, 0, nil, cells)
		if err != nil {
			t.Fatalf("EncodeColumn(%s): %v", tc.cells, err)
		}
		if got := mat.Col(nil, 0, x); !slices.Equal(got, tc.want) || !slices.Equal(mat.Col(nil, 0, dst), tc.want) {
			t.Errorf("cells %s: read %v and %v, want %v", tc.cells, got, mat.Col(nil, 0, dst), tc.want)
		}
		switch {
		case tc.warning == "" && (len(warnings) > 0 || w != nil):
			t.Errorf("cells %s: warned %v and %v", tc.cells, warnings, w)
		case tc.warning != "" && (len(warnings) != 1 || !strings.HasPrefix(warnings[0].Message, tc.warning) || w == nil || w.Value != warnings[0].Value):
			t.Errorf("cells %s: warned %v and %v, want %q", tc.cells, warnings, w, tc.warning)
		}
	}
	// At fit, a column of the other spellings is no boolean.
	for _, col := range []string{"Y|N|Y", "1|0|1", "t|f|t"} {
		f := readFrameString(t, "b\n"+strings.ReplaceAll(col, "|", "\n")+"\n")
		if e, _, err := FitEncoder(f, []string{"b"}, nil); err != nil || e.Rules()[0].Kind == "boolean" {
			t.Errorf("column %s: fitted as boolean (error %v)", col, err)
		}
	}
}

// TestCaseLevels checks that a level written in another case than the
// one training level it matches is read as that level, with a warning,
// and that a text matching several in other cases, or none, stays
// unseen: through Transform and EncodeColumn alike.
func TestCaseLevels(t *testing.T) {
	for _, tc := range []struct {
		train, cells string // the training column, and the new cells separated by |
		want         [][]float64
		warnings     []string // Transform's; EncodeColumn's is the first
	}{
		{"Male|Female|Male", "MALE|male|female|Female|Other", [][]float64{{0, 1}, {0, 1}, {1, 0}, {1, 0}, {0, 0}}, []string{
			`1 row holds a level not seen in training, "Other"; it is encoded as no level at all`,
			`3 rows hold levels seen in training only in another case, such as "MALE" for "Male"; they are read as those levels`}},
		// Blue and blue are two levels: BLUE is neither.
		{"Blue|blue|red|red", "BLUE|Red|blue", [][]float64{{0, 0, 0}, {0, 0, 1}, {0, 1, 0}}, []string{
			`1 row holds a level not seen in training, "BLUE"; it is encoded as no level at all`,
			`1 row holds a level seen in training only in another case, "Red" for "red"; it is read as that level`}},
		// Only levels in another case: their warning is EncodeColumn's.
		{"Male|Female", "FEMALE|Male", [][]float64{{1, 0}, {0, 1}}, []string{
			`1 row holds a level seen in training only in another case, "FEMALE" for "Female"; it is read as that level`}},
		// An ordinal column: the level's number, the mean where unseen.
		{"10-19yrs|20-29yrs|30+yrs|30+yrs", "20-29YRS|40+YRS", [][]float64{{20}, {22.5}}, []string{
			`1 row holds a level not seen in training, "40+YRS"; it is encoded as the training mean`,
			`1 row holds a level seen in training only in another case, "20-29YRS" for "20-29yrs"; it is read as that level`}},
	} {
		train := readFrameString(t, "c\n"+strings.ReplaceAll(tc.train, "|", "\n")+"\n")
		e, _, err := FitEncoder(train, []string{"c"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		cells := strings.Split(tc.cells, "|")
		x, warnings, err := e.Transform(readFrameString(t, "c\n"+strings.Join(cells, "\n")+"\n"), nil)
		if err != nil {
			t.Fatalf("cells %s: %v", tc.cells, err)
		}
		checkMatrix(t, x, tc.want)
		dst := mat.NewDense(len(cells), len(tc.want[0]), nil)
		w, err := e.EncodeColumn(dst, 0, nil, cells)
		if err != nil {
			t.Fatal(err)
		}
		checkMatrix(t, dst, tc.want)
		var messages []string
		for _, w := range warnings {
			messages = append(messages, w.Message)
		}
		if !slices.Equal(messages, tc.warnings) || w == nil || w.Message != tc.warnings[0] {
			t.Errorf("train %s, cells %s: warnings\n%q and %v, want\n%q", tc.train, tc.cells, messages, w, tc.warnings)
		}
	}
}

func TestFitEncoderPanics(t *testing.T) {
	f := readFrameString(t, "a,b\n1,2\n")
	for _, features := range [][]string{nil, {"a", "b", "a"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("FitEncoder(%q) did not panic", features)
				}
			}()
			FitEncoder(f, features, nil)
		}()
	}
}

func TestEncoderJSON(t *testing.T) {
	f := loadMessy(t)
	e, _, err := FitEncoder(f, []string{"fresh", "supp", "len", "note"}, []int{0, 1, 3})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"columns":[` +
		`{"name":"fresh","kind":"boolean","fill":0.5,"missing_indicator":true},` +
		`{"name":"supp","kind":"categorical","levels":["OJ","VC"],"mode":"OJ","missing_indicator":true},` +
		`{"name":"len","kind":"numeric","fill":7.666666666666667,"range":[4.2,11.5],"missing_indicator":false},` +
		`{"name":"note","kind":"categorical","levels":["a","b","d"],"mode":"a","missing_indicator":false}],"percents":"fraction"}`
	if string(data) != want {
		t.Errorf("JSON\n%s\nwant\n%s", data, want)
	}
	var back Encoder
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	x, _, err := e.Transform(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	y, _, err := back.Transform(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(x, y) {
		t.Errorf("decoded encoder gives\n%v\nwant\n%v", mat.Formatted(y), mat.Formatted(x))
	}
	if !slices.Equal(back.Names(), e.Names()) {
		t.Errorf("decoded names %q, want %q", back.Names(), e.Names())
	}
}

// TestEncoderPercents reads percentages as fractions, except with an
// encoder saved before they were, which reads them as it did in training.
func TestEncoderPercents(t *testing.T) {
	const column = `{"columns":[{"name":"x","kind":"numeric","fill":1,"missing_indicator":false}]`
	f := readFrameString(t, "x\n17.5%\n0.25\n")
	for _, test := range []struct {
		name, data string
		want       []float64
	}{
		{"fractions", column + `,"percents":"fraction"}`, []float64{0.175, 0.25}},
		{"saved before fractions", column + `}`, []float64{17.5, 0.25}},
	} {
		t.Run(test.name, func(t *testing.T) {
			var e Encoder
			if err := json.Unmarshal([]byte(test.data), &e); err != nil {
				t.Fatal(err)
			}
			x, _, err := e.Transform(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := x.RawMatrix().Data; !slices.Equal(got, test.want) {
				t.Errorf("encoded %v, want %v", got, test.want)
			}
			w := mat.NewDense(1, 1, nil)
			if _, err := e.EncodeColumn(w, 0, nil, []string{"17.5%"}); err != nil || w.At(0, 0) != test.want[0] {
				t.Errorf("EncodeColumn: %v, %v; want %v", w.At(0, 0), err, test.want[0])
			}
			if again, err := json.Marshal(&e); err != nil || string(again) != test.data {
				t.Errorf("saved again as\n%s\nwant\n%s", again, test.data)
			}
		})
	}
}

func TestEncoderJSONErrors(t *testing.T) {
	for _, test := range []struct{ name, data, msg string }{
		{"percents", `{"columns":[{"name":"x","kind":"numeric","fill":1,"missing_indicator":false}],"percents":"points"}`, `encoder: percents: "points" is not "fraction"`},
		{"not an object", `[]`, "encoder: json: cannot unmarshal array into Go value of type dataset.encoderJSON"},
		{"unknown field", `{"columns":[{"name":"x","kind":"numeric","fill":1,"scale":2}]}`, `encoder: json: unknown field "scale"`},
		{"no columns", `{"columns":[]}`, "encoder: no columns"},
		{"null", `null`, "encoder: no columns"},
		{"empty name", `{"columns":[{"name":"","kind":"numeric","fill":1}]}`, `encoder: columns[0]: name "": empty or not trimmed`},
		{"untrimmed name", `{"columns":[{"name":" x","kind":"numeric","fill":1}]}`, `encoder: columns[0]: name " x": empty or not trimmed`},
		{"repeated name", `{"columns":[{"name":"x","kind":"numeric","fill":1},{"name":"x","kind":"boolean","fill":1}]}`, `encoder: columns[1]: name "x": repeated`},
		{"unknown kind", `{"columns":[{"name":"x","kind":"text"}]}`, `encoder: kind "text" is not numeric, boolean, categorical, ordinal or date`},
		{"no kind", `{"columns":[{"name":"x","fill":1}]}`, "encoder: columns[0]: kind: absent"},
		{"no fill", `{"columns":[{"name":"x","kind":"numeric"}]}`, "encoder: columns[0]: fill: absent from a numeric column"},
		{"huge fill", `{"columns":[{"name":"x","kind":"numeric","fill":1e999}]}`, "encoder: json: cannot unmarshal number 1e999 into Go struct field encodedColumn.columns.fill of type float64"},
		{"boolean fill", `{"columns":[{"name":"x","kind":"boolean","fill":1.5}]}`, "encoder: columns[0]: fill: 1.5 is not a fraction in [0, 1]"},
		{"numeric levels", `{"columns":[{"name":"x","kind":"numeric","fill":1,"levels":["a"]}]}`, "encoder: columns[0]: levels: present in a numeric column"},
		{"numeric mode", `{"columns":[{"name":"x","kind":"numeric","fill":1,"mode":"a"}]}`, "encoder: columns[0]: mode: present in a numeric column"},
		{"categorical fill", `{"columns":[{"name":"x","kind":"categorical","fill":1,"levels":["a"],"mode":"a"}]}`, "encoder: columns[0]: fill: present in a categorical column"},
		{"no levels", `{"columns":[{"name":"x","kind":"categorical","levels":[],"mode":"a"}]}`, "encoder: columns[0]: levels: none"},
		{"no mode", `{"columns":[{"name":"x","kind":"categorical","levels":["a"]}]}`, "encoder: columns[0]: mode: absent"},
		{"unsorted", `{"columns":[{"name":"x","kind":"categorical","levels":["b","a"],"mode":"a"}]}`, `encoder: columns[0]: levels[1]: "a" is not after "b": levels must be sorted and distinct`},
		{"repeated level", `{"columns":[{"name":"x","kind":"categorical","levels":["a","a"],"mode":"a"}]}`, `encoder: columns[0]: levels[1]: "a" is not after "a": levels must be sorted and distinct`},
		{"missing level", `{"columns":[{"name":"x","kind":"categorical","levels":["NA","a"],"mode":"a"}]}`, `encoder: columns[0]: levels[0]: "NA" can be no cell's text`},
		{"untrimmed level", `{"columns":[{"name":"x","kind":"categorical","levels":["a "],"mode":"a "}]}`, `encoder: columns[0]: levels[0]: "a " can be no cell's text`},
		{"categorical values", `{"columns":[{"name":"x","kind":"categorical","levels":["a"],"mode":"a","values":[1]}]}`, "encoder: columns[0]: values: present in a categorical column"},
		{"numeric values", `{"columns":[{"name":"x","kind":"numeric","fill":1,"values":[1]}]}`, "encoder: columns[0]: values: present in a numeric column"},
		{"ordinal no fill", `{"columns":[{"name":"x","kind":"ordinal","levels":["1","2"],"values":[1,2]}]}`, "encoder: columns[0]: fill: absent from an ordinal column"},
		{"ordinal mode", `{"columns":[{"name":"x","kind":"ordinal","fill":1,"levels":["1","2"],"values":[1,2],"mode":"1"}]}`, "encoder: columns[0]: mode: present in an ordinal column"},
		{"ordinal values", `{"columns":[{"name":"x","kind":"ordinal","fill":1,"levels":["1","2"],"values":[1]}]}`, "encoder: columns[0]: values: 1 for 2 levels"},
		{"ordinal unsorted", `{"columns":[{"name":"x","kind":"ordinal","fill":1,"levels":["2","1"],"values":[2,1]}]}`, `encoder: columns[0]: levels[1]: "1" is not after "2": levels must be sorted and distinct`},
		{"ordinal no levels", `{"columns":[{"name":"x","kind":"ordinal","fill":1,"levels":[],"values":[]}]}`, "encoder: columns[0]: levels: none"},
		{"stray mode", `{"columns":[{"name":"x","kind":"categorical","levels":["a","b"],"mode":"c"}]}`, `encoder: columns[0]: mode: "c" is not among the levels`},
		{"numeric cycles", `{"columns":[{"name":"x","kind":"numeric","fill":1,"cycles":["year"]}]}`, "encoder: columns[0]: cycles: present in a numeric column"},
		{"categorical cycles", `{"columns":[{"name":"x","kind":"categorical","levels":["a"],"mode":"a","cycles":["week"]}]}`, "encoder: columns[0]: cycles: present in a categorical column"},
		{"unknown cycle", `{"columns":[{"name":"x","kind":"date","fill":1,"cycles":["year","month"]}]}`, `encoder: columns[0]: cycles[1]: "month" is not year, week or day`},
		{"cycles out of order", `{"columns":[{"name":"x","kind":"date","fill":1,"cycles":["week","year"]}]}`, `encoder: columns[0]: cycles[1]: "year" is repeated or out of order (year, week, day)`},
		{"categorical currency", `{"columns":[{"name":"x","kind":"categorical","levels":["a"],"mode":"a","currency":"$"}]}`, "encoder: columns[0]: currency: present in a categorical column"},
		{"unknown currency", `{"columns":[{"name":"x","kind":"numeric","fill":1,"currency":"DM"}]}`, `encoder: columns[0]: currency: "DM" is not $, €, £ or ¥`},
		{"numeric order", `{"columns":[{"name":"x","kind":"numeric","fill":1,"order":"dmy"}]}`, "encoder: columns[0]: order: present in a numeric column"},
		{"unknown order", `{"columns":[{"name":"x","kind":"date","fill":1,"order":"ymd"}]}`, `encoder: columns[0]: order: "ymd" is not dmy or mdy`},
		{"numeric other", `{"columns":[{"name":"x","kind":"numeric","fill":1,"other":true}]}`, "encoder: columns[0]: other: present in a numeric column"},
		{"repeated cycle", `{"columns":[{"name":"x","kind":"date","fill":1,"cycles":["day","day"]}]}`, `encoder: columns[0]: cycles[1]: "day" is repeated or out of order (year, week, day)`},
	} {
		t.Run(test.name, func(t *testing.T) {
			var e Encoder
			err := json.Unmarshal([]byte(test.data), &e)
			if err == nil || err.Error() != test.msg {
				t.Errorf("error\n%v\nwant\n%s", err, test.msg)
			}
		})
	}
}

func FuzzEncoderJSON(f *testing.F) {
	f.Add([]byte(`{"columns":[{"name":"x","kind":"numeric","fill":1.5,"missing_indicator":true},` +
		`{"name":"c","kind":"categorical","levels":["a","b"],"mode":"b","missing_indicator":false},` +
		`{"name":"b","kind":"boolean","fill":0.25,"missing_indicator":false}]}`))
	f.Add([]byte(`{"columns":[{"name":"d","kind":"date","fill":19000.25,"cycles":["year","week","day"],"missing_indicator":true}]}`))
	f.Add([]byte(`{"columns":[{"name":"n","kind":"numeric","fill":2500,"unit":"k/M/B","range":[1,5000],"missing_indicator":false},` +
		`{"name":"w","kind":"numeric","fill":70,"unit":"kg","currency":"$","missing_indicator":false}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var e Encoder
		if err := json.Unmarshal(data, &e); err != nil {
			return
		}
		if e.Width() != len(e.Names()) || e.Width() < len(e.Features()) {
			t.Fatalf("width %d, %d names, %d features", e.Width(), len(e.Names()), len(e.Features()))
		}
		again, err := json.Marshal(&e)
		if err != nil {
			t.Fatal(err)
		}
		var back Encoder
		if err := json.Unmarshal(again, &back); err != nil {
			t.Fatalf("encoder does not read back: %v\n%s", err, again)
		}
		if twice, _ := json.Marshal(&back); string(twice) != string(again) {
			t.Fatalf("JSON changed on a round trip:\n%s\n%s", again, twice)
		}
		// Encode a frame with every feature and one row, all missing.
		var b strings.Builder
		w := csv.NewWriter(&b)
		w.Write(e.Features())
		missing := make([]string, len(e.columns))
		for i := range missing {
			missing[i] = "NA"
		}
		w.Write(missing)
		w.Flush()
		fr, err := ReadFrame(strings.NewReader(b.String()), "fuzz.csv")
		if err != nil {
			t.Fatalf("reading the encoder's columns back: %v", err)
		}
		if _, _, err := e.Transform(fr, nil); err != nil {
			t.Fatalf("Transform of missing cells: %v", err)
		}
	})
}

// TestEncoderRules checks the rules an encoder gives code that applies it
// elsewhere, and that changing them does not change the encoder.
func TestEncoderRules(t *testing.T) {
	f, err := ReadFrame(strings.NewReader("n,b,c\n1,yes,x\nNA,no,y\n3,,y\n"), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := FitEncoder(f, []string{"n", "b", "c"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []ColumnRule{
		{Name: "n", Kind: "numeric", Fill: 2, Indicator: true},
		{Name: "b", Kind: "boolean", Fill: 0.5, Indicator: true},
		{Name: "c", Kind: "categorical", Levels: []string{"x", "y"}, Mode: "y"},
	}
	got := e.Rules()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rules %+v, want %+v", got, want)
	}
	got[2].Levels[0] = "z"
	if e.Rules()[2].Levels[0] != "x" {
		t.Error("changing the rules changed the encoder")
	}
}

// TestEncoderOrdinal checks the ordinal rule: levels that each begin with a
// different number, at least three of them, encode as that number, with
// the training mean for a missing cell (and its indicator) or an unseen
// level; other columns of text stay categorical.
func TestEncoderOrdinal(t *testing.T) {
	train := readFrameString(t, "age,dose,pair,twice,mixed\n"+
		"25-34,0-39g/day,1a,1a,10-19\n"+
		"35-44,40-79,2b,1b,x\n"+
		"75+,120+,1a,2a,30+\n"+
		"75+,NA,2b,2b,10-19\n")
	e, _, err := FitEncoder(train, []string{"age", "dose", "pair", "twice", "mixed"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Two levels, a repeated leading number, or a level without one:
	// categorical.
	wantNames := []string{"age", "dose", "dose:missing", "pair=1a", "pair=2b",
		"twice=1a", "twice=1b", "twice=2a", "twice=2b", "mixed=10-19", "mixed=30+", "mixed=x"}
	if got := e.Names(); !slices.Equal(got, wantNames) {
		t.Fatalf("names %q, want %q", got, wantNames)
	}
	rules := e.Rules()
	// Levels sorted as text: "25-34" < "35-44" < "75+".
	if r := rules[0]; r.Kind != "ordinal" || !slices.Equal(r.Values, []float64{25, 35, 75}) || r.Fill != (25+35+75+75)/4.0 {
		t.Errorf("age rule %+v, want ordinal values [25 35 75], fill 52.5", r)
	}
	if r := rules[1]; r.Kind != "ordinal" || !slices.Equal(r.Levels, []string{"0-39g/day", "120+", "40-79"}) ||
		!slices.Equal(r.Values, []float64{0, 120, 40}) || r.Fill != (0+40+120)/3.0 || !r.Indicator {
		t.Errorf("dose rule %+v, want ordinal levels [0-39g/day 120+ 40-79], values [0 120 40], fill 53.33, indicator", r)
	}
	test := readFrameString(t, "age,dose,pair,twice,mixed\n35-44,,1a,1a,x\n85+,80-119,2b,2b,x\n")
	x, warnings, err := e.Transform(test, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkMatrix(t, x.Slice(0, 2, 0, 3).(*mat.Dense), [][]float64{
		{35, 160.0 / 3, 1},
		{52.5, 160.0 / 3, 0},
	})
	want := []Warning{
		{Column: "age", Value: "85+", Rows: 1, Message: `1 row holds a level not seen in training, "85+"; it is encoded as the training mean`},
		{Column: "dose", Value: "80-119", Rows: 1, Message: `1 row holds a level not seen in training, "80-119"; it is encoded as the training mean`},
	}
	if !slices.Equal(warnings, want) {
		t.Errorf("warnings\n%v\nwant\n%v", warnings, want)
	}
	// The rule travels with the model.
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back Encoder
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Rules(), rules) {
		t.Errorf("decoded rules %+v, want %+v", back.Rules(), rules)
	}
}

// TestEncodeColumn encodes the columns of testdata/messy.csv one at a
// time into a matrix of stale values, the numeric ones also from numbers
// with NaN for the gaps: every cell gives the bits Transform gives it.
func TestEncodeColumn(t *testing.T) {
	f := loadMessy(t)
	features := []string{"len", "supp", "dose", "fresh"}
	e, _, err := FitEncoder(f, features, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := e.Transform(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := f.Len()
	for _, numbers := range []bool{false, true} {
		got := mat.NewDense(n, e.Width(), nil)
		for i := range n {
			for j := range e.Width() {
				got.Set(i, j, -7) // stale values, overwritten
			}
		}
		for j, name := range features {
			col, err := f.Column(name)
			if err != nil {
				t.Fatal(err)
			}
			texts := make([]string, n)
			for i := range n {
				texts[i] = f.Cell(i, col)
			}
			var w *Warning
			if numbers && e.Rules()[j].Kind == "numeric" {
				values := make([]float64, n)
				for i, s := range texts {
					values[i] = math.NaN()
					if !isMissing(s) {
						values[i], _ = strconv.ParseFloat(s, 64)
					}
				}
				w, err = e.EncodeColumn(got, j, values, nil)
			} else {
				w, err = e.EncodeColumn(got, j, nil, texts)
			}
			if err != nil || w != nil {
				t.Fatalf("column %s: warning %v, error %v", name, w, err)
			}
		}
		if !mat.Equal(got, want) {
			t.Errorf("numbers %v: encoded\n%v\nwant\n%v", numbers, mat.Formatted(got), mat.Formatted(want))
		}
	}
}

// TestEncodeColumnErrors checks the warnings, errors and panics of
// EncodeColumn: the row of a bad cell counts from 1.
func TestEncodeColumnErrors(t *testing.T) {
	train := readFrameString(t, "a,b,c\nx,yes,1\ny,no,2\nx,yes,3\n")
	e, _, err := FitEncoder(train, []string{"a", "b", "c"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dst := mat.NewDense(3, e.Width(), nil)
	w, err := e.EncodeColumn(dst, 0, nil, []string{"x", "z", "q"})
	if err != nil {
		t.Fatal(err)
	}
	wantW := Warning{Column: "a", Value: "z", Rows: 2, Message: `2 rows hold levels not seen in training, such as "z"; they are encoded as no level at all`}
	if w == nil || *w != wantW {
		t.Errorf("warning %v, want %v", w, wantW)
	}
	for _, tc := range []struct {
		j       int
		numbers []float64
		texts   []string
		want    string
	}{
		{1, nil, []string{"yes", "maybe", "no"}, `row 2, column "b": not a boolean: "maybe"; the column held true/false or yes/no in training`},
		{2, nil, []string{"Inf", "2", "3"}, `row 1, column "c": value is infinite: "Inf"; the column held numbers in training`},
	} {
		_, err := e.EncodeColumn(dst, tc.j, tc.numbers, tc.texts)
		var pe *ParseError
		if !errors.As(err, &pe) || err.Error() != tc.want {
			t.Errorf("column %d: error %v, want %s", tc.j, err, tc.want)
		}
	}
	for _, tc := range []struct {
		name    string
		dst     *mat.Dense
		j       int
		numbers []float64
		texts   []string
	}{
		{"numbers for categories", dst, 0, []float64{1, 2, 3}, nil},
		{"too few cells", dst, 2, nil, []string{"1"}},
		{"both", dst, 2, []float64{1, 2, 3}, []string{"1", "2", "3"}},
		{"narrow", mat.NewDense(3, 2, nil), 2, nil, []string{"1", "2", "3"}},
		{"column", dst, 3, nil, []string{"1", "2", "3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			e.EncodeColumn(tc.dst, tc.j, tc.numbers, tc.texts)
		})
	}
}

// TestTransformEach encodes a table two rows at a time and checks the
// rows and the warnings against Transform's on the whole table.
func TestTransformEach(t *testing.T) {
	train := readFrameString(t, "g,age,x\nA,25-34,1\nB,35-44,2\nA,45-54,3\n")
	e, _, err := FitEncoder(train, []string{"g", "age", "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const data = "x,age,g\n1,25-34,C\n2,85+,A\n3,35-44,D\n4,75+,C\n5,,B\n"
	whole, warnings, err := e.Transform(readFrameString(t, data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 3 || warnings[0].Rows != 3 || warnings[1].Rows != 2 || warnings[2].Rows != 1 {
		t.Fatalf("Transform warned %v, want 3 rows of g and 2 of age, and age's gap", warnings)
	}
	fr, err := NewFrameReader(strings.NewReader(data), "test.csv", FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]float64
	got, err := e.TransformEach(func() (*Frame, error) { return fr.Read(2) }, func(f *Frame, x *mat.Dense) error {
		if r, _ := x.Dims(); r != f.Len() {
			t.Errorf("%d encoded rows for a part of %d", r, f.Len())
		}
		for i := range f.Len() {
			rows = append(rows, x.RawRowView(i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkMatrix(t, whole, rows)
	if !slices.Equal(got, warnings) {
		t.Errorf("warnings in parts\n%v\nwant\n%v", got, warnings)
	}
}

// TestEncoderCurrencies keeps amounts in two currencies as text, with a
// warning that says why.
func TestEncoderCurrencies(t *testing.T) {
	f := readFrameString(t, "price\n$5\n€7\n$6.5\n")
	e, warnings, err := FitEncoder(f, []string{"price"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `column "price": it holds amounts in $ and €, which are not one quantity; they are read as text: convert them to one currency to have them read as numbers`
	if e.Rules()[0].Kind != "categorical" || len(warnings) != 1 || warnings[0].String() != want {
		t.Errorf("rule %+v, warnings %v; want text and\n%s", e.Rules()[0], warnings, want)
	}
}

// TestEncoderCurrency remembers the currency of a numeric column's
// amounts, so that an amount in another is an error rather than a number
// read as if it were in the same.
func TestEncoderCurrency(t *testing.T) {
	e, _, err := FitEncoder(readFrameString(t, "price\n$5\n$7.5\n8\n"), []string{"price"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := e.Rules()[0]; r.Kind != "numeric" || r.Currency != "$" {
		t.Fatalf("rule %+v, want numbers in $", r)
	}
	x, _, err := e.Transform(readFrameString(t, "price\n$6\n9\n($3)\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkMatrix(t, x, [][]float64{{6}, {9}, {-3}})
	_, _, err = e.Transform(readFrameString(t, "price\n$6\n(€7)\n"), nil)
	want := `test.csv: row 3, column "price": an amount in another currency: "(€7)"; the column held amounts in $ in training`
	if !errors.Is(err, ErrCurrency) || err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back Encoder
	if err := json.Unmarshal(data, &back); err != nil || back.Rules()[0].Currency != "$" {
		t.Errorf("decoded %+v, %v", back.Rules(), err)
	}
}

// TestEncoderManyLevels encodes a column of more than MaxLevels levels:
// only the most frequent ones have columns, the others encode as all
// zeros, as unseen levels do, without a warning for either, and the
// column's rule survives JSON.
func TestEncoderManyLevels(t *testing.T) {
	var b strings.Builder
	b.WriteString("c,x\n")
	// Level i is in 1 + (i < 300) rows: l000 to l299 in two, the rest
	// in one; a missing cell takes the mode, l000.
	const levels = 1000
	for i := range levels {
		for range 1 + btoi(i < 300) {
			fmt.Fprintf(&b, "l%03d,%d\n", i, i)
		}
	}
	b.WriteString(",0\n")
	f := readFrameString(t, b.String())
	e, warnings, err := FitEncoder(f, []string{"c"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantWarning := fmt.Sprintf(`column "c": 1000 different texts in 1300 rows: the %d most frequent are encoded each as a column, `+
		`and the other %d levels, in %d rows, as none, as a level not seen in training is`, MaxLevels, levels-MaxLevels, 1300-2*MaxLevels)
	if len(warnings) != 1 || warnings[0].String() != wantWarning {
		t.Errorf("warnings %v, want\n%s", warnings, wantWarning)
	}
	if got, want := e.Width(), MaxLevels+1; got != want {
		t.Fatalf("width %d, want %d: the kept levels and the missing indicator", got, want)
	}
	r := e.Rules()[0]
	if !r.Other || r.Levels[0] != "l000" || r.Levels[MaxLevels-1] != fmt.Sprintf("l%03d", MaxLevels-1) || r.Mode != "l000" {
		t.Errorf("rule: other %v, levels %s to %s, mode %s; want the %d most frequent, l000 to l%03d", r.Other, r.Levels[0], r.Levels[len(r.Levels)-1], r.Mode, MaxLevels, MaxLevels-1)
	}
	x, warnings, err := e.Transform(f, nil)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("Transform: %v, warnings %v", err, warnings)
	}
	for _, tc := range []struct {
		row int
		hot int // the encoded column set, -1 for none
	}{{0, 0}, {1, 0}, {2, 1}, {2*MaxLevels - 1, MaxLevels - 1}, {2 * MaxLevels, -1}, {1299, -1}, {1300, 0}} {
		for j := range MaxLevels {
			if want := btoi(j == tc.hot); x.At(tc.row, j) != float64(want) {
				t.Errorf("row %d (%s), column %d: %v, want %d", tc.row, f.Cell(tc.row, 0), j, x.At(tc.row, j), want)
			}
		}
	}
	// L000 may have been a rare level in another case, lost in "other":
	// it is no level, unwarned as the other levels are.
	x, warnings, err = e.Transform(readFrameString(t, "c\nL000\n"), nil)
	if err != nil || len(warnings) != 0 || x.At(0, 0) != 0 {
		t.Errorf("L000: encoded %v, warnings %v, error %v; want no level, no warning", x.RawRowView(0)[:3], warnings, err)
	}
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back Encoder
	if err := json.Unmarshal(data, &back); err != nil || !back.Rules()[0].Other || back.Width() != e.Width() {
		t.Errorf("JSON round trip: %v, other %v, width %d", err, back.Rules()[0].Other, back.Width())
	}
}

// btoi returns 1 for true and 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestIdentifiers checks which columns look like identifiers.
func TestIdentifiers(t *testing.T) {
	const n = 40
	// few holds a text in the first 9 rows only.
	few := func(i int) string {
		if i < 9 {
			return fmt.Sprintf("q%d", i)
		}
		return ""
	}
	var b strings.Builder
	b.WriteString("name,half,from0,from1,gap,shuffled,year,day,bins,few,when\n")
	for i := range n {
		gap := i
		if i == n-1 {
			gap++
		}
		fmt.Fprintf(&b, "p%d,h%d,%d,%d,%d,%d,%d,2024-01-%02d,%d-%d,%s,%d/%d/15\n",
			i, i/2, i, i+1, gap, (i*7)%n, 1959+i, 1+i%28, i*10, i*10+9, few(i), 1+i%12, 1+i/12)
	}
	f := readFrameString(t, b.String())
	all := f.Columns()
	for _, tc := range []struct {
		name string
		rows []int
		want []string
	}{
		// name: a text a row; from0 and from1 count the rows. half has
		// two rows to a text; gap skips a number; shuffled holds the
		// positions out of order, as ranks do; year starts at 1959; day
		// holds dates and bins ordinal levels, both a value a row; few
		// has a text in too few rows; when holds dates with a two-digit
		// year, text, a date a row.
		{"all rows", nil, []string{"name", "from0", "from1", "when"}},
		// A counter holds each row's position in the table, not among
		// the rows given; gap skips a number after them.
		{"every other row", []int{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20}, []string{"name", "half", "from0", "from1", "gap", "when"}},
		{"too few rows", []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, err := Identifiers(f, all, tc.rows)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range ids {
				got = append(got, w.Column)
				if dates := strings.Contains(w.Message, "two-digit year"); dates != (w.Column == "when") || !strings.Contains(w.Message, "it ") {
					t.Errorf("%s: %s", w.Column, w.Message)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Identifiers: %q, want %q", got, tc.want)
			}
		})
	}
}

// TestOrderedLevels checks the numbers that bins begin with, thousands
// separators included.
func TestOrderedLevels(t *testing.T) {
	for _, test := range []struct {
		levels []string
		want   []float64
	}{
		{[]string{"25-34", "35-44", "75+"}, []float64{25, 35, 75}},
		{[]string{"1,000+", "10,000+", "5,000,000+"}, []float64{1000, 10000, 5000000}},
		{[]string{"-1.5 to 0", "0-10", "10.5+"}, []float64{-1.5, 0, 10.5}},
		{[]string{"1,5", "2,5", "3,5"}, []float64{1, 2, 3}},
		{[]string{"5+", "5,000+", "5.0+"}, nil},
		{[]string{"1a", "2a"}, nil},
		{[]string{"a1", "2", "3"}, nil},
	} {
		got, ok := orderedLevels(test.levels)
		if ok != (test.want != nil) || !slices.Equal(got, test.want) {
			t.Errorf("orderedLevels(%q) = %v, %t; want %v", test.levels, got, ok, test.want)
		}
	}
}

// TestShortYearDates checks the warning of a column of dates with a
// two-digit year, which is read as text.
func TestShortYearDates(t *testing.T) {
	for _, test := range []struct {
		cells []string
		warn  bool
	}{
		{[]string{"10/25/16", "11/02/17", "01/05/15", "10/25/16"}, true},
		{[]string{"25.10.16", "02.11.17", "05.01.15", "25.10.16"}, true},
		{[]string{"10/25/16", "11/02/17", "01/05", "10/25/16"}, false},
		{[]string{"10/25-16", "11/02/17", "01/05/15", "10/25/16"}, false},
		{[]string{"1.2.3", "1.2.4", "1.3.0", "1.2.3"}, false},
	} {
		f := readFrameString(t, "d\n"+strings.Join(test.cells, "\n")+"\n")
		_, warnings, err := FitEncoder(f, []string{"d"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := len(warnings) == 1 && strings.Contains(warnings[0].Message, "two-digit year")
		if got != test.warn || len(warnings) > 1 {
			t.Errorf("%q: warnings %v, want a two-digit year's: %t", test.cells, warnings, test.warn)
		}
	}
}

// TestFarOutside checks the warning of numbers beyond the training range
// by more than its width, in Transform and EncodeColumn, and the range's
// check in a saved encoder.
func TestFarOutside(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,c\n")
	for i := range 11 {
		fmt.Fprintf(&b, "%d,5\n", i)
	}
	e, _, err := FitEncoder(readFrameString(t, b.String()), []string{"x", "c"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := e.columns[0].Range; !slices.Equal(r, []float64{0, 10}) {
		t.Fatalf("range %v, want [0 10]", r)
	}
	_, warnings, err := e.Transform(readFrameString(t, "x,c\n25,500\n20,5\n-10,5\n-11,5\n"), nil)
	want := []Warning{{Column: "x", Value: "25", Rows: 2, Message: "2 rows hold values such as 25 (line 2), beyond the training values, 0 to 10, " +
		"by more than their spread: the model extrapolates there; are they in another unit or scale?"}}
	if err != nil || !slices.Equal(warnings, want) {
		t.Errorf("warnings\n%v\nwant\n%v (error %v)", warnings, want, err)
	}
	train := readFrameString(t, b.String())
	coded, err := e.WithCodes(train, nil, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, warnings, _ := coded.Transform(readFrameString(t, "x,c\n25,5\n"), nil); len(warnings) != 1 || !strings.Contains(warnings[0].Message, "not seen in training") {
		t.Errorf("a column of codes: warnings %v, want only the unseen code's", warnings)
	}
	x := mat.NewDense(2, e.Width(), nil)
	w, err := e.EncodeColumn(x, 0, []float64{5, 31}, nil)
	if err != nil || w == nil || w.Message != "row 2 holds 31, beyond the training values, 0 to 10, by more than their spread: the model extrapolates there; are they in another unit or scale?" {
		t.Errorf("EncodeColumn: warning %v, error %v", w, err)
	}
	for _, bad := range []string{`"kind":"categorical","levels":["a"],"mode":"a","range":[0,1]`, `"kind":"numeric","fill":1,"range":[2,1]`, `"kind":"numeric","fill":1,"range":[1]`} {
		var c encodedColumn
		if err := json.Unmarshal([]byte(`{"name":"x",`+bad+`}`), &c); err != nil {
			t.Fatal(err)
		}
		if err := c.check(nil); err == nil || !strings.HasPrefix(err.Error(), "range: ") {
			t.Errorf("%s: error %v, want one of the range", bad, err)
		}
	}
}

// TestGaps checks the warning of cells with no value in a column that had
// one in every training row, in Transform and EncodeColumn: the model
// reads them as the training fill, which it never met as a gap. A
// column with gaps in training (its indicator tells them) and a stray
// (warned of as one) are not gaps so.
func TestGaps(t *testing.T) {
	train := readFrameString(t, "n,b,d,c,o,g\n"+
		"1,yes,2024-01-01,x,25-34,1\n2,no,2024-01-03,y,35-44,\n3,yes,2024-01-05,x,45-54,3\n")
	e, _, err := FitEncoder(train, []string{"n", "b", "d", "c", "o", "g"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, warnings, err := e.Transform(readFrameString(t, "n,b,d,c,o,g\n"+
		"NA,,,,,\n,?,,n/a,,\nabc,yes,2024-01-02,y,25-34,\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	const tail = ", where every training row had one: read as %s; the model never met this column empty"
	want := []string{
		`column "n": 2 rows have no value (the first on line 2)` + fmt.Sprintf(tail, "the training mean, 2"),
		`column "b": 2 rows have no value (the first on line 2)` + fmt.Sprintf(tail, "the training share of true, 0.6667"),
		`column "d": 2 rows have no value (the first on line 2)` + fmt.Sprintf(tail, "the training mean date, 2024-01-03"),
		`column "c": 2 rows have no value (the first on line 2)` + fmt.Sprintf(tail, `the most frequent training level, "x"`),
		`column "o": 2 rows have no value (the first on line 2)` + fmt.Sprintf(tail, "the training mean, 35"),
	}
	var got []string
	for _, w := range warnings {
		if !strings.Contains(w.Message, "stray") {
			got = append(got, w.String())
		}
	}
	if !slices.Equal(got, want) || len(warnings) != len(want)+1 {
		t.Errorf("warnings\n%q\nwant\n%q and the stray abc", warnings, want)
	}
	x := mat.NewDense(3, e.Width(), nil)
	for _, tc := range []struct {
		name    string
		numbers []float64
		texts   []string
		want    string
	}{
		{"numbers", []float64{1, math.NaN(), math.NaN()}, nil, `column "n": 2 rows have no value (the first on row 2)` + fmt.Sprintf(tail, "the training mean, 2")},
		{"texts", nil, []string{"1", "2", " NA "}, `column "n": row 3 has no value` + fmt.Sprintf(tail, "the training mean, 2")},
		{"none", []float64{1, 2, 3}, nil, ""},
	} {
		w, err := e.EncodeColumn(x, 0, tc.numbers, tc.texts)
		if err != nil || (w == nil) != (tc.want == "") || (w != nil && w.String() != tc.want) {
			t.Errorf("%s: warning %v, error %v; want %q", tc.name, w, err, tc.want)
		}
	}
	w, err := e.EncodeColumn(x, 5, nil, []string{"", "", ""})
	if err != nil || w != nil {
		t.Errorf("gaps of a column with gaps in training: warning %v, error %v; want none", w, err)
	}
}

// TestEncodeLogMerge checks that the logs of a table's parts, encoded
// apart and merged in any order, give the warnings of the whole table:
// the counts, and the first line and value of each.
func TestEncodeLogMerge(t *testing.T) {
	train := readFrameString(t, "g,x,z,d\na,1,5,2024-01-01\nb,2,6,2024-01-02\na,3,7,2024-01-03\nb,4,8,2024-01-04\n")
	e, _, err := FitEncoder(train, []string{"g", "x", "z", "d"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Levels in another case in both parts (B and A), unseen ones (d, c);
	// dates written with the year last, strays in most rows, in both.
	// Transform reads the strays as missing in f, which the parts read
	// afresh; its last warning is the reader's, of them.
	const table = "g,x,z,d\na,1,5,2024-01-01\nB,2,6,02/01/2024\nb,90,,03/01/2024\nd,3,7,2024-01-02\nd,95,,04/01/2024\nA,2,,05/01/2024\nc,3,6,2024-01-03\n"
	_, want, err := e.Transform(readFrameString(t, table), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 7 || want[1].Value != "B" || want[1].Rows != 2 || want[2].Rows != 4 || want[3].Rows != 4 {
		t.Fatalf("the whole table's warnings %q, want 7, the second of B in 2 rows, the third and fourth of 4 dates", want)
	}
	want = want[:6]
	f := readFrameString(t, table)
	parts := [][]int{{3, 4, 5, 6}, {0, 1, 2}} // the later rows first
	merged := new(EncodeLog)
	for _, rows := range parts {
		log := e.NewLog()
		if _, err := e.TransformLog(f, rows, log); err != nil {
			t.Fatal(err)
		}
		// Each part's log travels as JSON, as between machines.
		b, err := json.Marshal(log)
		if err != nil {
			t.Fatal(err)
		}
		var read EncodeLog
		if err := json.Unmarshal(b, &read); err != nil {
			t.Fatal(err)
		}
		if err := merged.Merge(&read); err != nil {
			t.Fatal(err)
		}
	}
	if got := e.Warnings(merged); !slices.Equal(got, want) {
		t.Errorf("merged warnings\n%q\nwant\n%q", got, want)
	}
	if err := merged.Merge(new(Encoder).NewLog()); err == nil {
		t.Error("merged the log of no column into one of 3")
	}
	var bad EncodeLog
	for _, b := range []string{`[{"unseen":-1}]`, `[{"alike":-1}]`, `[{"alike_line":-1}]`, `[{"strays":-1}]`, `[{"dates_line":-1}]`, `[{"rows":-1}]`} {
		if err := json.Unmarshal([]byte(`{"columns":`+b+`}`), &bad); err == nil {
			t.Errorf("read a count below 0 in %s", b)
		}
	}
	if err := json.Unmarshal([]byte(`{"place":"page","columns":[{}]}`), &bad); err == nil {
		t.Error("read a log whose rows are pages")
	}
	// A log read from elsewhere may claim far values of a column of
	// levels, which has no range: they are not worded.
	var claims EncodeLog
	if err := json.Unmarshal([]byte(`{"columns":[{"far":2,"far_line":3},{},{},{}]}`), &claims); err != nil {
		t.Fatal(err)
	}
	if got := e.Warnings(&claims); len(got) != 0 {
		t.Errorf("warnings %q of far values of column g", got)
	}
}
