package serve_test

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/parametric-machines/machines/cmd/machines/internal/serve"
)

// A server of one saved hypergraph machine of an earlier version, y =
// tanh(0.5 x1 - x2 + 0.25), asked for its metadata and for two samples.
func Example() {
	dir, err := os.MkdirTemp("", "models")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "model", "testdata", "legacy.machine.json"))
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tiny.json"), data, 0o644); err != nil {
		panic(err)
	}
	s, err := serve.New(serve.Config{Dir: dir, Kinds: append(serve.ModelKinds(), serve.FiniteKinds()...),
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	defer s.Close()

	for _, r := range []struct{ method, path, body string }{
		{"GET", "/v2/models/tiny", ""},
		{"POST", "/v2/models/tiny/infer", `{"id": "1", "inputs": [{"name": "x", "datatype": "FP32", "shape": [2, 2], "data": [[1, 2], [0, 0]]}]}`},
		{"POST", "/v2/models/tiny/infer", `{"inputs": [{"name": "x", "datatype": "FP32", "shape": [1, 3], "data": [1, 2, 3]}]}`},
	} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(r.method, r.path, strings.NewReader(r.body)))
		fmt.Print(w.Code, " ", w.Body)
	}
	// Output:
	// 200 {"inputs":[{"name":"x","datatype":"FP32","shape":[-1,2]}],"name":"tiny","outputs":[{"name":"y","datatype":"FP32","shape":[-1,1]}],"platform":"machines_model","versions":["32a8f5ed9a70"]}
	// 200 {"model_name":"tiny","model_version":"32a8f5ed9a70","id":"1","outputs":[{"name":"y","datatype":"FP32","shape":[2,1],"data":[-0.84828365,0.24491866]}]}
	// 400 {"error":"input \"x\": shape [1 3], the model takes [-1,2]"}
}
