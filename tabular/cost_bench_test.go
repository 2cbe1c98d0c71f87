//go:build linux

package tabular

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/parametric-machines/machines/dataset"
)

// fitChildEnv holds the fit, a JSON fitChild, that TestFitChild runs in
// a child process of BenchmarkFitEstimate.
const fitChildEnv = "MACHINES_FIT_CHILD"

// fitChild is a fit of FitFile: the table, its target and the options
// that fitCostTables set.
type fitChild struct {
	Data, Target      string
	Ignore, Keep      []string
	Costs, Bandwidths []float64
	Anchors           int
	Dims              []int
}

// TestFitChild runs the fit of fitChildEnv and exits with its status;
// without one it does nothing.
func TestFitChild(t *testing.T) {
	env := os.Getenv(fitChildEnv)
	if env == "" {
		t.Skip("runs in the child processes of BenchmarkFitEstimate")
	}
	var fc fitChild
	if err := json.Unmarshal([]byte(env), &fc); err != nil {
		t.Fatal(err)
	}
	md, _, err := FitFile(fc.Data, []string{fc.Target}, Options{Ignore: fc.Ignore, Keep: fc.Keep,
		Costs: fc.Costs, Bandwidths: fc.Bandwidths, Anchors: fc.Anchors, Dims: fc.Dims})
	if err != nil {
		t.Fatal(err)
	}
	if md.Fit.Shallow {
		os.Exit(3)
	}
	os.Exit(0)
}

// panelDev is the development panel of real tables beside the
// repository, whose panel.json lists each table's target and the columns
// to drop.
var panelDev = filepath.Join("..", "..", "shared", "panel", "dev")

// BenchmarkFitEstimate fits each table of fitCostTables in a child
// process, with the columns its panel drops left out, and reports the
// ratios of the estimate, for the family that won, to the CPU time and
// the peak resident memory measured (time-ratio and memory-ratio, 1 when
// exact). The synthetic tables are made anew, the real ones read from
// panelDev, and skipped if it is absent.
func BenchmarkFitEstimate(b *testing.B) {
	if testing.Short() {
		b.Skip("fits tables of up to 20,000 rows")
	}
	for _, tc := range fitCostTables {
		fc, err := fitCostChild(b.TempDir(), tc.name)
		if err != nil {
			b.Logf("%s: %v", tc.name, err)
			continue
		}
		s := tc.s
		fc.Costs, fc.Bandwidths, fc.Anchors, fc.Dims = s.Costs, s.Bandwidths, s.Anchors, s.Dims
		if len(tc.flags) == 2 && tc.flags[0] == "-keep" {
			fc.Keep = tc.flags[1:]
		}
		b.Run(strings.Join(append([]string{tc.name}, tc.flags...), "_"), func(b *testing.B) {
			for range b.N {
				seconds, bytes, shallow := fitInChild(b, fc)
				size := sizeFit(tc.shape, tc.s)
				e := size.deep
				if shallow {
					e = size.shallow
				}
				b.ReportMetric(e.seconds/seconds, "time-ratio")
				b.ReportMetric(e.bytes/bytes, "memory-ratio")
				b.ReportMetric(seconds, "cpu-s")
				b.ReportMetric(bytes/1e6, "peak-MB")
			}
		})
	}
}

// fitInChild runs the fit fc in a child process and returns its CPU
// time, user and system, in seconds, its peak resident memory in bytes,
// and whether the shallow machine won.
func fitInChild(b *testing.B, fc fitChild) (seconds, bytes float64, shallow bool) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestFitChild$")
	env, err := json.Marshal(fc)
	if err != nil {
		b.Fatal(err)
	}
	cmd.Env = append(os.Environ(), fitChildEnv+"="+string(env))
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
		shallow, err = true, nil
	}
	if err != nil {
		b.Fatalf("fit %s: %v\n%s", env, err, out)
	}
	usage := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9, float64(usage.Maxrss) * 1024, shallow
}

// fitCostChild returns the fit of the table of fitCostTables named name,
// making it in dir if it is synthetic.
func fitCostChild(dir, name string) (fitChild, error) {
	path, ok, err := fitCostTable(dir, name)
	if err != nil {
		return fitChild{}, err
	}
	if ok {
		return fitChild{Data: path, Target: "y"}, nil
	}
	b, err := os.ReadFile(filepath.Join(panelDev, "panel.json"))
	if err != nil {
		return fitChild{}, err
	}
	var panel [][]json.RawMessage
	if err := json.Unmarshal(b, &panel); err != nil {
		return fitChild{}, err
	}
	for _, entry := range panel {
		var table string
		fc := fitChild{Data: filepath.Join(panelDev, name+".csv")}
		if json.Unmarshal(entry[0], &table) != nil || table != name {
			continue
		}
		if err := json.Unmarshal(entry[1], &fc.Target); err != nil {
			return fitChild{}, err
		}
		if err := json.Unmarshal(entry[3], &fc.Ignore); err != nil {
			return fitChild{}, err
		}
		return fc, nil
	}
	return fitChild{}, fmt.Errorf("not in %s", filepath.Join(panelDev, "panel.json"))
}

