package dataset_test

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/dataset"
	"github.com/parametric-machines/machines/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the fixtures in testdata/idx")

const idxDir = "testdata/idx"

// idxBytes returns the content of an IDX file.
func idxBytes(magic uint32, dims []uint32, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, magic)
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return append(b, data...)
}

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fixtureImages returns n images of 4x5 pixels with the given labels.
func fixtureImages(labels ...int) *dataset.Images {
	const rows, cols = 4, 5
	im := &dataset.Images{N: len(labels), Rows: rows, Cols: cols, Labels: labels}
	im.Pixels = make([]uint8, len(labels)*rows*cols)
	for k := range im.Pixels {
		im.Pixels[k] = uint8(k * 13)
	}
	for _, l := range labels {
		im.Classes = max(im.Classes, l+1)
	}
	return im
}

func imagesFile(im *dataset.Images) []byte {
	return idxBytes(0x803, []uint32{uint32(im.N), uint32(im.Rows), uint32(im.Cols)}, im.Pixels)
}

func labelsFile(labels []int) []byte {
	data := make([]byte, len(labels))
	for i, l := range labels {
		data[i] = byte(l)
	}
	return idxBytes(0x801, []uint32{uint32(len(labels))}, data)
}

// The fixtures in testdata/idx: a plain train split, a gzipped t10k split in
// which class 2 has no images, and a gzipped train images file that LoadIDX
// must not read, because the plain one takes precedence.
var (
	trainFixture = fixtureImages(2, 0, 1, 1, 0, 2)
	t10kFixture  = fixtureImages(1, 0, 1)
	decoyFixture = fixtureImages(0)
)

var fixtureFiles = []struct {
	name    string
	content []byte
	gzip    bool
}{
	{"train-images-idx3-ubyte", imagesFile(trainFixture), false},
	{"train-labels-idx1-ubyte", labelsFile(trainFixture.Labels), false},
	{"train-images-idx3-ubyte.gz", imagesFile(decoyFixture), true},
	{"t10k-images-idx3-ubyte.gz", imagesFile(t10kFixture), true},
	{"t10k-labels-idx1-ubyte.gz", labelsFile(t10kFixture.Labels), true},
}

