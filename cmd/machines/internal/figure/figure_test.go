package figure

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/plot/vg"
)

// sineChart returns a small chart with a line, a dashed line and points.
func sineChart(title string) Chart {
	x := make([]float64, 20)
	y := make([]float64, 20)
	for i := range x {
		x[i] = float64(i+1) / 4
		y[i] = 1.5 + math.Sin(x[i])
	}
	return Chart{Title: title, XLabel: "x", YLabel: "y", Series: []Series{
		{Name: "line", X: x, Y: y},
		{Name: "dashed", X: x, Y: y, Dashed: true},
		{Name: "points", X: x, Y: y, Points: true},
		{X: x, Y: y}, // no legend entry
	}}
}

// surface returns a heatmap of f on an n×n grid over [-1, 1]².
func surface(title string, n int, f func(x, y float64) float64) Heatmap {
	g := make([]float64, n)
	for i := range g {
		g[i] = -1 + 2*float64(i)/float64(n-1)
	}
	z := make([][]float64, n)
	for r := range z {
		z[r] = make([]float64, n)
		for c := range z[r] {
			z[r][c] = f(g[c], g[r])
		}
	}
	return Heatmap{Title: title, X: g, Y: g, Z: z}
}

// bars returns a chart of n bars of falling values, one of them
// negative, with intervals.
func bars(title string, n int) BarChart {
	c := BarChart{Title: title, XLabel: "drop in R²"}
	for i := range n {
		v := 1 - float64(i)/float64(n-1) - 0.1
		c.Bars = append(c.Bars, Bar{Label: fmt.Sprintf("x%d", i), Value: v, Low: v - 0.05, High: v + 0.1})
	}
	return c
}

func histogram(title string) Histogram {
	h := Histogram{Title: title, XLabel: "c", YLabel: "epoch"}
	for e := range 5 {
		v := make([]float64, 50)
		for i := range v {
			v[i] = math.Sin(float64(i)) * float64(e+1)
		}
		h.Rows = append(h.Rows, HistogramRow{Y: float64(10 * e), Values: v})
	}
	return h
}

// pixels returns the number of pixels spanning l at dpi, rounded as
// vgimg does.
func pixels(l vg.Length, dpi int) int {
	return int(l.Dots(float64(dpi)) + 0.5)
}

func TestWrite(t *testing.T) {
	square := func(x, y float64) float64 { return x*x - y*y }
	for _, test := range []struct {
		name  string
		write func(base string) ([]string, error)
		w, h  int // PNG size in pixels
	}{
		{
			name: "Lines",
			write: func(base string) ([]string, error) {
				c := sineChart("lines")
				c.LogY = true
				return Lines(base, c)
			},
			w: pixels(chartWidth+2*margin, defaultDPI),
			h: pixels(chartHeight+2*margin, defaultDPI),
		},
		{
			name: "Panels",
			write: func(base string) ([]string, error) {
				log := sineChart("log x")
				log.LogX, log.Legend = true, BottomLeft
				return Panels(base, Layout{Cols: 2, Width: 3 * vg.Inch, Height: 2 * vg.Inch, DPI: 100},
					sineChart("a"), log, sineChart("c"))
			},
			w: pixels(2*3*vg.Inch+2*margin, 100),
			h: pixels(2*2*vg.Inch+2*margin, 100),
		},
		{
			name: "Heatmaps",
			write: func(base string) ([]string, error) {
				return Heatmaps(base, Layout{DPI: 72}, HeatmapSet{
					XLabel: "x", YLabel: "y", Label: "z",
					Maps: []Heatmap{
						surface("fine", 101, square),
						surface("coarse", 6, square),
					},
				})
			},
			w: pixels(2*heatmapWidth+barStrip+2*margin, 72),
			h: pixels(heatmapHeight+2*margin, 72),
		},
		{
			name: "Diagrams",
			write: func(base string) ([]string, error) {
				return Diagrams(base, Layout{Cols: 2, DPI: 96}, diagram("start"), diagram("end"))
			},
			w: pixels(2*diagramWidth+2*margin, 96),
			h: pixels(diagramHeight+2*margin, 96),
		},
		{
			name: "Histograms",
			write: func(base string) ([]string, error) {
				return Histograms(base, Layout{Cols: 1, DPI: 96}, histogram("a"), histogram("b"))
			},
			w: pixels(chartWidth+barStrip+2*margin, 96),
			h: pixels(2*chartHeight+2*margin, 96),
		},
		{
			name: "Bars",
			write: func(base string) ([]string, error) {
				return Bars(base, Layout{DPI: 96}, bars("a", 3), bars("b", 20))
			},
			// The taller chart sets the height.
			w: pixels(2*chartWidth+2*margin, 96),
			h: pixels(20*barRow+1.5*vg.Inch+2*margin, 96),
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			dir := t.TempDir()
			base := filepath.Join(dir, "fig")
			paths, err := test.write(base)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{base + ".png", base + ".svg"}
			if !slices.Equal(paths, want) {
				t.Fatalf("paths = %q, want %q", paths, want)
			}
			assertOnly(t, dir, "fig.png", "fig.svg")

			b, err := os.ReadFile(base + ".png")
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if size := img.Bounds().Size(); size.X != test.w || size.Y != test.h {
				t.Errorf("PNG is %v pixels, want %dx%d", size, test.w, test.h)
			}

			b, err = os.ReadFile(base + ".svg")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, []byte("<?xml")) || !bytes.Contains(b, []byte("</svg>")) {
				t.Errorf("SVG file starts with %q", b[:min(len(b), 20)])
			}
		})
	}
}

