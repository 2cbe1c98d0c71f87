package figure

import (
	"fmt"
	"github.com/parametric-machines/machines/internal/atomicfile"
	"io"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Layout arranges the panels of a figure. Zero fields take the defaults.
type Layout struct {
	// Cols is the number of panels per row; zero puts all panels on
	// one row.
	Cols int

	// Width and Height are the size of one panel; zero means the
	// default of the figure type (6×4 inches for charts and histograms,
	// 4.25×4.5 inches for heatmaps).
	Width, Height vg.Length

	// DPI is the resolution of the PNG file in dots per inch; zero
	// means 120. The SVG file is resolution independent.
	DPI int
}

const defaultDPI = 120

// grid returns the number of columns and rows for n panels.
func (l Layout) grid(n int) (cols, rows int) {
	cols = l.Cols
	if cols <= 0 || cols > n {
		cols = n
	}
	return cols, (n + cols - 1) / cols
}

// panelSize returns the size of one panel, using w and h for zero fields.
func (l Layout) panelSize(w, h vg.Length) (vg.Length, vg.Length) {
	if l.Width > 0 {
		w = l.Width
	}
	if l.Height > 0 {
		h = l.Height
	}
	return w, h
}

func (l Layout) dpi() int {
	if l.DPI > 0 {
		return l.DPI
	}
	return defaultDPI
}

func (l Layout) check() error {
	switch {
	case l.Cols < 0:
		return fmt.Errorf("figure: layout has %d columns", l.Cols)
	case l.Width < 0 || l.Height < 0:
		return fmt.Errorf("figure: layout has negative panel size %v×%v", l.Width, l.Height)
	case l.DPI < 0:
		return fmt.Errorf("figure: layout has negative DPI %d", l.DPI)
	}
	return nil
}

// save draws the figure onto a w×h canvas once per format and writes
// base.png and base.svg atomically. It returns the paths written so far.
func save(base string, w, h vg.Length, dpi int, drawFn func(draw.Canvas)) ([]string, error) {
	canvases := []struct {
		ext string
		new func() (vg.Canvas, io.WriterTo)
	}{
		{".png", func() (vg.Canvas, io.WriterTo) {
			c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))
			return c, vgimg.PngCanvas{Canvas: c}
		}},
		{".svg", func() (vg.Canvas, io.WriterTo) {
			c := vgsvg.New(w, h)
			return c, c
		}},
	}
	var written []string
	for _, f := range canvases {
		c, wt := f.new()
		drawFn(draw.NewCanvas(c, w, h))
		path := base + f.ext
		err := atomicfile.WriteFile(path, func(w io.Writer) error {
			_, err := wt.WriteTo(w)
			return err
		})
		if err != nil {
			return written, fmt.Errorf("figure: writing %s: %w", path, err)
		}
		written = append(written, path)
	}
	return written, nil
}