// TestIDXFixtures checks the fixtures against their description above, and
// rewrites them under -update.
func TestIDXFixtures(t *testing.T) {
	if *update {
		if err := os.MkdirAll(idxDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range fixtureFiles {
			b := f.content
			if f.gzip {
				b = gzipBytes(t, b)
			}
			if err := os.WriteFile(filepath.Join(idxDir, f.name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, f := range fixtureFiles {
		b, err := os.ReadFile(filepath.Join(idxDir, f.name))
		if err != nil {
			t.Fatalf("%v (run go test -run TestIDXFixtures -update to create the fixtures)", err)
		}
		if isGzip := bytes.HasPrefix(b, []byte{0x1f, 0x8b}); isGzip != f.gzip {
			t.Errorf("%s: gzip %t, want %t", f.name, isGzip, f.gzip)
		}
		if f.gzip {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatalf("%s: %v", f.name, err)
			}
		}
		if !bytes.Equal(b, f.content) {
			t.Errorf("%s is out of date; run go test -run TestIDXFixtures -update", f.name)
		}
	}
}

func TestLoadIDX(t *testing.T) {
	withClasses := *t10kFixture
	withClasses.Classes = 3
	for _, test := range []struct {
		split   string
		classes int
		want    *dataset.Images
	}{
		{"train", 0, trainFixture},
		{"train", 3, trainFixture},
		{"t10k", 0, t10kFixture},
		{"t10k", 3, &withClasses},
	} {
		t.Run(fmt.Sprintf("%s/classes=%d", test.split, test.classes), func(t *testing.T) {
			var got *dataset.Images
			var err error
			if test.classes == 0 {
				got, err = dataset.LoadIDX(idxDir, test.split)
			} else {
				got, err = dataset.LoadIDXClasses(idxDir, test.split, test.classes)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, test.want) {
				t.Errorf("got %+v\nwant %+v", got, test.want)
			}
		})
	}
}

// TestLoadIDXGzipByContent checks that LoadIDX recognises gzip by the content
// of a file, not by its name.
func TestLoadIDXGzipByContent(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a-images-idx3-ubyte", gzipBytes(t, imagesFile(t10kFixture)))
	writeFile(t, dir, "a-labels-idx1-ubyte.gz", labelsFile(t10kFixture.Labels))
	got, err := dataset.LoadIDX(dir, "a")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, t10kFixture) {
		t.Errorf("got %+v\nwant %+v", got, t10kFixture)
	}
}

func writeFile(t *testing.T, dir, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadIDXErrors(t *testing.T) {
	images := imagesFile(t10kFixture)
	labels := labelsFile(t10kFixture.Labels)
	for _, test := range []struct {
		name    string
		files   map[string][]byte // nil: no directory at all
		split   string
		classes int
		err     error
		message string // with DIR for the directory
	}{
		{
			name:    "no directory",
			split:   "t10k",
			err:     fs.ErrNotExist,
			message: "stat DIR: no such file or directory",
		},
		{
			name:    "empty directory",
			files:   map[string][]byte{},
			split:   "t10k",
			err:     dataset.ErrNoIDX,
			message: "no IDX files found in DIR",
		},
		{
			name:    "other files only",
			files:   map[string][]byte{"README": []byte("hello")},
			split:   "t10k",
			err:     dataset.ErrNoIDX,
			message: "no IDX files found in DIR",
		},
		{
			name:    "no labels",
			files:   map[string][]byte{"t10k-images-idx3-ubyte": images},
			split:   "t10k",
			err:     fs.ErrNotExist,
			message: "DIR/t10k-labels-idx1-ubyte[.gz]: file does not exist; the directory holds t10k-images-idx3-ubyte",
		},
		{
			name: "no such split",
			files: map[string][]byte{
				"t10k-images-idx3-ubyte.gz": images,
				"t10k-labels-idx1-ubyte.gz": labels,
			},
			split:   "test",
			err:     fs.ErrNotExist,
			message: "DIR/test-images-idx3-ubyte[.gz]: file does not exist; the directory holds t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz",
		},
		{
			name: "label count",
			files: map[string][]byte{
				"t10k-images-idx3-ubyte": images,
				"t10k-labels-idx1-ubyte": labelsFile([]int{0, 1, 0, 1}),
			},
			split:   "t10k",
			err:     dataset.ErrLabelCount,
			message: "DIR/t10k-labels-idx1-ubyte: label count differs from image count: 4 labels for 3 images in DIR/t10k-images-idx3-ubyte",
		},
		{
			name: "label beyond classes",
			files: map[string][]byte{
				"t10k-images-idx3-ubyte": images,
				"t10k-labels-idx1-ubyte": labelsFile([]int{0, 12, 1}),
			},
			split:   "t10k",
			classes: 10,
			err:     dataset.ErrLabel,
			message: "DIR/t10k-labels-idx1-ubyte: label out of range: label 12 of image 1, want below 10 classes",
		},
		{
			name: "bad images file",
			files: map[string][]byte{
				"t10k-images-idx3-ubyte": labels,
				"t10k-labels-idx1-ubyte": labels,
			},
			split:   "t10k",
			err:     dataset.ErrDims,
			message: "DIR/t10k-images-idx3-ubyte: wrong number of dimensions: 1 in magic number 0x00000801, want 3 (IDX images); is this a file of labels?",
		},
		{
			name: "bad labels file",
			files: map[string][]byte{
				"t10k-images-idx3-ubyte":    images,
				"t10k-labels-idx1-ubyte.gz": gzipBytes(t, labels)[:20],
			},
			split:   "t10k",
			err:     dataset.ErrGzip,
			message: "DIR/t10k-labels-idx1-ubyte.gz: corrupt gzip stream: unexpected EOF",
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			if test.files != nil {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				for name, b := range test.files {
					writeFile(t, dir, name, b)
				}
			}
			_, err := dataset.LoadIDXClasses(dir, test.split, test.classes)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, test.err) {
				t.Errorf("error %v does not wrap %v", err, test.err)
			}
			if want := strings.ReplaceAll(test.message, "DIR", dir); err.Error() != want {
				t.Errorf("error\n%s\nwant\n%s", err, want)
			}
		})
	}
}

func TestReadIDX(t *testing.T) {
	for _, compress := range []bool{false, true} {
		t.Run(fmt.Sprintf("gzip=%t", compress), func(t *testing.T) {
			want := trainFixture
			images, labels := imagesFile(want), labelsFile(want.Labels)
			if compress {
				images, labels = gzipBytes(t, images), gzipBytes(t, labels)
			}
			n, rows, cols, pixels, err := dataset.ReadIDXImages(bytes.NewReader(images), "images")
			if err != nil {
				t.Fatal(err)
			}
			if n != want.N || rows != want.Rows || cols != want.Cols || !bytes.Equal(pixels, want.Pixels) {
				t.Errorf("got %d images of %dx%d, pixels %v\nwant %d images of %dx%d, pixels %v",
					n, rows, cols, pixels, want.N, want.Rows, want.Cols, want.Pixels)
			}
			got, err := dataset.ReadIDXLabels(bytes.NewReader(labels), "labels")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want.Labels) {
				t.Errorf("labels %v, want %v", got, want.Labels)
			}
		})
	}

	t.Run("all labels", func(t *testing.T) {
		want := make([]int, 256)
		for i := range want {
			want[i] = i
		}
		got, err := dataset.ReadIDXLabels(bytes.NewReader(labelsFile(want)), "labels")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("labels %v, want %v", got, want)
		}
	})
}

