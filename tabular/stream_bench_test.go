package tabular

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/testutil"
)

// writeFriedman writes n rows of Friedman 1 (10 inputs, noise 1) to a
// CSV file at path.
func writeFriedman(tb testing.TB, path string, n int, seed uint64) {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	rnd := rand.New(rand.NewPCG(seed, 7))
	fmt.Fprintln(w, "x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,y")
	x := make([]float64, 10)
	buf := make([]byte, 0, 256)
	for range n {
		buf = buf[:0]
		for j := range x {
			x[j] = rnd.Float64()
			buf = strconv.AppendFloat(buf, x[j], 'f', 5, 64)
			buf = append(buf, ',')
		}
		buf = strconv.AppendFloat(buf, dataset.Friedman1Truth(x)+rnd.NormFloat64(), 'f', 4, 64)
		w.Write(append(buf, '\n'))
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
}

// peakMB returns the process's peak resident memory (VmHWM) in MB, and
// resets it when reset is set, NaN where /proc does not tell.
func peakMB(reset bool) float64 {
	if reset {
		os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	}
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return math.NaN()
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return math.NaN()
}

// referenceScript fits scikit-learn's HistGradientBoostingRegressor and,
// if installed, XGBoost's XGBRegressor, on one thread, and prints each
// one's name, CPU seconds and held-out R^2 on a line.
const referenceScript = `
import sys, time, numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
tr = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
te = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)
def run(name, m):
    t = time.process_time()
    m.fit(tr[:, :-1], tr[:, -1])
    print(name, time.process_time() - t, m.score(te[:, :-1], te[:, -1]))
run("HistGradientBoosting", HistGradientBoostingRegressor(random_state=0))
try:
    import xgboost
except ImportError:
    sys.exit(0)
run("XGBoost", xgboost.XGBRegressor(tree_method="hist", n_jobs=1, random_state=0))
`

// BenchmarkStreamFit fits Friedman 1 (10 inputs, noise 1) of 10^5 and
// 10^6 rows from a CSV file with FitFile, as machines fit does, and
// reports the fit's CPU seconds, the process's peak resident memory
// (VmHWM, reset before the fit), each phase's CPU seconds and the R^2
// on 20,000 held-out rows; then scikit-learn's
// HistGradientBoostingRegressor's and XGBoost's on one thread as the
// references, if a python3 has them. Run one size at a time, with
// -benchtime 1x, so that the peak is the fit's:
//
//	go test -run '^$' -bench 'StreamFit/rows=1e6' -benchtime 1x ./tabular
func BenchmarkStreamFit(b *testing.B) {
	dir := b.TempDir()
	test := filepath.Join(dir, "test.csv")
	writeFriedman(b, test, 20000, 99)
	testFrame, err := dataset.LoadFrame(test)
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []struct {
		name string
		rows int
	}{{"1e5", 1e5}, {"1e6", 1e6}} {
		rows := size.rows
		b.Run("rows="+size.name, func(b *testing.B) {
			train := filepath.Join(dir, "train.csv")
			writeFriedman(b, train, rows, 1)
			for b.Loop() {
				peakMB(true)
				cpu := testutil.CPUTime()
				md, rep, err := FitFile(train, []string{"y"}, Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric((testutil.CPUTime() - cpu).Seconds(), "cpu-s")
				for _, p := range rep.Phases {
					b.ReportMetric(p.CPUSeconds, p.Name+"-cpu-s")
				}
				b.ReportMetric(peakMB(false), "peak-MB")
				ev, err := md.Score(testFrame, 0)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(*ev.R2, "R2")
			}
			// The first python3 with scikit-learn: on the PATH, or the
			// system's.
			for _, python := range []string{"python3", "/usr/bin/python3"} {
				cmd := exec.Command(python, "-c", referenceScript, train, test)
				cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1")
				if out, err := cmd.Output(); err == nil {
					b.Logf("references on 1 thread, CPU s and R^2:\n%s", strings.TrimSpace(string(out)))
					return
				}
			}
			b.Log("no HistGradientBoosting reference: no python3 with scikit-learn")
		})
	}
}
