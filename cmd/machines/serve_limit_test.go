//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/cmd/machines/internal/serve"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/model"
)

// addressLimit is the address space serve runs in under
// TestServeUnderLimit: 3 GiB.
const addressLimit = 3 << 30

// TestServeChild is serve in a process of its own, run by startServe,
// which names the models folder in MACHINES_SERVE_CHILD, more flags in
// MACHINES_SERVE_FLAGS, and sets MACHINES_SERVE_LIMIT for a process
// under addressLimit.
func TestServeChild(t *testing.T) {
	dir := os.Getenv("MACHINES_SERVE_CHILD")
	if dir == "" {
		t.Skip("run by startServe")
	}
	if os.Getenv("MACHINES_SERVE_LIMIT") != "" {
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: addressLimit, Max: addressLimit}); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{"serve", "-models", dir, "-addr", "127.0.0.1:0"}, strings.Fields(os.Getenv("MACHINES_SERVE_FLAGS"))...)
	os.Exit(run(args, os.Stdout, os.Stderr))
}

// startServe starts serve on the models of dir in a child process,
// with the environment env of TestServeChild, and returns its URL and
// process; the test's end kills it, and logs its log if the test failed.
func startServe(t *testing.T, dir string, env ...string) (string, *exec.Cmd) {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^TestServeChild$")
	child.Env = append(append(os.Environ(), "MACHINES_SERVE_CHILD="+dir), env...)
	var log bytes.Buffer
	child.Stderr = &log
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		child.Process.Kill()
		child.Wait()
		if t.Failed() {
			t.Logf("serve's log:\n%s", log.String())
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "serve: listening on ") {
		t.Fatalf("serve wrote %q, %v", line, err)
	}
	return "http://" + strings.TrimSpace(strings.TrimPrefix(line, "serve: listening on ")), child
}

// TestServeUnderLimit serves a model of each kind, with serve's
// defaults, in a process under a 3 GiB address space: a model of fit,
// finite dense, 1-D and 2-D convolutional and recurrent machines, and a
// composed model. For each it sends the largest request the server
// takes, of zeros, and one sample more, which it refuses (413), then the
// largest of every kind at once, and the one signal of 2,097,052
// positions that took a server down; the server must answer each and
// live on.
func TestServeUnderLimit(t *testing.T) {
	if testing.Short() || underRace {
		t.Skip("computes requests of half a gigabyte each; the race detector's shadow memory needs more address space")
	}
	dir := t.TempDir()
	writeLimitModels(t, dir)
	url, child := startServe(t, dir, "MACHINES_SERVE_LIMIT=1")
	largest := map[string]string{}
	for _, name := range []string{"fit", "dense", "conv", "conv2", "recur", "composed"} {
		body, n, how := largestRequest(t, url, name)
		largest[name] = body
		t.Logf("%-8s the largest request: %d samples (%s), %d bytes", name, n, how, len(body))
	}
	var wg sync.WaitGroup
	for name, body := range largest {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if status, got := post(url, name, body); status != 200 && status != 503 {
				t.Errorf("%s, the largest requests at once: %d %.200s", name, status, got)
			}
		}()
	}
	wg.Wait()
	issue := `{"inputs":[{"name":"y0","datatype":"FP32","shape":[1,1,2097052],"data":[0` + strings.Repeat(",0", 2097051) + `]}]}`
	if status, got := post(url, "conv", issue); status != 413 {
		t.Errorf("one signal of 2097052 positions: %d %.200s", status, got)
	}
	if resp, err := http.Get(url + "/v2/health/live"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the server after the requests: %v %v", resp, err)
	}
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", child.Process.Pid))
	for _, m := range regexp.MustCompile(`(?m)^(VmPeak|VmHWM):\s+(.*)$`).FindAllStringSubmatch(string(status), -1) {
		t.Logf("serve's %s: %s", m[1], m[2])
	}
}

