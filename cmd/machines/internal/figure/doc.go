// Package figure draws the figures of the paper with gonum/plot.
//
// Every figure is written twice, as BASE.png and BASE.svg, where BASE is
// the path given without extension. Each file is rendered to a temporary
// file in the destination directory and renamed into place, so a reader
// never sees a partial figure. The functions return the paths they wrote.
//
// Figures are grids of panels: Lines and Panels draw line and scatter
// charts, Heatmaps draws surfaces on rectangular grids with one shared
// colour scale, and Histograms draws how a distribution of values changes
// over training; Diagrams draws layered graphs, and Sculpt the
// architectures of a sculpting run from its report. A Layout sets the number of columns, the size of one
// panel and the PNG resolution; its zero value gives sensible defaults.
//
// Invalid data (empty or mismatched series, NaN or infinite values,
// non-positive values on a log axis, unsorted grid coordinates) is
// reported as an error naming the chart, series and index at fault;
// nothing is written in that case.
package figure
