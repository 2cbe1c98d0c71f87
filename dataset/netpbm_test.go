package dataset

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestNetpbm decodes small files of each Netpbm format, and damaged ones.
func TestNetpbm(t *testing.T) {
	for _, test := range []struct {
		name, file string
		grey       bool
		want       []uint8 // grey levels, or R, G, B a pixel
		err        string
	}{
		{name: "P1 plain bitmap", file: "P1\n# a comment\n3 2\n1 0 1\n010", grey: true, want: []uint8{0, 255, 0, 255, 0, 255}},
		{name: "P4 raw bitmap, rows padded", file: "P4 3 2\n\xa0\x40", grey: true, want: []uint8{0, 255, 0, 255, 0, 255}},
		{name: "P2 plain grey of 15", file: "P2 2 2 15 0 15\n5  10", grey: true, want: []uint8{0, 255, 85, 170}},
		{name: "P5 raw grey", file: "P5\n2 1\n255\n\x07\xff", grey: true, want: []uint8{7, 255}},
		{name: "P5 raw grey of 16 bits", file: "P5 2 1 65535\n\x12\x34\xff\xff", grey: true, want: []uint8{0x12, 255}},
		{name: "P3 plain colour", file: "P3 1 2 255 1 2 3 4 5 6", want: []uint8{1, 2, 3, 4, 5, 6}},
		{name: "P6 raw colour", file: "P6 2 1 255\r\x01\x02\x03\x04\x05\x06", want: []uint8{1, 2, 3, 4, 5, 6}},
		{name: "PAM grey", file: "P7\nWIDTH 2\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nTUPLTYPE GRAYSCALE\nENDHDR\n\x07\xff", grey: true, want: []uint8{7, 255}},
		{name: "PAM grey of 16 bits, comments", file: "P7\n# made by hand\nWIDTH 2\nHEIGHT 1\nDEPTH 1\nMAXVAL 65535\nTUPLTYPE GRAYSCALE\nENDHDR\n\x12\x34\xff\xff", grey: true, want: []uint8{0x12, 255}},
		{name: "PAM black and white, 1 white", file: "P7\nWIDTH 2\nHEIGHT 1\nDEPTH 1\nMAXVAL 1\nTUPLTYPE BLACKANDWHITE\nENDHDR\n\x00\x01", grey: true, want: []uint8{0, 255}},
		{name: "PAM grey and alpha, its colours kept", file: "P7\r\nWIDTH 2\r\nHEIGHT 1\r\nDEPTH 2\r\nMAXVAL 255\r\nTUPLTYPE GRAYSCALE_ALPHA\r\nENDHDR\r\n\x40\xff\x80\x00", grey: true, want: []uint8{0x40, 0x80}},
		{name: "PAM RGB", file: "P7\nWIDTH 1\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n\x01\x02\x03\x04\x05\x06", want: []uint8{1, 2, 3, 4, 5, 6}},
		{name: "PAM RGB and alpha of 16 bits", file: "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 65535\nTUPLTYPE RGB_ALPHA\nENDHDR\n\x01\x00\x02\x00\x03\x00\xff\xff", want: []uint8{1, 2, 3}},
		{name: "PAM without a tuple type, by its depth", file: "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nENDHDR\n\x01\x02\x03", want: []uint8{1, 2, 3}},
		{name: "PAM tuple type in two lines", file: "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB\nTUPLTYPE _ALPHA\nENDHDR\n\x01\x02\x03\xff", err: `TUPLTYPE "RGB _ALPHA"`},
		{name: "PAM of another tuple type", file: "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 255\nTUPLTYPE CMYK\nENDHDR\n\x01\x02\x03\x04", err: `TUPLTYPE "CMYK" and DEPTH 4`},
		{name: "PAM of a depth unlike its type", file: "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n\x01", err: `TUPLTYPE "RGB" and DEPTH 1`},
		{name: "PAM of depth 5", file: "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\nENDHDR\n\x01\x02\x03\x04\x05", err: `DEPTH 5`},
		{name: "PAM black and white of 255", file: "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nTUPLTYPE BLACKANDWHITE\nENDHDR\n\x01", err: "MAXVAL 255, want 1"},
		{name: "PAM without a width", file: "P7\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nENDHDR\n\x01", err: "0x1 pixels"},
		{name: "PAM without ENDHDR", file: "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\n", err: "without ENDHDR"},
		{name: "PAM of an unknown field", file: "P7\nWIDHT 1\nENDHDR\n", err: `field "WIDHT" unknown`},
		{name: "PAM of a width not a number", file: "P7\nWIDTH 1.5\nENDHDR\n", err: `WIDTH "1.5"`},
		{name: "PAM of a width too large", file: "P7\nWIDTH 99999999999\nENDHDR\n", err: "WIDTH \"99999999999\", want a number from 0"},
		{name: "PAM truncated", file: "P7\nWIDTH 2\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nENDHDR\n\x01\x02\x03\x04", err: "pixel 2 of 2"},
		{name: "an XV thumbnail, not PAM", file: "P7 332\n#XVVERSION:Version 3.10a\n", err: `P7 followed by "332"`},
		{name: "sample beyond the maximum", file: "P2 1 1 15 16", err: "sample 16 beyond the maximum value 15"},
		{name: "truncated raw", file: "P6 2 1 255 \x01\x02\x03\x04", err: "pixel 2 of 2"},
		{name: "truncated plain", file: "P2 2 2 255 1 2 3", err: "pixel 4 of 4"},
		{name: "no white space after the maximum", file: "P5 1 1 255", err: "no white space"},
		{name: "maximum of 0", file: "P5 1 1 0 \x00", err: "maximum value 0"},
		{name: "maximum beyond 16 bits", file: "P5 1 1 65536 \x00", err: "maximum value 65536"},
		{name: "no width", file: "P5 0 1 255 ", err: "0x1 pixels"},
		{name: "a letter for a size", file: "P5 x 1 255 ", err: "'x' where a number was due"},
		{name: "a bitmap of 2", file: "P1 1 1 2", err: "'2' in a bitmap"},
		{name: "a header cut short", file: "P6 1", err: "header field 2"},
		{name: "a number too large", file: "P5 99999999999999999999 1 255 ", err: "beyond"},
	} {
		t.Run(test.name, func(t *testing.T) {
			img, h, err := decodeImage(bytes.NewReader([]byte(test.file)))
			if test.err != "" {
				if !errors.Is(err, ErrImage) || !strings.Contains(err.Error(), test.err) {
					t.Fatalf("error %v, want ErrImage saying %q", err, test.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.grey != test.grey || h.format.name != "Netpbm" {
				t.Errorf("grey %v, format %s; want %v, Netpbm", h.grey, h.format.name, test.grey)
			}
			channels := 3
			if test.grey {
				channels = 1
			}
			var c converter
			planes := make([]uint8, len(test.want))
			c.convert(planes, img, h.orientation, channels, h.rows, h.cols)
			got := make([]uint8, len(planes)) // pixel by pixel
			for i := range planes {
				p, ch := i/channels, i%channels
				got[i] = planes[ch*h.rows*h.cols+p]
			}
			if !slices.Equal(got, test.want) {
				t.Errorf("pixels %v, want %v", got, test.want)
			}
		})
	}
}

// TestNetpbmTooLarge checks that a header of more than MaxImagePixels is
// refused before the pixels are allocated, by the header check and by
// the decoder alone.
func TestNetpbmTooLarge(t *testing.T) {
	for _, file := range []string{
		"P6 33554432 33554432 255 ",
		"P7\nWIDTH 33554432\nHEIGHT 33554432\nDEPTH 4\nMAXVAL 65535\nTUPLTYPE RGB_ALPHA\nENDHDR\n",
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _, err := decodeImage(strings.NewReader(file))
		_, err2 := decodeNetpbm(strings.NewReader(file))
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrTooLarge) || !errors.Is(err2, ErrTooLarge) {
			t.Errorf("%.2q: errors %v and %v, want ErrTooLarge", file, err, err2)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%.2q: %d bytes allocated", file, n)
		}
	}
}