// assertOnly fails unless dir holds exactly the named files.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, names) {
		t.Errorf("directory holds %q, want %q", got, names)
	}
}

func TestErrors(t *testing.T) {
	nan := math.NaN()
	chart := func(s ...Series) Chart { return Chart{Title: "c", Series: s} }
	heatmaps := func(maps ...Heatmap) HeatmapSet { return HeatmapSet{Maps: maps} }
	one := Heatmap{Title: "h", X: []float64{0, 1}, Y: []float64{0}, Z: [][]float64{{1, 2}}}
	rows := func(r ...HistogramRow) Histogram { return Histogram{Title: "h", Rows: r} }

	for _, test := range []struct {
		name  string
		write func(base string) ([]string, error)
		want  []string // substrings of the error message
	}{
		{
			name:  "no charts",
			write: func(b string) ([]string, error) { return Panels(b, Layout{}) },
			want:  []string{"no charts"},
		},
		{
			name:  "no series",
			write: func(b string) ([]string, error) { return Lines(b, chart()) },
			want:  []string{`chart 0 "c"`, "no series"},
		},
		{
			name:  "no bar charts",
			write: func(b string) ([]string, error) { return Bars(b, Layout{}) },
			want:  []string{"no charts"},
		},
		{
			name:  "no bars",
			write: func(b string) ([]string, error) { return Bars(b, Layout{}, BarChart{Title: "i"}) },
			want:  []string{`chart 0 "i"`, "no bars"},
		},
		{
			name: "NaN bar",
			write: func(b string) ([]string, error) {
				return Bars(b, Layout{}, BarChart{Bars: []Bar{{Label: "x", Value: nan}}})
			},
			want: []string{`bar 0 "x"`, "is NaN"},
		},
		{
			name: "interval without the value",
			write: func(b string) ([]string, error) {
				return Bars(b, Layout{}, bars("ok", 2), BarChart{Bars: []Bar{{Label: "x", Value: 1, Low: 2, High: 3}}})
			},
			want: []string{`chart 1`, `bar 0 "x": interval [2, 3] does not hold the value 1`},
		},
		{
			name: "empty series",
			write: func(b string) ([]string, error) {
				return Lines(b, chart(Series{Name: "s"}))
			},
			want: []string{`series 0 "s"`, "no points"},
		},
		{
			name: "length mismatch",
			write: func(b string) ([]string, error) {
				return Panels(b, Layout{}, sineChart("ok"), chart(Series{X: []float64{1, 2}, Y: []float64{1}}))
			},
			want: []string{`chart 1 "c"`, "series 0:", "2 X values but 1 Y values"},
		},
		{
			name: "NaN",
			write: func(b string) ([]string, error) {
				return Lines(b, chart(Series{Name: "a", X: []float64{1}, Y: []float64{1}}, Series{Name: "b", X: []float64{1, 2, 3}, Y: []float64{1, 2, nan}}))
			},
			want: []string{`series 1 "b"`, "Y[2] is NaN"},
		},
		{
			name: "infinity",
			write: func(b string) ([]string, error) {
				return Lines(b, chart(Series{X: []float64{math.Inf(-1)}, Y: []float64{1}}))
			},
			want: []string{"X[0] is -Inf"},
		},
		{
			name: "log y",
			write: func(b string) ([]string, error) {
				c := chart(Series{Name: "loss", X: []float64{1, 2}, Y: []float64{1, 0}})
				c.LogY = true
				return Lines(b, c)
			},
			want: []string{`series 0 "loss"`, "Y[1] = 0 is not positive", "y axis is logarithmic"},
		},
		{
			name: "log x",
			write: func(b string) ([]string, error) {
				c := chart(Series{X: []float64{-1, 2}, Y: []float64{1, 0}})
				c.LogX = true
				return Lines(b, c)
			},
			want: []string{"X[0] = -1 is not positive", "x axis"},
		},
		{
			name: "layout",
			write: func(b string) ([]string, error) {
				return Panels(b, Layout{DPI: -1}, sineChart(""))
			},
			want: []string{"negative DPI"},
		},
		{
			name:  "no heatmaps",
			write: func(b string) ([]string, error) { return Heatmaps(b, Layout{}, heatmaps()) },
			want:  []string{"no heatmaps"},
		},
		{
			name: "colour range",
			write: func(b string) ([]string, error) {
				s := heatmaps(one)
				s.Min, s.Max = 1, 0
				return Heatmaps(b, Layout{}, s)
			},
			want: []string{"minimum 1 exceeds maximum 0"},
		},
		{
			name: "Z rows",
			write: func(b string) ([]string, error) {
				h := one
				h.Z = nil
				return Heatmaps(b, Layout{}, heatmaps(one, h))
			},
			want: []string{`heatmap 1 "h"`, "0 rows in Z but 1 Y values"},
		},
		{
			name: "Z columns",
			write: func(b string) ([]string, error) {
				h := one
				h.Z = [][]float64{{1}}
				return Heatmaps(b, Layout{}, heatmaps(h))
			},
			want: []string{"1 values in Z[0] but 2 X values"},
		},
		{
			name: "Z NaN",
			write: func(b string) ([]string, error) {
				h := one
				h.Z = [][]float64{{1, nan}}
				return Heatmaps(b, Layout{}, heatmaps(h))
			},
			want: []string{"Z[0][1] is NaN"},
		},
		{
			name: "unsorted X",
			write: func(b string) ([]string, error) {
				h := one
				h.X = []float64{1, 1}
				return Heatmaps(b, Layout{}, heatmaps(h))
			},
			want: []string{"X[1] = 1 does not exceed X[0] = 1"},
		},
		{
			name: "no Y",
			write: func(b string) ([]string, error) {
				h := one
				h.Y = nil
				return Heatmaps(b, Layout{}, heatmaps(h))
			},
			want: []string{"no Y coordinates"},
		},
		{
			name:  "no histograms",
			write: func(b string) ([]string, error) { return Histograms(b, Layout{}) },
			want:  []string{"no histograms"},
		},
		{
			name:  "no rows",
			write: func(b string) ([]string, error) { return Histograms(b, Layout{}, rows()) },
			want:  []string{`histogram 0 "h"`, "no rows"},
		},
		{
			name: "empty row",
			write: func(b string) ([]string, error) {
				return Histograms(b, Layout{}, rows(HistogramRow{Y: 0, Values: []float64{1}}, HistogramRow{Y: 5}))
			},
			want: []string{"row 1 (Y = 5) has no values"},
		},
		{
			name: "row NaN",
			write: func(b string) ([]string, error) {
				return Histograms(b, Layout{}, rows(HistogramRow{Y: 3, Values: []float64{1, nan}}))
			},
			want: []string{"row 0 (Y = 3): Values[1] is NaN"},
		},
		{
			name: "unsorted rows",
			write: func(b string) ([]string, error) {
				return Histograms(b, Layout{}, rows(HistogramRow{Y: 2, Values: []float64{1}}, HistogramRow{Y: 1, Values: []float64{1}}))
			},
			want: []string{"Y[1] = 1 does not exceed Y[0] = 2"},
		},
		{
			name: "bins",
			write: func(b string) ([]string, error) {
				h := rows(HistogramRow{Values: []float64{1}})
				h.Bins = -3
				return Histograms(b, Layout{}, h)
			},
			want: []string{"-3 bins"},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			dir := t.TempDir()
			paths, err := test.write(filepath.Join(dir, "fig"))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range test.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "figure: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			if len(paths) != 0 {
				t.Errorf("paths = %q after an error", paths)
			}
			assertOnly(t, dir)
		})
	}
}

