package tabular_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/scale"
	"github.com/parametric-machines/machines/tabular"
	"gonum.org/v1/gonum/mat"
)

func TestMachineJSONRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings tabular.Settings
		other    bool // averaged with the machine of the inputs' quantiles and a linear one
	}{
		{"additive", tabular.Settings{Dims: []int{3, 3, 3, 1}, Costs: []float64{0.001}, Bandwidths: []float64{1}, Raw: true}, false},
		{"multiplicative standardized", tabular.Settings{
			Dims: []int{2, 2, 1}, Kernel: kernel.Multiplicative, Costs: []float64{0}, Bandwidths: []float64{0.7},
		}, false},
		{"anchors", tabular.Settings{Dims: []int{3, 2, 1}, Costs: []float64{0}, Bandwidths: []float64{1}, Anchors: 5}, false},
		{"shallow", tabular.Settings{Family: tabular.Shallow}, false},
		{"quantile inputs", tabular.Settings{Family: tabular.Shallow, InputScale: tabular.QuantileInputs}, false},
		{"laplacian", tabular.Settings{Family: tabular.Shallow, InputScale: tabular.LinearInputs, ShallowKernel: tabular.LaplacianKernel}, false},
		{"averaged encodings and linear machine", tabular.Settings{Family: tabular.Shallow, InputScale: tabular.LinearInputs}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(1, 1))
			const n = 12
			x, y := mat.NewDense(n, 2, nil), mat.NewDense(n, 1, nil)
			for i := range n {
				a, b := 4*rnd.Float64(), rnd.Float64()
				x.Set(i, 0, a)
				x.Set(i, 1, b)
				y.Set(i, 0, 10*math.Sin(a)+b)
			}
			s := tc.settings
			s.Seed = 3
			s.MaxIter = 30
			m, _, err := tabular.FitRegression(x, y, s)
			if err != nil {
				t.Fatal(err)
			}
			if tc.other {
				q := s
				q.InputScale = tabular.QuantileInputs
				if m.Other, _, err = tabular.FitRegression(x, y, q); err != nil {
					t.Fatal(err)
				}
				m.OtherWeight = 0.25
				// And with the machine of the inputs as they are as a
				// third, as the linear machine is averaged.
				l := s
				l.InputScale = tabular.LinearInputs
				if m.Linear, _, err = tabular.FitRegression(x, y, l); err != nil {
					t.Fatal(err)
				}
				m.LinearWeight = 0.25
				// And the machine of the training mean, its coefficients
				// 0, as the fits of 2026-11-30 wrote it.
				if m.Mean, _, err = tabular.FitRegression(x, y, l); err != nil {
					t.Fatal(err)
				}
				m.Mean.A.Zero()
				m.Mean.C.Zero()
				m.MeanWeight = 0.25
			}
			if m.Laplacian != (s.ShallowKernel == tabular.LaplacianKernel) {
				t.Errorf("Laplacian %v for kernel %v", m.Laplacian, s.ShallowKernel)
			}
			if m.InputBlock != (s.Family == tabular.Shallow) {
				t.Errorf("input block %v for family %v", m.InputBlock, s.Family)
			}
			if (m.Quantiles != nil) != (s.InputScale == tabular.QuantileInputs) {
				t.Errorf("quantile map %v for inputs %v", m.Quantiles != nil, s.InputScale)
			}
			if (m.Range != nil) == s.Raw {
				t.Errorf("range %v for a fit with Raw %v", m.Range, s.Raw)
			}
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			// Model.Save and the machines nested in m call MarshalJSON
			// directly: its JSON must be json.Marshal's, compact.
			if direct, err := m.MarshalJSON(); err != nil || string(direct) != string(b) {
				t.Errorf("MarshalJSON gives %s (error %v), json.Marshal %s", direct, err, b)
			}
			var got tabular.Machine
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("decoding %s: %v", b, err)
			}
			q := mat.NewDense(20, 2, nil)
			for i := range 20 {
				q.Set(i, 0, 5*rnd.Float64()-0.5)
				q.Set(i, 1, rnd.Float64())
			}
			if !reflect.DeepEqual(got.Range, m.Range) {
				t.Errorf("decoded range %v, want %v", got.Range, m.Range)
			}
			want, have := m.Predict(nil, q), got.Predict(nil, q)
			for i := range 20 {
				if w, h := want.At(i, 0), have.At(i, 0); math.Float64bits(w) != math.Float64bits(h) {
					t.Errorf("prediction %d: decoded machine gives %v, original %v", i, h, w)
				}
			}
			again, err := json.Marshal(&got)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(b) {
				t.Errorf("re-encoding differs:\n%s\n%s", again, b)
			}
		})
	}
}

