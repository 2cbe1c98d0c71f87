package bench

import (
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/parametric-machines/machines/internal/testutil"
)

func TestSculptSuite(t *testing.T) {
	ws, err := Suite("sculpt")
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || ws[0].Name != "sculpt-epoch-1" || ws[0].Procs != 0 || ws[1].Name != "sculpt-epoch-all" || ws[1].Procs != -1 {
		t.Fatalf("sculpt suite %+v", ws)
	}
	for _, w := range ws {
		if w.Items != 9984 || w.ItemName != "images" {
			t.Errorf("%s: %d %s per unit, want 9984 images", w.Name, w.Items, w.ItemName)
		}
	}
}

func TestSculptMissingData(t *testing.T) {
	defer func(dir string) { FashionMNIST = dir }(FashionMNIST)
	FashionMNIST = t.TempDir()
	for _, w := range SculptWorkloads() {
		_, err := Run(w, 1)
		if err == nil || !strings.Contains(err.Error(), "bench: "+w.Name+": the sculpt suite needs Fashion-MNIST in "+FashionMNIST) {
			t.Errorf("%s without the data: %v", w.Name, err)
		}
	}
}

func TestSculptEpoch(t *testing.T) {
	if testing.Short() {
		t.Skip("two epochs of Fashion-MNIST")
	}
	if _, _, err := fashionMNIST(); err != nil {
		testutil.Missing(t, "Fashion-MNIST (Debian package dataset-fashion-mnist)", err)
	}
	// sculpt-epoch-all, two epochs; sculpt-epoch-1 differs only in its
	// workers and Procs.
	procs := runtime.GOMAXPROCS(0)
	w := SculptWorkloads()[1]
	r, err := Run(w, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Procs != procs || r.Reps != 1 || math.Abs(r.PerSecond*r.Median().Seconds()-9984) > 1e-6 || r.Item != "images" {
		t.Errorf("%s: %+v, want GOMAXPROCS %d and 9984 images a unit", w.Name, r, procs)
	}
	if runtime.GOMAXPROCS(0) != procs {
		t.Errorf("GOMAXPROCS %d after the suite, was %d", runtime.GOMAXPROCS(0), procs)
	}
}

func TestSculptRatio(t *testing.T) {
	for _, tc := range []struct {
		one, all time.Duration
		met      bool
	}{{3 * time.Second, 1600 * time.Millisecond, true}, {3 * time.Second, 2 * time.Second, false}} {
		got := Ratios([]Result{{Name: "sculpt-epoch-1", MedianNS: int64(tc.one), Procs: 1},
			{Name: "sculpt-epoch-all", MedianNS: int64(tc.all), Procs: 2}})
		want := float64(tc.one) / float64(tc.all)
		if len(got) != 1 || got[0].Name != "sculpt-epoch speed-up, 2 cores" || math.Abs(got[0].Value-want) > 1e-12 ||
			!got[0].AtLeast || got[0].Goal != SculptSpeedup || got[0].Met() != tc.met {
			t.Errorf("Ratios(%v, %v) = %+v, want the speed-up %g, met %v", tc.one, tc.all, got, want, tc.met)
		}
	}
}
