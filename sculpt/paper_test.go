package sculpt

import (
	"math"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/optim"
)

// TestPaperDefaults checks that the authors' protocol fills the zero
// fields with their values and keeps the ones given.
func TestPaperDefaults(t *testing.T) {
	c := Config{Paper: true}.withDefaults()
	if c.Epochs != PaperEpochs || c.Batch != PaperBatch || c.LR != PaperLR || c.Lambda != PaperLambda ||
		c.Finetune != 0 || !c.Plain || c.Tol != 1e-6 {
		t.Errorf("defaults %+v", c)
	}
	c = Config{Paper: true, Epochs: 3, Batch: 32, LR: 0.1, Lambda: 2, Finetune: 1}.withDefaults()
	if c.Epochs != 3 || c.Batch != 32 || c.LR != 0.1 || c.Lambda != 2 || c.Finetune != 1 {
		t.Errorf("given values changed: %+v", c)
	}
	if err := (Config{Paper: true, Path: []float64{0.1, 0.2}}).withDefaults().check(); err == nil || !strings.Contains(err.Error(), "no regularisation path") {
		t.Errorf("a path under the authors' protocol: error %v", err)
	}
}

// TestPaperPenalty checks the authors' penalty edge by edge: a
// convolution into a node weighs the node's incoming edges beyond 3
// times its RMS norm, a head its RMS norm except the first head, and the
// tolerance bounds the RMS norm; and that the fair protocol keeps the
// group lasso's sqrt(n) weights.
func TestPaperPenalty(t *testing.T) {
	a := Generous(1, 28, 28, 10, 10, 4)
	incoming := map[int]int{}
	for _, e := range a.Edges {
		if e.Kind != "linear" {
			incoming[e.To]++
		}
	}
	paper := &run{arch: a, cfg: Config{Paper: true, Tol: 1e-6}}
	fair := &run{arch: a, cfg: Config{Tol: 1e-6}}
	penalised, free := 0, 0
	for i, e := range a.Edges {
		n := a.EdgeParams(i)
		rms := math.Sqrt(float64(n))
		want := 1.0
		switch {
		case e.Kind == "linear" && e.From == 1:
			want = 0
		case e.Kind != "linear":
			want = float64(max(incoming[e.To]-3, 0))
		}
		if want == 0 {
			free++
		} else {
			penalised++
		}
		if got := paper.edgeCoef(i, n, 0.5) * rms; math.Abs(got-0.5*want) > 1e-12 {
			t.Errorf("edge %s: coefficient %g of its RMS norm, want %g", e.Name, got, 0.5*want)
		}
		if got := fair.edgeCoef(i, n, 0.5); math.Abs(got-0.5*rms) > 1e-12 {
			t.Errorf("edge %s, fair: coefficient %g of its norm, want %g", e.Name, got, 0.5*rms)
		}
		if got := paper.pruneNorm(n); math.Abs(got-1e-6*rms) > 1e-18 {
			t.Errorf("edge %s: pruned below norm %g, want %g", e.Name, got, 1e-6*rms)
		}
	}
	if penalised == 0 || free < 2 {
		t.Errorf("%d edges penalised and %d free: the architecture does not test the rule", penalised, free)
	}
	if fair.pruneNorm(100) != 1e-6 {
		t.Errorf("fair: pruned below norm %g, want the tolerance", fair.pruneNorm(100))
	}
	if _, ok := paper.newStepper().(*optim.SGD); !ok {
		t.Errorf("the authors' optimiser is %T, want plain SGD", paper.newStepper())
	}
	if _, ok := fair.newStepper().(*optim.Adam); !ok {
		t.Errorf("the fair optimiser is %T, want Adam", fair.newStepper())
	}
}

// TestPaperRun runs two epochs under the authors' protocol: the report
// says so, the penalty is on in every epoch (no fine-tuning) and not
// scaled to the data size, and the optimiser is recorded.
func TestPaperRun(t *testing.T) {
	train, test := smallData()
	c := smallConfig(t.TempDir())
	c.Paper, c.Finetune, c.Lambda, c.LR = true, 0, 0, 0
	rep, err := Run(train, test, c)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Protocol != "paper" || rep.PaperEpochs != PaperEpochs || rep.Epochs != 2 || rep.LambdaEffective != PaperLambda ||
		rep.Settings.Optimizer != "sgd" || rep.Settings.Penalty != "paper" || rep.Settings.LR != PaperLR {
		t.Errorf("report %+v", rep)
	}
	for k, e := range rep.History {
		if !(e.Penalty > 0) {
			t.Errorf("epoch %d: penalty %g, want it on throughout", k+1, e.Penalty)
		}
	}
}
