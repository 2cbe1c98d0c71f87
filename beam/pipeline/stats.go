package pipeline

import (
	"encoding/json"
	"fmt"

	"github.com/parametric-machines/machines/tabular"
)

// decodePlan reads the plan that the driver chose, as a worker gets it.
func decodePlan(b []byte) (*tabular.Plan, error) {
	p := new(tabular.Plan)
	if err := json.Unmarshal(b, p); err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	return p, nil
}

// encodeStats and decodeStats carry statistics between workers and to
// the driver: their exported fields are the sums.
func encodeStats(s *tabular.Stats) ([]byte, error) { return json.Marshal(s) }

func decodeStats(b []byte) (*tabular.Stats, error) {
	s := new(tabular.Stats)
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("pipeline: the statistics: %w", err)
	}
	return s, nil
}
