package finite

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/internal/jsonfile"
)

// FileKind and Version are the "kind" and "version" of a saved machine
// in the module's envelope ("format": "machines"). Format is the
// "format" of the machines saved before the envelope (version 1, whose
// "kind" was the machine's), which Decode reads too.
const (
	FileKind = "finite-machine"
	Version  = 2
	Format   = "machines-finite-machine"
)

// fileFormat reads saved machines of every version up to Version.
var fileFormat = jsonfile.Format{Name: jsonfile.Envelope, Kind: FileKind, What: "a saved finite machine",
	Oldest: 1, Newest: Version, Legacy: Format, LegacyNewest: 1}

// file is the saved form of a machine.
type file struct {
	jsonfile.Header
	// Machine is the machine's kind: dense, conv or recur (in version 1,
	// Kind).
	Machine     string    `json:"machine"`
	Dims        []int     `json:"dims"`
	Activation  string    `json:"activation"`
	Pad         []int     `json:"pad,omitempty"`
	TimeBlock   int       `json:"timeblock,omitempty"`
	WeightShape []int     `json:"weight_shape"`
	Weight      []float64 `json:"weight"`
	Scale       []float64 `json:"scale,omitempty"`
}

// Encode writes the machine as JSON: "format", "kind" and "version" (see
// FileKind), the "machine" (dense, conv or recur), "dims", the "activation" by name, "pad" and
// "timeblock" where the kind has them, the "weight_shape" and the
// "weight" in row-major order, and the "scale" if the machine learns
// one: D values, or D x P in row-major order for a scaling per entry.
func (m *Machine[T]) Encode(w io.Writer) error {
	f := file{Header: fileFormat.Header(), Machine: m.kind.String(), Dims: m.dims, Activation: m.sigma.String(),
		Pad: m.pad, TimeBlock: m.timeblock, WeightShape: m.W.Shape, Weight: toFloat64(m.W.Data)}
	if m.Scale != nil {
		f.Scale = toFloat64(m.Scale.Data)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(f)
}

// Save writes the machine to path as Encode does, atomically: a
// temporary file renamed into place.
func (m *Machine[T]) Save(path string) error {
	return atomicfile.WriteFile(path, m.Encode)
}

// Decode reads a machine that Encode wrote.
func Decode[T Float](r io.Reader) (*Machine[T], error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("finite: reading a machine: %w", err)
	}
	var f file
	if err := fileFormat.Decode(data, &f); err != nil {
		return nil, fmt.Errorf("finite: %w", err)
	}
	if f.Format == Format {
		f.Machine = f.Kind
	}
	sigma := ad.Activation(f.Activation)
	if err := sigma.Check(); err != nil {
		return nil, fmt.Errorf("finite: %w", err)
	}
	// The machine's weight is allocated from its dims and pad: check
	// first that the file holds that many values, so that a corrupt file
	// cannot ask for more memory than its own size.
	if !weightFits(f.Machine, f.Dims, f.Pad, len(f.Weight)) {
		return nil, fmt.Errorf("%w: saved %s machine with dims %v and pad %v has %d weight values, not the number they call for",
			ErrShape, f.Machine, f.Dims, f.Pad, len(f.Weight))
	}
	var m *Machine[T]
	switch f.Machine {
	case "dense":
		m, err = NewDense[T](f.Dims, sigma, nil)
	case "conv":
		m, err = NewConv[T](f.Dims, sigma, f.Pad, nil)
	case "recur":
		if len(f.Pad) != 1 {
			return nil, fmt.Errorf("finite: recurrent machine with pad %v, want one entry", f.Pad)
		}
		m, err = NewRecur[T](f.Dims, sigma, f.Pad[0], f.TimeBlock, nil)
	default:
		return nil, fmt.Errorf("finite: unknown machine kind %q", f.Machine)
	}
	if err != nil {
		return nil, err
	}
	if !slices.Equal(f.WeightShape, m.WeightShape()) || len(f.Weight) != len(m.W.Data) {
		return nil, fmt.Errorf("%w: saved %s machine with dims %v has a weight of shape %v and %d values, want shape %v",
			ErrShape, f.Machine, f.Dims, f.WeightShape, len(f.Weight), m.WeightShape())
	}
	for i, x := range f.Weight {
		m.W.Data[i] = T(x)
	}
	if f.Scale != nil {
		d := m.Size()
		if len(f.Scale) == 0 || len(f.Scale)%d != 0 {
			return nil, fmt.Errorf("%w: saved scaling of %d values for %d channels, want a multiple of %d", ErrShape, len(f.Scale), d, d)
		}
		m.Scale = ad.NewTensor[T](d)
		if pos := len(f.Scale) / d; pos > 1 {
			m.Scale = ad.NewTensor[T](d, pos)
		}
		for i, x := range f.Scale {
			m.Scale.Data[i] = T(x)
		}
	}
	return m, nil
}

// weightFits reports whether a machine of the given kind, dims and pad
// has exactly n weights, computing their number without overflow. Kinds
// and sizes that Decode or the constructors refuse (blocks or pads below
// 1) report true and are left to them.
func weightFits(kind string, dims, pad []int, n int) bool {
	factors := []int{0, 0} // D, D
	for _, d := range dims {
		if d < 1 || d > n {
			return d < 1
		}
		factors[0] += d
	}
	factors[1] = factors[0]
	for _, p := range pad {
		if p > n {
			return false // a kernel wider than the values, and no overflow below
		}
	}
	switch kind {
	case "dense":
	case "conv":
		for _, p := range pad {
			factors = append(factors, 2*p+1)
		}
	case "recur":
		for _, p := range pad {
			factors = append(factors, p+1)
		}
	default:
		return true // Decode names the unknown kind
	}
	size := 1
	for _, k := range factors {
		if k < 1 {
			return true
		}
		if k > n || size > n/k {
			return false
		}
		size *= k
	}
	return size == n
}

// Load reads a machine that Save wrote.
func Load[T Float](path string) (*Machine[T], error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("finite: %w", err)
	}
	defer f.Close()
	m, err := Decode[T](f)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return m, nil
}

func toFloat64[T Float](x []T) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}
