package tabular

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
)

// kernelTable returns a table of 120 rows whose target y is a sum of two
// steps along inputs x1 and x2 (step) or a wave along their sum (not
// step), with a third input of noise; for a classification, y is "hi" where that sum
// is above 1 and "lo" elsewhere.
func kernelTable(t *testing.T, step bool, task string) *dataset.Frame {
	t.Helper()
	rnd := rand.New(rand.NewPCG(3, 6))
	var b strings.Builder
	b.WriteString("x1,x2,x3,y\n")
	for range 120 {
		x1, x2, x3 := 2*rnd.Float64()-1, 2*rnd.Float64()-1, 2*rnd.Float64()-1
		y := math.Sin(2 * (x1 + x2))
		if step {
			y = math.Max(math.Copysign(1, x1), 0) + math.Max(math.Copysign(1, x2-0.3), 0)
		}
		y += 0.05 * rnd.NormFloat64()
		label := fmt.Sprintf("%.4f", y)
		if task == Classification {
			label = map[bool]string{false: "lo", true: "hi"}[y > 1]
		}
		fmt.Fprintf(&b, "%.4f,%.4f,%.4f,%s\n", x1, x2, x3, label)
	}
	f, err := dataset.ReadFrame(strings.NewReader(b.String()), "kernel.csv")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFitKernels checks Fit's choice of the shallow machine's kernel:
// a regression of steps keeps the Laplacian and a smooth one the
// Gaussian, each the kernel of lower held-out loss, recorded with both
// losses and said in the log after the refit is announced; a fixed kernel and a classifier fit once.
// The family is the shallow machine's, so that the machine kept is the
// one of the kernel kept (a deep machine may win either fit).
func TestFitKernels(t *testing.T) {
	for _, tc := range []struct {
		name      string
		step      bool
		task      string
		kernel    ShallowKernel
		laplacian bool // the kernel of the model's machine
		chooses   bool // whether Fit compared the kernels
	}{
		{"steps", true, Regression, AutoKernel, true, true},
		{"smooth", false, Regression, AutoKernel, false, true},
		{"laplacian fixed", false, Regression, LaplacianKernel, true, false},
		{"gaussian fixed", true, Regression, GaussianKernel, false, false},
		{"classifier", true, Classification, AutoKernel, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := kernelTable(t, tc.step, tc.task)
			var log []string
			md, rep, err := Fit(f, []string{"y"}, Options{Task: tc.task, Family: Shallow, ShallowKernel: tc.kernel, Seed: 1, Log: func(l string) { log = append(log, l) }})
			if err != nil {
				t.Fatal(err)
			}
			if got := md.Machine.Laplacian; got != tc.laplacian {
				t.Errorf("the machine's kernel is the Laplacian: %v, want %v", got, tc.laplacian)
			}
			losses := rep.Result.KernelLosses
			if (losses != nil) != tc.chooses || !slices.Equal(losses, md.Fit.KernelLosses) {
				t.Fatalf("kernel losses %v, in the model file %v; want them recorded: %v", losses, md.Fit.KernelLosses, tc.chooses)
			}
			if !tc.chooses {
				return
			}
			if (losses[1] < losses[0]) != tc.laplacian {
				t.Errorf("kernel losses %v (Gaussian, Laplacian), but the machine's kernel is the Laplacian: %v", losses, tc.laplacian)
			}
			said := "kept the Gaussian"
			if tc.laplacian {
				said = "kept the Laplacian"
			}
			text := strings.Join(log, "\n")
			refit := strings.Index(text, "fitting the regression again")
			if refit < 0 || !strings.Contains(text[refit:], said) {
				t.Errorf("the log does not say that the regression is fitted again, then %q:\n%s", said, text)
			}
		})
	}
}

// TestStreamPlanRefuses checks that a plan refuses, before any fit, the
// options whose machine its sums cannot solve.
func TestStreamPlanRefuses(t *testing.T) {
	f := kernelTable(t, true, Regression)
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"deep", Options{Family: Deep}, "-family deep"},
		{"balance", Options{Balance: true}, "-balance"},
		{"laplacian", Options{ShallowKernel: LaplacianKernel}, "-shallow-kernel laplacian"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewStreamPlan(f, []string{"y"}, tc.opts, 12000)
			var oe *OptionError
			if !errors.As(err, &oe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want an OptionError naming %s", err, tc.want)
			}
		})
	}
}
