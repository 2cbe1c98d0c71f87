package serve

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	rtmetrics "runtime/metrics"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/model"
)

// memoryModels saves into dir a model of each kind the package serves,
// and returns their names with the shape of a request to each: finite
// dense, 1-D and 2-D convolutional and recurrent machines, a composed
// model, and the test model (whose memory is measured on a sample). The
// requests take megabytes: the runtime counts allocations by the span.
func memoryModels(t *testing.T, dir string) map[string][]int {
	t.Helper()
	rnd := rand.New(rand.NewPCG(3, 1))
	must := func(m *finite.Machine[float32], err error) *finite.Machine[float32] {
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for name, m := range map[string]*finite.Machine[float32]{
		"dense": must(finite.NewDense[float32]([]int{2, 30, 1}, ad.Tanh, rnd)),
		"conv":  must(finite.NewConv[float32]([]int{1, 16}, ad.Tanh, []int{1}, rnd)),
		"conv2": must(finite.NewConv[float32]([]int{1, 4}, ad.Tanh, []int{1, 1}, rnd)),
		"recur": must(finite.NewRecur[float32]([]int{1, 8}, ad.Tanh, 2, 1, rnd)),
	} {
		if err := m.Save(filepath.Join(dir, name+".json")); err != nil {
			t.Fatal(err)
		}
	}
	spec, err := hypergraph.LoadSpec(filepath.Join("..", "..", "..", "..", "hypergraph", "testdata", "unet.json"))
	if err != nil {
		t.Fatal(err)
	}
	unet, err := model.FromSpec[float32](spec, rnd)
	if err != nil {
		t.Fatal(err)
	}
	if err := unet.Save(filepath.Join(dir, "unet.json")); err != nil {
		t.Fatal(err)
	}
	writeModel(t, dir, "w", testFile{Value: 1})
	return map[string][]int{
		"dense": {3000, 2},
		"conv":  {1, 1, 20000},
		"conv2": {2, 1, 64, 64},
		"recur": {1, 1, 5000},
		"unet":  {256},
		"w":     {2000, 3},
	}
}

// TestRequestMemory checks each kind's estimate of a request's memory
// against what computing it allocates: Prepare, Infer and the response.
// The estimate must not be short, nor many times over.
func TestRequestMemory(t *testing.T) {
	s, dir := newTestServer(t, Config{}, nil)
	shapes := memoryModels(t, dir)
	if err := s.models.scan(); err != nil {
		t.Fatal(err)
	}
	sample := []rtmetrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	allocated := func() int64 {
		rtmetrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	for name, shape := range shapes {
		t.Run(name, func(t *testing.T) {
			v, _, err := s.version(target{model: name})
			if err != nil {
				t.Fatal(err)
			}
			defer v.release()
			in := zeroInputs(v.meta.Inputs, shape)
			estimate, done, err := requestMemory(v.model, &v.meta, in, new(Rows))
			if err != nil || done {
				t.Fatal(err, done)
			}
			// A composed model's graphs are the model's own, kept from
			// request to request: one of the same size built them.
			if v.meta.Platform == "machines_model" {
				if _, err := infer(v.model, preparedRows(t, v.model, in), len(v.meta.Outputs)); err != nil {
					t.Fatal(err)
				}
			}
			// Other tests' goroutines may allocate at the same time: the
			// least of a few runs is the request's own.
			used := int64(math.MaxInt64)
			for range 5 {
				before := allocated()
				out, err := infer(v.model, preparedRows(t, v.model, in), len(v.meta.Outputs))
				if err != nil {
					t.Fatal(err)
				}
				appendResponse(nil, &response{req: &inferRequest{}, outputs: out, lo: 0, hi: shape[0]})
				used = min(used, allocated()-before)
			}
			t.Logf("%s %v: estimate %d bytes, allocated %d (%.2f times)", name, shape, estimate, used, float64(estimate)/float64(used))
			if estimate < used || estimate > 8*used {
				t.Errorf("estimate %d bytes, allocated %d", estimate, used)
			}
		})
	}
}

func preparedRows(t *testing.T, m Model, in []Tensor) *Rows {
	t.Helper()
	rows := new(Rows)
	if err := prepare(m, rows, in); err != nil {
		t.Fatal(err)
	}
	return rows
}

// zeroInputs returns inputs of zeros for specs, the first of the given
// shape, the others of shape [n, their dimensions], texts "0".
func zeroInputs(specs []TensorSpec, shape []int) []Tensor {
	var in []Tensor
	for k, spec := range specs {
		sh := append([]int{shape[0]}, spec.Shape[1:]...)
		if k == 0 {
			sh = append(sh[:1], shape[1:]...)
			for len(sh) < len(spec.Shape) {
				sh = append(sh, spec.Shape[len(sh)])
			}
		}
		t := Tensor{Name: spec.Name, Datatype: spec.Datatype, Shape: sh}
		if spec.Datatype == BYTES {
			t.Texts = make([]string, shapeSize(sh))
			for i := range t.Texts {
				t.Texts[i] = "0"
			}
		} else {
			t.Numbers = make([]float64, shapeSize(sh))
		}
		in = append(in, t)
	}
	return in
}
