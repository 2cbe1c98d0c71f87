package experiment

import (
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/sculpt"
)

// DefaultImageData is where Debian's dataset-fashion-mnist package
// installs Fashion-MNIST; the sculpt experiment reads it when
// Config.Data is empty.
const DefaultImageData = "/usr/share/datasets/fashion-mnist"

// Sculpt sculpts the generous hypergraph architecture of section 3.1 of
// the paper (Figure 2) on the IDX data set in Config.Data with the
// defaults of package sculpt, and writes what sculpt.Run writes with
// an output directory: DIR/sculpt.json in the shape of sculpt.Report, the final
// machine, DOT files and the pictures sculpt-architecture.png and .svg.
// Quick trains one epoch, with the penalty and without fine-tuning, on
// the first 6000 training images and tests on the first 2000 test
// images.
func Sculpt(c Config) (*Report, error) {
	dir := c.Data
	if dir == "" {
		dir = DefaultImageData
	}
	train, err := dataset.LoadIDX(dir, "train")
	if err != nil {
		return nil, err
	}
	test, err := dataset.LoadIDXClasses(dir, "t10k", train.Classes)
	if err != nil {
		return nil, err
	}
	sc := sculpt.Config{Seed: c.Seed, Out: c.dir(), Progress: c.Progress}
	if c.Quick {
		// A single epoch with the penalty: no fine-tuning.
		sc.Epochs, sc.Finetune, sc.MaxTrain, sc.MaxTest = 1, -1, 6000, 2000
	}
	rep, err := sculpt.Run(sc, train, test)
	if err != nil {
		return nil, err
	}
	c.logf("\nedges %d -> %d, FLOPs per image %d -> %d, test accuracy %.4f (unpruned %.4f)",
		rep.EdgesInitial, rep.EdgesLive, rep.FLOPsInitial, rep.FLOPsLive, rep.AccuracyPruned, rep.AccuracyUnpruned)
	return &Report{Figures: figureFiles(rep.Files), Sculpt: rep}, nil
}

// figureFiles returns the pictures among the files a run wrote.
func figureFiles(files []string) []string {
	var figs []string
	for _, f := range files {
		if n := len(f); n > 4 && (f[n-4:] == ".png" || f[n-4:] == ".svg") {
			figs = append(figs, f)
		}
	}
	return figs
}
