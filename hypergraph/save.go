package hypergraph

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/internal/jsonfile"
)

// The format name and version of saved machines.
const (
	MachineFormat  = "machines-hypergraph-machine"
	MachineVersion = 1
)

// machineFormat reads saved machines of every version up to MachineVersion.
var machineFormat = jsonfile.Format{Name: MachineFormat, What: "a saved hypergraph machine", Oldest: 1, Newest: MachineVersion}

// savedMachine is the content of a saved machine: the spec and the
// parameters of every hyperedge that has some, in float64 whatever the
// machine's element type.
type savedMachine struct {
	Format  string        `json:"format"`
	Version int           `json:"version"`
	Spec    *Spec         `json:"spec"`
	Params  []savedParams `json:"params"`

	byEdge map[string]savedParams // Params by edge, once checked
}

type savedParams struct {
	Edge    string        `json:"edge"`
	Tensors []savedTensor `json:"tensors"`
}

type savedTensor struct {
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

// Save writes the machine, its spec and its parameters, to path,
// replacing the file atomically. Only a machine built from a spec can be
// saved; non-finite parameters are an error.
func (m *Machine[T]) Save(path string) error {
	if m.spec == nil {
		return errors.New("hypergraph: Save: the machine was not built from a spec")
	}
	var params []savedParams
	for e, E := range m.h.Edges {
		ts := m.EdgeParams(e)
		if len(ts) == 0 {
			continue
		}
		p := savedParams{Edge: E.Name}
		for i, t := range ts {
			st := savedTensor{Shape: t.Shape, Data: make([]float64, t.Len())}
			for j, v := range t.Data {
				x := float64(v)
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return fmt.Errorf("hypergraph: Save: edge %s: parameter %d holds %v", E.Name, i, x)
				}
				st.Data[j] = x
			}
			p.Tensors = append(p.Tensors, st)
		}
		params = append(params, p)
	}
	bits := reflect.TypeFor[T]().Bits()
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		fmt.Fprintf(w, "{\n  \"format\": %q,\n  \"version\": %d,\n  \"spec\": ", MachineFormat, MachineVersion)
		if err := writeSpec(w, m.spec, "  "); err != nil {
			return err
		}
		fmt.Fprint(w, ",\n  \"params\": [")
		for i, p := range params {
			name, err := json.Marshal(p.Edge)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s\n    {\"edge\": %s, \"tensors\": [", comma(i), name)
			for j, t := range p.Tensors {
				shape, err := json.Marshal(t.Shape)
				if err != nil {
					return err
				}
				// Shortest decimal that reads back as the same value of
				// the machine's type: float32 values are not written
				// with the digits of their float64 conversion.
				buf := fmt.Appendf(nil, "%s\n      {\"shape\": %s, \"data\": [", comma(j), shape)
				for k, v := range t.Data {
					if k > 0 {
						buf = append(buf, ',')
					}
					buf = strconv.AppendFloat(buf, v, 'g', -1, bits)
				}
				if _, err := w.Write(append(buf, "]}"...)); err != nil {
					return err
				}
			}
			fmt.Fprint(w, "\n    ]}")
		}
		_, err := fmt.Fprint(w, "\n  ]\n}\n")
		return err
	})
}

