package bench

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/parametric-machines/machines/internal/matmul"
	"github.com/parametric-machines/machines/kernel"
	"github.com/parametric-machines/machines/optim"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// Workload is one timed unit of work.
type Workload struct {
	Name  string
	Dtype string
	// Unit names what one timing measures, for example "product".
	Unit string
	// Target is the time one unit should take on the project's machines
	// (0: none), and Reference what the prototypes measured.
	Target    time.Duration
	Reference string
	// Procs is the GOMAXPROCS Run measures with: 0 means 1, a negative
	// number every core (the GOMAXPROCS Run is called with).
	Procs int
	// Items, if positive, is the number of items a unit processes, of
	// the kind ItemName names ("images"); Run then reports items per
	// second.
	Items    int
	ItemName string
	// setup prepares the data and returns the function that does one
	// unit of work.
	setup func() (func(), error)
	// measure, if not nil, replaces setup for work timed outside Go or
	// by other means: it prepares the work, times runs samples as Run
	// does and returns the median time of a unit and the repetitions of
	// each sample.
	measure func(runs int) (measurement, error)
}

// measurement is what a workload's measure returns.
type measurement struct {
	median time.Duration
	reps   int
	// p99 is the 99th percentile of the latency of a unit, for work
	// whose units overlap (the serve suite's requests); 0 otherwise.
	p99 time.Duration
}

// Result is the measured time of a workload, as the JSON report has it.
type Result struct {
	Name     string `json:"name"`
	Dtype    string `json:"dtype"`
	MedianNS int64  `json:"median_ns"`
	Runs     int    `json:"runs"`
	// Reps is the number of units in each timed sample.
	Reps     int    `json:"reps"`
	Unit     string `json:"unit"`
	TargetNS int64  `json:"target_ns,omitempty"`
	// Procs is the GOMAXPROCS of the measurement.
	Procs int `json:"procs"`
	// PerSecond is the workload's items per second at the median time
	// (0 if it counts none), and Item what they are.
	PerSecond float64 `json:"per_second,omitempty"`
	Item      string  `json:"item,omitempty"`
	// P99NS is the 99th percentile of the latency of a unit, for the
	// serve suite, whose units (requests) overlap: there the median time
	// is the wall time over the units, the inverse of their rate.
	P99NS int64 `json:"p99_ns,omitempty"`
}

// Median returns the median time per unit.
func (r Result) Median() time.Duration { return time.Duration(r.MedianNS) }

// Met reports whether the workload reached its target (true if it has
// none).
func (r Result) Met() bool { return r.TargetNS == 0 || r.MedianNS <= r.TargetNS }

// Workloads returns the workloads: those of WORKLOADS.md in its order,
// then the Volterra solvers' (general against fast, at 100 and 1000
// time points).
func Workloads() []Workload {
	ws := []Workload{
		{Name: "W1", Dtype: "float64", Unit: "512x512 product", Reference: "PyTorch/OpenBLAS 5.19 ms", setup: matmul64},
		{Name: "W1", Dtype: "float32", Unit: "512x512 product", Reference: "PyTorch/OpenBLAS 2.56 ms", setup: matmul32},
		{Name: "W3", Dtype: "float32", Unit: "conv fwd+kernel grads, batch 32", Target: 2300 * time.Microsecond, Reference: "PyTorch 2.27 ms",
			setup: conv3},
		{Name: "W4", Dtype: "float64", Unit: "loss+gradient", Target: 50 * time.Microsecond, Reference: "PyTorch 540 µs",
			setup: func() (func(), error) { return kernelLoss("W4") }},
		{Name: "W4b", Dtype: "float64", Unit: "loss+gradient", Target: 300 * time.Microsecond, Reference: "PyTorch 655 µs",
			setup: func() (func(), error) { return kernelLoss("W4b") }},
		{Name: "W4fit", Dtype: "float64", Unit: "500-iteration L-BFGS fit", Target: 60 * time.Millisecond, Reference: "PyTorch 0.81 s",
			setup: kernelFit},
	}
	return append(ws, volterraWorkloads()...)
}

