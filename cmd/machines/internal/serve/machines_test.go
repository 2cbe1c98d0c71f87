package serve

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/model"
)

// TestComposedModel serves models of package model: the saved hypergraph
// machine of an earlier version in model's testdata, y = tanh(0.5 x1 -
// x2 + 0.25), the U-Net spec's model (images in, images out) and a
// float64 model with a shortcut and a kernel-machine head, checking the
// answers against the library's.
func TestComposedModel(t *testing.T) {
	s, dir := newTestServer(t, Config{}, nil)
	copyFile(t, filepath.Join("..", "..", "..", "..", "model", "testdata", "legacy.machine.json"), filepath.Join(dir, "tiny.json"))
	spec, err := hypergraph.LoadSpec(filepath.Join("..", "..", "..", "..", "hypergraph", "testdata", "unet.json"))
	if err != nil {
		t.Fatal(err)
	}
	unet, err := model.FromSpec[float32](spec, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := unet.Save(filepath.Join(dir, "unet.json")); err != nil {
		t.Fatal(err)
	}
	head := model.New[float64](rand.New(rand.NewPCG(2, 1)))
	in := head.Input("point", 2)
	h := head.Add("dense", hypergraph.Linear[float64]{Out: []int{2}, Bias: true}, in)
	head.Into(h, "shortcut", hypergraph.Each[float64]{Kind: "identity"}, in)
	head.Add("logits", kernel.Layer[float64]{Architecture: kernel.Architecture{Dims: []int{2, 4, 3}}, Anchors: 5}, h)
	if err := head.Save(filepath.Join(dir, "head.json")); err != nil {
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

	for _, tc := range []struct {
		name, datatype string
		samples        int
		predict        func(x []float64, shape []int) ([]float64, []int)
		inShape        []int
	}{
		{"unet", FP32, 3, predictWith(unet), spaceShape(unet.Inputs())},
		{"head", FP64, 5, predictWith(head), spaceShape(head.Inputs())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, meta := do(t, s, "GET", "/v2/models/"+tc.name, "")
			wantMeta := fmt.Sprintf(`"datatype":%q,"shape":%s`, tc.datatype, strings.ReplaceAll(fmt.Sprint(append([]int{-1}, tc.inShape...)), " ", ","))
			if !strings.Contains(meta, wantMeta) || !strings.Contains(meta, `"platform":"machines_model"`) {
				t.Errorf("metadata %s, want an input with %s", meta, wantMeta)
			}
			shape := append([]int{tc.samples}, tc.inShape...)
			rnd := rand.New(rand.NewPCG(1, 1))
			x := make([]float64, product(shape))
			for i := range x {
				x[i] = float64(float32(rnd.NormFloat64()))
			}
			want, wantShape := tc.predict(x, shape)
			var input strings.Builder
			fmt.Fprintf(&input, `{"inputs":[{"name":%q,"datatype":%q,"shape":%s,"data":%s}]}`, firstInput(t, s, tc.name), tc.datatype,
				strings.ReplaceAll(fmt.Sprint(shape), " ", ","), strings.ReplaceAll(fmt.Sprint(x), " ", ","))
			status, body := do(t, s, "POST", "/v2/models/"+tc.name+"/infer", input.String())
			r := decodeResponse(t, body)
			if status != 200 || fmt.Sprint(r.Outputs[0].Shape) != fmt.Sprint(wantShape) {
				t.Fatalf("%d %.300s, want shape %v", status, body, wantShape)
			}
			for i, v := range r.Outputs[0].Data {
				got := v.(float64)
				if tc.datatype == FP32 {
					// FP32 elements are written in float32's shortest form.
					got, want[i] = float64(float32(got)), float64(float32(want[i]))
				}
				if got != want[i] {
					t.Fatalf("element %d: %v, the library %v", i, v, want[i])
				}
			}
		})
	}

	// Requests from several goroutines at once, batched together: each
	// model copy serves one batch at a time (the race detector watches),
	// and every row gets its own answer, within rounding of the batch.
	predict := predictWith(head)
	points := make([][2][]float64, 40) // a point and its output alone
	for k := range points {
		x := []float64{float64(k / 10), float64(k%10) / 10}
		want, _ := predict(x, []int{1, 2})
		points[k] = [2][]float64{x, want}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, p := range points[g*10 : (g+1)*10] {
				x, want := p[0], p[1]
				status, body := do(t, s, "POST", "/v2/models/head/infer", fmt.Sprintf(`{"inputs":[{"name":"point","datatype":"FP64","shape":[1,2],"data":[%v,%v]}]}`, x[0], x[1]))
				if status != 200 {
					t.Errorf("%d %s", status, body)
					return
				}
				for j, v := range decodeResponse(t, body).Outputs[0].Data {
					if got := v.(float64); math.Abs(got-want[j]) > 1e-12*max(1, math.Abs(want[j])) {
						t.Errorf("point %v, output %d: %v, alone %v", x, j, got, want[j])
					}
				}
			}
		}()
	}
	wg.Wait()

	status, body = do(t, s, "POST", "/v2/models/tiny/infer", `{"inputs":[{"name":"x","datatype":"FP32","shape":[1,2],"data":[1,null]}]}`)
	if status != 400 || !strings.Contains(body, `input \"x\": element 1 is null; this model takes numbers only`) {
		t.Errorf("a missing value: %d %s", status, body)
	}
}

