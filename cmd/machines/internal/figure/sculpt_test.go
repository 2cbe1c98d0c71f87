package figure

import (
	"reflect"
	"testing"

	"github.com/parametric-machines/machines/sculpt"
)

// TestSculptDiagram draws a small architecture with an edge pruned and a
// head pruned: node 3 then has no way out and drops, with its edges, and
// the live nodes keep their columns and the rows of their resolution.
func TestSculptDiagram(t *testing.T) {
	a := sculpt.Generous(1, 8, 8, 2, 3, 2)
	got := sculptDiagram(a, "t", map[string]bool{"c2.3": true, "h3": true})
	want := Diagram{Title: "t",
		Nodes: []DiagramNode{{Label: "x"}, {Label: "n1", Layer: 1}, {Label: "n2", Layer: 2, Row: 1}, {Label: "logits", Layer: 4}},
		Edges: []DiagramEdge{{From: 0, To: 1, Kind: "conv 3x3"}, {From: 1, To: 2, Kind: "conv 3x3"}, {From: 1, To: 3, Kind: "linear head"}, {From: 2, To: 3, Kind: "linear head"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diagram\n%+v, want\n%+v", got, want)
	}
}

// TestSculpt writes the figures of a report: the architecture always, the
// path only for a run along one.
func TestSculpt(t *testing.T) {
	a := sculpt.Generous(1, 8, 8, 2, 3, 2)
	history := []sculpt.Epoch{{Pruned: []string{"h3"}}, {Pruned: []string{"c2.3"}}}
	path := []sculpt.PathPoint{{Lambda: 0.1, FLOPsLive: 900, ValidationAccuracy: 0.8, EdgesLive: 7}, {Lambda: 0.2, FLOPsLive: 500, ValidationAccuracy: 0.78, EdgesLive: 5}}
	for _, c := range []struct {
		name string
		rep  sculpt.Report
		want []string
	}{
		{"fixed", sculpt.Report{Arch: a, History: history, PrunedEdges: []string{"c2.3", "h3"}},
			[]string{"sculpt-architecture.png", "sculpt-architecture.svg"}},
		{"path", sculpt.Report{Arch: a, History: history, PrunedEdges: []string{"c2.3", "h3"}, Path: path, PathChosen: 1, PathThreshold: 0.77},
			[]string{"sculpt-architecture.png", "sculpt-architecture.svg", "sculpt-path.png", "sculpt-path.svg"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files, err := Sculpt(dir, &c.rep)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != len(c.want) {
				t.Errorf("wrote %q, want %q", files, c.want)
			}
			assertOnly(t, dir, c.want...)
		})
	}
	if _, err := Sculpt(t.TempDir(), &sculpt.Report{}); err == nil {
		t.Error("a report without its architecture drew figures")
	}
}
