package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// decodeMeta is the model of the decoder's tests.
var decodeMeta = Metadata{
	Inputs: []TensorSpec{
		{Name: "a", Datatype: FP64, Shape: []int{-1, 2}},
		{Name: "b", Datatype: BYTES, Shape: []int{-1, 1}},
		{Name: "c", Datatype: FP32, Shape: []int{-1, -1}},
	},
	Outputs: []TensorSpec{{Name: "y", Datatype: FP64, Shape: []int{-1, 1}}, {Name: "z", Datatype: BYTES, Shape: []int{-1}}},
}

// A request of decodeMeta with its three inputs; tests replace parts.
const (
	inputA = `{"name":"a","datatype":"FP64","shape":[2,2],"data":[1,2.5,-3e2,null]}`
	inputB = `{"name":"b","datatype":"BYTES","shape":[2,1],"data":["x","\u00e9\n"]}`
	inputC = `{"name":"c","datatype":"FP32","shape":[2,1],"data":[[0.5],[-0]]}`
)

func TestDecodeInfer(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name    string
		body    string
		id      string
		hasID   bool
		outputs []int
		c       []float64
	}{
		{"plain", `{"inputs":[` + inputA + `,` + inputB + `,` + inputC + `]}`, "", false, nil, []float64{0.5, 0}},
		{"any order, id, parameters, outputs", ` { "outputs" : [ {"name":"z","parameters":{"p":1}}, {"name":"y"} ] ,"parameters":{"a":{"b":[1,true,null]}},
			"inputs" : [ ` + inputC + ` , ` + inputB + `, ` + inputA + ` ] , "id":"r\"1" } `, `r"1`, true, []int{1, 0}, []float64{0.5, 0}},
		{"nested data, fields in any order", `{"inputs":[` + inputA + `,` + inputB + `,{"data":[[1],[2]],"shape":[2,1],"parameters":{},"datatype":"FP32","name":"c"}]}`,
			"", false, nil, []float64{1, 2}},
		{"nested data of a matrix", `{"inputs":[` + inputA + `,` + inputB + `,{"name":"c","datatype":"FP32","shape":[2,3],"data":[[1,2,3],[4,5,6]]}]}`,
			"", false, nil, []float64{1, 2, 3, 4, 5, 6}},
		{"flat data of a matrix", `{"inputs":[` + inputA + `,` + inputB + `,{"name":"c","datatype":"FP32","shape":[2,3],"data":[1,2,3,4,5,6]}]}`,
			"", false, nil, []float64{1, 2, 3, 4, 5, 6}},
		{"empty outputs", `{"id":"","outputs":[],"inputs":[` + inputA + `,` + inputB + `,` + inputC + `]}`, "", true, nil, []float64{0.5, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var arena []float64
			req, err := decodeInfer([]byte(tc.body), &decodeMeta, 32, &arena)
			if err != nil {
				t.Fatal(err)
			}
			if string(req.id) != tc.id || req.hasID != tc.hasID || !slices.Equal(req.outputs, tc.outputs) {
				t.Errorf("id %q (%v), outputs %v; want %q (%v), %v", req.id, req.hasID, req.outputs, tc.id, tc.hasID, tc.outputs)
			}
			a, b, c := req.inputs[0], req.inputs[1], req.inputs[2]
			if a.Name != "a" || a.Datatype != FP64 || !slices.Equal(a.Shape, []int{2, 2}) ||
				!slices.EqualFunc(a.Numbers, []float64{1, 2.5, -300, nan}, sameFloat) || a.Texts != nil {
				t.Errorf("input a %+v", a)
			}
			if b.Name != "b" || !slices.Equal(b.Texts, []string{"x", "é\n"}) || b.Numbers != nil {
				t.Errorf("input b %+v", b)
			}
			if c.Name != "c" || c.Datatype != FP32 || !slices.Equal(c.Numbers, tc.c) {
				t.Errorf("input c %+v, want data %v", c, tc.c)
			}
		})
	}
}

// sameFloat is == that finds NaN equal to NaN.
func sameFloat(a, b float64) bool { return a == b || (a != a && b != b) }