// validMachineJSON is a machine of one input, dims [1,1] and one anchor,
// with its input and output scalers.
const validMachineJSON = `{"dims":[1,1],"kernel":"additive","bandwidth":1,` +
	`"a":[[1],[2]],"c":[[0.5]],"anchors":[[0]],` +
	`"input":{"mean":[0],"scale":[1]},"output":{"mean":[3],"scale":[2]}}`

// TestMachineUnmarshalErrors checks the refusals of the maps around a
// machine, and that the kernel machine's own are passed on.
func TestMachineUnmarshalErrors(t *testing.T) {
	var m tabular.Machine
	if err := json.Unmarshal([]byte(validMachineJSON), &m); err != nil {
		t.Fatalf("valid machine: %v", err)
	}
	// edit replaces old by new in the valid machine.
	edit := func(old, new string) string {
		if !strings.Contains(validMachineJSON, old) {
			panic("test: " + old + " not in the valid machine")
		}
		return strings.Replace(validMachineJSON, old, new, 1)
	}
	for _, tc := range []struct {
		name, json, want string
	}{
		{"not an object", `[1,2]`, "tabular: decoding machine: the machine is a JSON array, want an object"},
		{"unknown field", edit(`"dims"`, `"extra":1,"dims"`), `unknown field "extra"`},
		{"kernel's error", edit(`[[0.5]]`, `[[0.5],[1]]`), "kernel: decoding machine: c is 2x1, want 1x1"},
		{"missing dims", edit(`"dims":[1,1],`, ``), `kernel: decoding machine: missing field "dims"`},
		{"input block", edit(`"dims"`, `"input_block":true,"dims"`), "a is 2x1, want 1x1: sum(dims) - dims[0] = 1 rows after the input block"},
		{"scaler of a string", edit(`"input":{"mean":[0],"scale":[1]}`, `"input":"x"`), `field "input" holds a JSON string`},
		{"missing scale", edit(`,"scale":[1]`, ``), `missing field "scale" in input`},
		{"input scaler length", edit(`"mean":[0]`, `"mean":[0,1]`), "input scaler has 2 means and 1 scales, want 1, one per input"},
		{"output zero scale", edit(`"scale":[2]`, `"scale":[0]`), "output.scale[0] is 0"},
		{"output scaler huge", edit(`"mean":[3]`, `"mean":[-1e400]`), "output.mean[0] is -1e400, too large"},
		{"range count", edit(`"input":`, `"range":[[0,1],[0,1]],"input":`), "range has 2 pairs of bounds, want 1, one per output"},
		{"range reversed", edit(`"input":`, `"range":[[1,0]],"input":`), "range[0] is [1 0], want two finite numbers, the lower first"},
		{"range of three", edit(`"input":`, `"range":[[0,1,2]],"input":`), "range has rows of 3 numbers, want 2"},
		{"range string", edit(`"input":`, `"range":[[0,"x"]],"input":`), `range[0][1] is "x", want a number`},
		{"range empty", edit(`"input":`, `"range":[],"input":`), "range has no rows"},
		{"quantiles of another width", edit(`"input":`, `"quantiles":{"knots":[null,null],"ranks":[null,null]},"input":`), "quantiles: 2 knot lists and 2 rank lists for 1 columns"},
		{"quantile knots unordered", edit(`"input":`, `"quantiles":{"knots":[[2,1]],"ranks":[[0.2,0.8]]},"input":`), "quantiles: column 0: knot 1 (1)"},
		{"quantile rank string", edit(`"input":`, `"quantiles":{"knots":[[1,2]],"ranks":[[0.2,"x"]]},"input":`), `quantiles.ranks[0][1] is "x", want a number`},
		{"quantiles without ranks", edit(`"input":`, `"quantiles":{"knots":[[1,2]]},"input":`), `missing field "knots" or "ranks" in quantiles`},
		{"sum of another width", edit(`"input":`, `"sum":[{"dims":[2,1],"kernel":"additive","bandwidth":1,"a":[[1,0],[0,1],[1,1]],"c":[[1]],"anchors":[[0,0]]}],"input":`), "sum[0] has 2 inputs and 1 outputs, want 1 and 1"},
		{"sum's kernel error", edit(`"input":`, `"sum":[{"dims":[1,1],"kernel":"additive","bandwidth":1,"a":[[1]],"c":[[1]],"anchors":[[0]]}],"input":`), "tabular: decoding machine: sum[0]: kernel: decoding machine: a is 1x1, want 2x1"},
		{"sum of null", edit(`"input":`, `"sum":[null],"input":`), "sum[0]"},
		{"other of another width", edit(`"input":`, `"other":{"dims":[2,1],"kernel":"additive","bandwidth":1,"a":[[1,0],[0,1],[1,1]],"c":[[1]],"anchors":[[0,0]]},"other_weight":0.25,"input":`), "other has 2 inputs and 1 outputs, want 1 and 1"},
		{"other's kernel error", edit(`"input":`, `"other":{"dims":[1,1],"kernel":"additive","bandwidth":1,"a":[[1]],"c":[[1]],"anchors":[[0]]},"other_weight":0.25,"input":`), "tabular: decoding machine: other: kernel: decoding machine: a is 1x1, want 2x1"},
		{"other of null", edit(`"input":`, `"other":null,"other_weight":0.25,"input":`), "other:"},
		{"other weight alone", edit(`"input":`, `"other_weight":0.25,"input":`), `other_weight is 0.25 without an entry "other"`},
		{"other weight 0", edit(`"input":`, `"other":`+validMachineJSON+`,"input":`), "other_weight is 0, want a number between 0 and 1"},
		{"other weight 1", edit(`"input":`, `"other":`+validMachineJSON+`,"other_weight":1,"input":`), "other_weight is 1, want a number between 0 and 1"},
		{"other's other", edit(`"input":`, `"other":`+strings.Replace(validMachineJSON, `"input":`, `"other":`+validMachineJSON+`,"other_weight":0.5,"input":`, 1)+`,"other_weight":0.25,"input":`), "other has another machine of its own, want none"},
		{"linear weight alone", edit(`"input":`, `"linear_weight":0.25,"input":`), `linear_weight is 0.25 without an entry "linear"`},
		{"linear weight 1", edit(`"input":`, `"linear":`+validMachineJSON+`,"linear_weight":1,"input":`), "linear_weight is 1, want a number between 0 and 1"},
		{"linear's other", edit(`"input":`, `"linear":`+strings.Replace(validMachineJSON, `"input":`, `"other":`+validMachineJSON+`,"other_weight":0.5,"input":`, 1)+`,"linear_weight":0.25,"input":`), "linear has another machine of its own, want none"},
		{"linear's kernel error", edit(`"input":`, `"linear":{"dims":[1,1],"kernel":"additive","bandwidth":1,"a":[[1]],"c":[[1]],"anchors":[[0]]},"linear_weight":0.25,"input":`), "tabular: decoding machine: linear: kernel: decoding machine: a is 1x1, want 2x1"},
		{"mean weight alone", edit(`"input":`, `"mean_weight":0.25,"input":`), `mean_weight is 0.25 without an entry "mean"`},
		{"mean weight 1", edit(`"input":`, `"mean":`+validMachineJSON+`,"mean_weight":1,"input":`), "mean_weight is 1, want a number between 0 and 1"},
		{"mean's kernel error", edit(`"input":`, `"mean":{"dims":[1,1],"kernel":"additive","bandwidth":1,"a":[[1]],"c":[[1]],"anchors":[[0]]},"mean_weight":0.25,"input":`), "tabular: decoding machine: mean: kernel: decoding machine: a is 1x1, want 2x1"},
		{"other's maps", edit(`"input":`, `"other":`+strings.Replace(validMachineJSON, `"scale":[1]`, `"scale":[0]`, 1)+`,"other_weight":0.25,"input":`), "other: input.scale[0] is 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tabular.Machine{LogTarget: true}
			err := json.Unmarshal([]byte(tc.json), &m)
			if err == nil {
				t.Fatalf("no error decoding %s", tc.json)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if !m.LogTarget || m.Machine != nil {
				t.Errorf("failed decoding changed the machine to %+v", m)
			}
		})
	}
}

