package tabular

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFitOptionsRecorded checks that Options' Weight, Balance, Group,
// Time, Family and Budget reach the fit and the model's record, that
// their columns are not inputs, and that a fit keeps its intervals and
// calibration.
func TestFitOptionsRecorded(t *testing.T) {
	f := loadFrame(t, "../cmd/machines/testdata/learner_train.csv")
	for _, tc := range []struct {
		name    string
		targets []string
		opts    Options
		check   func(md *Model) bool
	}{
		{"weight", []string{"y"}, Options{Weight: "w"}, func(md *Model) bool {
			return md.Fit.Weight == "w" && md.Fit.Shallow && !slices.Contains(md.Features, "w")
		}},
		{"balance", []string{"cls"}, Options{Balance: true, Ignore: []string{"y"}}, func(md *Model) bool {
			return md.Fit.Balance && md.Fit.Shallow && md.Fit.Calibration.LogitScale > 0 && md.Intervals != nil && len(md.Intervals.Residuals) == 1
		}},
		{"group", []string{"y"}, Options{Group: "g"}, func(md *Model) bool {
			return md.Fit.Group == "g" && md.Fit.Selection.Split == "grouped" && !slices.Contains(md.Features, "g")
		}},
		{"time", []string{"y"}, Options{Time: "when"}, func(md *Model) bool {
			return md.Fit.Time == "when" && md.Fit.Selection.Split == "forward" && !slices.Contains(md.Features, "when")
		}},
		// The Gaussian's fit of this table scores every bandwidth of the
		// pass; the Laplacian's leaves columns out and scores one.
		{"shallow", []string{"y"}, Options{Family: Shallow, ShallowKernel: GaussianKernel}, func(md *Model) bool {
			return md.Fit.Shallow && len(md.Fit.Selection.Candidates) >= passBandwidths*len(shallowCosts())
		}},
		// The deep machine, whose fits the budget skips, races on this
		// table's 60 rows of 17 inputs as encoded only when raceNarrow
		// lets it: with its blocks of levels counted as one (raceInputs)
		// the rows are too many for its inputs.
		{"budget", []string{"y"}, Options{Budget: time.Nanosecond}, func(md *Model) bool {
			skipped := 0
			for _, c := range md.Fit.Selection.Candidates {
				if c.Skipped {
					skipped++
				}
			}
			return md.Fit.Budget == "1ns" && md.Fit.Shallow && skipped == len(md.Fit.Selection.Candidates)-1
		}},
		{"intervals", []string{"y"}, Options{}, func(md *Model) bool {
			return md.Version == Version && md.Intervals != nil && len(md.Intervals.Residuals) == 1 && len(md.Intervals.Residuals[0]) >= 48 &&
				len(md.Fit.Calibration.Shrinkage) == 1
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.opts.Budget > 0 {
				raceNarrow(t)
			}
			opts := tc.opts
			opts.MaxIter = 50
			md, _, err := Fit(f, tc.targets, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(md) {
				t.Errorf("the model records %+v, features %q, intervals %v", md.Fit, md.Features, md.Intervals != nil)
			}
		})
	}
}

// TestFitFixedSettings checks that a fixed cost or bandwidth is the
// fit's, never searched past, and said in the summary; that Extrapolate
// lifts the bounds; and that the record names the start kept.
func TestFitFixedSettings(t *testing.T) {
	f := loadFrame(t, "testdata/reg_train.csv")
	for _, tc := range []struct {
		name     string
		opts     Options
		search   bool // whether a selection is recorded
		cost, bw float64
		summary  string
	}{
		{"both", Options{Costs: []float64{0.01}, Bandwidths: []float64{2}}, false, 0.01, 2, "(fixed by the flags)"},
		{"starts", Options{Costs: []float64{0.01}, Bandwidths: []float64{2}, Starts: 3}, false, 0.01, 2, "(fixed by the flags)"},
		{"extrapolate", Options{Costs: []float64{0.01}, Bandwidths: []float64{2}, Extrapolate: true}, false, 0.01, 2, "(fixed by the flags)"},
		{"cost", Options{Costs: []float64{0.01}}, false, 0.01, 1, "(fixed by the flags)"},
		{"bandwidth", Options{Bandwidths: []float64{2}}, true, 0, 2, "cross-validation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.opts.Budget > 0 {
				raceNarrow(t)
			}
			opts := tc.opts
			opts.MaxIter = 50
			md, rep, err := Fit(f, []string{"y"}, opts)
			if err != nil {
				t.Fatal(err)
			}
			summary := strings.Join(rep.Summary(md), "\n")
			if !strings.Contains(summary, tc.summary) {
				t.Errorf("the summary %q does not contain %q", summary, tc.summary)
			}
			if (md.Machine.Range == nil) != opts.Extrapolate || strings.Contains(summary, "predictions bounded") == opts.Extrapolate {
				t.Errorf("range %v and summary %q with Extrapolate %v", md.Machine.Range, summary, opts.Extrapolate)
			}
			if (md.Fit.Selection != nil) != tc.search {
				t.Fatalf("selection recorded: %v, want %v", md.Fit.Selection != nil, tc.search)
			}
			if tc.cost != 0 && md.Fit.Cost != tc.cost || tc.bw != 0 && md.Fit.Bandwidth != tc.bw {
				t.Errorf("fitted with cost %v and bandwidth %v", md.Fit.Cost, md.Fit.Bandwidth)
			}
			if want := max(1, opts.Starts); md.Fit.Starts != want || md.Fit.Start >= want {
				t.Errorf("recorded start %d of %d, want one of %d", md.Fit.Start, md.Fit.Starts, want)
			}
			if md.Fit.Selection == nil {
				return
			}
			for _, c := range md.Fit.Selection.Candidates {
				if tc.cost != 0 && c.Cost != tc.cost || tc.bw != 0 && c.Bandwidth != tc.bw {
					t.Errorf("the search tried %+v although the options fixed a value", c)
				}
			}
		})
	}
}

