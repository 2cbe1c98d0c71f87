package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/internal/jsonfile"
	"github.com/parametric-machines/machines/model"
)

// isComposedModel reports whether the file at path is a model file of
// package model, as sculpt writes, rather than one of fit. It reads the
// file's fields until its format and kind, which the module writes
// first, so as not to parse a large model of fit twice.
func isComposedModel(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	var format, kind string
	for dec.More() && (format == "" || kind == "") && format != model.LegacyFormat {
		key, err := dec.Token()
		if err != nil {
			return false
		}
		var v any
		switch key {
		case "format":
			v = &format
		case "kind":
			v = &kind
		default:
			v = new(json.RawMessage)
		}
		if dec.Decode(v) != nil {
			return false
		}
	}
	return format == jsonfile.Envelope && kind == model.FileKind || format == model.LegacyFormat
}

// imagePredictor writes the classes a composed model of images, such
// as a sculpted machine, gives the images of a folder.
type imagePredictor struct {
	m       *model.Model[float32]
	shape   []int // of the input, [C, H, W]
	pixels  model.Pixels
	classes []string
	stderr  io.Writer
}

// newImagePredictor loads the model at path, which must have one image
// input whose pixels its file describes and one output of classes.
func newImagePredictor(path string, stderr io.Writer) (*imagePredictor, error) {
	m, err := model.Load[float32](path)
	if err != nil {
		return nil, err
	}
	ins, inShapes := m.Inputs()
	outs, outShapes := m.Outputs()
	if len(ins) != 1 || len(outs) != 1 || len(inShapes[0]) != 3 || len(outShapes[0]) != 1 {
		return nil, fmt.Errorf("%s: a model of inputs %q and outputs %q: predict takes a classifier of images, one input [C, H, W] and one output of classes", path, ins, outs)
	}
	p := &imagePredictor{m: m, shape: inShapes[0], stderr: stderr}
	var ok bool
	if p.pixels, ok = m.Meta.Pixels[ins[0]]; !ok {
		return nil, fmt.Errorf("%s: the model file does not say how its input %q reads pixels (a file of version 1, as sculpt wrote before): sculpt again to write it, or serve it, sending pixels as it was trained on them", path, ins[0])
	}
	if p.classes = m.Meta.Classes[outs[0]]; p.classes == nil {
		// An IDX data set's classes are its labels.
		for c := range outShapes[0][0] {
			p.classes = append(p.classes, strconv.Itoa(c))
		}
	}
	return p, nil
}

