package tabular

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/internal/budget"
	"github.com/parametric-machines/machines/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestSizeFitSelection checks that sizeFit counts the fits of the
// selection that kernel runs: it mirrors kernel's plan, and must follow
// it when the plan changes.
func TestSizeFitSelection(t *testing.T) {
	for _, rows := range []int{36, 450} {
		rnd := rand.New(rand.NewPCG(1, 1))
		x, y := mat.NewDense(rows, 2, nil), mat.NewDense(rows, 1, nil)
		for i := range rows {
			x.Set(i, 0, rnd.Float64())
			x.Set(i, 1, rnd.Float64())
			y.Set(i, 0, x.At(i, 0)-x.At(i, 1))
		}
		s := kernel.Settings{Costs: []float64{0.01, 0.1}, Bandwidths: []float64{1, 2}, MaxIter: 5}
		_, res, err := kernel.FitRegression(x, y, s)
		if err != nil {
			t.Fatal(err)
		}
		sel := res.Selection
		if got, want := sizeFit(rows, 2, 1, s).selection, len(sel.Candidates)*sel.Folds*sel.Repeats; got != want {
			t.Errorf("%d rows: sizeFit counts %d fits of the selection, kernel ran %d", rows, got, want)
		}
	}
}

// TestSizeFitWide checks that the time of a fit on a table of 20 rows
// and a million columns or more grows like the columns: each fit works on
// the rows' coordinates in their span, and finding that span, their Gram
// matrix, is all that grows with the columns.
func TestSizeFitWide(t *testing.T) {
	one, two := sizeFit(20, 1e6, 1, kernel.Settings{}), sizeFit(20, 2e6, 1, kernel.Settings{})
	if ratio := two.seconds / one.seconds; math.Abs(ratio-2) > 0.1 {
		t.Errorf("twice the columns: %v times the time (%v s, then %v s), want about 2", ratio, one.seconds, two.seconds)
	}
}

func TestCheckFitSize(t *testing.T) {
	// The selection's fits run on every core: the estimates below are
	// those of two.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	if runtime.GOOS == "linux" {
		if _, ok := budget.Available(); !ok {
			t.Error("no estimate of the available memory on Linux")
		}
	}
	for _, tc := range []struct {
		name                  string
		rows, inputs, outputs int
		s                     kernel.Settings
		fails                 bool
		want                  string // in the error, or else on stderr
	}{
		{"memory", 1000000, 10, 1, kernel.Settings{Anchors: 1000000, Costs: []float64{0.01}, Bandwidths: []float64{1}}, true,
			"the fit would need about 190 TB of memory (a machine of 7,000,100 parameters)"},
		{"time", 36, 2, 1, kernel.Settings{Starts: 1000000000}, true,
			"the fit would take about 2.2 years here (a machine of 272 parameters, 45 fits to choose its settings)"},
		{"blocks", 36, 2, 1, kernel.Settings{Dims: []int{3, 39, 1}}, true,
			"-dims 3,39,1: block 2 has 39 dimensions, but its states span at most 38"},
		{"the largest blocks", 36, 2, 1, kernel.Settings{Dims: []int{38, 38, 1}, Costs: []float64{1}, Bandwidths: []float64{1}}, false, ""},
		{"many classes", 36, 2, 50, kernel.Settings{}, false, ""},
		{"more folds than rows", 36, 2, 1, kernel.Settings{Folds: 5000}, true,
			"-folds 5000: the cross-validation runs on 36 rows; want at most 36"},
		{"more folds than the selection's rows", 20000, 2, 1, kernel.Settings{Folds: 5000}, true,
			"-folds 5000: the cross-validation runs on 400 rows; want at most 400"},
		// Fewer rows than the default folds: one fold per row.
		{"fewer rows than the default folds", 3, 2, 1, kernel.Settings{}, false, ""},
		{"no selection", 36, 2, 1, kernel.Settings{Folds: 5000, Costs: []float64{1}, Bandwidths: []float64{1}}, false, ""},
		// Fitted in the span of its 20 rows, whose coordinates the
		// optimiser sees instead of the columns: seconds, not minutes.
		{"a wide table", 20, 10000, 1, kernel.Settings{Costs: []float64{1e-4, 1e-3, 1e-2, 1e-1, 1, 10}, Bandwidths: []float64{0.5, 1, 2}}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			err := checkFitSize(tc.rows, tc.inputs, tc.outputs, tc.s, &Options{Log: func(line string) { stderr.WriteString(line + "\n") }})
			switch {
			case (err != nil) != tc.fails:
				t.Fatalf("error %v, want one: %v", err, tc.fails)
			case err != nil && !strings.Contains(err.Error(), tc.want):
				t.Errorf("error %q, want %q", err, tc.want)
			case err == nil && stderr.String() != tc.want:
				t.Errorf("stderr %q, want %q", stderr.String(), tc.want)
			}
		})
	}
}

func TestFormats(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{formatSeconds(30), "30 seconds"},
		{formatSeconds(150), "2.5 minutes"},
		{formatSeconds(3 * 86400), "3.0 days"},
		{formatSeconds(1e9), "32 years"},
		{groupDigits(100140), "100,140"},
		{groupDigits(999), "999"},
		{groupDigits(1000000000), "1,000,000,000"},
		{joinInts([]int{3, 3, 1}), "3,3,1"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
