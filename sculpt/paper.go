package sculpt

import (
	"errors"
	"math"

	"github.com/parametric-machines/machines/optim"
)

// The authors' protocol (Veos-Digital/hypergraph_machines,
// examples/generate_figure.py and utils.reg_loss), used with
// Config.Paper where the corresponding field is zero.
const (
	// PaperEpochs, PaperBatch and PaperLR are their 100 epochs of plain
	// SGD, without momentum, at 3e-3 on minibatches of 128.
	PaperEpochs = 100
	PaperBatch  = 128
	PaperLR     = 3e-3
	// PaperLambda is their coefficient of the penalty, 1.
	PaperLambda = 1.0
	// paperFreeInputs is the number of incoming edges a node may have
	// without being penalised.
	paperFreeInputs = 3
)

// paperDefaults fills the zero fields of a configuration with the
// authors' protocol: their epochs, batch, rate and coefficient, no
// fine-tuning, and the subgradient of the penalty.
func (c *Config) paperDefaults() {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Epochs, PaperEpochs)
	def(&c.Batch, PaperBatch)
	if c.LR == 0 {
		c.LR = PaperLR
	}
	if c.Lambda == 0 {
		c.Lambda = PaperLambda
	}
	if c.Finetune == 0 {
		c.NoFinetune = true
	}
	c.Plain = true
}

// checkPaper returns an error for settings the authors' protocol has no
// place for.
func (c Config) checkPaper() error {
	if c.Paper && len(c.Path) > 0 {
		return errors.New("sculpt: the authors' protocol has no regularisation path")
	}
	return nil
}

// edgeCoef returns the factor of the Euclidean norm of edge i, of n
// weights, in the penalty of weight lambda. By default it is
// lambda·sqrt(n). Under the authors' protocol the penalty is lambda
// times their coefficient times the edge's RMS norm |w|/sqrt(n): for a
// convolution into a hidden node, the node's incoming edges in the
// generous architecture beyond 3, so that nodes with 3 or fewer go
// free; for a head, 1, except the first head, which their code's bound
// on the nodes' index leaves out.
func (r *run) edgeCoef(i, n int, lambda float64) float64 {
	if !r.cfg.Paper {
		return lambda * math.Sqrt(float64(n))
	}
	e := r.arch.Edges[i]
	coef := 1.0
	switch {
	case e.Kind == "linear" && e.From == 1:
		coef = 0
	case e.Kind != "linear":
		incoming := 0
		for _, f := range r.arch.Edges {
			if f.Kind != "linear" && f.To == e.To {
				incoming++
			}
		}
		coef = float64(max(incoming-paperFreeInputs, 0))
	}
	return lambda * coef / math.Sqrt(float64(n))
}

// pruneNorm returns the Euclidean norm below which an edge of n weights
// is pruned: Tol, or under the authors' protocol Tol·sqrt(n), their
// tolerance being on the RMS norm.
func (r *run) pruneNorm(n int) float64 {
	if r.cfg.Paper {
		return r.cfg.Tol * math.Sqrt(float64(n))
	}
	return r.cfg.Tol
}

// stepper32 updates float32 weights from their gradient: Adam, or the
// authors' plain SGD.
type stepper32 interface {
	Step32(x, grad []float32)
}

// newStepper returns the optimiser of one edge's weights.
func (r *run) newStepper() stepper32 {
	if r.cfg.Paper {
		return &optim.SGD{LR: r.cfg.LR}
	}
	return &optim.Adam{LR: r.cfg.LR}
}

// optimizerName names the optimiser in the settings of a checkpoint.
func (c Config) optimizerName() string {
	if c.Paper {
		return "sgd"
	}
	return "adam"
}

// penaltyName names the penalty in the settings of a checkpoint.
func (c Config) penaltyName() string {
	switch {
	case c.Paper:
		return "paper"
	case c.Plain:
		return "plain"
	}
	return "prox"
}