// corruptGzip returns b, gzipped, with the first deflate block header changed
// to the reserved block type.
func corruptGzip(t *testing.T, b []byte) []byte {
	z := gzipBytes(t, b)
	z[10] = 0x07 // after the 10-byte gzip header: final block, type 3
	return z
}

// badChecksum returns b, gzipped, with a wrong CRC-32 in the gzip trailer.
func badChecksum(t *testing.T, b []byte) []byte {
	z := gzipBytes(t, b)
	z[len(z)-8] ^= 0xff
	return z
}

func TestReadIDXImagesErrors(t *testing.T) {
	valid := imagesFile(t10kFixture) // 3 images of 4x5
	for _, test := range []struct {
		name    string
		data    []byte
		err     error
		message string
	}{
		{"empty", nil, dataset.ErrTruncated,
			"x: truncated: 0 bytes, too short for an IDX header"},
		{"short magic", []byte{0, 0, 8}, dataset.ErrTruncated,
			"x: truncated: 3 bytes, too short for an IDX header"},
		{"short header", valid[:9], dataset.ErrTruncated,
			"x: truncated: header of 16 bytes, found 9"},
		{"magic", idxBytes(0x01020304, []uint32{3, 4, 5}, nil), dataset.ErrMagic,
			"x: wrong magic number 0x01020304, want 0x00000803 (IDX images)"},
		{"text", []byte("P5\n28 28\n255\n"), dataset.ErrMagic,
			"x: wrong magic number 0x50350a32, want 0x00000803 (IDX images)"},
		{"float32", idxBytes(0x00000d03, []uint32{3, 4, 5}, nil), dataset.ErrDataType,
			"x: unsupported data type 0x0d (float32) in magic number 0x00000d03, want 0x08 (unsigned byte)"},
		{"unknown type", idxBytes(0x00000103, []uint32{3, 4, 5}, nil), dataset.ErrDataType,
			"x: unsupported data type 0x01 (unknown) in magic number 0x00000103, want 0x08 (unsigned byte)"},
		{"labels", labelsFile([]int{0, 1, 2}), dataset.ErrDims,
			"x: wrong number of dimensions: 1 in magic number 0x00000801, want 3 (IDX images); is this a file of labels?"},
		{"2 dims", idxBytes(0x802, []uint32{4, 5}, valid[16:36]), dataset.ErrDims,
			"x: wrong number of dimensions: 2 in magic number 0x00000802, want 3 (IDX images)"},
		{"no images", idxBytes(0x803, []uint32{0, 4, 5}, nil), dataset.ErrSize,
			"x: bad dimensions: 0 images of 4x5"},
		{"no rows", idxBytes(0x803, []uint32{3, 0, 5}, nil), dataset.ErrSize,
			"x: bad dimensions: 3 images of 0x5"},
		{"no columns", idxBytes(0x803, []uint32{3, 4, 0}, nil), dataset.ErrSize,
			"x: bad dimensions: 3 images of 4x0"},
		{"too many images", idxBytes(0x803, []uint32{100000, 1000, 1000}, nil), dataset.ErrSize,
			"x: bad dimensions: 100000 images of 1000x1000 would take more than 2147483648 bytes"},
		{"huge images", idxBytes(0x803, []uint32{1, 1 << 31, 2}, nil), dataset.ErrSize,
			"x: bad dimensions: 1 images of 2147483648x2 would take more than 2147483648 bytes"},
		{"overflow", idxBytes(0x803, []uint32{1<<32 - 1, 1<<32 - 1, 1<<32 - 1}, nil), dataset.ErrSize,
			"x: bad dimensions: 4294967295 images of 4294967295x4294967295 would take more than 2147483648 bytes"},
		{"no pixels", valid[:16], dataset.ErrTruncated,
			"x: truncated: header says 3 images of 4x5 (60 bytes), found 0 bytes (0 whole images)"},
		{"truncated", valid[:16+47], dataset.ErrTruncated,
			"x: truncated: header says 3 images of 4x5 (60 bytes), found 47 bytes (2 whole images)"},
		{"truncated large", idxBytes(0x803, []uint32{1000000, 28, 28}, make([]byte, 1000)), dataset.ErrTruncated,
			"x: truncated: header says 1000000 images of 28x28 (784000000 bytes), found 1000 bytes (1 whole images)"},
		{"truncated gzip content", gzipBytes(t, valid[:16+47]), dataset.ErrTruncated,
			"x: truncated: header says 3 images of 4x5 (60 bytes), found 47 bytes (2 whole images)"},
		{"trailing", append(slices.Clip(valid), 1, 2, 3, 4, 5), dataset.ErrTrailing,
			"x: trailing data: 5 bytes after 3 images of 4x5"},
		{"trailing gzip content", gzipBytes(t, append(slices.Clip(valid), 0)), dataset.ErrTrailing,
			"x: trailing data: 1 bytes after 3 images of 4x5"},
		{"gzip header only", []byte{0x1f, 0x8b, 8}, dataset.ErrGzip,
			"x: corrupt gzip stream: unexpected EOF"},
		{"gzip bad header", []byte{0x1f, 0x8b, 7, 0, 0, 0, 0, 0, 0, 0}, dataset.ErrGzip,
			"x: corrupt gzip stream: gzip: invalid header"},
		{"gzip truncated", gzipBytes(t, valid)[:30], dataset.ErrGzip,
			"x: corrupt gzip stream: unexpected EOF"},
		{"gzip corrupt", corruptGzip(t, valid), dataset.ErrGzip,
			"x: corrupt gzip stream: flate: corrupt input before offset 1"},
		{"gzip checksum", badChecksum(t, valid), dataset.ErrGzip,
			"x: corrupt gzip stream: gzip: invalid checksum"},
		{"gzip garbage after", append(gzipBytes(t, valid), "garbage!!!"...), dataset.ErrGzip,
			"x: corrupt gzip stream: gzip: invalid header"},
	} {
		t.Run(test.name, func(t *testing.T) {
			n, rows, cols, pixels, err := dataset.ReadIDXImages(bytes.NewReader(test.data), "x")
			checkIDXError(t, err, test.err, test.message)
			if n != 0 || rows != 0 || cols != 0 || pixels != nil {
				t.Errorf("got %d images of %dx%d, %d pixels with the error", n, rows, cols, len(pixels))
			}
		})
	}
}

