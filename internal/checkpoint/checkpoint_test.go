package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/internal/jsonfile"
)

// testState is the state of a loop of the tests, in a format with a
// version before the envelope, as the module's checkpoints have.
type testState struct {
	jsonfile.Header
	Epochs int       `json:"epochs"`
	Values []float64 `json:"values"`
}

var testFormat = jsonfile.Format{Name: jsonfile.Envelope, Kind: "test-state", What: "a test state",
	Oldest: 1, Newest: 2, Legacy: "machines-test-state", LegacyNewest: 1}

func TestSaveLoad(t *testing.T) {
	f := File{Path: filepath.Join(t.TempDir(), "checkpoint.json"), Format: testFormat}
	var none testState
	if found, err := f.Load(&none); found || err != nil {
		t.Fatalf("no file: found %v, error %v; want a fresh start", found, err)
	}
	if err := f.Save(&testState{Epochs: 4, Values: []float64{1, 2}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"format":"machines","kind":"test-state","version":2,`; !strings.HasPrefix(string(data), want) {
		t.Errorf("saved %s, want it to begin %s", data, want)
	}
	var got testState
	if found, err := f.Load(&got); !found || err != nil || got.Epochs != 4 || !slices.Equal(got.Values, []float64{1, 2}) {
		t.Errorf("loaded %+v, found %v, error %v", got, found, err)
	}
}

// TestLoadEveryVersion loads the state in every version of its format:
// before the envelope and in it.
func TestLoadEveryVersion(t *testing.T) {
	for _, c := range []struct {
		name   string
		epochs int
	}{{"state-v1.json", 2}, {"state-v2.json", 3}} {
		var s testState
		found, err := File{Path: filepath.Join("testdata", c.name), Format: testFormat}.Load(&s)
		if !found || err != nil || s.Epochs != c.epochs {
			t.Errorf("%s: found %v, error %v, %d epochs, want %d", c.name, found, err, s.Epochs, c.epochs)
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"format":"machines","kind":"model","version":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var s testState
	if _, err := (File{Path: other, Format: testFormat}).Load(&s); err == nil || !strings.Contains(err.Error(), "checkpoint "+other+": not a test state") {
		t.Errorf("a file of another kind: error %v", err)
	}
	missing := File{Path: filepath.Join(dir, "no", "checkpoint.json"), Format: testFormat}
	if err := missing.Save(&testState{}); err == nil || !strings.Contains(err.Error(), missing.Path) {
		t.Errorf("saving into a missing directory: error %v", err)
	}
}

// TestHook saves what the snapshot returns at the end of every epoch,
// and stops the loop with the snapshot's error.
func TestHook(t *testing.T) {
	f := File{Path: filepath.Join(t.TempDir(), "checkpoint.json"), Format: testFormat}
	epochs := 0
	hook := Hook[int](f, func() (State, error) {
		epochs++
		return &testState{Epochs: epochs}, nil
	})
	for e := range 3 {
		if err := hook(e); err != nil {
			t.Fatal(err)
		}
	}
	var s testState
	if _, err := f.Load(&s); err != nil || s.Epochs != 3 {
		t.Errorf("after 3 epochs the checkpoint holds %d, error %v", s.Epochs, err)
	}
	bad := errors.New("no state")
	failing := Hook[int](f, func() (State, error) { return nil, bad })
	if err := failing(4); !errors.Is(err, bad) || !strings.Contains(err.Error(), f.Path) {
		t.Errorf("a failing snapshot: error %v", err)
	}
}

// FuzzLoad feeds Load arbitrary files in place of the states of every
// version (testdata/state-v*.json, the seeds): it must refuse them with
// an error naming the file, never panic, or load a state.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"state-v1.json", "state-v2.json"} {
		seed, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "checkpoint.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var s testState
		found, err := File{Path: path, Format: testFormat}.Load(&s)
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("error %v does not name the file", err)
		}
		if found == (err != nil) {
			t.Errorf("found %v with error %v", found, err)
		}
	})
}