// TestMachineMarshalErrors checks that a machine whose maps do not fit
// it is not encoded.
func TestMachineMarshalErrors(t *testing.T) {
	valid := func() *tabular.Machine {
		return &tabular.Machine{Machine: &kernel.Machine{
			Architecture: kernel.Architecture{Dims: []int{1, 1}, Bandwidth: 1},
			A:            mat.NewDense(2, 1, []float64{1, 2}),
			C:            mat.NewDense(1, 1, []float64{0.5}),
			Anchors:      mat.NewDense(1, 1, []float64{0}),
		}}
	}
	for _, tc := range []struct {
		name string
		edit func(m *tabular.Machine)
		want string
	}{
		{"no kernel machine", func(m *tabular.Machine) { m.Machine = nil }, "no kernel machine"},
		{"kernel's error", func(m *tabular.Machine) { m.A = nil }, "no matrix a"},
		{"scaler", func(m *tabular.Machine) { m.Input = &scale.Scaler{Mean: []float64{0}} }, "input scaler has 1 means and 0 scales"},
		{"range", func(m *tabular.Machine) { m.Range = [][2]float64{{0, 1}, {0, 1}} }, "range has 2 pairs of bounds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := valid()
			if _, err := json.Marshal(m); err != nil {
				t.Fatalf("valid machine: %v", err)
			}
			tc.edit(m)
			_, err := json.Marshal(m)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

// FuzzMachineJSON feeds the machine decoder arbitrary bytes: it must
// either refuse them or return a machine that predicts and encodes back
// to the same JSON. The seed corpus is in testdata/fuzz/FuzzMachineJSON.
func FuzzMachineJSON(f *testing.F) {
	f.Add([]byte(validMachineJSON))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m tabular.Machine
		if err := json.Unmarshal(data, &m); err != nil || m.Machine == nil {
			return // refused, or the JSON null
		}
		y := m.Predict(nil, mat.NewDense(2, m.Inputs(), nil))
		if r, c := y.Dims(); r != 2 || c != m.Outputs() {
			t.Fatalf("prediction is %dx%d, want 2x%d", r, c, m.Outputs())
		}
		again, err := json.Marshal(&m)
		if err != nil {
			t.Fatalf("a decoded machine does not encode: %v", err)
		}
		var back tabular.Machine
		if err := json.Unmarshal(again, &back); err != nil {
			t.Fatalf("machine does not read back: %v\n%s", err, again)
		}
		if twice, _ := json.Marshal(&back); string(twice) != string(again) {
			t.Fatalf("JSON changed on a round trip:\n%s\n%s", again, twice)
		}
	})
}
