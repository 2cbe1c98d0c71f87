package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/internal/budget"
	"github.com/parametric-machines/machines/internal/jsonfile"
	"github.com/parametric-machines/machines/model"
	"github.com/parametric-machines/machines/onnx"
	"github.com/parametric-machines/machines/onnx/onnxpb"
	"github.com/parametric-machines/machines/sculpt"
	"github.com/parametric-machines/machines/tabular"
	"github.com/parametric-machines/machines/train"
)

func runExport(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("export", "usage: machines export -model FILE -onnx OUT.onnx [-float64] [-shape L|H,W]\n\n"+
		"writes the model as an ONNX model: a kernel machine with its preprocessing, a saved model's\n"+
		"live layers of every family in one graph, a finite machine unrolled block by block\n"+
		"(see 'go doc github.com/parametric-machines/machines/onnx')")
	var (
		modelPath = fs.String("model", "", "the model `file` to export: a model of machines fit, a saved model of any family (sculpt's sculpt-model.json among them) or a saved finite machine (required)")
		out       = fs.String("onnx", "", "write the ONNX model to this `file` (required)")
		double    = fs.Bool("float64", false, "saved models and finite machines: compute in float64 rather than float32")
		shape     = fs.String("shape", "", "finite conv and recurrent machines: the signals' `shape`, L or H,W (required for them)")
		interval  = fs.Float64("interval", 0, "regression models of fit: add the outputs lower and upper, the conformal prediction interval of this `level`\n(between 0 and 1), as predict -interval computes it")
	)
	if err := parseCommand(fs, args, stderr, "model", "onnx"); err != nil {
		return err
	}
	if err := checkOutput("onnx", *out, "model.onnx"); err != nil {
		return err
	}
	if err := checkOverwrites([]pathFlag{{"model", *modelPath}}, []pathFlag{{"onnx", *out}}); err != nil {
		return err
	}
	format, err := fileKind(*modelPath)
	if err != nil {
		return err
	}
	if setFlags(fs)["interval"] && (format == model.FileKind || format == model.LegacyFormat || format == finite.FileKind || format == finite.Format) {
		return usagef("-interval: only regression models of fit have prediction intervals")
	}
	if *shape != "" && format != finite.FileKind && format != finite.Format {
		return usagef("-shape %s: only finite machines take a signal shape", *shape)
	}
	var proto *onnxpb.ModelProto
	switch format {
	case model.FileKind, model.LegacyFormat:
		if *double {
			proto, err = exportModel[float64](*modelPath)
		} else {
			proto, err = exportModel[float32](*modelPath)
		}
	case finite.FileKind, finite.Format:
		var dims []int
		if *shape != "" {
			if dims, err = parseShape(*shape); err != nil {
				return err
			}
		}
		if *double {
			proto, err = exportFinite[float64](*modelPath, dims)
		} else {
			proto, err = exportFinite[float32](*modelPath, dims)
		}
	case hypergraph.SpecKind, hypergraph.SpecFormat:
		return fmt.Errorf("%s: a hypergraph spec (%q) has no weights to export: export a saved machine, such as the sculpt-model.json of machines sculpt", *modelPath, format)
	case ad.ParamsKind, ad.ParamsFormat, train.CheckpointKind, train.CheckpointFormat, sculpt.CheckpointKind, sculpt.CheckpointFormat:
		return fmt.Errorf("%s: a parameter or checkpoint file (%q), not a model: export takes the model files of machines fit and saved hypergraph and finite machines", *modelPath, format)
	default:
		if *double {
			return usagef("-float64: kernel machines are always exported in float64")
		}
		proto, err = exportKernel(*modelPath, *interval, setFlags(fs)["interval"])
	}
	if err != nil {
		return err
	}
	if err := onnx.Write(*out, proto); err != nil {
		return err
	}
	reportExport(stdout, *out, proto)
	return nil
}

// reportExport prints the ONNX model's inputs and outputs.
func reportExport(stdout io.Writer, out string, proto *onnxpb.ModelProto) {
	describe := func(names []string) string { return strings.Join(names, ", ") }
	var ins, outs []string
	for _, v := range proto.GetGraph().GetInput() {
		ins = append(ins, v.GetName())
	}
	for _, v := range proto.GetGraph().GetOutput() {
		outs = append(outs, v.GetName())
	}
	fmt.Fprintf(stdout, "export: wrote %s: inputs %s; outputs %s\n", out, describe(ins), describe(outs))
}