// write predicts the images files, named relative to dir, in batches,
// and writes a row per image to w: the file, its class and the
// probability of each class.
func (p *imagePredictor) write(dir string, files []string, w io.Writer, format dataset.TableFormat) error {
	header, numeric := []string{"file", "class"}, []bool{false, false}
	for _, c := range p.classes {
		header, numeric = append(header, "p_"+c), append(numeric, true)
	}
	tw, err := dataset.NewTableWriter(w, format, header, numeric)
	if err != nil {
		return err
	}
	var unlike unlikeImages
	for start := 0; start < len(files); start += model.PredictBatch {
		batch := files[start:min(start+model.PredictBatch, len(files))]
		x, err := p.read(batch, &unlike)
		if err != nil {
			return err
		}
		y, err := p.m.Predict(x)
		if err != nil {
			return err
		}
		records := make([][]string, len(batch))
		for i, path := range batch {
			records[i] = p.record(relative(dir, path), y[0].Data[i*len(p.classes):(i+1)*len(p.classes)])
		}
		if err := tw.Write(records); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	p.warnUnlike(unlike, len(files))
	return nil
}

// unlikeImages counts the images unlike those the model was trained on.
type unlikeImages struct {
	resized, colour, grey int // of another size; in colour, grey
}

// read reads the image files into the model's input, and counts those
// unlike the model's images.
func (p *imagePredictor) read(files []string, unlike *unlikeImages) (*ad.Tensor[float32], error) {
	channels, rows, cols := p.shape[0], p.shape[1], p.shape[2]
	x := ad.NewTensor[float32](len(files), channels, rows, cols)
	size := channels * rows * cols
	for i, path := range files {
		pix, info, err := dataset.ReadImage(path, channels, rows, cols)
		if err != nil {
			return nil, err
		}
		unlike.resized += btoi(info.Width != cols || info.Height != rows)
		unlike.colour += btoi(!info.Grey)
		unlike.grey += btoi(info.Grey)
		for j, v := range pix {
			x.Data[i*size+j] = float32(float64(v) * p.pixels.Scale)
		}
	}
	return x, nil
}

// warnUnlike warns of the n images unlike those the model was trained
// on: of another size, resized; in colour for a model of grey images,
// read as grey; and all grey for a model of colour images, which a few
// grey ones among its training images may not have taught it.
func (p *imagePredictor) warnUnlike(unlike unlikeImages, n int) {
	if unlike.resized > 0 {
		fmt.Fprintf(p.stderr, "machines predict: warning: %d of %d images were not of the model's %dx%d pixels and were resized to it\n",
			unlike.resized, n, p.shape[2], p.shape[1])
	}
	switch {
	case p.shape[0] == 1 && unlike.colour > 0:
		fmt.Fprintf(p.stderr, "machines predict: warning: %d of %d images are in colour and the model was trained on grey images: they were read as grey (their luma)\n",
			unlike.colour, n)
	case p.shape[0] == 3 && unlike.grey == n:
		fmt.Fprintf(p.stderr, "machines predict: warning: the %d images are grey and the model was trained on images in colour: each was read as three equal channels\n", n)
	}
}

// record returns the row of an image of the given logits: its file,
// its class and the probabilities of the classes (the softmax).
func (p *imagePredictor) record(file string, logits []float32) []string {
	high := slices.Max(logits)
	probs := make([]float64, len(logits))
	sum := 0.0
	for c, l := range logits {
		probs[c] = math.Exp(float64(l - high))
		sum += probs[c]
	}
	rec := []string{file, p.classes[slices.Index(logits, high)]}
	for _, q := range probs {
		rec = append(rec, strconv.FormatFloat(q/sum, 'g', 6, 64))
	}
	return rec
}

// otherClasses returns a warning if the images in dir are in folders
// named like the model's classes, as a test folder of class folders is,
// and some are in folders named like none, classes the model does not
// have; otherwise "".
func (p *imagePredictor) otherClasses(dir string, files []string) string {
	var folders []string
	for _, path := range files {
		if folder, _, ok := strings.Cut(relative(dir, path), "/"); ok && !slices.Contains(folders, folder) {
			folders = append(folders, folder)
		}
	}
	other := slices.DeleteFunc(slices.Clone(folders), func(f string) bool { return slices.Contains(p.classes, f) })
	if len(other) == 0 || len(other) == len(folders) {
		return ""
	}
	classes := strings.Join(p.classes[:min(len(p.classes), 10)], ", ")
	if len(p.classes) > 10 {
		classes += ", ..."
	}
	return fmt.Sprintf("the folders of %s are named like the model's classes, but %d like none (%s): their images are classified among the model's classes (%s)",
		dir, len(other), strings.Join(other, ", "), classes)
}

// relative returns path relative to dir, or path if it is not in it.
func relative(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && rel != "." {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(path)
}

// predictImages is predict of a composed model of images: -data is an
// image file or a folder of them.
func predictImages(modelPath, data, out string, stdout, stderr io.Writer) error {
	p, err := newImagePredictor(modelPath, stderr)
	if err != nil {
		return err
	}
	files, warnings, err := dataset.ImageFiles(data)
	if err != nil {
		return err
	}
	if w := p.otherClasses(data, files); w != "" {
		warnings = append(warnings, w)
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "machines predict: warning: %s\n", w)
	}
	if out == "-" {
		err = p.write(data, files, stdout, dataset.CSV)
	} else {
		err = atomicfile.WriteFile(out, func(w io.Writer) error { return p.write(data, files, w, dataset.FormatOf(out)) })
	}
	if err != nil {
		return err
	}
	if out != "-" {
		fmt.Fprintf(stdout, "predict: %d images; wrote %s\n", len(files), out)
	}
	return nil
}

// btoi returns 1 for true and 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