func TestReadIDXLabelsErrors(t *testing.T) {
	valid := labelsFile([]int{0, 1, 2, 1, 0})
	for _, test := range []struct {
		name    string
		data    []byte
		err     error
		message string
	}{
		{"empty", nil, dataset.ErrTruncated,
			"y: truncated: 0 bytes, too short for an IDX header"},
		{"short header", valid[:6], dataset.ErrTruncated,
			"y: truncated: header of 8 bytes, found 6"},
		{"magic", idxBytes(0x08010000, []uint32{5}, valid[8:]), dataset.ErrMagic,
			"y: wrong magic number 0x08010000, want 0x00000801 (IDX labels)"},
		{"int32", idxBytes(0x00000c01, []uint32{5}, valid[8:]), dataset.ErrDataType,
			"y: unsupported data type 0x0c (int32) in magic number 0x00000c01, want 0x08 (unsigned byte)"},
		{"images", imagesFile(t10kFixture), dataset.ErrDims,
			"y: wrong number of dimensions: 3 in magic number 0x00000803, want 1 (IDX labels); is this a file of images?"},
		{"2 dims", idxBytes(0x802, []uint32{5, 1}, valid[8:]), dataset.ErrDims,
			"y: wrong number of dimensions: 2 in magic number 0x00000802, want 1 (IDX labels)"},
		{"no labels", idxBytes(0x801, []uint32{0}, nil), dataset.ErrSize,
			"y: bad dimensions: 0 labels"},
		{"too many labels", idxBytes(0x801, []uint32{1<<31 + 1}, nil), dataset.ErrSize,
			"y: bad dimensions: 2147483649 labels would take more than 2147483648 bytes"},
		{"truncated", valid[:10], dataset.ErrTruncated,
			"y: truncated: header says 5 labels, found 2"},
		{"trailing", append(slices.Clip(valid), 7, 7), dataset.ErrTrailing,
			"y: trailing data: 2 bytes after 5 labels"},
		{"gzip truncated", gzipBytes(t, valid)[:15], dataset.ErrGzip,
			"y: corrupt gzip stream: unexpected EOF"},
		{"gzip checksum", badChecksum(t, valid), dataset.ErrGzip,
			"y: corrupt gzip stream: gzip: invalid checksum"},
	} {
		t.Run(test.name, func(t *testing.T) {
			labels, err := dataset.ReadIDXLabels(bytes.NewReader(test.data), "y")
			checkIDXError(t, err, test.err, test.message)
			if labels != nil {
				t.Errorf("got labels %v with the error", labels)
			}
		})
	}
}