// writeLimitModels writes into dir a model of each kind serve serves.
func writeLimitModels(t *testing.T, dir string) {
	t.Helper()
	if code, _, stderr := fitTestRun("fit", "-data", "testdata/fit_cls_train.csv", "-target", "color", "-cost", "0.1", "-bandwidth", "1",
		"-model", filepath.Join(dir, "fit.json")); code != 0 {
		t.Fatalf("fit exited with %d: %s", code, stderr)
	}
	rnd := rand.New(rand.NewPCG(4, 1))
	for name, build := range map[string]func() (*finite.Machine[float32], error){
		"dense": func() (*finite.Machine[float32], error) {
			return finite.NewDense[float32]([]int{2, 30, 1}, ad.Tanh, rnd)
		},
		"conv": func() (*finite.Machine[float32], error) {
			return finite.NewConv[float32]([]int{1, 16}, ad.Tanh, []int{1}, rnd)
		},
		"conv2": func() (*finite.Machine[float32], error) {
			return finite.NewConv[float32]([]int{1, 4}, ad.Tanh, []int{1, 1}, rnd)
		},
		"recur": func() (*finite.Machine[float32], error) {
			return finite.NewRecur[float32]([]int{1, 8}, ad.Tanh, 2, 1, rnd)
		},
	} {
		m, err := build()
		if err == nil {
			err = m.Save(filepath.Join(dir, name+".json"))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	spec, err := hypergraph.LoadSpec("../../hypergraph/testdata/unet.json")
	if err != nil {
		t.Fatal(err)
	}
	unet, err := model.FromSpec[float32](spec, rnd)
	if err == nil {
		err = unet.Save(filepath.Join(dir, "composed.json"))
	}
	if err != nil {
		t.Fatal(err)
	}
}

// largestRequest finds the largest request to model name that the
// server at url takes, of zeros with signals of 1,000 positions or
// images of 32 x 32: as many samples as fill the largest body, or, when
// their computation is too large, as many as the server's refusal says.
// It checks that one sample more is refused, and returns the request,
// its samples and what bounds them.
func largestRequest(t *testing.T, url, name string) (string, int, string) {
	t.Helper()
	resp, err := http.Get(url + "/v2/models/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var meta struct{ Inputs []serve.TensorSpec }
	err = json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	request := zeroRequest(meta.Inputs)
	one, two := len(request(1)), len(request(2))
	n := (4<<20-one)/(two-one) + 1 // about the most samples of the largest body
	for len(request(n)) > 4<<20 {
		n--
	}
	status, got := post(url, name, request(n))
	how := "the largest body"
	if m := regexp.MustCompile(`send at most (\d+) samples`).FindStringSubmatch(got); status == 413 && m != nil {
		n, _ = strconv.Atoi(m[1])
		how = "the memory of the computation"
		status, got = post(url, name, request(n))
	}
	if status != 200 {
		t.Fatalf("%s, %d samples: %d %.300s", name, n, status, got)
	}
	if status, got := post(url, name, request(n+1)); status != 413 {
		t.Errorf("%s, one sample more than the largest request, %d: %d %.300s", name, n+1, status, got)
	}
	return request(n), n, how
}

// zeroRequest returns a function that writes a request of n samples of
// zeros (texts "a") to a model of the given inputs.
func zeroRequest(inputs []serve.TensorSpec) func(n int) string {
	return func(n int) string {
		var b strings.Builder
		b.WriteString(`{"inputs":[`)
		for k, spec := range inputs {
			shape := []int{n}
			free := 1000 // the positions of a signal
			if len(spec.Shape) == 4 {
				free = 32 // the height and width of an image
			}
			for _, d := range spec.Shape[1:] {
				if d < 0 {
					d = free
				}
				shape = append(shape, d)
			}
			zero := "0"
			if spec.Datatype == serve.BYTES {
				zero = `"a"`
			}
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":%q,"datatype":%q,"shape":%s,"data":[%s]}`, spec.Name, spec.Datatype,
				strings.ReplaceAll(fmt.Sprint(shape), " ", ","), strings.TrimSuffix(strings.Repeat(zero+",", product(shape)), ","))
		}
		b.WriteString(`]}`)
		return b.String()
	}
}

func product(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// post sends body to model name's inference endpoint at url.
func post(url, name, body string) (int, string) {
	resp, err := http.Post(url+"/v2/models/"+name+"/infer", "application/json", strings.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(got)
}
