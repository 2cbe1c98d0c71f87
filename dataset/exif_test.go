package dataset

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// uprightAt is the grey level of the picture of testdata/images/orient
// upright, 24x16 pixels of 8x8 blocks.
func uprightAt(x, y int) int { return [][]int{{0, 80, 160}, {240, 120, 40}}[y/8][x/8] }

// TestOrientation reads the files of testdata/images/orient, the same
// picture stored turned for each EXIF orientation (N.jpg), and for two
// of them as PNG (an eXIf chunk), WebP (an EXIF chunk after the frame)
// and TIFF (its own Orientation tag), and checks that each reads
// upright, at its size and resized.
func TestOrientation(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "images", "orient", "*.*"))
	if err != nil || len(files) != 14 {
		t.Fatalf("%d files, want 14: %v", len(files), err)
	}
	var c converter
	var resized []uint8 // of 1.jpg, the first file
	for _, file := range files {
		name := filepath.Base(file)
		o, _ := strconv.Atoi(name[:1])
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		img, h, err := decodeImage(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if h.orientation != o || h.cols != 24 || h.rows != 16 {
			t.Fatalf("%s: orientation %d, %dx%d; want %d, 24x16", name, h.orientation, h.cols, h.rows, o)
		}
		got := make([]uint8, 24*16)
		c.convert(got, img, h.orientation, 1, 16, 24)
		for p, v := range got {
			if w := uprightAt(p%24, p/24); int(v) < w-6 || int(v) > w+6 {
				t.Fatalf("%s: pixel (%d, %d) is %d, want %d±6", name, p%24, p/24, v, w)
			}
		}
		small := make([]uint8, 12*8)
		c.convert(small, img, h.orientation, 1, 8, 12)
		if o == 1 {
			resized = small
		}
		for p, want := range resized {
			if d := int(small[p]) - int(want); d < -6 || d > 6 {
				t.Fatalf("%s resized: pixel (%d, %d) is %d, %d when upright", name, p%12, p/12, small[p], want)
			}
		}
	}
}

// TestExifOrientation reads the orientation tag of EXIF structures
// written by hand, and damaged ones, which leave the image as stored.
func TestExifOrientation(t *testing.T) {
	type byteOrder interface {
		binary.ByteOrder
		binary.AppendByteOrder
	}
	tiff := func(order byteOrder, typ uint16, count uint32, value uint16) []byte {
		b := []byte("II*\x00")
		if order == byteOrder(binary.BigEndian) {
			b = []byte("MM\x00*")
		}
		b = order.AppendUint32(b, 8)
		b = order.AppendUint16(b, 2)                                                       // two entries
		b = order.AppendUint16(order.AppendUint16(b, 0x010f), 2)                           // Make, ASCII
		b = order.AppendUint32(order.AppendUint32(b, 4), 0)                                // "" in place
		b = order.AppendUint16(order.AppendUint16(b, 0x0112), typ)                         // Orientation
		b = order.AppendUint16(order.AppendUint16(order.AppendUint32(b, count), value), 0) // its value
		return b
	}
	for _, test := range []struct {
		name string
		tiff []byte
		want int
	}{
		{"little-endian", tiff(binary.LittleEndian, 3, 1, 6), 6},
		{"big-endian", tiff(binary.BigEndian, 3, 1, 8), 8},
		{"not a SHORT", tiff(binary.LittleEndian, 4, 1, 6), 1},
		{"two values", tiff(binary.LittleEndian, 3, 2, 6), 1},
		{"value 9", tiff(binary.LittleEndian, 3, 1, 9), 1},
		{"value 0", tiff(binary.LittleEndian, 3, 1, 0), 1},
		{"cut in the entry", tiff(binary.LittleEndian, 3, 1, 6)[:30], 1},
		{"directory beyond the end", []byte("II*\x00\xff\xff\xff\xff"), 1},
		{"no byte order", []byte("XX*\x00\x08\x00\x00\x00\x00\x00"), 1},
	} {
		if got := exifOrientation(bytes.NewReader(test.tiff)); got != test.want {
			t.Errorf("%s: orientation %d, want %d", test.name, got, test.want)
		}
		// The same in a JPEG file's APP1 segment, after an APP0 one.
		app1 := append([]byte("Exif\x00\x00"), test.tiff...)
		jpeg := []byte("\xff\xd8\xff\xe0\x00\x04ab")
		jpeg = append(binary.BigEndian.AppendUint16(append(jpeg, 0xff, 0xe1), uint16(len(app1)+2)), app1...)
		jpeg = append(jpeg, "\xff\xda\x00\x02"...)
		if got := jpegOrientation(bytes.NewReader(jpeg)); got != test.want {
			t.Errorf("%s in a JPEG file: orientation %d, want %d", test.name, got, test.want)
		}
		// In a PNG file's eXIf chunk, before its pixels, and after them,
		// where it is not read.
		pngChunk := func(typ string, data []byte) []byte {
			return append(append(binary.BigEndian.AppendUint32(nil, uint32(len(data))), typ...), append(data, 0, 0, 0, 0)...)
		}
		ihdr, idat := pngChunk("IHDR", make([]byte, 13)), pngChunk("IDAT", []byte{1, 2, 3})
		exif := pngChunk("eXIf", test.tiff)
		if got := pngOrientation(bytes.NewReader(slices.Concat([]byte("\x89PNG\r\n\x1a\n"), ihdr, exif, idat))); got != test.want {
			t.Errorf("%s in a PNG file: orientation %d, want %d", test.name, got, test.want)
		}
		if got := pngOrientation(bytes.NewReader(slices.Concat([]byte("\x89PNG\r\n\x1a\n"), ihdr, idat, exif))); got != 1 {
			t.Errorf("%s in a PNG file after its pixels: orientation %d, want 1", test.name, got)
		}
		// In a WebP file's EXIF chunk, after a frame of an odd length,
		// with and without the "Exif\x00\x00" before it.
		for _, data := range [][]byte{test.tiff, app1} {
			webpChunk := func(id string, data []byte) []byte {
				b := append(binary.LittleEndian.AppendUint32([]byte(id), uint32(len(data))), data...)
				if len(data)%2 == 1 {
					b = append(b, 0)
				}
				return b
			}
			webp := slices.Concat([]byte("RIFF\x00\x00\x00\x00WEBP"), webpChunk("VP8X", make([]byte, 10)), webpChunk("VP8L", []byte{1, 2, 3}), webpChunk("EXIF", data))
			if got := webpOrientation(bytes.NewReader(webp)); got != test.want {
				t.Errorf("%s in a WebP file (%.4q): orientation %d, want %d", test.name, data, got, test.want)
			}
		}
	}
}

// FuzzExifOrientation feeds bytes to the EXIF readers of each format,
// which must return an orientation of 1 to 8 whatever they read. The
// seeds are the files of testdata/images/orient.
func FuzzExifOrientation(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "images", "orient", "*.*"))
	if err != nil || len(files) == 0 {
		f.Fatal("no seeds", err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, read := range []func(io.ReaderAt) int{jpegOrientation, pngOrientation, webpOrientation, exifOrientation} {
			if o := read(bytes.NewReader(data)); o < 1 || o > 8 {
				t.Fatalf("orientation %d", o)
			}
		}
	})
}
