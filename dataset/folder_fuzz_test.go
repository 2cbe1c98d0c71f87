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
	"testing"
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
		if w, h, _, _, err := imageHeader(bytes.NewReader(data)); err == nil && w*h > 1<<16 {
			return
		}
		img, grey, err := decodeImage(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrImage) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("error %v is neither ErrImage nor ErrTooLarge", err)
			}
			return
		}
		b := img.Bounds()
		var c converter
		for _, size := range [][2]int{{b.Dy(), b.Dx()}, {2, 3}} {
			rows, cols := size[0], size[1]
			rgb := make([]uint8, 3*rows*cols)
			c.convert(rgb, img, 3, rows, cols)
			plane := rows * cols
			if grey && size == [2]int{b.Dy(), b.Dx()} &&
				(!slices.Equal(rgb[:plane], rgb[plane:2*plane]) || !slices.Equal(rgb[:plane], rgb[2*plane:])) {
				t.Fatalf("an image judged grey has unequal channels %v", rgb)
			}
			c.convert(make([]uint8, plane), img, 1, rows, cols)
		}
	})
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