func TestMissingDirectory(t *testing.T) {
	base := filepath.Join(t.TempDir(), "missing", "fig")
	paths, err := Lines(base, sineChart(""))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error = %v, want one wrapping os.ErrNotExist", err)
	}
	if len(paths) != 0 {
		t.Errorf("paths = %q", paths)
	}
}

func TestLogTicks(t *testing.T) {
	for _, test := range []struct {
		min, max float64
		want     []string
	}{
		{1e-4, 1, []string{"0.0001", "0.001", "0.01", "0.1", "1"}},
		{0.03, 0.9, []string{"0.05", "0.1", "0.2", "0.5"}},
		{2, 9, []string{"2", "5"}},
		{2, 4.5, []string{"2", "3", "4"}},
	} {
		var got []string
		for _, tk := range (logTicks{}).Ticks(test.min, test.max) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if !slices.Equal(got, test.want) {
			t.Errorf("labels on [%v, %v] = %q, want %q", test.min, test.max, got, test.want)
		}
	}

	// A range within one step of 1 to 9 falls back to linear ticks.
	if ticks := (logTicks{}).Ticks(0.021, 0.028); len(ticks) < 2 {
		t.Errorf("got %d ticks on a narrow range", len(ticks))
	}
}

func TestTidyTicks(t *testing.T) {
	var got []string
	for _, tk := range (tidyTicks{}).Ticks(-0.25, 50.25) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if want := []string{"0", "25", "50"}; !slices.Equal(got, want) {
		t.Errorf("labels = %q, want %q", got, want)
	}
}

