package experiment

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPaperSineDraw checks the authors' data: x on [-10, 10] and one
// noise vector shared by the training and the test points.
func TestPaperSineDraw(t *testing.T) {
	d := paperSineDraw(rand.New(rand.NewPCG(1, 2)))
	for i := range paperSinePoints {
		x, xt := d.x.At(i, 0), d.xt.At(i, 0)
		if math.Abs(x) > paperSineLimit || math.Abs(xt) > paperSineLimit {
			t.Fatalf("point %d: x %g, test x %g outside [-10, 10]", i, x, xt)
		}
		e, et := d.y.At(i, 0)-math.Sin(x), d.yt.At(i, 0)-math.Sin(xt)
		if e < 0 || e >= 1 || math.Abs(e-et) > 1e-12 {
			t.Fatalf("point %d: noise %g in training, %g in test, want one value in [0, 1)", i, e, et)
		}
	}
	if d.x.At(0, 0) == d.xt.At(0, 0) {
		t.Error("the training and test inputs are the same")
	}
}

// TestSinePaperQuick runs the quick sine experiment under the authors'
// protocol on two draws and checks its report: the protocol, the
// models' parameter counts, the penalised losses against the plain
// errors, the curves and the figures; and that the kernel machine beats
// the sigmoid perceptron, which collapses towards a constant.
func TestSinePaperQuick(t *testing.T) {
	dir := t.TempDir()
	r, err := Run("sine", Config{Out: dir, Seed: 1, Quick: true, Protocol: Paper, Draws: 2})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "sine.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got SinePaperReport
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Experiment != "sine" || got.Protocol != "paper" || got.Cost != 0.003 || got.Rounds != paperSineRoundsQuick ||
		len(got.DrawSeeds) != 2 || len(got.Models) != 3 || len(got.Figures) != 2 {
		t.Fatalf("report %+v", got)
	}
	// The recorded draws are the data the models were trained on.
	for d, seed := range got.DrawSeeds {
		want := paperSineDraw(rand.New(rand.NewPCG(seed, paperSineStream)))
		if d >= len(got.Draws) || len(got.Draws[d].Noise) != paperSinePoints {
			t.Fatalf("draw %d: %d draws recorded", d+1, len(got.Draws))
		}
		rec := got.Draws[d]
		for i := range paperSinePoints {
			if rec.X[i] != want.x.At(i, 0) || rec.TestX[i] != want.xt.At(i, 0) ||
				math.Abs(math.Sin(rec.TestX[i])+rec.Noise[i]-want.yt.At(i, 0)) > 1e-12 {
				t.Fatalf("draw %d point %d: recorded %v, %v, %v", d+1, i, rec.X[i], rec.TestX[i], rec.Noise[i])
			}
		}
	}
	params := map[string]int{"kernel machine": 514, "perceptron relu": 609, "perceptron sigmoid": 609}
	for _, m := range got.Models {
		if m.Params != params[m.Name] {
			t.Errorf("%s: %d parameters, want %d", m.Name, m.Params, params[m.Name])
		}
		if len(m.CurveTrain) != got.Rounds || len(m.CurveTest) != got.Rounds || len(m.TestMSE.Values) != 2 {
			t.Errorf("%s: curves of %d and %d rounds, %d draws", m.Name, len(m.CurveTrain), len(m.CurveTest), len(m.TestMSE.Values))
		}
		// The penalty is the same on both sets and positive.
		for d := range 2 {
			pt, pe := m.TrainLoss.Values[d]-m.TrainMSE.Values[d], m.TestLoss.Values[d]-m.TestMSE.Values[d]
			if !(pt > 0) || math.Abs(pt-pe) > 1e-9 {
				t.Errorf("%s draw %d: penalty %g in training, %g in test", m.Name, d+1, pt, pe)
			}
		}
		if m.CurveTrain[len(m.CurveTrain)-1] != m.TrainLoss.Values[0] {
			t.Errorf("%s: curve ends at %g, final loss %g", m.Name, m.CurveTrain[len(m.CurveTrain)-1], m.TrainLoss.Values[0])
		}
	}
	km, sig := got.Models[0], got.Models[2]
	if km.TestMSE.Mean >= sig.TestMSE.Mean || km.TruthMSE.Mean > 0.05 || sig.TrainMSE.Mean < 0.3 {
		t.Errorf("kernel machine test MSE %g, against the truth %g; sigmoid perceptron test %g, train %g",
			km.TestMSE.Mean, km.TruthMSE.Mean, sig.TestMSE.Mean, sig.TrainMSE.Mean)
	}
	for _, f := range r.Figures {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("figure %s: %v", f, err)
		}
	}
}

func TestProtocolErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Config
		want string
	}{
		{"polynomial", Config{Protocol: Paper}, "no paper protocol"},
		{"sine", Config{Protocol: Paper, Costs: []float64{0.1, 0.01}}, "one cost"},
		{"sine", Config{Protocol: Paper, Draws: -1}, "draws"},
		{"sine", Config{Protocol: Protocol(7)}, "unknown protocol"},
	} {
		tc.c.Out = t.TempDir()
		if _, err := Run(tc.name, tc.c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %+v: error %v, want %q", tc.name, tc.c, err, tc.want)
		}
	}
	for _, s := range []string{"fair", "paper"} {
		if p, err := ParseProtocol(s); err != nil || p.String() != s {
			t.Errorf("ParseProtocol(%q) = %v, %v", s, p, err)
		}
	}
	if _, err := ParseProtocol("authors"); err == nil {
		t.Error("ParseProtocol(\"authors\") gave no error")
	}
}
