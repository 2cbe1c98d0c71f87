package experiment

import (
	"github.com/parametric-machines/machines/cmd/machines/internal/figure"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/sculpt"
)

// DefaultImageData is where Debian's dataset-fashion-mnist package
// installs Fashion-MNIST; the sculpt experiment reads it when
// Config.Data is empty.
const DefaultImageData = "/usr/share/datasets/fashion-mnist"

// The quick sculpt run takes a tenth of the default run's steps, too few
// for the default penalty to prune anything (seed 1: 36 edges left);
// 0.19, which sculpt scales to 0.30 for its 9,000 training images,
// prunes 29 of 36 edges at 77.6% test accuracy.
const (
	quickSculptEpochs = 4
	quickSculptTrain  = 10000
	quickSculptLambda = 0.19
)

// Sculpt sculpts the generous hypergraph architecture of section 3.1 of
// the paper (Figure 2) on the IDX data set or the image folder in
// Config.Data (see dataset.LoadImages, with the seed of the run) with the
// defaults of package sculpt, and writes what sculpt.Run writes with an
// output directory, DIR/sculpt.json in the shape of sculpt.Report, the final
// machine and DOT files, and the pictures sculpt-architecture.png and .svg.
// Quick trains four epochs, three with the penalty and one of
// fine-tuning, on the first 10000 training images and tests on the first
// 2000 test images. The penalty is larger than the default because a quick
// run takes a tenth of the default run's steps.
func Sculpt(c Config) (*Report, error) {
	dir := c.Data
	if dir == "" {
		dir = DefaultImageData
	}
	data, err := dataset.LoadImages(dir, dataset.FolderOptions{Seed: c.Seed})
	if err != nil {
		return nil, err
	}
	for _, w := range data.Warnings {
		c.logf("warning: %s", w)
	}
	sc := sculpt.Config{Seed: c.Seed, Out: c.dir(), Progress: c.Progress}
	if c.Quick {
		sc.Epochs, sc.Finetune, sc.MaxTrain, sc.MaxTest = quickSculptEpochs, 1, quickSculptTrain, 2000
		sc.Lambda = quickSculptLambda
	}
	rep, err := sculpt.RunValid(data.Train, data.Valid, data.Test, sc)
	if err != nil {
		return nil, err
	}
	figs, err := figure.Sculpt(sc.Out, rep)
	if err != nil {
		return nil, err
	}
	c.logf("\nedges %d -> %d, FLOPs per image %d -> %d, test accuracy %.4f (unpruned %.4f)",
		rep.EdgesInitial, rep.EdgesLive, rep.FLOPsInitial, rep.FLOPsLive, rep.AccuracyPruned, rep.AccuracyUnpruned)
	return &Report{Figures: figs, Sculpt: rep}, nil
}