// predictWith returns a function that computes m's first output for the
// samples x of the given shape with model.Predict, a batch of the same
// size as the server's (a power of two, or the padding would differ).
func predictWith[T ad.Float](m *model.Model[T]) func(x []float64, shape []int) ([]float64, []int) {
	return func(x []float64, shape []int) ([]float64, []int) {
		size := paddedBatch(shape[0])
		w := len(x) / shape[0]
		t := ad.NewTensor[T](append([]int{size}, shape[1:]...)...)
		for i := range size {
			r := i
			if r >= shape[0] {
				r = 0
			}
			for j := range w {
				t.Data[i*w+j] = T(x[r*w+j])
			}
		}
		y, err := m.Predict(t)
		if err != nil {
			panic(err)
		}
		k := y[0].Len() / size
		out := make([]float64, shape[0]*k)
		for i := range out {
			out[i] = float64(y[0].Data[i])
		}
		return out, append([]int{shape[0]}, y[0].Shape[1:]...)
	}
}

// spaceShape returns the shape of the first of the spaces of Inputs.
func spaceShape(_ []string, shapes [][]int) []int { return shapes[0] }

func product(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// firstInput returns the name of the model's first input, read from its
// metadata.
func firstInput(t *testing.T, s *Server, name string) string {
	t.Helper()
	_, meta := do(t, s, "GET", "/v2/models/"+name, "")
	var md struct {
		Inputs []TensorSpec `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(meta), &md); err != nil || len(md.Inputs) == 0 {
		t.Fatalf("metadata %s: %v", meta, err)
	}
	return md.Inputs[0].Name
}

// TestFiniteModel serves a dense and a 1-D convolutional finite machine,
// checking the answers for a batch against the library's solve of each
// sample alone, and the refusal of signals shorter than the kernel.
func TestFiniteModel(t *testing.T) {
	s, dir := newTestServer(t, Config{}, nil)
	rnd := rand.New(rand.NewPCG(2, 2))
	dense, err := finite.NewDense[float32]([]int{2, 3, 1}, ad.Tanh, rnd)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := finite.NewConv[float32]([]int{1, 2, 2}, ad.Tanh, []int{1}, rnd)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]*finite.Machine[float32]{"dense": dense, "conv": conv} {
		if err := m.Save(filepath.Join(dir, name+".json")); err != nil {
			t.Fatal(err)
		}
	}
	// The dense machine also in the format of the files of version 1.
	var file map[string]any
	data, err := os.ReadFile(filepath.Join(dir, "dense.json"))
	if err != nil || json.Unmarshal(data, &file) != nil {
		t.Fatal(err)
	}
	file["format"], file["version"], file["kind"] = finite.Format, 1, file["machine"]
	delete(file, "machine")
	if data, err = json.Marshal(file); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "legacy.json"), data, 0o644); err != nil {
		t.Fatal(err)
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
		{"legacy", dense, []int{2, 2}, `"inputs":[{"name":"y0","datatype":"FP32","shape":[-1,2]}]`},
		{"conv", conv, []int{3, 1, 6}, `"inputs":[{"name":"y0","datatype":"FP32","shape":[-1,1,-1]}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, meta := do(t, s, "GET", "/v2/models/"+tc.name, ""); !strings.Contains(meta, tc.meta) {
				t.Errorf("metadata %s, want %s", meta, tc.meta)
			}
			y0 := ad.NewTensor[float32](tc.shape...)
			for i := range y0.Data {
				y0.Data[i] = float32(rnd.NormFloat64())
			}
			// One sample alone: the solver's columns are its positions.
			n, w := tc.shape[0], y0.Len()/tc.shape[0]
			var want []float32
			for i := range n {
				solver, err := tc.m.NewSolver(tc.shape[2:]...)
				if err != nil {
					t.Fatal(err)
				}
				_, z := solver.Forward(ad.View(slices.Clone(y0.Data[i*w:(i+1)*w]), tc.shape[1], w/tc.shape[1]), nil)
				want = append(want, z.Data...)
			}
			status, body := do(t, s, "POST", "/v2/models/"+tc.name+"/infer", tensorRequest("y0", y0))
			r := decodeResponse(t, body)
			wantShape := append([]int{n, tc.m.Size()}, tc.shape[2:]...)
			if status != 200 || fmt.Sprint(r.Outputs[0].Shape) != fmt.Sprint(wantShape) {
				t.Fatalf("%d %.300s, want shape %v", status, body, wantShape)
			}
			for i, v := range r.Outputs[0].Data {
				if float32(v.(float64)) != want[i] {
					t.Fatalf("element %d: %v, the library %v", i, v, want[i])
				}
			}
		})
	}
	status, body := do(t, s, "POST", "/v2/models/conv/infer", `{"inputs":[{"name":"y0","datatype":"FP32","shape":[1,1,2],"data":[1,2]}]}`)
	if status != 400 || !strings.Contains(body, "shorter than the kernel") {
		t.Errorf("a signal shorter than the kernel: %d %s", status, body)
	}
}