// Run measures w: one warm-up, then runs samples of enough repetitions
// to last about minSample each, single-threaded unless w.Procs says
// otherwise. It returns the median time per unit.
func Run(w Workload, runs int) (Result, error) {
	if runs < 1 || runs > MaxRuns {
		return Result{}, fmt.Errorf("bench: %d runs, want 1 to %d", runs, MaxRuns)
	}
	procs := max(w.Procs, 1)
	if w.Procs < 0 {
		procs = runtime.GOMAXPROCS(0)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	measure := w.measure
	if measure == nil {
		measure = func(runs int) (measurement, error) {
			median, reps, err := timeUnit(w.setup, runs)
			return measurement{median: median, reps: reps}, err
		}
	}
	m, err := measure(runs)
	if err != nil {
		return Result{}, fmt.Errorf("bench: %s: %w", w.Name, err)
	}
	r := Result{Name: w.Name, Dtype: w.Dtype, MedianNS: int64(m.median), Runs: runs, Reps: m.reps,
		Unit: w.Unit, TargetNS: int64(w.Target), Procs: procs, P99NS: int64(m.p99)}
	if w.Items > 0 {
		r.PerSecond, r.Item = float64(w.Items)/m.median.Seconds(), w.ItemName
	}
	return r, nil
}

// timeUnit sets up a unit of work, runs it once, then doubles the
// repetitions until a sample lasts minSample, and returns the median
// time of a unit over runs samples and the repetitions of each.
func timeUnit(setup func() (func(), error), runs int) (time.Duration, int, error) {
	unit, err := setup()
	if err != nil {
		return 0, 0, err
	}
	reps := 1
	for {
		start := time.Now()
		for range reps {
			unit()
		}
		if time.Since(start) >= minSample {
			break
		}
		reps *= 2
	}
	samples := make([]time.Duration, runs)
	for i := range samples {
		start := time.Now()
		for range reps {
			unit()
		}
		samples[i] = time.Since(start) / time.Duration(reps)
	}
	slices.Sort(samples)
	median := samples[runs/2]
	if runs%2 == 0 {
		median = (samples[runs/2-1] + samples[runs/2]) / 2
	}
	return median, reps, nil
}

// MaxRuns bounds the samples Run takes of a workload: each lasts at
// least minSample, or one unit of the workload if that is longer (a
// second or more for the tabular and sculpt suites), so that 1,000
// samples of the 20 workloads of the machines suite already take over
// six minutes, and the median of more is no better.
const MaxRuns = 1000

// minSample is the least time a timed sample lasts.
const minSample = 20 * time.Millisecond

func matmul64() (func(), error) {
	const n = 512
	rnd := rand.New(rand.NewPCG(1, 1))
	mk := func() blas64.General {
		g := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
		for i := range g.Data {
			g.Data[i] = rnd.Float64()
		}
		return g
	}
	a, b, c := mk(), mk(), mk()
	return func() { matmul.F64(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c) }, nil
}

func matmul32() (func(), error) {
	const n = 512
	rnd := rand.New(rand.NewPCG(1, 1))
	mk := func() blas32.General {
		g := blas32.General{Rows: n, Cols: n, Stride: n, Data: make([]float32, n*n)}
		for i := range g.Data {
			g.Data[i] = rnd.Float32()
		}
		return g
	}
	a, b, c := mk(), mk(), mk()
	return func() { matmul.F32(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c) }, nil
}

//go:embed w4_data.json
var w4JSON []byte

// w4Problem is one entry of w4_data.json.
type w4Problem struct {
	X      [][]float64
	Y      []float64
	A0, C0 [][]float64
}

// w4Cost is the regularisation cost of W4 and W4b.
const w4Cost = 0.0005

// w4 returns the objective of workload name ("W4" or "W4b") with dims
// (3,3,3,1) and its initial parameters.
func w4(name string) (*kernel.Objective, []float64, error) {
	var all map[string]w4Problem
	if err := json.Unmarshal(w4JSON, &all); err != nil {
		return nil, nil, fmt.Errorf("w4_data.json: %w", err)
	}
	p, ok := all[name]
	if !ok {
		return nil, nil, fmt.Errorf("w4_data.json has no workload %q", name)
	}
	x := mat.NewDense(len(p.X), len(p.X[0]), nil)
	for i, row := range p.X {
		x.SetRow(i, row)
	}
	o, err := kernel.NewObjective(kernel.Architecture{Dims: []int{3, 3, 3, 1}},
		kernel.Problem{X: x, Y: mat.NewDense(len(p.Y), 1, p.Y), Cost: w4Cost})
	if err != nil {
		return nil, nil, err
	}
	var params []float64
	for _, m := range [][][]float64{p.A0, p.C0} {
		for _, row := range m {
			params = append(params, row...)
		}
	}
	if len(params) != o.Len() {
		return nil, nil, fmt.Errorf("%s: %d initial values for %d parameters", name, len(params), o.Len())
	}
	return o, params, nil
}

// gradientTol is the relative error the analytic gradient of W4 must be
// within, against central finite differences, before it is timed.
const gradientTol = 1e-5

func kernelLoss(name string) (func(), error) {
	o, params, err := w4(name)
	if err != nil {
		return nil, err
	}
	grad := make([]float64, len(params))
	o.Func(params, grad)
	num := fd.Gradient(nil, func(x []float64) float64 { l, _ := o.Loss(x); return l }, params, &fd.Settings{Formula: fd.Central})
	var diff, scale float64
	for i, g := range grad {
		diff = math.Max(diff, math.Abs(g-num[i]))
		scale = math.Max(scale, math.Abs(num[i]))
	}
	if diff > gradientTol*scale {
		return nil, fmt.Errorf("gradient differs from finite differences by %.3g relative", diff/scale)
	}
	return func() { o.Func(params, grad) }, nil
}

func kernelFit() (func(), error) {
	o, params, err := w4("W4")
	if err != nil {
		return nil, err
	}
	fit := func() error {
		_, err := optim.Minimize(o.Func, params, optim.Settings{MaxIter: 500, Exact: true})
		return err
	}
	// The fit is deterministic: if it succeeds once, every timed repeat
	// does the same work.
	if err := fit(); err != nil {
		return nil, err
	}
	return func() { _ = fit() }, nil
}
