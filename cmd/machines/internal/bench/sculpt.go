package bench

import (
	"fmt"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/sculpt"
)

// FashionMNIST is the directory of the Fashion-MNIST IDX files (Debian
// package dataset-fashion-mnist) that the sculpt suite trains on.
var FashionMNIST = "/usr/share/datasets/fashion-mnist"

// Sizes of the sculpt suite's epoch: the first sculptImages training
// images less the one held out for validation, in minibatches of 32,
// the last partial one dropped, so that an epoch trains sculptTrained
// images; the run is tested on the first sculptTest test images, a
// forward pass of well under 1% of the epoch's work.
const (
	sculptImages  = 10000
	sculptTrained = sculptImages / 32 * 32
	sculptTest    = 32
)

// SculptWorkloads returns the workloads of the sculpt suite: one epoch of
// sculpt.Run with the default Config (the generous architecture of 10
// nodes of 4 channels, minibatches of 32, Adam with learning rate 1e-3
// and the proximal group-lasso step with the default lambda, seed 1) on
// the first 10,000 Fashion-MNIST training images but the one held out for
// validation, from the directory
// FashionMNIST. sculpt-epoch-1 runs on one core with one worker,
// sculpt-epoch-all on every core (Procs -1) with the default workers, one
// per core. Their setup fails if the data set is missing.
func SculptWorkloads() []Workload {
	ref := "PyTorch: see WORKLOADS.md"
	return []Workload{
		{Name: "sculpt-epoch-1", Dtype: "float32", Unit: fmt.Sprintf("epoch, %d images", sculptTrained), Items: sculptTrained, ItemName: "images",
			Reference: ref, setup: func() (func(), error) { return sculptEpoch(1) }},
		{Name: "sculpt-epoch-all", Dtype: "float32", Unit: fmt.Sprintf("epoch, %d images", sculptTrained), Items: sculptTrained, ItemName: "images",
			Procs: -1, Reference: ref, setup: func() (func(), error) { return sculptEpoch(0) }},
	}
}

// fashionMNIST loads the training and test splits of FashionMNIST.
func fashionMNIST() (train, test *dataset.Images, err error) {
	train, err = dataset.LoadIDX(FashionMNIST, "train")
	if err == nil {
		test, err = dataset.LoadIDXClasses(FashionMNIST, "t10k", train.Classes)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("the sculpt suite needs Fashion-MNIST in %s (Debian package dataset-fashion-mnist): %w", FashionMNIST, err)
	}
	return train, test, nil
}

// sculptEpoch returns one epoch of sculpting with the given workers (0:
// the default) as the unit of work.
func sculptEpoch(workers int) (func(), error) {
	train, test, err := fashionMNIST()
	if err != nil {
		return nil, err
	}
	// Validation holds out the least it can, one image.
	c := sculpt.Config{Epochs: 1, Seed: 1, Workers: workers, MaxTrain: sculptImages, MaxTest: sculptTest, Validation: 1e-9}
	return func() {
		if _, err := sculpt.Run(train, test, c); err != nil {
			panic(fmt.Errorf("%w: bench: sculpt epoch: %v", ad.ErrState, err))
		}
	}, nil
}