// fileKind returns the "kind" of a file in the module's envelope, the
// "format" of a file written before the envelope, or "" for a file that
// has none, such as a model file of machines fit of version 1, or that
// is not JSON, which readModel reports.
func fileKind(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var head struct {
		Format string `json:"format"`
		Kind   string `json:"kind"`
	}
	if json.Unmarshal(data, &head) != nil {
		return "", nil
	}
	if head.Format == jsonfile.Envelope {
		return head.Kind, nil
	}
	return head.Format, nil
}

func exportKernel(path string, level float64, interval bool) (*onnxpb.ModelProto, error) {
	md, err := tabular.Load(path)
	if err != nil {
		return nil, err
	}
	if interval {
		if md.Task == tabular.Classification {
			return nil, usagef("-interval: %s is a classification model: its prediction sets are not exported; its probabilities are the output probabilities", path)
		}
		if level, err = intervalLevel(md, path, level, true); err != nil {
			return nil, err
		}
	}
	model, err := onnx.Tabular(md, level)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return model, nil
}

func exportModel[T ad.Float](path string) (*onnxpb.ModelProto, error) {
	m, err := model.Load[T](path)
	if err != nil {
		return nil, err
	}
	proto, err := onnx.Model(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return proto, nil
}

func exportFinite[T ad.Float](path string, shape []int) (*onnxpb.ModelProto, error) {
	m, err := finite.Load[T](path)
	if err != nil {
		return nil, err
	}
	if m.Kind() != finite.Dense && shape == nil {
		return nil, usagef("%s: a %s machine: -shape L (or H,W for 2-D convolutions) must give its signals' shape", path, m.Kind())
	}
	if m.Kind() == finite.Recur {
		var zero T
		elem := 8
		if _, ok := any(zero).(float32); ok {
			elem = 4
		}
		if err := checkUnrolled(m.Dims(), m.Pad()[0], shape[0], elem); err != nil {
			return nil, err
		}
	}
	model, err := onnx.Finite(m, shape...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return model, nil
}

// parseShape parses the value of -shape: positive whole numbers
// separated by commas.
func parseShape(s string) ([]int, error) {
	var dims []int
	for i, p := range strings.Split(s, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || d < 1 {
			return nil, usagef("-shape %s: entry %d is %q, want a whole number >= 1", s, i+1, strings.TrimSpace(p))
		}
		dims = append(dims, d)
	}
	return dims, nil
}

// The size of a recurrent machine unrolled into ONNX, measured on
// machines of 2 and 4 blocks of up to 16 channels: each time step holds
// the weights of the delays it reads, and some nodes per block; building
// the graph takes up to 8 times the file's size in memory. Protocol
// buffers, and so ONNX files, hold at most 2 GiB.
const (
	unrolledNodeBytes = 450
	unrolledMemory    = 8
	maxONNXBytes      = 2 << 30
)

// checkUnrolled refuses to unroll a recurrent machine of the given
// blocks, delay span pad and element size over steps time steps when the
// ONNX file would exceed what protocol buffers hold, or building it the
// memory available, saying what it would take.
func checkUnrolled(dims []int, pad, steps, elem int) error {
	d := 0
	for _, b := range dims {
		d += b
	}
	file := float64(steps) * float64(elem*(pad+1)*d*d+unrolledNodeBytes*len(dims))
	if file > maxONNXBytes {
		return usagef("-shape %d: the recurrent machine unrolled over %d time steps would make an ONNX file of about %s, "+
			"more than the 2 GiB that ONNX files hold; export a shorter signal", steps, steps, budget.DecimalBytes(file))
	}
	if avail, ok := budget.Available(); ok && unrolledMemory*file > float64(avail) {
		return fmt.Errorf("-shape %d: unrolling the recurrent machine over %d time steps would need about %s of memory, and %s are available; "+
			"export a shorter signal", steps, steps, budget.DecimalBytes(unrolledMemory*file), budget.DecimalBytes(float64(avail)))
	}
	return nil
}
