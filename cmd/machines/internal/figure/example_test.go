package figure_test

import (
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/parametric-machines/machines/cmd/machines/internal/figure"
	"gonum.org/v1/plot/plotutil"
)

func ExampleLines() {
	dir, err := os.MkdirTemp("", "figure")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// A training loss (solid) and a test loss (dashed) of one model
	// share a colour.
	var iter, train, test []float64
	for i := 1; i <= 100; i++ {
		iter = append(iter, float64(i))
		train = append(train, math.Exp(-float64(i)/20))
		test = append(test, 1.5*math.Exp(-float64(i)/25))
	}
	paths, err := figure.Lines(filepath.Join(dir, "loss"), figure.Chart{
		Title: "Performance over training", XLabel: "iteration", YLabel: "MSE",
		LogY: true,
		Series: []figure.Series{
			{Name: "train", X: iter, Y: train, Color: plotutil.Color(0)},
			{Name: "test", X: iter, Y: test, Color: plotutil.Color(0), Dashed: true},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range paths {
		fmt.Println(filepath.Base(p))
	}
	// Output:
	// loss.png
	// loss.svg
}

func ExampleHeatmaps() {
	dir, err := os.MkdirTemp("", "figure")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// The target and a fit on the same grid, on one colour scale.
	grid := make([]float64, 101)
	for i := range grid {
		grid[i] = -1 + float64(i)/50
	}
	sample := func(f func(x, y float64) float64) [][]float64 {
		z := make([][]float64, len(grid))
		for r, y := range grid {
			z[r] = make([]float64, len(grid))
			for c, x := range grid {
				z[r][c] = f(x, y)
			}
		}
		return z
	}
	truth := func(x, y float64) float64 { return x*x - y*y }
	fit := func(x, y float64) float64 { return 0.9 * truth(x, y) }

	paths, err := figure.Heatmaps(filepath.Join(dir, "surfaces"), figure.Layout{}, figure.HeatmapSet{
		XLabel: "x", YLabel: "y", Label: "f(x, y)",
		Maps: []figure.Heatmap{
			{Title: "truth", X: grid, Y: grid, Z: sample(truth)},
			{Title: "fit", X: grid, Y: grid, Z: sample(fit)},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(paths), "files")
	// Output:
	// 2 files
}