// TestDecodeInferErrors checks that every malformed request is refused
// with a message that says what is wrong.
func TestDecodeInferErrors(t *testing.T) {
	ok := inputA + `,` + inputB + `,` + inputC
	req := func(inputs string) string { return `{"inputs":[` + inputs + `]}` }
	deep := strings.Repeat(`[`, 40) + strings.Repeat(`]`, 40)
	for _, tc := range []struct {
		name, body, want string
	}{
		{"empty", ``, "want an object"},
		{"not JSON", `hello`, "want an object"},
		{"array", `[1,2]`, "want an object"},
		{"truncated", `{"inputs":[` + inputA, "want ',' or ']'"},
		{"trailing data", req(ok) + `x`, "data after the request object"},
		{"NUL after the request", req(ok) + "\x00", "data after the request object"},
		{"NUL then data", req(ok) + " \x00\x01binary", "data after the request object"},
		{"unknown field", `{"inputz":[]}`, `unknown field "inputz" in the request`},
		{"field twice", `{"id":"a","id":"b"}`, `field "id" given twice`},
		{"id not a string", `{"id":7,` + req(ok)[1:], "want a string"},
		{"parameters not an object", `{"parameters":[1],` + req(ok)[1:], "want an object of parameters"},
		{"no inputs", `{}`, `no input "a"`},
		{"missing input", req(inputA + `,` + inputB), `no input "c"`},
		{"unknown input", req(ok + `,{"name":"d","datatype":"FP64","shape":[2,1],"data":[1,2]}`), `input "d": the model has no such input; it takes "a" (FP64 [-1,2])`},
		{"input twice", req(ok + `,` + inputB), `input "b" given twice`},
		{"no name", req(`{"datatype":"FP64","shape":[1,2],"data":[1,2]}`), `input 0 has no "name"`},
		{"no datatype", req(`{"name":"a","shape":[1,2],"data":[1,2]}`), `input "a" has no "datatype"`},
		{"no shape", req(`{"name":"a","datatype":"FP64","data":[1,2]}`), `input "a" has no "shape"`},
		{"no data", req(`{"name":"a","datatype":"FP64","shape":[1,2]}`), `input "a" has no "data"`},
		{"unknown tensor field", req(`{"name":"a","datatype":"FP64","shape":[1,2],"data":[1,2],"contents":1}`), `unknown field "contents" in input 0`},
		{"wrong datatype", req(`{"name":"a","datatype":"FP32","shape":[1,2],"data":[1,2]}`), `input "a": datatype "FP32", the model takes FP64`},
		{"unsupported datatype", req(`{"name":"a","datatype":"INT8","shape":[1,2],"data":[1,2]}`), `datatype "INT8"`},
		{"wrong rank", req(`{"name":"a","datatype":"FP64","shape":[2],"data":[1,2]}`), `input "a": shape [2], the model takes [-1,2]`},
		{"wrong dimension", req(`{"name":"a","datatype":"FP64","shape":[1,3],"data":[1,2,3]}`), `input "a": shape [1 3], the model takes [-1,2]`},
		{"no samples", req(`{"name":"a","datatype":"FP64","shape":[0,2],"data":[]}`), `shape [0 2] holds no samples`},
		{"zero dimension", req(`{"name":"c","datatype":"FP32","shape":[1,0],"data":[]}`), `input "c": shape [1 0]`},
		{"negative dimension", req(`{"name":"a","datatype":"FP64","shape":[-1,2],"data":[1,2]}`), "-1, want a whole number from 0"},
		{"fractional dimension", req(`{"name":"a","datatype":"FP64","shape":[1.5,2],"data":[1,2]}`), "1.5, want a whole number"},
		{"huge dimension", req(`{"name":"a","datatype":"FP64","shape":[1e12,2],"data":[1,2]}`), "1e12, want a whole number"},
		{"huge shape", req(`{"name":"a","datatype":"FP64","shape":[1099511627776,2],"data":[1,2]}`), "holds 2199023255552 elements, its data 2"},
		{"overflowing shape", req(`{"name":"c","datatype":"FP32","shape":[1099511627776,1099511627776],"data":[1]}`), "holds more elements than this server counts"},
		{"too many dimensions", req(`{"name":"a","datatype":"FP64","shape":[1,1,1,1,1,1,1,1,1],"data":[1]}`), "more than 8 dimensions"},
		{"too few data", req(`{"name":"a","datatype":"FP64","shape":[2,2],"data":[1,2,3]}`), "holds 4 elements, its data 3"},
		{"ragged rows", req(`{"name":"a","datatype":"FP64","shape":[2,2],"data":[[1,2,3],[4]]}`), "nested data must follow the shape [2 2]"},
		{"empty rows", req(`{"name":"a","datatype":"FP64","shape":[2,2],"data":[[],[],[1,2,3,4]]}`), "nested data must follow the shape [2 2]"},
		{"rows of the wrong count", req(`{"name":"a","datatype":"FP64","shape":[2,2],"data":[[1,2,3,4]]}`), "nested data must follow the shape [2 2]"},
		{"elements at two levels", req(`{"name":"a","datatype":"FP64","shape":[2,2],"data":[[1,2],3,4]}`), "nested data must follow the shape [2 2]"},
		{"too much nesting", req(`{"name":"a","datatype":"FP64","shape":[1,2],"data":[[[1,2]]]}`), "nested 3 deep for a shape of 2"},
		{"text for numbers", req(`{"name":"a","datatype":"FP64","shape":[1,2],"data":[1,"2"]}`), "holds 1 other values"},
		{"boolean for numbers", req(`{"name":"a","datatype":"FP64","shape":[1,2],"data":[1,true]}`), "holds 1 other values"},
		{"numbers for text", req(`{"name":"b","datatype":"BYTES","shape":[1,1],"data":[1]}`), "a BYTES tensor's data are strings"},
		{"object in data", req(`{"name":"a","datatype":"FP64","shape":[1,2],"data":[1,{}]}`), "an object in a tensor's data"},
		{"scalar data", req(`{"name":"a","datatype":"FP64","shape":[1,1],"data":1}`), "want the tensor's data as an array"},
		{"NaN", req(`{"name":"a","datatype":"FP64","shape":[1,2],"data":[1,NaN]}`), "want a value"},
		{"number syntax", req(`{"name":"a","datatype":"FP64","shape":[1,2],"data":[1,01]}`), "want ',' or ']'"},
		{"bare decimal point", req(`{"name":"a","datatype":"FP64","shape":[1,2],"data":[1,1.]}`), "digits after a decimal point"},
		{"bad exponent", req(`{"name":"a","datatype":"FP64","shape":[1,2],"data":[1,1e]}`), "digits in an exponent"},
		{"FP64 overflow", req(`{"name":"a","datatype":"FP64","shape":[1,2],"data":[1,1e999]}`), `input "a": element 1, 1e999, is out of the range of FP64`},
		{"FP32 overflow", req(inputA + `,` + inputB + `,{"name":"c","datatype":"FP32","shape":[2,1],"data":[1,-1e39]}`), `input "c": element 1, -1e39, is out of the range of FP32`},
		{"samples differ", req(inputA + `,` + inputB + `,{"name":"c","datatype":"FP32","shape":[1,1],"data":[1]}`), `input "c" has 1 samples, input "a" 2`},
		{"deep data", req(`{"name":"a","datatype":"FP64","shape":[1,2],"data":` + deep + `}`), "nested deeper than 32 levels"},
		{"deep parameters", `{"parameters":{"p":` + deep + `}}`, "nested deeper than 32 levels"},
		{"control character", `{"id":"a` + "\x01" + `"}`, "control character"},
		{"bad escape", `{"id":"a\x"}`, `bad escape \x`},
		{"short unicode escape", `{"id":"\u12"}`, `bad \u escape`},
		{"not UTF-8", `{"id":"` + "\xff" + `"}`, "not UTF-8"},
		{"unterminated string", `{"id":"abc`, "unterminated string"},
		{"missing colon", `{"id" "a"}`, "want ':'"},
		{"bad literal", `{"parameters":{"p":nul}}`, "want a value"},
		{"unknown output", `{"outputs":[{"name":"w"}]}`, `output "w": the model has no such output; it gives "y" (FP64 [-1,1]), "z" (BYTES [-1])`},
		{"output twice", `{"outputs":[{"name":"y"},{"name":"y"}]}`, `output "y" requested twice`},
		{"output without name", `{"outputs":[{}]}`, `a requested output has no "name"`},
		{"unknown output field", `{"outputs":[{"name":"y","shape":[1]}]}`, `unknown field "shape" in a requested output`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var arena []float64
			_, err := decodeInfer([]byte(tc.body), &decodeMeta, 32, &arena)
			var re *requestError
			if !errors.As(err, &re) || re.status != 400 || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want a 400 saying %q", err, tc.want)
			}
		})
	}
}

