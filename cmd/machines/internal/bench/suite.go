package bench

import (
	"fmt"
	"strings"
)

// Suites returns the names of the benchmark suites.
func Suites() []string { return []string{"default", "machines", "tabular", "sculpt", "onnx", "serve"} }

// Suite returns the workloads of the named suite: "default" is
// Workloads, "machines" is MachineWorkloads, "tabular" is
// TabularWorkloads, "sculpt" is SculptWorkloads, "onnx" is ONNXWorkloads,
// "serve" is ServeWorkloads.
func Suite(name string) ([]Workload, error) {
	switch name {
	case "default":
		return Workloads(), nil
	case "machines":
		return MachineWorkloads(), nil
	case "tabular":
		return TabularWorkloads(), nil
	case "sculpt":
		return SculptWorkloads(), nil
	case "onnx":
		return ONNXWorkloads(), nil
	case "serve":
		return ServeWorkloads(), nil
	}
	return nil, fmt.Errorf("bench: unknown suite %q (known: %s)", name, strings.Join(Suites(), ", "))
}

// Ratio is the quotient of the median times of two workloads, with the
// goal it should not exceed, or, if AtLeast, reach.
type Ratio struct {
	// Name says what is compared, for example "conv-medium
	// backward/forward".
	Name        string  `json:"name"`
	Numerator   string  `json:"numerator"`
	Denominator string  `json:"denominator"`
	Value       float64 `json:"ratio"`
	Goal        float64 `json:"goal"`
	AtLeast     bool    `json:"at_least,omitempty"`
}

// Met reports whether the ratio is within its goal.
func (r Ratio) Met() bool {
	if r.AtLeast {
		return r.Value >= r.Goal
	}
	return r.Value <= r.Goal
}

// Ratios pairs the results of the machines suite: every KIND-SIZE-backward
// with its KIND-SIZE-forward (goal 1), every KIND-SIZE-gradient with it
// too (goal 2: the whole backward pass does twice the forward's
// products), and every KIND-SIZE-forward with its KIND-SIZE-reference
// (goal 2). In the sculpt suite, the time of sculpt-epoch-1 over that of
// sculpt-epoch-all is the speed-up from every core, the quotient of
// their images per second, with the goal of at least 1.8. Results of
// other suites have none.
func Ratios(rs []Result) []Ratio {
	byName := make(map[string]Result, len(rs))
	for _, r := range rs {
		byName[r.Name] = r
	}
	var out []Ratio
	add := func(base, num, den string, goal float64) {
		n, ok1 := byName[base+"-"+num]
		d, ok2 := byName[base+"-"+den]
		if !ok1 || !ok2 || d.MedianNS == 0 {
			return
		}
		out = append(out, Ratio{Name: base + " " + num + "/" + den, Numerator: n.Name, Denominator: d.Name,
			Value: float64(n.MedianNS) / float64(d.MedianNS), Goal: goal})
	}
	if one, all := byName["sculpt-epoch-1"], byName["sculpt-epoch-all"]; one.MedianNS > 0 && all.MedianNS > 0 {
		out = append(out, Ratio{Name: fmt.Sprintf("sculpt-epoch speed-up, %d cores", all.Procs), Numerator: one.Name, Denominator: all.Name,
			Value: float64(one.MedianNS) / float64(all.MedianNS), Goal: SculptSpeedup, AtLeast: true})
	}
	for _, r := range rs {
		base, ok := strings.CutSuffix(r.Name, "-forward")
		if !ok {
			continue
		}
		add(base, "backward", "forward", 1)
		add(base, "gradient", "forward", 2)
		add(base, "forward", "reference", 2)
	}
	return out
}

// SculptSpeedup is the goal of the sculpt suite's speed-up on every core
// over one, set for the project's 2-core machines.
const SculptSpeedup = 1.8

// Report is the JSON the bench command writes: the suite, every result
// and, for the machines suite, the ratios.
type Report struct {
	Suite     string   `json:"suite"`
	Workloads []Result `json:"workloads"`
	Ratios    []Ratio  `json:"ratios,omitempty"`
}
