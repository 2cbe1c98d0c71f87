package tabular

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
)

// TestShallowRows checks the rows the shallow machine chooses its
// settings on: all of them up to SelectionRows, then half of them
// between SelectionRows and shallowMaxRows, and SelectionRows for a
// basis of SelectionRows features or more and on grouped folds. Without
// forShallow's test of the split, the grouped table would choose on more
// rows; without its width, the wide one; without the fit's use of it,
// the large ones would choose on SelectionRows.
func TestShallowRows(t *testing.T) {
	for _, tc := range []struct{ n, width, want int }{
		{100, 10, 100}, {SelectionRows, 10, SelectionRows}, {2*SelectionRows - 1, 10, SelectionRows},
		{shallowMaxRows + 2, 10, shallowMaxRows/2 + 1}, {2 * shallowMaxRows, 10, shallowMaxRows},
		{10000, 10, shallowMaxRows}, {10000, SelectionRows - 1, shallowMaxRows}, {10000, SelectionRows, SelectionRows},
		{300, SelectionRows, 300},
	} {
		if got := shallowRows(tc.n, tc.width); got != tc.want {
			t.Errorf("shallowRows(%d, %d) = %d, want %d", tc.n, tc.width, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name      string
		n, inputs int
		grouped   bool
		want      int
	}{
		{"below twice SelectionRows", 2*SelectionRows - 1, 1, false, SelectionRows},
		{"half", shallowMaxRows + 2, 1, false, shallowMaxRows/2 + 1},
		{"grouped", shallowMaxRows + 2, 1, true, SelectionRows},
		{"wide", shallowMaxRows + 2, SelectionRows - ShallowAnchors, false, SelectionRows},
	} {
		rnd := rand.New(rand.NewPCG(3, 3))
		x, y := noisySine(rnd, tc.n, 0.1)
		if tc.inputs > 1 {
			wide := mat.NewDense(tc.n, tc.inputs, nil)
			for i := range tc.n {
				for j := range tc.inputs {
					wide.Set(i, j, rnd.NormFloat64())
				}
			}
			x = wide
		}
		s := Settings{Family: Shallow, Seed: 1, InputScale: LinearInputs}
		if tc.grouped {
			s.Groups = make([]int, tc.n)
			for i := range s.Groups {
				s.Groups[i] = i % 50
			}
		}
		_, res, err := FitRegression(x, y, s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Selection.Rows != tc.want {
			t.Errorf("%s: the shallow machine chose on %d of %d rows, want %d", tc.name, res.Selection.Rows, tc.n, tc.want)
		}
	}
}

// TestShallowRacesOnDeepFolds checks that the shallow machine chosen on more
// rows than the deep machine's selection races it on the deep machine's
// folds: onFolds scores it on the held-out rows of those folds, and the
// fit's selection records those scores. Without onFolds, or the fit's
// call of it, the shallow machine's scores are those of its own folds.
func TestShallowRacesOnDeepFolds(t *testing.T) {
	raceNarrow(t)
	x, y, _ := friedmanLike(5, 1000)
	s := Settings{Seed: 1, TargetScale: LinearScale, InputScale: LinearInputs}
	p, val := preparedFor(t, x, y, s)
	sval, err := val.forShallow(p.linear, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(val.rows) != SelectionRows || len(sval.rows) != 500 {
		t.Fatalf("validations of %d and %d rows, want %d and 500", len(val.rows), len(sval.rows), SelectionRows)
	}
	f, err := selectShallow(p, sval, 1, s, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.onFolds(val, sval, 0); err != nil {
		t.Fatal(err)
	}
	var losses []float64
	for i, fold := range val.folds {
		want := pickRows(p.linear.x, pick(val.rows, fold.Test))
		if !mat.Equal(f.tests[i].x, want) {
			t.Fatalf("fold %d: the held-out rows are not the deep machine's", i)
		}
		losses = append(losses, f.heldOut(i).loss)
	}
	want, _ := meanStd(losses)
	_, res, err := FitRegression(x, y, s)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Selection.ShallowRows; got != len(sval.rows) {
		t.Errorf("the selection records the shallow machine's settings chosen on %d rows, want %d", got, len(sval.rows))
	}
	if sum, want := describeSettings(res), fmt.Sprintf("on %d rows (the shallow machine's settings on %d)", SelectionRows, len(sval.rows)); !strings.Contains(sum, want) {
		t.Errorf("summary %q does not say %q", sum, want)
	}
	for _, c := range res.Selection.Candidates {
		if c.Shallow && !scalar.EqualWithinAbsOrRel(c.Loss, want, 1e-9, 1e-9) {
			t.Errorf("the fit's shallow candidate has held-out loss %g, want %g on the deep machine's folds", c.Loss, want)
		}
		if c.Shallow && math.IsNaN(c.Loss) {
			t.Errorf("the fit's shallow candidate has no loss")
		}
	}
}

// TestClassQuantileRows checks that a classifier's inputs are tried
// through their quantiles only when the shallow machine chooses on
// classQuantileRows rows or more. Without the rule, neither is tried;
// without its test of the rows, both are.
func TestClassQuantileRows(t *testing.T) {
	for _, tc := range []struct {
		n     int
		tried bool
	}{
		{2*classQuantileRows - 100, false},
		{2 * classQuantileRows, true},
	} {
		x, _, labels := friedmanLike(6, tc.n)
		_, res, err := FitClassifier(x, labels, 2, Settings{Family: Shallow, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if tried := res.InputScale != ""; tried != tc.tried {
			t.Errorf("%d rows: inputs' scale %q, want it chosen %v", tc.n, res.InputScale, tc.tried)
		}
	}
}
