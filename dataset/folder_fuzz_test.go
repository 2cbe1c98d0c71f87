package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/image/webp"
)

// FuzzDecodeImage feeds bytes to the path every image file takes: the
// header check, the decoder, and the conversion to grey or RGB planes at
// its own size and resized. The seeds are the fixtures of testdata/images
// and, in testdata/fuzz, damaged files.
func FuzzDecodeImage(f *testing.F) {
	err := filepath.WalkDir(filepath.Join("testdata", "images"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		f.Add(data)
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Headers of large images are valid inputs, but decoding them
		// would make each run slow.
		if h, err := readImageHeader(bytes.NewReader(data)); err == nil && h.rows*h.cols > 1<<16 {
			return
		}
		img, h, err := decodeImage(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrImage) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("error %v is neither ErrImage nor ErrTooLarge", err)
			}
			return
		}
		var c converter
		for _, size := range [][2]int{{h.rows, h.cols}, {2, 3}} {
			rows, cols := size[0], size[1]
			rgb := make([]uint8, 3*rows*cols)
			c.convert(rgb, img, h.orientation, 3, rows, cols)
			plane := rows * cols
			if h.grey && size == [2]int{h.rows, h.cols} &&
				(!slices.Equal(rgb[:plane], rgb[plane:2*plane]) || !slices.Equal(rgb[:plane], rgb[2*plane:])) {
				t.Fatalf("an image judged grey has unequal channels %v", rgb)
			}
			c.convert(make([]uint8, plane), img, h.orientation, 1, rows, cols)
		}
	})
}

// webpBomb returns a WebP file of about a hundred bytes whose VP8X chunk
// declares a canvas of 1x1 pixels and whose lossless frame is of
// 16383x16383 pixels of one colour: a gigabyte, were it decoded.
func webpBomb() []byte {
	chunk := func(id string, data []byte) []byte {
		b := binary.LittleEndian.AppendUint32([]byte(id), uint32(len(data)))
		return append(b, data...) // of an even length
	}
	// The VP8L header: its signature, the width and height less one in
	// 14 bits each, no alpha, version 0; then no transform, no colour
	// cache, no meta prefix codes, and five simple prefix codes of one
	// symbol, 0, each (bits 1, 0, 0, 0), the bits from the lowest.
	frame := binary.LittleEndian.AppendUint32([]byte{0x2f}, 16382|16382<<14)
	codes := make([]byte, 4)
	for i := range 5 {
		bit := 3 + 4*i
		codes[bit/8] |= 1 << (bit % 8)
	}
	payload := append([]byte("WEBP"), chunk("VP8X", make([]byte, 10))...)
	payload = append(payload, chunk("VP8L", append(frame, codes...))...)
	return append(binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(len(payload))), payload...)
}

// TestWebPCanvas checks that a WebP file whose canvas is not the size of
// its frame is refused before the frame is decoded.
func TestWebPCanvas(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := decodeImage(bytes.NewReader(webpBomb()))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrImage) || !strings.Contains(err.Error(), "a canvas of 1x1 for a frame of 16383x16383") {
		t.Errorf("error %v, want ErrImage for the canvas", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("%d bytes allocated", n)
	}
	// The fixtures, a lossless frame and a lossy one, read at their
	// frames' sizes.
	for _, name := range []string{"gopher.webp", "lossy.webp"} {
		data, err := os.ReadFile(filepath.Join("testdata", "images", "webp", name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := webp.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := decodeImage(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if b := img.Bounds(); b.Dx() != want.Width || b.Dy() != want.Height {
			t.Errorf("%s: %dx%d, want %dx%d", name, b.Dx(), b.Dy(), want.Width, want.Height)
		}
	}
}

// TestTIFFFarOffsets checks that a TIFF file whose header puts its
// directory or its pixels gigabytes away is refused without the
// decoder allocating that much: given a stream, it would.
func TestTIFFFarOffsets(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "images", "formats", "a", "4.TIFF")) // uncompressed, one strip
	if err != nil {
		t.Fatal(err)
	}
	farStrip := slices.Clone(good)
	ifd := binary.LittleEndian.Uint32(farStrip[4:])
	for e := range int(binary.LittleEndian.Uint16(farStrip[ifd:])) {
		entry := farStrip[ifd+2+12*uint32(e):]
		if binary.LittleEndian.Uint16(entry) == 273 { // StripOffsets
			binary.LittleEndian.PutUint32(entry[8:], 0xfffffff0)
		}
	}
	for name, data := range map[string][]byte{
		"directory": []byte("II*\x00\xf0\xff\xff\xff"),
		"strip":     farStrip,
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _, err := decodeImage(bytes.NewReader(data))
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrImage) {
			t.Errorf("%s far away: error %v, want ErrImage", name, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%s far away: %d bytes allocated", name, n)
		}
	}
}