// TestDecodeArena checks that numbers go to the arena, which is reused
// while it is large enough, and that tensors keep their values when it
// grows.
func TestDecodeArena(t *testing.T) {
	body := []byte(`{"inputs":[` + inputA + `,` + inputB + `,` + inputC + `]}`)
	arena := make([]float64, 0, 5)
	req, err := decodeInfer(body, &decodeMeta, 32, &arena)
	if err != nil {
		t.Fatal(err)
	}
	// a's 4 numbers fit the arena; c's 2 do not: a new one holds them.
	if len(arena) != 2 || cap(arena) != 10 {
		t.Errorf("arena of length %d and capacity %d, want 2 and 10", len(arena), cap(arena))
	}
	if a := req.inputs[0].Numbers; a[0] != 1 || a[2] != -300 {
		t.Errorf("input a %v", a)
	}
	if c := req.inputs[2].Numbers; !slices.Equal(c, arena) {
		t.Errorf("input c %v, arena %v", c, arena)
	}
}

// TestUnescape checks the strings with escapes, surrogate pairs
// included, and lone surrogates, which become U+FFFD.
func TestUnescape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`a\"b\\c\/d`, `a"b\c/d`},
		{`\b\f\n\r\t`, "\b\f\n\r\t"},
		{`\u00e9\u4e2D`, "é中"},
		{`\ud83d\ude00`, "😀"},
		{`\ud83dx`, "\ufffdx"},
		{`\ude00`, "\ufffd"},
		{`\ud83d\u0041`, "\ufffdA"},
	} {
		s := scanner{data: []byte(`"` + tc.in + `"`), max: 1}
		got, err := s.str()
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// FuzzDecodeInfer checks that the decoder never panics, refuses what it
// does not accept with a 400, and accepts only valid JSON (as
// encoding/json judges it) with tensors whose data fill their shapes,
// which fit the model's. The seeds are in
// testdata/fuzz/FuzzDecodeInfer.
func FuzzDecodeInfer(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte) {
		var arena []float64
		req, err := decodeInfer(body, &decodeMeta, 32, &arena)
		if err != nil {
			var re *requestError
			if !errors.As(err, &re) || re.status != 400 {
				t.Fatalf("error %v is not a 400", err)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("accepted JSON that encoding/json finds invalid: %q", body)
		}
		rows := req.inputs[0].Shape[0]
		for k, in := range req.inputs {
			spec := decodeMeta.Inputs[k]
			size := 1
			for i, d := range in.Shape {
				if d < 1 || (spec.Shape[i] != -1 && d != spec.Shape[i]) {
					t.Fatalf("input %s: shape %v for %v", in.Name, in.Shape, spec.Shape)
				}
				size *= d
			}
			if in.Shape[0] != rows || len(in.Numbers)+len(in.Texts) != size {
				t.Fatalf("input %s: shape %v, %d numbers and %d texts", in.Name, in.Shape, len(in.Numbers), len(in.Texts))
			}
		}
	})
}

// BenchmarkDecodeInfer decodes requests of ten FP64 inputs of shape
// [rows, 1], as those of a kernel model on ten numeric columns.
func BenchmarkDecodeInfer(b *testing.B) {
	md := Metadata{Outputs: []TensorSpec{{Name: "y", Datatype: FP64, Shape: []int{-1, 1}}}}
	for j := range 10 {
		md.Inputs = append(md.Inputs, TensorSpec{Name: fmt.Sprintf("x%d", j+1), Datatype: FP64, Shape: []int{-1, 1}})
	}
	for _, rows := range []int{1, 256} {
		var inputs []string
		for j := range 10 {
			data := make([]string, rows)
			for i := range data {
				data[i] = strconv.FormatFloat(float64(i*10+j)/2561, 'g', -1, 64)
			}
			inputs = append(inputs, fmt.Sprintf(`{"name":"x%d","datatype":"FP64","shape":[%d,1],"data":[%s]}`, j+1, rows, strings.Join(data, ",")))
		}
		body := []byte(`{"inputs":[` + strings.Join(inputs, ",") + `]}`)
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			var arena []float64
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				arena = arena[:0]
				if _, err := decodeInfer(body, &md, 32, &arena); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
