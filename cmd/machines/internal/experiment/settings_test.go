package experiment

import (
	"reflect"
	"testing"

	"github.com/parametric-machines/machines/tabular"
)

// zeroAllowed names the fields of tabular.Settings that an experiment may
// leave zero, because their zero value is a choice rather than one of
// the learner's defaults, and says what it means. Every other field must
// be stated, so that a change of the learner's defaults cannot move the
// paper's experiments; a field added to tabular.Settings fails the test
// until it is stated or listed here.
var zeroAllowed = map[string]string{
	"Kernel":     "kernel.Additive",
	"Method":     "optim.LBFGS",
	"Raw":        "standardised inputs and targets",
	"UntilStall": "the loss tolerance applies",
	"Workers":    "the number of processors, on which the result does not depend",
	"Weights":    "no sample weights",
	"Groups":     "no groups",
	"Times":      "no times",
	"Budget":     "no time limit",
	"Progress":   "set by fitKernel",
	"Iteration":  "set by fitKernel",
}

// TestKernelSettingsExplicit checks that every kernel machine of the
// experiments states each setting the tabular learner would otherwise
// default.
func TestKernelSettingsExplicit(t *testing.T) {
	cases := map[string]tabular.Settings{}
	for _, quick := range []bool{false, true} {
		c := Config{Seed: 1, Quick: quick}
		name := map[bool]string{false: "", true: " -quick"}[quick]
		cases["sine"+name] = sineMachine(c, costs...)
		cases["sine-cost"+name] = sineMachine(c, sweepCosts[0])
		cases["polynomial"+name] = polynomialMachine(c)
	}
	for name, s := range cases {
		v := reflect.ValueOf(withProtocol(s))
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if _, ok := zeroAllowed[f.Name]; !ok && v.Field(i).IsZero() {
				t.Errorf("%s: the kernel machine leaves tabular.Settings.%s to the learner's default", name, f.Name)
			}
		}
	}
}
