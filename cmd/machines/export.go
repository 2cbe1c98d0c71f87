package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/onnx"
	"github.com/parametric-machines/machines/onnx/onnxpb"
	"github.com/parametric-machines/machines/sculpt"
	"github.com/parametric-machines/machines/train"
)

func runExport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	var (
		modelPath = fs.String("model", "", "the model `file` to export: a model of machines fit, a saved hypergraph machine (sculpt's sculpt-model.json) or a saved finite machine (required)")
		out       = fs.String("onnx", "", "write the ONNX model to this `file` (required)")
		double    = fs.Bool("float64", false, "hypergraph and finite machines: compute in float64 rather than float32")
		shape     = fs.String("shape", "", "finite conv and recurrent machines: the signals' `shape`, L or H,W (required for them)")
		interval  = fs.Float64("interval", 0, "regression models of fit: add the outputs lower and upper, the conformal prediction interval of this `level`\n(between 0 and 1), as predict -interval computes it")
	)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: machines export -model FILE -onnx OUT.onnx [-float64] [-shape L|H,W]\n\n"+
			"writes the model as an ONNX model: a kernel machine with its preprocessing, a hypergraph\n"+
			"machine's live edges, a finite machine unrolled block by block\n"+
			"(see 'go doc github.com/parametric-machines/machines/onnx')\n\nflags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if err := requireFlags(fs, "model", "onnx"); err != nil {
		return err
	}
	format, err := fileFormat(*modelPath)
	if err != nil {
		return err
	}
	if setFlags(fs)["interval"] && (format == hypergraph.MachineFormat || format == finite.Format) {
		return usagef("-interval: only regression models of fit have prediction intervals")
	}
	if *shape != "" && format != finite.Format {
		return usagef("-shape %s: only finite machines take a signal shape", *shape)
	}
	var model *onnxpb.ModelProto
	switch format {
	case hypergraph.MachineFormat:
		if *double {
			model, err = exportHypergraph[float64](*modelPath)
		} else {
			model, err = exportHypergraph[float32](*modelPath)
		}
	case finite.Format:
		var dims []int
		if *shape != "" {
			if dims, err = parseShape(*shape); err != nil {
				return err
			}
		}
		if *double {
			model, err = exportFinite[float64](*modelPath, dims)
		} else {
			model, err = exportFinite[float32](*modelPath, dims)
		}
	case hypergraph.SpecFormat:
		return fmt.Errorf("%s: a hypergraph spec (%q) has no weights to export: export a saved machine, such as the sculpt-model.json of machines sculpt", *modelPath, format)
	case ad.ParamsFormat, train.CheckpointFormat, sculpt.CheckpointFormat:
		return fmt.Errorf("%s: a parameter or checkpoint file (%q), not a model: export takes the model files of machines fit and saved hypergraph and finite machines", *modelPath, format)
	default:
		if *double {
			return usagef("-float64: kernel machines are always exported in float64")
		}
		model, err = exportKernel(*modelPath, *interval, setFlags(fs)["interval"])
	}
	if err != nil {
		return err
	}
	if err := onnx.Write(*out, model); err != nil {
		return err
	}
	describe := func(names []string) string { return strings.Join(names, ", ") }
	var ins, outs []string
	for _, v := range model.GetGraph().GetInput() {
		ins = append(ins, v.GetName())
	}
	for _, v := range model.GetGraph().GetOutput() {
		outs = append(outs, v.GetName())
	}
	fmt.Fprintf(stdout, "export: wrote %s: inputs %s; outputs %s\n", *out, describe(ins), describe(outs))
	return nil
}

// fileFormat returns the "format" of a JSON file of the library, or ""
// for a file that has none, such as a model file of machines fit of
// version 1, or that is not JSON, which readModel reports.
func fileFormat(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var head struct {
		Format string `json:"format"`
	}
	if json.Unmarshal(data, &head) != nil {
		return "", nil
	}
	return head.Format, nil
}

func exportKernel(path string, level float64, interval bool) (*onnxpb.ModelProto, error) {
	md, err := readModel(path)
	if err != nil {
		return nil, err
	}
	halfWidth, err := intervalHalfWidth(md, path, level, interval)
	if err != nil {
		return nil, err
	}
	model, err := onnx.Kernel(onnx.KernelModel{
		Machine:   md.Machine,
		Encoder:   md.Encoder,
		Features:  md.Features,
		Target:    md.Target,
		Classes:   md.Classes,
		HalfWidth: halfWidth,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return model, nil
}

func exportHypergraph[T ad.Float](path string) (*onnxpb.ModelProto, error) {
	m, err := hypergraph.Load[T](path)
	if err != nil {
		return nil, err
	}
	model, err := onnx.Hypergraph(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return model, nil
}

func exportFinite[T ad.Float](path string, shape []int) (*onnxpb.ModelProto, error) {
	m, err := finite.Load[T](path)
	if err != nil {
		return nil, err
	}
	if m.Kind() != finite.Dense && shape == nil {
		return nil, usagef("%s: a %s machine: -shape L (or H,W for 2-D convolutions) must give its signals' shape", path, m.Kind())
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
