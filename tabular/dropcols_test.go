package tabular

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestKeepsDrop pins the two conditions under which a column is left
// out: the log evidence over the rows rises by more than dropNats, and the
// leave-one-out loss falls.
func TestKeepsDrop(t *testing.T) {
	for _, c := range []struct {
		name     string
		n        int
		evidence [2]float64
		loss     [2]float64
		want     bool
	}{
		{"both gain", 100, [2]float64{0.70, 0.68}, [2]float64{0.30, 0.29}, true},
		{"evidence by 0.5 nats", 25, [2]float64{0.70, 0.68}, [2]float64{0.30, 0.29}, false},
		{"evidence by 0.9 nats", 45, [2]float64{0.70, 0.68}, [2]float64{0.30, 0.29}, false},
		{"evidence falls", 100, [2]float64{0.68, 0.70}, [2]float64{0.30, 0.29}, false},
		{"leave-one-out rises", 100, [2]float64{0.70, 0.68}, [2]float64{0.29, 0.30}, false},
		{"leave-one-out tied", 100, [2]float64{0.70, 0.68}, [2]float64{0.30, 0.30}, false},
	} {
		if got := keepsDrop(c.n, c.evidence, c.loss); got != c.want {
			t.Errorf("%s: keepsDrop = %v, want %v", c.name, got, c.want)
		}
	}
}

// dropData returns n rows of d inputs uniform on [-1, 1] whose targets
// are sin(2 x0) + x1/2 and noise of deviation 0.1: the other inputs are
// noise.
func dropData(n, d int) (*mat.Dense, *mat.Dense) {
	rnd := rand.New(rand.NewPCG(4, 12))
	x, y := randomData(rnd, n, d), mat.NewDense(n, 1, nil)
	for i := range n {
		y.Set(i, 0, math.Sin(2*x.At(i, 0))+0.5*x.At(i, 1)+0.1*rnd.NormFloat64())
	}
	return x, y
}

// TestDropColumns checks that a small regression's columns of noise are
// left out and those that matter kept, a column of several inputs as
// one; and that nothing is left out of a table of more than
// dropMaxColumns columns, of more rows than the evidence ranks, of raw
// inputs or of inputs whose scale the caller set.
func TestDropColumns(t *testing.T) {
	four := []levelBlock{{0, 1}, {1, 1}, {2, 4}}
	for _, c := range []struct {
		name    string
		n, d    int
		columns []levelBlock
		s       Settings
		out     int // the least number of the noise inputs left out
	}{
		{"inputs", 80, 6, nil, Settings{}, 2},
		{"columns", 80, 6, four, Settings{}, 4},
		{"too many columns", 80, dropMaxColumns + 1, nil, Settings{}, 0},
		{"too many rows", evidenceRows + 20, 6, nil, Settings{}, 0},
		{"raw inputs", 80, 6, nil, Settings{Raw: true}, 0},
		{"inputs' scale set", 80, 6, nil, Settings{InputScale: LinearInputs}, 0},
	} {
		x, y := dropData(c.n, c.d)
		s := c.s
		s.columns = c.columns
		p, val := preparedFor(t, x, y, s)
		if _, err := shallowLoss(p, val, 1, s, nil); err != nil {
			t.Fatal(err)
		}
		var res Result
		q, err := dropColumns(p, val, 1, s, &res)
		if err != nil {
			t.Fatal(err)
		}
		if c.out == 0 {
			if res.Relevance != nil || q != p {
				t.Errorf("%s: weights %v, want none left out", c.name, res.Relevance)
			}
			continue
		}
		if res.Relevance == nil {
			t.Fatalf("%s: nothing left out, want %d of the noise inputs", c.name, c.out)
		}
		out := 0
		for j, w := range res.Relevance {
			switch {
			case j < 2 && w == minRelevance:
				t.Errorf("%s: input %d, which matters, left out", c.name, j)
			case j >= 2 && w == minRelevance:
				out++
			}
		}
		if out < c.out {
			t.Errorf("%s: %d of the noise inputs left out (weights %v), want at least %d", c.name, out, res.Relevance, c.out)
		}
		if !(q.pass.lowest(rankLoss) < p.pass.lowest(rankLoss)) {
			t.Errorf("%s: evidence %v without the noise, %v with it", c.name, q.pass.lowest(rankLoss), p.pass.lowest(rankLoss))
		}
	}
}