// TestFitRecordsSelection checks the record of a default regression fit:
// its header, its bounds, the choice of the inputs' scale, and a
// selection whose best candidate is the fitted one and scores no worse
// than any other.
func TestFitRecordsSelection(t *testing.T) {
	md, _, err := Fit(loadFrame(t, "testdata/reg_train.csv"), []string{"y"}, Options{Task: Regression, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	dims := md.Machine.Dims
	if md.Format != "machines" || md.Version != Version || md.Kind != Kind || md.Task != Regression || md.Target != "y" ||
		!slices.Equal(md.Features, []string{"x1", "x2"}) || md.Classes != nil ||
		!slices.Equal(dims, []int{3, 3, 3, 1}) && !slices.Equal(dims, []int{2, 1}) || md.Fit.Rows != 36 {
		t.Errorf("the model is %+v, dims %v", md, dims)
	}
	if r := md.Machine.Range; len(r) != 1 || !(r[0][0] < r[0][1]) {
		t.Errorf("the model bounds the predictions by %v, want one pair", r)
	}
	if in := md.Fit.InputScale; (in != "linear" && in != "quantile") || len(md.Fit.InputLosses) != 2 {
		t.Errorf("the model records the input scale %q chosen by the losses %v", in, md.Fit.InputLosses)
	}
	sel := md.Fit.Selection
	if sel == nil || sel.Folds != 5 || sel.Rows != 36 || len(sel.Candidates) < 4 {
		t.Fatalf("the model records the selection %+v", sel)
	}
	best := sel.Candidates[sel.Best]
	if best.Cost != md.Fit.Cost || best.Bandwidth != md.Fit.Bandwidth {
		t.Errorf("the model was fitted with cost %v and bandwidth %v, but the selection chose %+v", md.Fit.Cost, md.Fit.Bandwidth, best)
	}
	for _, c := range sel.Candidates {
		if c.Score > best.Score+1e-12 {
			t.Errorf("candidate %+v has a better cross-validated R² than the chosen %+v", c, best)
		}
	}
}
