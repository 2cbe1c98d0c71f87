package kernel

import (
	"encoding/json"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// FuzzMachineJSON feeds the model decoder arbitrary bytes: it must
// either refuse them or return a machine that predicts and encodes back
// to the same JSON. The seed corpus is in testdata/fuzz/FuzzMachineJSON.
func FuzzMachineJSON(f *testing.F) {
	f.Add([]byte(`{"dims":[1,1],"kernel":"additive","bandwidth":1,"a":[[1],[0.5]],"c":[[2]],"anchors":[[0]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Machine
		if err := json.Unmarshal(data, &m); err != nil || m.A == nil {
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
		var back Machine
		if err := json.Unmarshal(again, &back); err != nil {
			t.Fatalf("machine does not read back: %v\n%s", err, again)
		}
		if twice, _ := json.Marshal(&back); string(twice) != string(again) {
			t.Fatalf("JSON changed on a round trip:\n%s\n%s", again, twice)
		}
	})
}
