package tabular

import (
	"slices"
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
		{"shallow", []string{"y"}, Options{Family: Shallow}, func(md *Model) bool {
			return md.Fit.Shallow && len(md.Fit.Selection.Candidates) > 100
		}},
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