// TestFitDropsColumns checks that Fit leaves out a categorical column of
// noise, its levels together in one step, and keeps the inputs that matter.
func TestFitDropsColumns(t *testing.T) {
	x, y := dropData(80, 2)
	rnd := rand.New(rand.NewPCG(5, 2))
	var b strings.Builder
	b.WriteString("x0,x1,c,y\n")
	for i := range 80 {
		fmt.Fprintf(&b, "%v,%v,%c,%v\n", x.At(i, 0), x.At(i, 1), 'a'+rune(rnd.IntN(4)), y.At(i, 0))
	}
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	md, rep, err := Fit(loadFrame(t, path), []string{"y"}, Options{Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	summary := strings.Join(rep.Summary(md), "\n")
	if !strings.Contains(summary, "inputs left out as noise, weighing 0.01: c=a, c=b, c=c, c=d") {
		t.Errorf("the summary does not name the inputs left out:\n%s", summary)
	}
	// Columns left out where the relevance weights were not kept: the
	// others weigh 1, and the summary says only what was left out.
	rep.Result.Relevance = slices.Clone(rep.Result.Relevance)
	for j, v := range rep.Result.Relevance {
		if v != minRelevance {
			rep.Result.Relevance[j] = 1
		}
	}
	if summary := strings.Join(rep.Summary(md), "\n"); strings.Contains(summary, "weighed by their relevance") || !strings.Contains(summary, "left out as noise") {
		t.Errorf("weights %v, the summary:\n%s\nwant the inputs left out, and none weighed by their relevance", rep.Result.Relevance, summary)
	}
	if !strings.Contains(progress.String(), "the inputs 2 to 5 left out") {
		t.Errorf("the levels of c not left out in one step:\n%s", progress.String())
	}
	w, names := md.Fit.Relevance, md.Encoder.Names()
	if len(w) != len(names) {
		t.Fatalf("weights %v for inputs %q", w, names)
	}
	for j, name := range names {
		if out := strings.HasPrefix(name, "c="); out != (w[j] == minRelevance) {
			t.Errorf("input %s weighs %v, want left out %v (weights %v)", name, w[j], out, w)
		}
	}
}

// TestLeastRelevant checks the columns a step scores the machine
// without: the k of least slopes, least first, none left out already.
func TestLeastRelevant(t *testing.T) {
	x, y := dropData(80, 4)
	p, val := preparedFor(t, x, y, Settings{})
	if _, err := shallowLoss(p, val, 1, Settings{}, nil); err != nil {
		t.Fatal(err)
	}
	cols := columnBlocks([]int{1, 1, 1, 1})
	w := []float64{1, 1, 1, 1}
	slopes := passSlopes(t, p.pass)
	for _, c := range []struct {
		name string
		out  int // an input left out, -1 for none
		k    int
	}{
		{"two", -1, 2},
		{"all", -1, 4},
		{"one left out", 2, 2},
	} {
		w := slices.Clone(w)
		if c.out >= 0 {
			w[c.out] = minRelevance
		}
		got := leastRelevant(p.pass, cols, w, c.k)
		left := c.k
		if c.out >= 0 {
			left = min(c.k, 3)
		}
		if len(got) != left {
			t.Fatalf("%s: columns %v, want %d", c.name, got, left)
		}
		for i, j := range got {
			if j == c.out {
				t.Errorf("%s: column %d, left out, among %v", c.name, j, got)
			}
			if i > 0 && slopes[j] < slopes[got[i-1]] {
				t.Errorf("%s: columns %v not in the order of their slopes %v", c.name, got, slopes)
			}
		}
		if c.out < 0 && c.k == 2 && !(got[0] >= 2 && got[1] >= 2) {
			t.Errorf("%s: columns %v, want the noise inputs 2 and 3 (slopes %v)", c.name, got, slopes)
		}
	}
}
