package finite

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/parametric-machines/machines/ad"
)

// FuzzDecode feeds the machine decoder arbitrary bytes: it must refuse
// them with an error, never panic or allocate more than the file's values
// call for, or return a machine that encodes back to a file decoding to
// the same weights. The seed corpus, in testdata/fuzz/FuzzDecode, holds a
// saved machine of each kind.
func FuzzDecode(f *testing.F) {
	rnd := rand.New(rand.NewPCG(1, 2))
	dense, _ := NewDense[float64]([]int{2, 1}, ad.Tanh, rnd)
	conv, _ := NewConv[float64]([]int{1, 2}, ad.ReLU, []int{1, 1}, rnd)
	recur, _ := NewRecur[float64]([]int{1, 1}, ad.Sigmoid, 1, 2, rnd)
	for _, m := range []*Machine[float64]{dense, conv, recur} {
		var b bytes.Buffer
		if err := m.Encode(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode[float64](bytes.NewReader(data))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := m.Encode(&b); err != nil {
			t.Fatalf("a decoded machine does not encode: %v", err)
		}
		back, err := Decode[float64](&b)
		if err != nil {
			t.Fatalf("an encoded machine does not decode: %v\n%s", err, b.Bytes())
		}
		if !slices.Equal(back.W.Data, m.W.Data) || !slices.Equal(back.WeightShape(), m.WeightShape()) {
			t.Fatal("the weight changed in a round trip")
		}
	})
}