func checkIDXError(t *testing.T, err, target error, message string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	var pe *dataset.ParseError
	if !errors.As(err, &pe) {
		t.Errorf("error is %T, not *ParseError: %v", err, err)
	}
	if !errors.Is(err, target) {
		t.Errorf("error %v does not wrap %v", err, target)
	}
	if err.Error() != message {
		t.Errorf("error\n%s\nwant\n%s", err, message)
	}
}

func TestImage(t *testing.T) {
	im := &dataset.Images{
		N: 2, Rows: 2, Cols: 2,
		Pixels:  []uint8{0, 51, 102, 255, 1, 2, 3, 4},
		Labels:  []int{0, 1},
		Classes: 2,
	}
	want := []float64{0, 0.2, 0.4, 1}
	if got := im.Image(nil, 0); !slices.Equal(got, want) {
		t.Errorf("Image(nil, 0) = %v, want %v", got, want)
	}
	want32 := []float32{0, 0.2, 0.4, 1}
	if got := im.Image32(nil, 0); !slices.Equal(got, want32) {
		t.Errorf("Image32(nil, 0) = %v, want %v", got, want32)
	}

	dst := make([]float64, 4)
	got := im.Image(dst, 1)
	if &got[0] != &dst[0] {
		t.Error("Image did not use dst")
	}
	if want := []float64{1.0 / 255, 2.0 / 255, 3.0 / 255, 4.0 / 255}; !slices.Equal(got, want) {
		t.Errorf("Image(dst, 1) = %v, want %v", got, want)
	}
	dst32 := make([]float32, 4)
	if got := im.Image32(dst32, 1); &got[0] != &dst32[0] {
		t.Error("Image32 did not use dst")
	}
}

func TestSubset(t *testing.T) {
	im := trainFixture
	idx := []int{5, 1, 5}
	s := im.Subset(idx)
	if s.N != 3 || s.Rows != im.Rows || s.Cols != im.Cols || s.Classes != im.Classes {
		t.Fatalf("subset of %d images of %dx%d with %d classes, want 3 of %dx%d with %d",
			s.N, s.Rows, s.Cols, s.Classes, im.Rows, im.Cols, im.Classes)
	}
	for k, i := range idx {
		if !slices.Equal(s.Image(nil, k), im.Image(nil, i)) {
			t.Errorf("image %d of the subset differs from image %d", k, i)
		}
		if s.Labels[k] != im.Labels[i] {
			t.Errorf("label %d of the subset is %d, want %d", k, s.Labels[k], im.Labels[i])
		}
	}
	s.Pixels[0]++
	s.Labels[0]++
	if im.Pixels[5*20] == s.Pixels[0] || im.Labels[5] == s.Labels[0] {
		t.Error("subset shares memory with the images")
	}

	if e := im.Subset(nil); e.N != 0 || len(e.Pixels) != 0 || len(e.Labels) != 0 || e.Classes != im.Classes {
		t.Errorf("empty subset %+v", e)
	}
}