// fitCostTable writes the synthetic table of fitCostTables named name to
// dir and returns its path, or false if there is none of that name. Its
// target is y: of Friedman 1 with an identifier column (ids4800); of a
// column of 10,000 levels, one a row (levels10000), or of 5,000 levels
// (levels5000), and three numbers; of Friedman 1 on 1,000, 5,000 and
// 20,000 rows (friedman1k, friedman5k, friedman20k); of 20 Gaussian
// columns and 8 categorical ones of 3 to 40 levels (mixed15k); four
// classes of 35 uniform columns and a date (dated3k); three classes of
// 60 Gaussian columns (wide1000).
func fitCostTable(dir, name string) (path string, ok bool, err error) {
	rnd := rand.New(rand.NewPCG(1, 1))
	var rows, cols int
	var header string
	var row func(i int, x []float64) string
	friedman := func(x []float64) string { return fmt.Sprintf("%.4f", dataset.Friedman1Truth(x)+rnd.NormFloat64()) }
	switch name {
	case "ids4800":
		rows, cols, header = 4800, 8, "id,x0,x1,x2,x3,x4,x5,x6,x7,grp,y"
		row = func(i int, x []float64) string {
			return fmt.Sprintf("ID%09d-%d,%s,%c,%s", rnd.IntN(1e9), i, joinFloats(x), 'a'+rune(rnd.IntN(5)), friedman(x))
		}
	case "levels10000", "levels5000":
		rows, cols, header = 10000, 3, "cat,x0,x1,x2,y"
		levels := map[string]int{"levels10000": 10000, "levels5000": 5000}[name]
		effect := make([]float64, levels)
		for i := range effect {
			effect[i] = rnd.NormFloat64()
		}
		row = func(i int, x []float64) string {
			l := i
			if levels < rows {
				l = rnd.IntN(levels)
			}
			y := 3*x[0] + x[1]*x[1] + 0.3*effect[l] + 0.1*rnd.NormFloat64()
			return fmt.Sprintf("L%05d,%s,%.4f", l, joinFloats(x), y)
		}
	case "friedman1k", "friedman5k", "friedman20k":
		rows, cols, header = map[string]int{"friedman1k": 1000, "friedman5k": 5000, "friedman20k": 20000}[name], 10, "x0,x1,x2,x3,x4,x5,x6,x7,x8,x9,y"
		row = func(_ int, x []float64) string { return joinFloats(x) + "," + friedman(x) }
	case "mixed15k":
		rows, cols = 15000, 20
		levels := []int{3, 5, 8, 12, 20, 25, 30, 40}
		header = columnNames("n", cols) + "," + columnNames("c", len(levels)) + ",y"
		row = func(_ int, x []float64) string {
			c := make([]string, len(levels))
			code := make([]int, len(levels))
			for j, l := range levels {
				code[j] = rnd.IntN(l)
				c[j] = fmt.Sprintf("k%d", code[j])
			}
			for j := range x {
				x[j] = rnd.NormFloat64()
			}
			y := math.Sin(x[0]) + x[1]*x[2] + 0.3*float64(code[0]) - 0.1*float64(code[3]) + 0.3*rnd.NormFloat64()
			return fmt.Sprintf("%s,%s,%.4f", joinFloats(x), strings.Join(c, ","), y)
		}
	case "dated3k":
		rows, cols, header = 3000, 35, columnNames("n", 35)+",day,y"
		row = func(_ int, x []float64) string {
			day := fmt.Sprintf("20%d-%02d-%02d", 10+rnd.IntN(14), 1+rnd.IntN(12), 1+rnd.IntN(28))
			s := x[0] + x[1] - x[2]*x[3]
			return fmt.Sprintf("%s,%s,%c", joinFloats(x), day, 'a'+rune(min(3, int(2*s))))
		}
	case "wide1000":
		rows, cols = 1000, 60
		header = columnNames("x", cols) + ",y"
		row = func(_ int, x []float64) string {
			for j := range x {
				x[j] = rnd.NormFloat64()
			}
			s := x[0] + x[1]*x[2] + 0.5*x[3]
			return joinFloats(x) + "," + string(rune('a'+int(math.Min(2, math.Max(0, math.Floor(s+1.5))))))
		}
	default:
		return "", false, nil
	}
	var b strings.Builder
	b.WriteString(header + "\n")
	x := make([]float64, cols)
	for i := range rows {
		for j := range x {
			x[j] = rnd.Float64()
		}
		b.WriteString(row(i, x) + "\n")
	}
	path = filepath.Join(dir, name+".csv")
	return path, true, os.WriteFile(path, []byte(b.String()), 0o644)
}

// columnNames returns the names prefix0 to prefix(n-1), separated by
// commas.
func columnNames(prefix string, n int) string {
	names := make([]string, n)
	for j := range names {
		names[j] = fmt.Sprintf("%s%d", prefix, j)
	}
	return strings.Join(names, ",")
}

// joinFloats writes x with four decimals, separated by commas.
func joinFloats(x []float64) string {
	s := make([]string, len(x))
	for j, v := range x {
		s[j] = fmt.Sprintf("%.4f", v)
	}
	return strings.Join(s, ",")
}
