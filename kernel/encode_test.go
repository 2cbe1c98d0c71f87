package kernel_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/mat"
)

// validMachineJSON is a machine of one input, dims [1,1] and one anchor.
const validMachineJSON = `{"dims":[1,1],"kernel":"additive","bandwidth":1,` +
	`"a":[[1],[2]],"c":[[0.5]],"anchors":[[0]]}`

func TestMachineUnmarshalErrors(t *testing.T) {
	var m kernel.Machine
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
		{"not an object", `[1,2]`, "the machine is a JSON array, want an object"},
		{"unknown field", edit(`"dims"`, `"extra":1,"dims"`), `unknown field "extra"`},
		{"a learner's field", edit(`"dims"`, `"log_target":true,"dims"`), `unknown field "log_target"`},
		{"missing dims", edit(`"dims":[1,1],`, ``), `missing field "dims"`},
		{"missing kernel", edit(`"kernel":"additive",`, ``), `missing field "kernel"`},
		{"missing bandwidth", edit(`"bandwidth":1,`, ``), `missing field "bandwidth"`},
		{"missing a", edit(`"a":[[1],[2]],`, ``), `missing field "a"`},
		{"missing c", edit(`"c":[[0.5]],`, ``), `missing field "c"`},
		{"missing anchors", edit(`,"anchors":[[0]]`, ``), `missing field "anchors"`},
		{"one block", edit(`[1,1]`, `[2]`), "dims [2]: need at least two blocks"},
		{"empty block", edit(`[1,1]`, `[1,0,1]`), "dims [1 0 1]: block 1 has size 0"},
		{"fractional dims", edit(`[1,1]`, `[1,1.5]`), `field "dims" holds a JSON number 1.5, want int`},
		{"unknown kernel", edit(`"additive"`, `"gaussian"`), `unknown kernel "gaussian", want "additive" or "multiplicative"`},
		{"negative bandwidth", edit(`"bandwidth":1`, `"bandwidth":-1`), "bandwidth is -1"},
		{"string bandwidth", edit(`"bandwidth":1`, `"bandwidth":"1"`), `bandwidth is "1", want a number`},
		{"a rows", edit(`[[1],[2]]`, `[[1],[2],[3]]`), "a is 3x1, want 2x1"},
		{"a empty", edit(`[[1],[2]]`, `[]`), "a has no rows"},
		{"a no columns", edit(`[[1],[2]]`, `[[],[]]`), "a has no columns"},
		{"a ragged", edit(`[[1],[2]]`, `[[1],[2,3]]`), "a is ragged: row 1 has 2 entries, row 0 has 1"},
		{"c rows", edit(`[[0.5]]`, `[[0.5],[1]]`), "c is 2x1, want 1x1"},
		{"c columns", edit(`[[0.5]]`, `[[0.5,1]]`), "c is 1x2, want 1x1"},
		{"anchors columns", edit(`"anchors":[[0]]`, `"anchors":[[0,1]]`), "anchors is 1x2, want 1x1"},
		{"too large", edit(`[[1],[2]]`, `[[1],[1e999]]`), "a[1][0] is 1e999, too large for a float64"},
		{"null entry", edit(`[[0.5]]`, `[[null]]`), "c[0][0] is null, want a number"},
		{"string entry", edit(`"anchors":[[0]]`, `"anchors":[["NaN"]]`), `anchors[0][0] is "NaN", want a number`},
		{"laplacian of two levels", edit(`"dims":[1,1]`, `"laplacian":true,"dims":[1,1,1]`), "dims [1 1 1]: a Laplacian kernel needs a machine of one level"},
		{"input block a rows", edit(`"dims"`, `"input_block":true,"dims"`), "a is 2x1, want 1x1: sum(dims) - dims[0] = 1 rows after the input block"},
		{"input block dims", edit(`"dims":[1,1]`, `"input_block":true,"dims":[2,1]`), "dims [2 1]: the first block is the input itself (input_block), so it has the 1 inputs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := kernel.Machine{Architecture: kernel.Architecture{Dims: []int{7, 7}}}
			err := json.Unmarshal([]byte(tc.json), &m)
			if err == nil {
				t.Fatalf("no error decoding %s", tc.json)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if len(m.Dims) != 2 || m.Dims[0] != 7 || m.A != nil {
				t.Errorf("failed decoding changed the machine to %+v", m)
			}
		})
	}
}

// TestLaplacianMachine checks a Laplacian machine's prediction, and that
// its file keeps the kernel: read as a Gaussian it would predict
// exp(-9/8) rather than exp(-3/2) at 3.
func TestLaplacianMachine(t *testing.T) {
	const file = `{"dims":[1,1],"kernel":"additive","bandwidth":2,"a":[[1],[0]],"c":[[1]],"anchors":[[0]],"laplacian":true}`
	var m kernel.Machine
	if err := json.Unmarshal([]byte(file), &m); err != nil {
		t.Fatal(err)
	}
	for _, trip := range []string{"decoded", "encoded and decoded again"} {
		got := m.Predict(nil, mat.NewDense(1, 1, []float64{3})).At(0, 0)
		if want := math.Exp(-1.5); math.Abs(got-want) > 1e-15 {
			t.Errorf("%s: prediction %v at 3, want %v", trip, got, want)
		}
		b, err := json.Marshal(&m)
		if err != nil {
			t.Fatal(err)
		}
		m = kernel.Machine{}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMachineMarshalErrors(t *testing.T) {
	valid := func() *kernel.Machine {
		return &kernel.Machine{
			Architecture: kernel.Architecture{Dims: []int{1, 1}, Bandwidth: 1},
			A:            mat.NewDense(2, 1, []float64{1, 2}),
			C:            mat.NewDense(1, 1, []float64{0.5}),
			Anchors:      mat.NewDense(1, 1, []float64{0}),
		}
	}
	for _, tc := range []struct {
		name string
		edit func(m *kernel.Machine)
		want string
	}{
		{"no A", func(m *kernel.Machine) { m.A = nil }, "no matrix a"},
		{"NaN in C", func(m *kernel.Machine) { m.C.Set(0, 0, math.NaN()) }, "c[0][0] is NaN"},
		{"A shape", func(m *kernel.Machine) { m.A = mat.NewDense(3, 1, nil) }, "a is 3x1, want 2x1"},
		{"kernel", func(m *kernel.Machine) { m.Kernel = 5 }, "unknown kernel Combine(5)"},
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

func ExampleMachine_MarshalJSON() {
	// A machine with one input, an input block of one entry and an
	// output of one entry, and a single anchor at 0.
	m := &kernel.Machine{
		Architecture: kernel.Architecture{Dims: []int{1, 1}, Bandwidth: 1},
		A:            mat.NewDense(2, 1, []float64{1, 0.5}),
		C:            mat.NewDense(1, 1, []float64{2}),
		Anchors:      mat.NewDense(1, 1, []float64{0}),
	}
	b, err := json.Marshal(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(b))

	var back kernel.Machine
	if err := json.Unmarshal(b, &back); err != nil {
		fmt.Println(err)
		return
	}
	// 0.5*x + 2*exp(-x^2/2) at x = 0 and x = 1.
	y := back.Predict(nil, mat.NewDense(2, 1, []float64{0, 1}))
	fmt.Printf("%.6f %.6f\n", y.At(0, 0), y.At(1, 0))
	// Output:
	// {"dims":[1,1],"kernel":"additive","bandwidth":1,"a":[[1],[0.5]],"c":[[2]],"anchors":[[0]]}
	// 2.000000 1.713061
}
