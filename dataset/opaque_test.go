package dataset

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"slices"
	"testing"
)

// TestOpaque checks that transparency is dropped keeping the colours a
// file stores: a transparent white pixel reads white, as an opaque one
// does, in each kind of image with alpha that the decoders return.
func TestOpaque(t *testing.T) {
	r := image.Rect(0, 0, 2, 1)
	nrgba := image.NewNRGBA(r)
	nrgba.SetNRGBA(0, 0, color.NRGBA{250, 250, 250, 0})
	nrgba.SetNRGBA(1, 0, color.NRGBA{250, 250, 250, 255})
	nrgba64 := image.NewNRGBA64(r)
	nrgba64.SetNRGBA64(0, 0, color.NRGBA64{0xfafa, 0xfafa, 0xfafa, 0})
	nrgba64.SetNRGBA64(1, 0, color.NRGBA64{0xfafa, 0xfafa, 0xfafa, 0xffff})
	paletted := image.NewPaletted(r, color.Palette{color.NRGBA{250, 250, 250, 0}, color.NRGBA{250, 250, 250, 255}})
	paletted.Pix[1] = 1
	for _, tc := range []struct {
		name string
		img  image.Image
	}{{"NRGBA", nrgba}, {"NRGBA64", nrgba64}, {"paletted", paletted}} {
		var b bytes.Buffer
		if err := png.Encode(&b, tc.img); err != nil {
			t.Fatal(err)
		}
		img, h, err := decodeImage(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var c converter
		got := make([]uint8, 2)
		c.convert(got, img, h.orientation, 1, 1, 2)
		if !slices.Equal(got, []uint8{250, 250}) {
			t.Errorf("%s: grey levels %v, want 250, 250", tc.name, got)
		}
	}
	// WebP's lossy frame with alpha decodes as NYCbCrA.
	ycc := image.NewNYCbCrA(r, image.YCbCrSubsampleRatio444)
	for i := range ycc.Y {
		ycc.Y[i], ycc.Cb[i], ycc.Cr[i] = 250, 128, 128
	}
	got := make([]uint8, 2)
	var c converter
	c.convert(got, opaque(ycc), 1, 1, 1, 2)
	if !slices.Equal(got, []uint8{250, 250}) {
		t.Errorf("NYCbCrA: grey levels %v, want 250, 250", got)
	}
}