func TestIDXPanics(t *testing.T) {
	im := t10kFixture
	for _, test := range []struct {
		name    string
		f       func()
		kind    error
		message string
	}{
		{"image index", func() { im.Image(nil, 3) }, ad.ErrShape, "dataset: image 3 of 3"},
		{"negative index", func() { im.Image32(nil, -1) }, ad.ErrShape, "dataset: image -1 of 3"},
		{"dst length", func() { im.Image(make([]float64, 19), 0) }, ad.ErrShape, "dataset: destination of length 19 for a 1x4x5 image (channels x rows x columns)"},
		{"dst32 length", func() { im.Image32([]float32{}, 0) }, ad.ErrShape, "dataset: destination of length 0 for a 1x4x5 image (channels x rows x columns)"},
		{"subset", func() { im.Subset([]int{0, 3}) }, ad.ErrShape, "dataset: subset index 3 of 3 images"},
		{"classes", func() { dataset.LoadIDXClasses(idxDir, "train", -1) }, ad.ErrValue, "dataset: -1 classes"},
	} {
		t.Run(test.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil {
					t.Fatal("no panic")
				}
				// The value is an error of the kind, for errors.Is.
				err, ok := r.(error)
				if !ok || !errors.Is(err, test.kind) || !strings.HasSuffix(err.Error(), ": "+test.message) {
					t.Errorf("panic %#v, want an error wrapping %q ending %q", r, test.kind, test.message)
				}
			}()
			test.f()
		})
	}
}

func TestOnePerClass(t *testing.T) {
	// 100 images of 4 classes, in a fixed but irregular order.
	labels := make([]int, 100)
	for i := range labels {
		labels[i] = (i*i + i/7) % 4
	}
	im := fixtureImages(labels...)
	if im.Classes != 4 {
		t.Fatalf("%d classes, want 4", im.Classes)
	}
	chosen := make(map[int]bool)
	for seed := range uint64(50) {
		idx, err := im.OnePerClass(rand.New(rand.NewPCG(seed, seed)))
		if err != nil {
			t.Fatal(err)
		}
		if len(idx) != im.Classes {
			t.Fatalf("seed %d: %d indices, want %d", seed, len(idx), im.Classes)
		}
		for c, i := range idx {
			if im.Labels[i] != c {
				t.Errorf("seed %d: image %d for class %d has label %d", seed, i, c, im.Labels[i])
			}
			chosen[i] = true
		}
		again, err := im.OnePerClass(rand.New(rand.NewPCG(seed, seed)))
		if err != nil || !slices.Equal(again, idx) {
			t.Errorf("seed %d: chose %v, then %v (error %v)", seed, idx, again, err)
		}
	}
	// 50 draws should pick many different images, not always the same.
	if len(chosen) < 40 {
		t.Errorf("50 draws chose only %d different images", len(chosen))
	}
}

func TestOnePerClassErrors(t *testing.T) {
	missing := *t10kFixture
	missing.Classes = 4
	bad := *t10kFixture
	bad.Labels = []int{1, 0, 2}
	for _, test := range []struct {
		name    string
		im      *dataset.Images
		err     error
		message string
	}{
		{"missing classes", &missing, dataset.ErrMissingClass,
			"dataset: missing class: no images of class 2, 3 among 3 images of 4 classes"},
		{"bad label", &bad, dataset.ErrLabel,
			"dataset: label out of range: image 2 has label 2, want 0..1"},
	} {
		t.Run(test.name, func(t *testing.T) {
			idx, err := test.im.OnePerClass(rand.New(rand.NewPCG(1, 1)))
			if err == nil {
				t.Fatalf("no error; chose %v", idx)
			}
			if !errors.Is(err, test.err) {
				t.Errorf("error %v does not wrap %v", err, test.err)
			}
			if err.Error() != test.message {
				t.Errorf("error\n%s\nwant\n%s", err, test.message)
			}
		})
	}
}

