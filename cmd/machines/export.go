package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/finite"
	"github.com/parametric-machines/machines/hypergraph"
	"github.com/parametric-machines/machines/onnx"
	"github.com/parametric-machines/machines/sculpt"
	"github.com/parametric-machines/machines/train"
)

func runExport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	var (
		modelPath = fs.String("model", "", "the model `file` to export: a model JSON file written by machines fit (required)")
		out       = fs.String("onnx", "", "write the ONNX model to this `file` (required)")
	)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: machines export -model FILE -onnx OUT.onnx\n\n"+
			"writes the model as an ONNX model that takes the raw feature columns\n(see 'go doc github.com/parametric-machines/machines/onnx')\n\nflags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if err := requireFlags(fs, "model", "onnx"); err != nil {
		return err
	}
	if err := refuseOtherFiles(*modelPath); err != nil {
		return err
	}
	md, err := readModel(*modelPath)
	if err != nil {
		return err
	}
	model, err := onnx.Kernel(onnx.KernelModel{
		Machine:  md.Machine,
		Encoder:  md.Encoder,
		Features: md.Features,
		Target:   md.Target,
		Classes:  md.Classes,
	})
	if err != nil {
		return fmt.Errorf("%s: %w", *modelPath, err)
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

// refuseOtherFiles returns an error for the files of the library that
// hold no model that export can write: hypergraph and finite machines,
// which it does not export yet, and parameters and checkpoints. Other
// files, model files among them, it leaves to readModel.
func refuseOtherFiles(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var head struct {
		Format string `json:"format"`
	}
	if json.Unmarshal(data, &head) != nil {
		return nil // readModel reports what is wrong
	}
	switch head.Format {
	case hypergraph.MachineFormat, hypergraph.SpecFormat:
		return fmt.Errorf("%s: a hypergraph machine (%q): hypergraph machines are not exported to ONNX yet; export takes the kernel machines of machines fit", path, head.Format)
	case finite.Format:
		return fmt.Errorf("%s: a finite machine (%q): finite machines are not exported to ONNX yet; export takes the kernel machines of machines fit", path, head.Format)
	case ad.ParamsFormat, train.CheckpointFormat, sculpt.CheckpointFormat:
		return fmt.Errorf("%s: a parameter or checkpoint file (%q), not a model: export takes the model files of machines fit", path, head.Format)
	}
	return nil
}
