package parallel

import (
	"errors"
	"fmt"
	"testing"
)

func TestRun(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 20} {
		out := make([]int, 17)
		if err := Run(len(out), workers, func(i int) error { out[i] = i * i; return nil }); err != nil {
			t.Fatal(err)
		}
		for i, v := range out {
			if v != i*i {
				t.Fatalf("%d workers: job %d wrote %d", workers, i, v)
			}
		}
	}
	bad := errors.New("job 3 failed")
	if err := Run(10, 1, func(i int) error {
		if i >= 3 {
			return fmt.Errorf("job %d failed", i)
		}
		return nil
	}); err == nil || err.Error() != bad.Error() {
		t.Errorf("error %v, want %v", err, bad)
	}
}
