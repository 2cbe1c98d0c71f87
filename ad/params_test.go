package ad

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestParams checks registration, the packed vectors and their link to
// the graph: writing Values changes what the graph computes, and
// Backward's gradients appear in Grads.
func TestParams(t *testing.T) {
	var p Params[float64]
	var g Graph[float64]
	w := p.Use(&g, "w", Matrix(1, 2, []float64{1, 2}))
	b := p.Use(&g, "b", Matrix(1, 1, []float64{0.5}))
	x := g.Input(Matrix(2, 1, []float64{3, 4}))
	out := g.Add(g.MatMul(w, x, false, false), b) // 1*3 + 2*4 + 0.5
	loss := g.Dot(out, out)
	if got := p.Names(); !reflect.DeepEqual(got, []string{"w", "b"}) {
		t.Errorf("names %v", got)
	}
	if p.Len() != 3 {
		t.Errorf("%d parameters, want 3", p.Len())
	}
	vals := p.Values()
	if !reflect.DeepEqual(vals, []float64{1, 2, 0.5}) {
		t.Errorf("values %v, want [1 2 0.5]", vals)
	}
	vals[2] = 1.5 // through the vector, to the graph
	g.Forward()
	if out.Scalar() != 12.5 {
		t.Errorf("output %v after setting b to 1.5 through Values, want 12.5", out.Scalar())
	}
	g.Backward(loss) // d/dw = 2*12.5*x, d/db = 2*12.5
	if got := p.Grads(); !reflect.DeepEqual(got, []float64{75, 100, 25}) {
		t.Errorf("gradients %v, want [75 100 25]", got)
	}
	// A second graph reading the same parameter sees the same numbers.
	var g2 Graph[float64]
	if again := p.Use(&g2, "w", p.Value("w")); again.Value != w.Value {
		t.Error("Use of a registered parameter made another tensor")
	}
	if p.Value("none") != nil || p.Grad("none") != nil {
		t.Error("an unknown name has a value")
	}
}

func TestParamsPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(p *Params[float32])
	}{
		{"empty name", func(p *Params[float32]) { p.Add("", NewTensor[float32](1)) }},
		{"twice", func(p *Params[float32]) { p.Add("a", NewTensor[float32](1)); p.Add("a", NewTensor[float32](1)) }},
		{"after packing", func(p *Params[float32]) {
			p.Add("a", NewTensor[float32](1))
			p.Values()
			p.Add("b", NewTensor[float32](1))
		}},
		{"unknown", func(p *Params[float32]) { var g Graph[float32]; p.Node(&g, "a") }},
		{"other tensor", func(p *Params[float32]) {
			var g Graph[float32]
			p.Use(&g, "a", NewTensor[float32](1))
			p.Use(&g, "a", NewTensor[float32](1))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tc.f(new(Params[float32]))
		})
	}
}

func twoParams[T Float](w, b []T) *Params[T] {
	var p Params[T]
	p.Add("layer.w", Matrix(2, 2, w))
	p.Add("layer.b", Matrix(2, 1, b))
	return &p
}

// TestParamsSaveLoad checks that values come back exactly, in float32 as
// in float64, whatever the order of the file.
func TestParamsSaveLoad(t *testing.T) {
	dir := t.TempDir()
	p32 := twoParams([]float32{0.1, -2, 3e-20, 1}, []float32{math.MaxFloat32, 7})
	path := filepath.Join(dir, "p32.json")
	if err := p32.Save(path); err != nil {
		t.Fatal(err)
	}
	q32 := twoParams(make([]float32, 4), make([]float32, 2))
	if err := q32.Load(path); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(q32.Values(), p32.Values()) {
		t.Errorf("float32 values %v read back as %v", p32.Values(), q32.Values())
	}
	p64 := twoParams([]float64{0.1, 1.0 / 3, -1e-300, 2}, []float64{math.Pi, -0})
	var buf bytes.Buffer
	if err := p64.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte(`{"format":"machines","kind":"params","version":2,`)) {
		t.Errorf("file begins %.60s, want the envelope's header", buf.Bytes())
	}
	var q64 Params[float64] // the other order
	q64.Add("layer.b", NewTensor[float64](2, 1))
	q64.Add("layer.w", NewTensor[float64](2, 2))
	if err := q64.Decode(&buf); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(q64.Value("layer.w").Data, p64.Value("layer.w").Data) || !reflect.DeepEqual(q64.Value("layer.b").Data, p64.Value("layer.b").Data) {
		t.Error("float64 values did not read back exactly")
	}
}