func TestHistogramGrid(t *testing.T) {
	h := Histogram{Bins: 2, Min: 0, Max: 1, Rows: []HistogramRow{
		{Y: 0, Values: []float64{0, 0.5, 1, 1}},
		{Y: 1, Values: []float64{0.2, -1, 2, 0.9}}, // two values outside [0, 1]
	}}
	g, err := h.grid()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0.25, 0.75}, {0.25, 0.25}}
	for r := range want {
		for c := range want[r] {
			if !scalar.EqualWithinAbsOrRel(g.z[r][c], want[r][c], 1e-12, 1e-12) {
				t.Errorf("z[%d][%d] = %v, want %v", r, c, g.z[r][c], want[r][c])
			}
		}
	}
	if !slices.Equal(g.x, []float64{0.25, 0.75}) || !slices.Equal(g.y, []float64{0, 1}) {
		t.Errorf("bin centres %v and rows %v", g.x, g.y)
	}

	// Default bins and range: sqrt(36) = 6 bins over [1, 36].
	v := make([]float64, 36)
	for i := range v {
		v[i] = float64(i + 1)
	}
	h = Histogram{Rows: []HistogramRow{{Values: v}}}
	if g, err = h.grid(); err != nil {
		t.Fatal(err)
	}
	if len(g.x) != 6 || g.x[0] != 1+35.0/12 {
		t.Errorf("default bin centres = %v, want 6 from %v", g.x, 1+35.0/12)
	}
	for c, f := range g.z[0] {
		if !scalar.EqualWithinAbsOrRel(f, 1.0/6, 1e-12, 1e-12) {
			t.Errorf("default bins: z[0][%d] = %v, want 1/6", c, f)
		}
	}
}

func TestFine(t *testing.T) {
	even := make([]float64, rasterMin)
	for i := range even {
		even[i] = float64(i) / 10
	}
	uneven := slices.Clone(even)
	uneven[3] += 0.01
	for _, test := range []struct {
		name string
		g    grid
		want bool
	}{
		{"even", grid{x: even, y: even}, true},
		{"uneven", grid{x: even, y: uneven}, false},
		{"small", grid{x: even[:rasterMin-1], y: even}, false},
	} {
		if got := test.g.fine(); got != test.want {
			t.Errorf("%s: fine = %t, want %t", test.name, got, test.want)
		}
	}
}
