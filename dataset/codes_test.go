package dataset

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestEncoderCodes encodes a numeric column by its value and its codes:
// a value not seen in training, with a warning, and a missing cell encode
// as no code at all, and EncodeColumn's numbers and texts agree with
// Transform.
func TestEncoderCodes(t *testing.T) {
	train := readFrameString(t, "school,x\n3,1\n1,2\n3,3\n7,4\nNA,5\n")
	e, _, err := FitEncoder(train, []string{"school", "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	coded, err := e.WithCodes(train, nil, []string{"school"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Width() != 3 {
		t.Fatalf("WithCodes changed its receiver: width %d, want 3", e.Width())
	}
	if got, want := coded.Names(), []string{"school", "school=1", "school=3", "school=7", "school:missing", "x"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	if got := coded.Rules()[0].Codes; !slices.Equal(got, []float64{1, 3, 7}) {
		t.Errorf("rule's codes %v, want [1 3 7]", got)
	}
	test := readFrameString(t, "school,x\n7,1\n2,1\nNA,1\n1.0,1\n")
	x, warnings, err := coded.Transform(test, nil)
	if err != nil {
		t.Fatal(err)
	}
	unseen := Warning{Column: "school", Value: "2", Rows: 1,
		Message: `1 row holds a level not seen in training, "2"; it is encoded as their values with no code`}
	if !slices.Equal(warnings, []Warning{unseen}) {
		t.Errorf("warnings %v, want %v", warnings, unseen)
	}
	checkMatrix(t, x, [][]float64{
		{7, 0, 0, 1, 0, 1},
		{2, 0, 0, 0, 0, 1}, // unseen: no code
		{3.5, 0, 0, 0, 1, 1},
		{1, 1, 0, 0, 0, 1},
	})
	numbers := []float64{7, 2, math.NaN(), 1}
	texts := []string{"7", "2", "NA", "1.0"}
	for _, cells := range []struct {
		numbers []float64
		texts   []string
	}{{numbers, nil}, {nil, texts}} {
		dst := mat.NewDense(4, coded.Width(), nil)
		dst.Copy(x)
		dst.Set(0, 2, 9) // an old value, which EncodeColumn overwrites
		w, err := coded.EncodeColumn(dst, 0, cells.numbers, cells.texts)
		if err != nil {
			t.Fatal(err)
		}
		if w == nil || *w != unseen {
			t.Errorf("EncodeColumn(numbers %v, texts %q) warns %v, want %v", cells.numbers, cells.texts, w, unseen)
		}
		if !mat.Equal(dst, x) {
			t.Errorf("EncodeColumn(numbers %v, texts %q) gives\n%v\nwant\n%v", cells.numbers, cells.texts, mat.Formatted(dst), mat.Formatted(x))
		}
	}
	data, err := json.Marshal(coded)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"codes":[1,3,7]`) {
		t.Errorf("JSON %s holds no codes [1,3,7]", data)
	}
	var back Encoder
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if y, _, err := back.Transform(test, nil); err != nil || !mat.Equal(x, y) {
		t.Errorf("decoded encoder gives %v, %v", y, err)
	}
}

// TestEncoderCodesErrors checks WithCodes's names and the codes an
// encoder file may hold.
func TestEncoderCodesErrors(t *testing.T) {
	f := readFrameString(t, "n,c\n1,a\n2,b\n")
	e, _, err := FitEncoder(f, []string{"n", "c"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"c", "z"} {
		if _, err := e.WithCodes(f, nil, []string{name}); err == nil || !strings.Contains(err.Error(), strconv.Quote(name)+" is not a numeric input column") {
			t.Errorf("WithCodes(%q): error %v", name, err)
		}
	}
	for _, test := range []struct{ name, data, msg string }{
		{"categorical codes", `{"columns":[{"name":"x","kind":"categorical","levels":["a"],"mode":"a","codes":[1]}]}`, "encoder: columns[0]: codes: present in a categorical column"},
		{"unsorted codes", `{"columns":[{"name":"x","kind":"numeric","fill":1,"codes":[2,1]}]}`, "encoder: columns[0]: codes[1]: 1 is not after 2: codes must be sorted and distinct"},
		{"repeated code", `{"columns":[{"name":"x","kind":"numeric","fill":1,"codes":[1,1]}]}`, "encoder: columns[0]: codes[1]: 1 is not after 1: codes must be sorted and distinct"},
		{"too many codes", `{"columns":[{"name":"x","kind":"numeric","fill":1,"codes":[` + manyCodes(MaxLevels+1) + `]}]}`, "encoder: columns[0]: codes: 257, more than 256"},
	} {
		t.Run(test.name, func(t *testing.T) {
			var e Encoder
			if err := json.Unmarshal([]byte(test.data), &e); err == nil || err.Error() != test.msg {
				t.Errorf("error\n%v\nwant\n%s", err, test.msg)
			}
		})
	}
}

// manyCodes writes the codes 0 to n-1 as a JSON list's items.
func manyCodes(n int) string {
	codes := make([]string, n)
	for i := range codes {
		codes[i] = strconv.Itoa(i)
	}
	return strings.Join(codes, ",")
}

// TestWithCodesFrequent keeps the MaxLevels most frequent codes, the
// lowest on a tie.
func TestWithCodesFrequent(t *testing.T) {
	var b strings.Builder
	b.WriteString("n\n")
	for v := range MaxLevels + 2 {
		b.WriteString(strconv.Itoa(v) + "\n")
	}
	b.WriteString("300\n300\n") // the most frequent, kept
	f := readFrameString(t, b.String())
	e, _, err := FitEncoder(f, []string{"n"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	coded, err := e.WithCodes(f, nil, []string{"n"})
	if err != nil {
		t.Fatal(err)
	}
	codes := coded.Rules()[0].Codes
	want := make([]float64, MaxLevels-1)
	for i := range want {
		want[i] = float64(i)
	}
	want = append(want, 300)
	if !slices.Equal(codes, want) {
		t.Errorf("codes %v, want 0 to %d and 300", codes, MaxLevels-2)
	}
}