// fashionMNIST is where Debian's dataset-fashion-mnist package installs
// Fashion-MNIST.
const fashionMNIST = "/usr/share/datasets/fashion-mnist"

func TestFashionMNIST(t *testing.T) {
	if testing.Short() {
		t.Skip("reading Fashion-MNIST is slow")
	}
	if _, err := os.Stat(fashionMNIST); err != nil {
		testutil.Missing(t, "Fashion-MNIST (Debian package dataset-fashion-mnist)", err)
	}
	im, err := dataset.LoadIDXClasses(fashionMNIST, "t10k", 10)
	if err != nil {
		t.Fatal(err)
	}
	if im.N != 10000 || im.Rows != 28 || im.Cols != 28 || im.Classes != 10 {
		t.Fatalf("%d images of %dx%d in %d classes, want 10000 of 28x28 in 10", im.N, im.Rows, im.Cols, im.Classes)
	}
	if len(im.Pixels) != im.N*28*28 || len(im.Labels) != im.N {
		t.Fatalf("%d pixels and %d labels", len(im.Pixels), len(im.Labels))
	}
	count := make([]int, im.Classes)
	for _, l := range im.Labels {
		count[l]++
	}
	for c, n := range count {
		if n != 1000 {
			t.Errorf("class %d has %d images, want 1000", c, n)
		}
	}
	idx, err := im.OnePerClass(rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	one := im.Subset(idx)
	if !slices.Equal(one.Labels, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Errorf("one image per class has labels %v", one.Labels)
	}
	// Every image has ink: some pixel above half intensity.
	for i := range im.N {
		if slices.Max(im.Image(nil, i)) <= 0.5 {
			t.Errorf("image %d is blank", i)
			break
		}
	}
}

func BenchmarkLoadIDX(b *testing.B) {
	if _, err := os.Stat(fashionMNIST); err != nil {
		b.Skipf("Fashion-MNIST is not installed: %v", err)
	}
	for _, split := range []string{"t10k", "train"} {
		b.Run("split="+split, func(b *testing.B) {
			for b.Loop() {
				if _, err := dataset.LoadIDX(fashionMNIST, split); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func ExampleReadIDXImages() {
	// Two images of 2x3 pixels.
	data := []byte{
		0x00, 0x00, 0x08, 0x03, // magic number: unsigned bytes, 3 dimensions
		0, 0, 0, 2, // images
		0, 0, 0, 2, // rows
		0, 0, 0, 3, // columns
		0, 51, 102, 153, 204, 255,
		255, 0, 255, 0, 255, 0,
	}
	n, rows, cols, pixels, err := dataset.ReadIDXImages(bytes.NewReader(data), "tiny")
	if err != nil {
		log.Fatal(err)
	}
	im := &dataset.Images{N: n, Rows: rows, Cols: cols, Pixels: pixels, Labels: []int{0, 1}, Classes: 2}
	fmt.Println(n, "images of", rows, "x", cols)
	fmt.Println(im.Image(nil, 0))

	_, _, _, _, err = dataset.ReadIDXImages(bytes.NewReader(data[:20]), "tiny")
	fmt.Println(err)

	// Output:
	// 2 images of 2 x 3
	// [0 0.2 0.4 0.6 0.8 1]
	// tiny: truncated: header says 2 images of 2x3 (12 bytes), found 4 bytes (0 whole images)
}

func ExampleImages_OnePerClass() {
	im, err := dataset.LoadIDX("testdata/idx", "train")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d images of %dx%d, labels %v\n", im.N, im.Rows, im.Cols, im.Labels)

	idx, err := im.OnePerClass(rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		log.Fatal(err)
	}
	train := im.Subset(idx)
	fmt.Printf("one-shot training set: images %v, labels %v\n", idx, train.Labels)

	// Output:
	// 6 images of 4x5, labels [2 0 1 1 0 2]
	// one-shot training set: images [1 3 0], labels [0 1 2]
}
