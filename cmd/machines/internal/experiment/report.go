package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/sculpt"
)

// Config is what every experiment takes. The zero value writes to "out"
// with seed 0 and the full settings.
type Config struct {
	// Out is the directory for the report and figures; it is created if
	// needed. Empty means "out".
	Out string
	// Seed seeds the data (where it is random), the initial parameters
	// and the cross-validation folds.
	Seed uint64
	// Quick runs fewer optimiser iterations, for a fast look.
	Quick bool
	// Progress, if not nil, receives a line per step of the work.
	Progress io.Writer

	// Data is the directory of an IDX data set, for the experiments on
	// images (oneshot), or of an IDX data set or an image folder (sculpt).
	Data string
	// MaxFreqs and Costs are the architectures (Fourier components) and
	// regularisation costs of the oneshot sweeps, the first at cost 0.1
	// (or the largest cost), the second at the largest maxfreq; nil
	// means the paper's {2, 5, 10, 20} and {0, 0.001, 0.01, 0.1, 1}.
	MaxFreqs []int
	Costs    []float64
	// Shots are the numbers of training images per class of oneshot,
	// one run each; nil means 1, 5 and 10.
	Shots []int
	// Conv, Sine and Tol are the authors' options of oneshot's kernel
	// machine (see infinite.Config): the convolutional augmenter, with
	// 16 channels, sines beside the cosines of the Fourier basis, and
	// adaptive Dormand–Prince at relative and absolute tolerance Tol
	// with the adjoint. The zero values are the linear augmenter,
	// cosines and RK4.
	Conv, Sine bool
	Tol        float64

	// Protocol is whose protocol the experiment follows: Fair, the
	// zero value, or Paper, the authors' as their code runs it (sine
	// and oneshot).
	Protocol Protocol
	// Draws is the number of independent draws of the data of the sine
	// experiment under the paper's protocol; zero means one, as the
	// authors made.
	Draws int
}

// Protocol is whose protocol an experiment follows.
type Protocol int

const (
	// Fair has every model choose its settings without the test set,
	// each trained in earnest.
	Fair Protocol = iota
	// Paper is the authors' protocol, read from their code: their data,
	// models, penalties, optimisers and schedules, and whatever they
	// chose on the test set.
	Paper
)

func (p Protocol) String() string {
	switch p {
	case Fair:
		return "fair"
	case Paper:
		return "paper"
	}
	return fmt.Sprintf("Protocol(%d)", int(p))
}

// ParseProtocol parses the names that String returns.
func ParseProtocol(s string) (Protocol, error) {
	for _, p := range []Protocol{Fair, Paper} {
		if s == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("experiment: unknown protocol %q (want fair or paper)", s)
}

func (c Config) dir() string {
	if c.Out == "" {
		return "out"
	}
	return c.Out
}

func (c Config) logf(format string, args ...any) {
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, format+"\n", args...)
	}
}

// Model is one fitted model in a report.
type Model struct {
	Name       string  `json:"name"`
	Params     int     `json:"params"`
	TrainMSE   float64 `json:"train_mse"`
	TestMSE    float64 `json:"test_mse"`
	FitSeconds float64 `json:"fit_seconds"`
	Iterations int     `json:"iterations"`
	// InitialLoss and FinalLoss are the held-out loss before and after
	// training, for minibatch experiments.
	InitialLoss *float64 `json:"initial_loss,omitempty"`
	FinalLoss   *float64 `json:"final_loss,omitempty"`
	// Cost is the regularisation cost of a kernel machine in a sweep.
	Cost     *float64 `json:"cost,omitempty"`
	Settings Settings `json:"settings"`
}

// Settings records how a model was trained.
type Settings struct {
	Optimizer   string   `json:"optimizer"`
	MaxIter     int      `json:"max_iter,omitempty"`
	Dims        []int    `json:"dims,omitempty"`
	Kernel      string   `json:"kernel,omitempty"`
	Bandwidth   float64  `json:"bandwidth,omitempty"`
	Cost        *float64 `json:"cost,omitempty"`
	Hidden      []int    `json:"hidden,omitempty"`
	Activation  string   `json:"activation,omitempty"`
	WeightDecay *float64 `json:"weight_decay,omitempty"`
	// CostCandidates and DecayCandidates are the values a selection
	// chose the cost or the weight decay among.
	CostCandidates  []float64 `json:"cost_candidates,omitempty"`
	DecayCandidates []float64 `json:"weight_decay_candidates,omitempty"`
	Sigma           float64   `json:"sigma,omitempty"`
	Lambda          float64   `json:"lambda,omitempty"`
	Selection       string    `json:"selection,omitempty"`
	Standardize     bool      `json:"standardize"`
}

