package hypergraph

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

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
	if s.Kind != "" {
		b.WriteString(field("kind", s.Kind))
	}
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