// writeSpec writes s as JSON with a line per vertex and per edge, each
// line after the first starting with indent.
func writeSpec(w io.Writer, s *Spec, indent string) error {
	field := func(name string, v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err) // a Spec always marshals
		}
		return fmt.Sprintf("%s  %q: %s,\n", indent, name, b)
	}
	var b strings.Builder
	b.WriteString("{\n")
	b.WriteString(field("format", s.Format))
	b.WriteString(field("version", s.Version))
	if len(s.Inputs) > 0 {
		b.WriteString(field("inputs", s.Inputs))
	}
	if len(s.Outputs) > 0 {
		b.WriteString(field("outputs", s.Outputs))
	}
	list := func(name string, n int, item func(i int) any, last bool) {
		fmt.Fprintf(&b, "%s  %q: [", indent, name)
		for i := range n {
			v, err := json.Marshal(item(i))
			if err != nil {
				panic(err)
			}
			fmt.Fprintf(&b, "%s\n%s    %s", comma(i), indent, v)
		}
		if n > 0 {
			b.WriteString("\n" + indent + "  ")
		}
		b.WriteString("]")
		if !last {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	list("vertices", len(s.Vertices), func(i int) any { return s.Vertices[i] }, false)
	list("edges", len(s.Edges), func(i int) any { return s.Edges[i] }, true)
	b.WriteString(indent + "}")
	_, err := io.WriteString(w, b.String())
	return err
}

func comma(i int) string {
	if i > 0 {
		return ","
	}
	return ""
}

// Load reads a machine saved by Save, of any element type, into a new
// machine.
func Load[T ad.Float](path string) (*Machine[T], error) {
	sm, err := readMachine(path)
	if err != nil {
		return nil, err
	}
	m, err := FromSpec[T](sm.Spec, 0)
	if err != nil {
		return nil, inFile(path, err)
	}
	m.setParams(sm)
	return m, nil
}

// LoadParams replaces the parameters of m, which must have been built
// from a spec, with those of a machine saved by Save. The saved machine
// must have the same architecture: the same vertices with the same
// shapes and activations, the same edges with the same kinds, sources
// and targets, and the same inputs and outputs; the error names the
// first difference. On error m is unchanged.
func (m *Machine[T]) LoadParams(path string) error {
	if m.spec == nil {
		return errors.New("hypergraph: LoadParams: the machine was not built from a spec")
	}
	sm, err := readMachine(path)
	if err != nil {
		return err
	}
	if d := architectureDiff(sm.Spec, m.spec); d != "" {
		return inFile(path, fmt.Errorf("architecture differs from the machine's: %s", d))
	}
	m.setParams(sm)
	return nil
}

// readMachine reads and checks a saved machine; errors name the file.
func readMachine(path string) (*savedMachine, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("hypergraph: %w", err)
	}
	var sm savedMachine
	if err := machineFormat.Decode(data, &sm); err != nil {
		return nil, inFile(path, err)
	}
	if sm.Spec == nil {
		return nil, inFile(path, errors.New("no \"spec\""))
	}
	// The embedded spec carries its own format and version.
	spec, err := json.Marshal(sm.Spec)
	if err == nil {
		err = specFormat.Check(spec)
	}
	var c *compiled
	if err == nil {
		c, err = sm.Spec.compile()
	}
	if err != nil {
		return nil, inFile(path, fmt.Errorf("spec: %w", err))
	}
	// The parameters are checked against the spec before a machine
	// allocates them, so that a small file cannot ask for much memory.
	if sm.byEdge, err = checkParams(c, &sm); err != nil {
		return nil, inFile(path, err)
	}
	return &sm, nil
}

// checkParams checks that the saved parameters are those of the edges
// of c, in number and shape, and returns them by edge name.
func checkParams(c *compiled, sm *savedMachine) (map[string]savedParams, error) {
	byEdge := map[string]savedParams{}
	for _, p := range sm.Params {
		if _, dup := byEdge[p.Edge]; dup {
			return nil, fmt.Errorf("parameters of edge %q given twice", p.Edge)
		}
		if c.h.edge(p.Edge) < 0 {
			return nil, fmt.Errorf("parameters for edge %q, which the machine does not have", p.Edge)
		}
		byEdge[p.Edge] = p
	}
	for e, E := range c.h.Edges {
		want := c.edges[e].params
		got := byEdge[E.Name].Tensors
		if len(got) != len(want) {
			return nil, fmt.Errorf("edge %s: %d parameter tensors, want %d", E.Name, len(got), len(want))
		}
		for i, t := range got {
			if !slices.Equal(t.Shape, want[i]) || len(t.Data) != boundedSize(want[i]) {
				return nil, fmt.Errorf("edge %s: parameter %d has shape %v and %d values, want shape %v", E.Name, i, t.Shape, len(t.Data), want[i])
			}
		}
	}
	return byEdge, nil
}

