package finite

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/optim"
)

// TestTrainInModel trains each kind of machine as a Layer, with a
// scaling per channel, followed by a 1x1 read-out and a bias, with Adam
// on a small regression; checks that the set holds exactly the entries
// the filtration uses; then saves and loads the layer's machine and
// checks that it computes the layer's state.
func TestTrainInModel(t *testing.T) {
	for _, c := range []struct {
		name  string
		layer Layer[float64]
		shape []int
	}{
		{"dense", Layer[float64]{Kind: Dense, Dims: []int{2, 4, 4}, Activation: ad.Tanh, Scale: ScalePerChannel}, nil},
		{"conv", Layer[float64]{Kind: Conv, Dims: []int{2, 4, 4}, Activation: ad.Tanh, Pad: []int{1}, Scale: ScalePerChannel}, []int{8}},
		{"recur", Layer[float64]{Kind: Recur, Dims: []int{2, 4, 4}, Activation: ad.Tanh, Pad: []int{2}, TimeBlock: 3, Scale: ScalePerChannel}, []int{8}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(5, 5))
			const d = 10
			// The model's parameters: the machine's, a read-out and a bias,
			// registered by name; the optimiser sees one vector.
			var ps ad.Params[float64]
			var g ad.Graph[float64]
			s := ad.NewScope(&g, &ps, "machine", rnd)
			if _, err := c.layer.Init(s, [][]int{append([]int{2}, c.shape...)}); err != nil {
				t.Fatal(err)
			}
			// A 1x1 convolution from the d channels to one, at every position.
			readout := ad.NewTensor[float64](1, d, 1, 1)
			for i := range readout.Data {
				readout.Data[i] = 0.3 * (2*rnd.Float64() - 1)
			}
			r := ps.Use(&g, "readout", readout)
			bias := ps.Use(&g, "bias", ad.NewTensor[float64](1, 1))
			if want := []string{"machine.weight", "machine.scale", "readout", "bias"}; !slices.Equal(ps.Names(), want) {
				t.Errorf("parameters %v, want %v", ps.Names(), want)
			}
			bare, err := c.layer.machine()
			if err != nil {
				t.Fatal(err)
			}
			if ps.Len() != bare.NumParams()+2*d+1 {
				t.Errorf("%d parameters, want the machine's %d, %d of scaling and read-out, and a bias", ps.Len(), bare.NumParams(), 2*d)
			}

			pos := 1
			for _, n := range c.shape {
				pos *= n
			}
			// 16 samples of 2 channels at every position; the target at a
			// position depends on the inputs there.
			const samples = 16
			x := ad.NewTensor[float64](append([]int{samples, 2}, c.shape...)...)
			y := ad.NewTensor[float64](samples*pos, 1)
			for b := range samples {
				for q := range pos {
					u, v := 2*rnd.Float64()-1, 2*rnd.Float64()-1
					x.Data[(b*2)*pos+q], x.Data[(b*2+1)*pos+q] = u, v
					y.Data[b*pos+q] = math.Sin(2*u) * v
				}
			}
			zs, err := c.layer.Apply(s, []*ad.Node[float64]{g.Input(x)})
			if err != nil {
				t.Fatal(err)
			}
			out := g.Conv2D(g.Reshape(zs[0], samples, d, 1, pos), r, 0)
			loss := g.MSE(g.AddRow(g.Reshape(out, samples*pos, 1), bias), g.Input(y))
			adam := &optim.Adam{LR: 0.02}
			first := loss.Scalar()
			for range 300 {
				g.Forward()
				g.Backward(loss)
				adam.Step(ps.Values(), ps.Grads())
			}
			g.Forward()
			if last := loss.Scalar(); !(last < first/3) {
				t.Errorf("loss from %v to %v, want a third or less", first, last)
			}

			m, err := c.layer.Machine(&ps, "machine")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "m.json")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			l, err := Load[float64](path)
			if err != nil {
				t.Fatal(err)
			}
			var g1 ad.Graph[float64]
			z1 := applyBound(&g1, l, g1.Input(x), nil).Value
			for i := range z1.Data {
				if z1.Data[i] != zs[0].Value.Data[i] {
					t.Fatalf("loaded machine differs from the layer at %d: %v, %v", i, z1.Data[i], zs[0].Value.Data[i])
				}
			}
		})
	}
}

// TestSaveScalePerEntry saves and loads a machine with a scaling per
// entry: the loaded machine has its shape and computes the same state.
func TestSaveScalePerEntry(t *testing.T) {
	rnd := rand.New(rand.NewPCG(6, 6))
	m, err := NewConv[float64]([]int{1, 2, 2}, ad.Tanh, []int{1}, rnd)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LearnScale(5); err != nil {
		t.Fatal(err)
	}
	for i := range m.Scale.Data {
		m.Scale.Data[i] = 0.5 + rnd.Float64()
	}
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	saved := buf.String()
	l, err := Decode[float64](&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.Scale.Shape, []int{5, 5}) {
		t.Fatalf("loaded scaling of shape %v, want [5 5]", l.Scale.Shape)
	}
	x := randTensor(rnd, 1, 1, 5*3)
	s1, _ := m.NewSolver(5)
	s2, _ := l.NewSolver(5)
	_, z1 := s1.Forward(x, nil)
	_, z2 := s2.Forward(x, nil)
	if !slices.Equal(z1.Data, z2.Data) {
		t.Errorf("loaded machine computes %v, want %v", z2.Data, z1.Data)
	}
	// 7 more values make 32, not a multiple of the 5 channels.
	bad := strings.Replace(saved, `"scale": [`, `"scale": [1, 2, 3, 4, 5, 6, 7, `, 1)
	if _, err := Decode[float64](strings.NewReader(bad)); !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "32 values for 5 channels") {
		t.Errorf("scaling of a wrong length: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	m, _ := NewRecur[float64]([]int{1, 2}, ad.Tanh, 2, 2, rand.New(rand.NewPCG(1, 1)))
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	for _, c := range []struct{ name, old, new, want string }{
		{"format", `"machines"`, `"other"`, "format"},
		{"envelope kind", `"finite-machine"`, `"model"`, `kind "model"`},
		{"version", `"version": 2`, `"version": 9`, "version 9"},
		{"kind", `"recur"`, `"tree"`, "unknown machine kind"},
		{"activation", `"tanh"`, `"swish"`, "unknown activation"},
		{"dims", `"dims": [`, `"dims": [0,`, "block 0 has size 0"},
		{"timeblock", `"timeblock": 2`, `"timeblock": 0`, "timeblock 0"},
		{"weight shape", `"weight_shape": [`, `"weight_shape": [1,`, "weight of shape"},
		{"unknown field", `"machine":`, `"colour": 1, "machine":`, `unknown field "colour"`},
		{"malformed", `]`, `]}`, "invalid JSON at byte"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode[float64](strings.NewReader(strings.Replace(good, c.old, c.new, 1)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
	if _, err := Load[float64](filepath.Join(t.TempDir(), "none.json")); err == nil || !os.IsNotExist(errUnwrap(err)) {
		t.Errorf("missing file: %v", err)
	}
}

func errUnwrap(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

// TestLoadEveryVersion loads a machine saved in every version: version
// 1 before the envelope, whose "kind" was the machine's, and version 2
// in it.
func TestLoadEveryVersion(t *testing.T) {
	for _, name := range []string{"machine-v1.json", "machine-v2.json"} {
		m, err := Load[float64](filepath.Join("testdata", name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.kind != Dense || m.W.Data[6] != 0.3 {
			t.Errorf("%s: read a %v machine with weight %v", name, m.kind, m.W.Data)
		}
	}
}
