package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSculptPaperCommand runs sculpt under the authors' protocol,
// shortened to 2 of their epochs: the flags left out take their values,
// and the summary and the report say which protocol and how short.
func TestSculptPaperCommand(t *testing.T) {
	data, out := idxDir(t), t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"sculpt", "-protocol", "paper", "-data", data, "-out", out, "-nodes", "3", "-channels", "2", "-epochs", "2", "-batch", "8"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "the authors' protocol: 2 of their 100 epochs, plain SGD at 0.003 on minibatches of 8") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	raw, err := os.ReadFile(filepath.Join(out, "sculpt.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Protocol        string  `json:"protocol"`
		PaperEpochs     int     `json:"paper_epochs"`
		LambdaEffective float64 `json:"lambda_effective"`
		Settings        struct {
			Optimizer string  `json:"optimizer"`
			Lambda    float64 `json:"lambda"`
		} `json:"settings"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Protocol != "paper" || rep.PaperEpochs != 100 || rep.Settings.Optimizer != "sgd" || rep.Settings.Lambda != 1 || rep.LambdaEffective != 1 {
		t.Errorf("sculpt.json %s", raw)
	}
}

func TestSculptPaperUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown protocol", []string{"sculpt", "-data", "x", "-protocol", "authors"}, "-protocol \"authors\""},
		{"path", []string{"sculpt", "-data", "x", "-protocol", "paper", "-path"}, "no -path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit status %d, stderr %q; want 2 and a mention of %q", code, stderr.String(), tc.want)
			}
		})
	}
}