// setParams copies the parameters that readMachine checked into m, whose
// architecture is that of their spec.
func (m *Machine[T]) setParams(sm *savedMachine) {
	for e, E := range m.h.Edges {
		for i, t := range m.EdgeParams(e) {
			for j, v := range sm.byEdge[E.Name].Tensors[i].Data {
				t.Data[j] = T(v)
			}
		}
	}
}

// edge returns the index of the edge with the given name, or -1.
func (h *Hypergraph) edge(name string) int {
	return slices.IndexFunc(h.Edges, func(E Edge) bool { return E.Name == name })
}

// architectureDiff describes the first difference between the
// architectures of two valid specs, or returns "" if they agree. The
// order in which vertices and edges are listed does not matter, nor
// whether inputs and outputs are given or left to their defaults.
func architectureDiff(file, mine *Spec) string {
	fc, err := file.compile()
	if err != nil {
		return err.Error()
	}
	mc, err := mine.compile()
	if err != nil {
		return err.Error()
	}
	fv, mv := vertexMap(file), vertexMap(mine)
	for _, v := range mine.Vertices {
		w, ok := fv[v.Name]
		switch {
		case !ok:
			return fmt.Sprintf("vertex %q is in the machine but not in the file", v.Name)
		case !slices.Equal(w.Shape, v.Shape):
			return fmt.Sprintf("vertex %q has shape %v in the file and %v in the machine", v.Name, w.Shape, v.Shape)
		case orIdentity(w.Activation) != orIdentity(v.Activation):
			return fmt.Sprintf("vertex %q has activation %s in the file and %s in the machine", v.Name, orIdentity(w.Activation), orIdentity(v.Activation))
		}
	}
	for _, v := range file.Vertices {
		if _, ok := mv[v.Name]; !ok {
			return fmt.Sprintf("vertex %q is in the file but not in the machine", v.Name)
		}
	}
	fe := map[string]EdgeSpec{}
	for _, e := range file.Edges {
		fe[e.Name] = e
	}
	for _, e := range mine.Edges {
		f, ok := fe[e.Name]
		switch {
		case !ok:
			return fmt.Sprintf("edge %q is in the machine but not in the file", e.Name)
		case f.Kind != e.Kind:
			return fmt.Sprintf("edge %q has kind %s in the file and %s in the machine", e.Name, f.Kind, e.Kind)
		case !slices.Equal(f.Sources, e.Sources) && !(len(f.Sources) == 0 && len(e.Sources) == 0):
			return fmt.Sprintf("edge %q has sources %v in the file and %v in the machine", e.Name, f.Sources, e.Sources)
		case !slices.Equal(f.Targets, e.Targets) && !(len(f.Targets) == 0 && len(e.Targets) == 0):
			return fmt.Sprintf("edge %q has targets %v in the file and %v in the machine", e.Name, f.Targets, e.Targets)
		}
		delete(fe, e.Name)
	}
	for _, e := range file.Edges {
		if _, ok := fe[e.Name]; ok {
			return fmt.Sprintf("edge %q is in the file but not in the machine", e.Name)
		}
	}
	names := func(c *compiled, list []int) []string {
		out := make([]string, len(list))
		for i, v := range list {
			out[i] = c.h.Vertices[v]
		}
		return out
	}
	if a, b := names(fc, fc.inputs), names(mc, mc.inputs); !slices.Equal(a, b) {
		return fmt.Sprintf("inputs are %v in the file and %v in the machine", a, b)
	}
	if a, b := names(fc, fc.outputs), names(mc, mc.outputs); !slices.Equal(a, b) {
		return fmt.Sprintf("outputs are %v in the file and %v in the machine", a, b)
	}
	return ""
}

func vertexMap(s *Spec) map[string]VertexSpec {
	m := map[string]VertexSpec{}
	for _, v := range s.Vertices {
		m[v.Name] = v
	}
	return m
}

func orIdentity(a Activation) Activation {
	if a == "" {
		return Identity
	}
	return a
}
