package serve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
)

// TestHypergraphModel serves the tiny saved machine of the hypergraph
// package, y = tanh(0.5 x1 - x2 + 0.25), and the U-Net spec's machine
// (images in, images out), checking the answers against the library's
// forward pass.
func TestHypergraphModel(t *testing.T) {
	s, dir := newTestServer(t, Config{}, nil)
	copyFile(t, filepath.Join("..", "..", "hypergraph", "testdata", "tiny.machine.json"), filepath.Join(dir, "tiny.json"))
	spec, err := hypergraph.LoadSpec(filepath.Join("..", "..", "hypergraph", "testdata", "unet.json"))
	if err != nil {
		t.Fatal(err)
	}
	unet, err := hypergraph.FromSpec[float32](spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := unet.Save(filepath.Join(dir, "unet.json")); err != nil {
		t.Fatal(err)
	}
	if err := s.models.scan(); err != nil {
		t.Fatal(err)
	}

	status, body := do(t, s, "POST", "/v2/models/tiny/infer", `{"inputs":[{"name":"x","datatype":"FP32","shape":[2,2],"data":[1,2,-0.5,0.125]}]}`)
	r := decodeResponse(t, body)
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	for i, x := range [][2]float64{{1, 2}, {-0.5, 0.125}} {
		want := float64(float32(math.Tanh(0.5*x[0] - x[1] + 0.25)))
		if got := r.Outputs[0].Data[i].(float64); math.Abs(got-want) > 1e-6 {
			t.Errorf("sample %d: %v, want %v", i, got, want)
		}
	}

	_, meta := do(t, s, "GET", "/v2/models/unet", "")
	in, out := unet.Space(unet.Inputs()[0]).Shape, unet.Space(unet.Outputs()[0]).Shape
	if !strings.Contains(meta, fmt.Sprintf(`"shape":[-1,%d,%d,%d]`, in[0], in[1], in[2])) {
		t.Errorf("metadata %s for an input of shape %v", meta, in)
	}
	rnd := rand.New(rand.NewPCG(1, 1))
	x := ad.NewTensor[float32](append([]int{3}, in...)...)
	for i := range x.Data {
		x.Data[i] = float32(rnd.NormFloat64())
	}
	var g ad.Graph[float32]
	want := unet.Build(&g, unet.ParamNodesInto(&g, nil), []*ad.Node[float32]{g.Input(x)})[0].Value
	status, body = do(t, s, "POST", "/v2/models/unet/infer", tensorRequest(unet.Hypergraph().Vertices[unet.Inputs()[0]], x))
	r = decodeResponse(t, body)
	if status != 200 || fmt.Sprint(r.Outputs[0].Shape) != fmt.Sprint(append([]int{3}, out...)) {
		t.Fatalf("%d %.200s", status, body)
	}
	for i, v := range r.Outputs[0].Data {
		if float32(v.(float64)) != want.Data[i] {
			t.Fatalf("element %d: %v, the library %v", i, v, want.Data[i])
		}
	}

	status, body = do(t, s, "POST", "/v2/models/tiny/infer", `{"inputs":[{"name":"x","datatype":"FP32","shape":[1,2],"data":[1,null]}]}`)
	if status != 400 || !strings.Contains(body, `input \"x\": element 1 is null; this model takes numbers only`) {
		t.Errorf("a missing value: %d %s", status, body)
	}
}

// TestFiniteModel serves a dense and a 1-D convolutional finite machine,
// checking the answers against the library's and the refusal of signals
// shorter than the kernel.
func TestFiniteModel(t *testing.T) {
	s, dir := newTestServer(t, Config{}, nil)
	rnd := rand.New(rand.NewPCG(2, 2))
	dense, err := finite.NewDense[float32]([]int{2, 3, 1}, finite.Tanh, rnd)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := finite.NewConv[float32]([]int{1, 2, 2}, finite.Tanh, []int{1}, rnd)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]*finite.Machine[float32]{"dense": dense, "conv": conv} {
		if err := m.Save(filepath.Join(dir, name+".json")); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.models.scan(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		m     *finite.Machine[float32]
		shape []int
		meta  string
	}{
		{"dense", dense, []int{4, 2}, `"inputs":[{"name":"y0","datatype":"FP32","shape":[-1,2]}]`},
		{"conv", conv, []int{2, 1, 6}, `"inputs":[{"name":"y0","datatype":"FP32","shape":[-1,1,-1]}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, meta := do(t, s, "GET", "/v2/models/"+tc.name, ""); !strings.Contains(meta, tc.meta) {
				t.Errorf("metadata %s, want %s", meta, tc.meta)
			}
			y0 := ad.NewTensor[float32](tc.shape...)
			for i := range y0.Data {
				y0.Data[i] = float32(rnd.NormFloat64())
			}
			var g ad.Graph[float32]
			want := tc.m.Apply(&g, tc.m.Bind(&g, nil, nil), g.Input(y0), nil).Value
			status, body := do(t, s, "POST", "/v2/models/"+tc.name+"/infer", tensorRequest("y0", y0))
			r := decodeResponse(t, body)
			if status != 200 || fmt.Sprint(r.Outputs[0].Shape) != fmt.Sprint(want.Shape) {
				t.Fatalf("%d %.300s, want shape %v", status, body, want.Shape)
			}
			for i, v := range r.Outputs[0].Data {
				if float32(v.(float64)) != want.Data[i] {
					t.Fatalf("element %d: %v, the library %v", i, v, want.Data[i])
				}
			}
		})
	}
	status, body := do(t, s, "POST", "/v2/models/conv/infer", `{"inputs":[{"name":"y0","datatype":"FP32","shape":[1,1,2],"data":[1,2]}]}`)
	if status != 400 || !strings.Contains(body, "shorter than the kernel") {
		t.Errorf("a signal shorter than the kernel: %d %s", status, body)
	}
}

// tensorRequest returns an inference request of one FP32 input.
func tensorRequest(name string, x *ad.Tensor[float32]) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"inputs":[{"name":%q,"datatype":"FP32","shape":%s,"data":[`, name, strings.ReplaceAll(fmt.Sprint(x.Shape), " ", ","))
	for i, v := range x.Data {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, v)
	}
	b.WriteString("]}]}")
	return b.String()
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
