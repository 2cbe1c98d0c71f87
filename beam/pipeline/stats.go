package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/parametric-machines/machines/dataset"
)

// plan is what every worker needs to turn its rows into statistics: the
// target and the input columns. A stand-in for the learner's plan.
type plan struct {
	Target string
	Inputs []string
}

// decodePlan reads a plan written by encodePlan.
func decodePlan(b []byte) (*plan, error) {
	var p plan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("pipeline: the plan: %w", err)
	}
	return &p, nil
}

// encodePlan writes p for the workers.
func encodePlan(p *plan) ([]byte, error) { return json.Marshal(p) }

// stats are the sufficient statistics of a least-squares fit on [1, inputs]:
// the Gram matrix and its right-hand side. A stand-in for the learner's.
type stats struct {
	Rows int
	Gram []float64
	RHS  []float64
}

// newStats returns empty statistics for p.
func (p *plan) newStats() *stats {
	k := len(p.Inputs) + 1
	return &stats{Gram: make([]float64, k*k), RHS: make([]float64, k)}
}

// add adds the rows of f.
func (s *stats) add(p *plan, f *dataset.Frame) error {
	cols := make([]int, len(p.Inputs)+1)
	for i, name := range append([]string{p.Target}, p.Inputs...) {
		c, err := f.Column(name)
		if err != nil {
			return err
		}
		cols[i] = c
	}
	k := len(p.Inputs) + 1
	row := make([]float64, k)
	for r := range f.Len() {
		y, err := f.Number(r, cols[0])
		if err != nil {
			return err
		}
		row[0] = 1
		for i, c := range cols[1:] {
			if row[i+1], err = f.Number(r, c); err != nil {
				return err
			}
		}
		for i := range k {
			s.RHS[i] += row[i] * y
			for j := range k {
				s.Gram[i*k+j] += row[i] * row[j]
			}
		}
		s.Rows++
	}
	return nil
}

// merge adds o to s.
func (s *stats) merge(o *stats) error {
	if len(o.Gram) != len(s.Gram) || len(o.RHS) != len(s.RHS) {
		return errors.New("pipeline: statistics of different plans")
	}
	for i := range s.Gram {
		s.Gram[i] += o.Gram[i]
	}
	for i := range s.RHS {
		s.RHS[i] += o.RHS[i]
	}
	s.Rows += o.Rows
	return nil
}

// encodeStats and decodeStats carry statistics between workers.
func encodeStats(s *stats) ([]byte, error) { return json.Marshal(s) }

func decodeStats(b []byte) (*stats, error) {
	var s stats
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("pipeline: statistics: %w", err)
	}
	return &s, nil
}
