package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testFormat is the format of the test model files: see testModel.
const testFormat = "serve-test-model"

// testFile is the content of a test model file.
type testFile struct {
	Format string  `json:"format"`
	Value  float64 `json:"value"`
	// Width is the number of values of input "x" per sample; 0 means any.
	Width int `json:"width,omitempty"`
	// DelayMS is how long Infer takes, in milliseconds.
	DelayMS int `json:"delay_ms,omitempty"`
	// Fail, if set, is the error of loading the file.
	Fail string `json:"fail,omitempty"`
	// Panic, if set, makes Load, Prepare or Infer panic.
	Panic string `json:"panic,omitempty"`
}

// testModel is the model of a test file: its inputs are "x" (FP64,
// [-1, Width], or [-1, -1] for Width 0) and "tag" (BYTES, [-1, 1]); its
// outputs "y" (FP64, [-1, 1]), Value plus the sum of the sample's x, and
// "echo" (BYTES, [-1]), the sample's tag read as a number. Prepare
// refuses a tag "bad" and warns of a tag "odd".
type testModel struct {
	f    testFile
	meta Metadata
}

func testKind() Kind {
	return Kind{Format: testFormat, Load: func(path string, data []byte) (Model, error) {
		var f testFile
		if err := json.Unmarshal(data, &f); err != nil {
			return nil, err
		}
		if f.Fail != "" {
			return nil, fmt.Errorf("%s: %s", path, f.Fail)
		}
		if f.Panic == "Load" {
			panic("test model panics in Load")
		}
		width := f.Width
		if width == 0 {
			width = -1
		}
		return &testModel{f: f, meta: Metadata{Platform: "test",
			Inputs:  []TensorSpec{{Name: "x", Datatype: FP64, Shape: []int{-1, width}}, {Name: "tag", Datatype: BYTES, Shape: []int{-1, 1}}},
			Outputs: []TensorSpec{{Name: "y", Datatype: FP64, Shape: []int{-1, 1}}, {Name: "echo", Datatype: BYTES, Shape: []int{-1}}},
		}}, nil
	}}
}

func (m *testModel) Metadata() Metadata { return m.meta }

// Prepare makes a row of the sample's x and a code for its tag: its
// index among the tags of the request.
func (m *testModel) Prepare(rows *Rows, in []Tensor) error {
	if m.f.Panic == "Prepare" {
		panic("test model panics in Prepare")
	}
	x, tag := in[0], in[1]
	n, w := x.Shape[0], x.Shape[1]
	rows.Reset(n, w+1)
	for i := range n {
		row := rows.Row(i)
		copy(row, x.Numbers[i*w:(i+1)*w])
		switch tag.Texts[i] {
		case "bad":
			return fmt.Errorf("input \"tag\", row %d: bad", i+1)
		case "odd":
			rows.Warnings = append(rows.Warnings, fmt.Sprintf("row %d is odd", i+1))
		}
		v, err := fmt.Sscan(tag.Texts[i], &row[w])
		if v != 1 || err != nil {
			row[w] = math.NaN()
		}
	}
	return nil
}

func (m *testModel) Infer(rows *Rows) ([]Tensor, error) {
	time.Sleep(time.Duration(m.f.DelayMS) * time.Millisecond)
	if m.f.Panic == "Infer" {
		panic("test model panics in Infer")
	}
	y := Tensor{Name: "y", Datatype: FP64, Shape: []int{rows.N, 1}, Numbers: make([]float64, rows.N)}
	echo := Tensor{Name: "echo", Datatype: BYTES, Shape: []int{rows.N}, Texts: make([]string, rows.N)}
	for i := range rows.N {
		row := rows.Row(i)
		y.Numbers[i] = m.f.Value
		for _, v := range row[:len(row)-1] {
			y.Numbers[i] += v
		}
		echo.Texts[i] = fmt.Sprint(row[len(row)-1])
	}
	return []Tensor{y, echo}, nil
}

// writeModel writes a test model file into dir atomically, by rename,
// as a file that replaces a model must be written.
func writeModel(t testing.TB, dir, name string, f testFile) {
	t.Helper()
	f.Format = testFormat
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name+".json")); err != nil {
		t.Fatal(err)
	}
}

// newTestServer returns a server of the test models in a new directory,
// with the given settings (Dir and Kinds are set here), logging to the
// test's log.
func newTestServer(t testing.TB, cfg Config, models map[string]testFile) (*Server, string) {
	t.Helper()
	dir := t.TempDir()
	for name, f := range models {
		writeModel(t, dir, name, f)
	}
	cfg.Dir = dir
	cfg.Kinds = append(append(append([]Kind{testKind()}, FiniteKinds()...), ModelKinds()...), cfg.Kinds...)
	if cfg.Poll == 0 {
		cfg.Poll = time.Hour // the tests scan when they change the directory
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, dir
}

// testWriter writes to a test's log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// testRequest returns the body of an inference request of the test
// model with the given x (one value per sample) and tags (by default
// "0" for each sample).
func testRequest(x []float64, tags ...string) string {
	if tags == nil {
		for range x {
			tags = append(tags, "0")
		}
	}
	xs, _ := json.Marshal(x)
	ts, _ := json.Marshal(tags)
	return fmt.Sprintf(`{"inputs":[{"name":"x","datatype":"FP64","shape":[%d,1],"data":%s},{"name":"tag","datatype":"BYTES","shape":[%d,1],"data":%s}]}`,
		len(x), xs, len(tags), ts)
}

// versionOf returns the version the server gives the test model file f.
func versionOf(t testing.TB, f testFile) string {
	t.Helper()
	f.Format = testFormat
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:6])
}

// do sends a request to h and returns its status and body.
func do(t testing.TB, h http.Handler, method, path, body string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, path, r))
	return w.Code, w.Body.String()
}

// inferResponse is the part of a response the tests read.
type inferResponse struct {
	ModelName    string  `json:"model_name"`
	ModelVersion string  `json:"model_version"`
	ID           *string `json:"id"`
	Parameters   struct {
		Warnings  string `json:"warnings"`
		BlankRows []int  `json:"blank_rows"`
	} `json:"parameters"`
	Outputs []struct {
		Name     string `json:"name"`
		Datatype string `json:"datatype"`
		Shape    []int  `json:"shape"`
		Data     []any  `json:"data"`
	} `json:"outputs"`
	Error string `json:"error"`
}

func decodeResponse(t testing.TB, body string) inferResponse {
	t.Helper()
	var r inferResponse
	dec := json.NewDecoder(bytes.NewReader([]byte(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("response %s: %v", body, err)
	}
	return r
}