func TestParamsDecodeErrors(t *testing.T) {
	// The files written before the envelope are read as its own.
	const head = `{"format":"machines-params","version":1,"params":[`
	w := `{"name":"layer.w","shape":[2,2],"data":[1,2,3,4]}`
	for _, tc := range []struct{ name, file, want string }{
		{"kind", `{"format":"machines","kind":"model","version":1}`, `kind "model", want "params"`},
		{"envelope count", `{"format":"machines","kind":"params","version":2,"params":[` + w + `]}`, "holds 1 parameters, the model 2"},
		{"format", `{"format":"machines-model","version":1}`, `format "machines-model"`},
		{"version", `{"format":"machines-params","version":9,"params":[]}`, "version 9"},
		{"count", head + w + `]}`, "holds 1 parameters, the model 2"},
		{"unknown", head + w + `,{"name":"other","shape":[2,1],"data":[1,2]}]}`, `parameter "other"`},
		{"twice", head + w + `,` + w + `]}`, `"layer.w" appears twice`},
		{"shape", head + w + `,{"name":"layer.b","shape":[1,2],"data":[1,2]}]}`, `"layer.b" has shape [1 2] in the file, [2 1]`},
		{"length", head + w + `,{"name":"layer.b","shape":[2,1],"data":[1]}]}`, "1 values in the file, want 2"},
		{"float32 range", head + w + `,{"name":"layer.b","shape":[2,1],"data":[1,1e39]}]}`, "value 1 is 1e+39, not a finite float32"},
		{"type", head + `{"name":"layer.w","shape":[2,2],"data":"x"}]}`, `field "params.data"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := twoParams([]float32{9, 9, 9, 9}, []float32{9, 9})
			err := p.Decode(strings.NewReader(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
			for _, v := range p.Values() {
				if v != 9 {
					t.Fatalf("a failed decode changed the parameters: %v", p.Values())
				}
			}
		})
	}
	// A file far larger than the parameters need is refused unread.
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, make([]byte, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	p := twoParams([]float32{9, 9, 9, 9}, []float32{9, 9})
	if err := p.Load(path); err == nil || !strings.Contains(err.Error(), "more than the") {
		t.Errorf("oversized file: %v", err)
	}
	if err := p.Load(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("missing file: %v", err)
	}
}

// FuzzParamsDecode feeds arbitrary bytes to Decode: it must refuse them
// or fill the parameters with finite values that encode back the same.
func FuzzParamsDecode(f *testing.F) {
	f.Add([]byte(`{"format":"machines-params","version":1,"params":[{"name":"layer.b","shape":[2,1],"data":[1,2]},{"name":"layer.w","shape":[2,2],"data":[1,2,3,4]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := twoParams(make([]float32, 4), make([]float32, 2))
		if p.Decode(bytes.NewReader(data)) != nil {
			return
		}
		for i, v := range p.Values() {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("value %d is %v", i, v)
			}
		}
		var buf bytes.Buffer
		if err := p.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		q := twoParams(make([]float32, 4), make([]float32, 2))
		if err := q.Decode(&buf); err != nil || !reflect.DeepEqual(q.Values(), p.Values()) {
			t.Fatalf("round trip: %v, %v against %v", err, q.Values(), p.Values())
		}
	})
}