// TestComposedLabels serves a sculpted machine of model's testdata (1x8x8
// images, 10 classes) as its file of version 1 has it, logits alone, and
// with the meta of version 2: the metadata tells how pixels are read and
// the classes, and "label" answers the class of the largest logit by
// name.
func TestComposedLabels(t *testing.T) {
	s, dir := newTestServer(t, Config{}, nil)
	old := filepath.Join("..", "..", "..", "..", "model", "testdata", "sculpt-v1.json")
	copyFile(t, old, filepath.Join(dir, "old.json"))
	m, err := model.Load[float32](old)
	if err != nil {
		t.Fatal(err)
	}
	classes := []string{"T-shirt", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"}
	m.Meta = model.Meta{Classes: map[string][]string{"logits": classes},
		Pixels: map[string]model.Pixels{"x": {Scale: model.Byte255, Channels: model.PixelChannels(1)}}}
	if err := m.Save(filepath.Join(dir, "named.json")); err != nil {
		t.Fatal(err)
	}
	if err := s.models.scan(); err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(3, 3))
	x := make([]float64, 3*64)
	for i := range x {
		x[i] = float64(float32(rnd.Float64()))
	}
	request := fmt.Sprintf(`{"inputs":[{"name":"x","datatype":"FP32","shape":[3,1,8,8],"data":%s}]}`, strings.ReplaceAll(fmt.Sprint(x), " ", ","))
	for _, tc := range []struct {
		name    string
		meta    []string
		outputs []string
	}{
		{"old", []string{`"inputs":[{"name":"x","datatype":"FP32","shape":[-1,1,8,8]}]`, `"outputs":[{"name":"logits","datatype":"FP32","shape":[-1,10]}]`},
			[]string{"logits"}},
		{"named", []string{`"inputs":[{"name":"x","datatype":"FP32","shape":[-1,1,8,8],"parameters":{"channels":["grey"],"pixel_scale":0.00392156862745098}}]`,
			`"outputs":[{"name":"logits","datatype":"FP32","shape":[-1,10]},{"name":"label","datatype":"BYTES","shape":[-1],"parameters":{"classes":["T-shirt",`},
			[]string{"logits", "label"}},
	} {
		_, meta := do(t, s, "GET", "/v2/models/"+tc.name, "")
		for _, want := range tc.meta {
			if !strings.Contains(meta, want) {
				t.Errorf("%s: metadata %s, want %s", tc.name, meta, want)
			}
		}
		status, body := do(t, s, "POST", "/v2/models/"+tc.name+"/infer", request)
		r := decodeResponse(t, body)
		if status != 200 || len(r.Outputs) != len(tc.outputs) {
			t.Fatalf("%s: %d %.300s, want outputs %q", tc.name, status, body, tc.outputs)
		}
		for k, name := range tc.outputs {
			if r.Outputs[k].Name != name {
				t.Errorf("%s: output %d is %q, want %q", tc.name, k, r.Outputs[k].Name, name)
			}
		}
		if tc.name != "named" {
			continue
		}
		for i := range 3 {
			logits := r.Outputs[0].Data[10*i : 10*i+10]
			best := 0
			for c := range logits {
				if logits[c].(float64) > logits[best].(float64) {
					best = c
				}
			}
			if got := r.Outputs[1].Data[i]; got != classes[best] {
				t.Errorf("sample %d: label %v, want %q, the class of the largest logit", i, got, classes[best])
			}
		}
	} // The label alone.
	status, body := do(t, s, "POST", "/v2/models/named/infer", strings.Replace(request, `}]}`, `}],"outputs":[{"name":"label"}]}`, 1))
	if r := decodeResponse(t, body); status != 200 || len(r.Outputs) != 1 || r.Outputs[0].Name != "label" || len(r.Outputs[0].Data) != 3 {
		t.Errorf("the label alone: %d %.300s", status, body)
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

// TestLoadReadsOnce checks that the loaders decode the bytes the server
// has read, whose hash is the model's version, and do not read the file
// again: a file gone since they were read loads.
func TestLoadReadsOnce(t *testing.T) {
	dir := t.TempDir()
	dense, err := finite.NewDense[float32]([]int{2, 3, 1}, ad.Tanh, rand.New(rand.NewPCG(1, 1)))
	if err != nil || dense.Save(filepath.Join(dir, "finite.json")) != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join("..", "..", "..", "..", "model", "testdata", "legacy.machine.json"), filepath.Join(dir, "model.json"))
	for name, kind := range map[string]Kind{"finite": FiniteKinds()[0], "model": ModelKinds()[1]} {
		path := filepath.Join(dir, name+".json")
		data, err := os.ReadFile(path)
		if err != nil || os.Remove(path) != nil {
			t.Fatal(err)
		}
		if m, err := kind.Load(path, data); err != nil || len(m.Metadata().Inputs) == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
}
