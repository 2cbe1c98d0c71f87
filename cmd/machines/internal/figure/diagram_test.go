package figure

import (
	"path/filepath"
	"strings"
	"testing"
)

// diagram is a small architecture: an input, three nodes and the logits,
// with conv edges of several widths and linear heads.
func diagram(title string) Diagram {
	return Diagram{Title: title,
		Nodes: []DiagramNode{{"input", 0, 0}, {"n1", 1, 0}, {"n2", 1, 1}, {"n3", 2, 1}, {"logits", 3, 0}},
		Edges: []DiagramEdge{{0, 1, "conv", 1}, {0, 2, "conv", 2}, {1, 3, "conv", 0}, {0, 3, "conv", 0.5},
			{1, 4, "linear", 0}, {2, 4, "linear", 0}, {3, 4, "linear", 0}}}
}

func TestDiagramErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		d    Diagram
		want string
	}{
		{"no nodes", Diagram{}, "no nodes"},
		{"bad edge", Diagram{Nodes: []DiagramNode{{"a", 0, 0}}, Edges: []DiagramEdge{{0, 3, "conv", 1}}}, "out of range"},
		{"negative layer", Diagram{Nodes: []DiagramNode{{"a", -1, 0}}}, "negative layer"},
	} {
		_, err := Diagrams(filepath.Join(dir, "bad"), Layout{}, tc.d)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	assertOnly(t, dir)
}