// Report is the JSON an experiment writes.
type Report struct {
	Experiment string   `json:"experiment"`
	Protocol   string   `json:"protocol"`
	Seed       uint64   `json:"seed"`
	Quick      bool     `json:"quick"`
	Models     []Model  `json:"models"`
	Figures    []string `json:"figures"`

	// OneShot, set by the oneshot experiment, is what its JSON holds
	// instead of the fields above, in a shape of its own.
	OneShot *OneShotReport `json:"-"`
	// Sculpt, set by the sculpt experiment, is likewise its JSON.
	Sculpt *sculpt.Report `json:"-"`
	// SinePaper, set by the sine experiment under the paper's
	// protocol, is likewise its JSON.
	SinePaper *SinePaperReport `json:"-"`
	// OneShotPaper, set by the oneshot experiment under the paper's
	// protocol, is likewise its JSON.
	OneShotPaper *OneShotPaperReport `json:"-"`
}

// Model returns the model with the given name, or nil.
func (r *Report) Model(name string) *Model {
	for i := range r.Models {
		if r.Models[i].Name == name {
			return &r.Models[i]
		}
	}
	return nil
}

// write saves the report as DIR/NAME.json, atomically.
func (r *Report) write(dir string) error {
	path := filepath.Join(dir, r.Experiment+".json")
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if r.OneShot != nil {
			return enc.Encode(r.OneShot)
		}
		if r.Sculpt != nil {
			return enc.Encode(r.Sculpt)
		}
		if r.SinePaper != nil {
			return enc.Encode(r.SinePaper)
		}
		if r.OneShotPaper != nil {
			return enc.Encode(r.OneShotPaper)
		}
		return enc.Encode(r)
	})
}

// Runner runs one experiment.
type Runner func(Config) (*Report, error)

var registry = map[string]Runner{
	"polynomial": Polynomial,
	"sine":       Sine,
	"sine-cost":  SineCost,
	"oneshot":    OneShot,
	"shift":      Shift,
	"depth":      Depth,
	"sculpt":     Sculpt,
}

// paperRegistry holds the experiments that also run under the paper's
// protocol.
var paperRegistry = map[string]Runner{
	"sine":    SinePaper,
	"oneshot": OneShotPaper,
}

// PaperNames returns the names of the experiments that run under the
// paper's protocol, sorted.
func PaperNames() []string { return slices.Sorted(maps.Keys(paperRegistry)) }

// Names returns the names of the experiments Run knows, sorted.
func Names() []string { return slices.Sorted(maps.Keys(registry)) }

// Run runs the named experiment: it creates the output directory, writes
// the figures and the JSON report, and returns the report.
func Run(name string, c Config) (*Report, error) {
	run, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("experiment: unknown experiment %q (known: %v)", name, Names())
	}
	switch c.Protocol {
	case Fair:
	case Paper:
		if run, ok = paperRegistry[name]; !ok {
			return nil, fmt.Errorf("experiment: %s has no paper protocol (those that have: %v)", name, PaperNames())
		}
	default:
		return nil, fmt.Errorf("experiment: unknown protocol %v", c.Protocol)
	}
	if err := os.MkdirAll(c.dir(), 0o755); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	r, err := run(c)
	if err != nil {
		return nil, wrap(name, err)
	}
	r.Experiment, r.Protocol, r.Seed, r.Quick = name, c.Protocol.String(), c.Seed, c.Quick
	if o := r.OneShot; o != nil {
		o.Protocol = r.Protocol
	}
	if s := r.SinePaper; s != nil {
		s.Experiment, s.Seed, s.Quick = name, c.Seed, c.Quick
	}
	if s := r.OneShotPaper; s != nil {
		s.Experiment, s.Seed, s.Quick = name, c.Seed, c.Quick
	}
	r.Figures = slices.Clip(r.Figures)
	if err := r.write(c.dir()); err != nil {
		return nil, wrap(name, err)
	}
	return r, nil
}

// wrap prefixes an error of the named experiment with the package and the
// name, saying each once: the errors of package sculpt, behind the
// experiment of that name, already begin with it.
func wrap(name string, err error) error {
	if strings.HasPrefix(err.Error(), name+": ") {
		return fmt.Errorf("experiment: %w", err)
	}
	return fmt.Errorf("experiment: %s: %w", name, err)
}
