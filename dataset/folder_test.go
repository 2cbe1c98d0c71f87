package dataset_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parametric-machines/machines/dataset"
)

// The fixtures in testdata/images:
//
//	grey/train, grey/test: classes circle and square, 6x4 grey images of
//	    5x + 20y + 120*label as grey PNG, a PNG with a grey palette, a
//	    PNG of grey and alpha (alpha 100), a grey JPEG, a PGM of 16 bits
//	    (P5) and a plain PGM of 1000 levels (P2), with a text file and a
//	    hidden folder to ignore; 9 training and 2 test images
//	colour: classes blue, green and red, five 6x4 images each (RGB PNG,
//	    PNG with alpha 128 named .PNG, JPEG, paletted PNG) with channel
//	    label 200, channel label+1 5x + 20y and channel label+2 10
//	sizes: classes a (a flat grey 6x4 image of 60 and a 12x8 grey image
//	    of 20x) and b (6x4 and 3x2 images of the colour 200, 100, 50)
//	formats: classes a and b, six 6x4 images of colourAt each, as GIF,
//	    BMP, TIFF (compressed by deflate), TIFF named .TIFF, PPM (P6) and
//	    plain PPM (P3) named .PNM
//	orient: a 24x16 grey JPEG image stored turned for each EXIF
//	    orientation, 1.jpg to 8.jpg (see exif_test.go)

// webp: a lossless WebP image and the PNG image of the same pixels,
//
//	and a lossy WebP image, copied from golang.org/x/image's
//	testdata (gopher-doc.1bpp, blue-purple-pink.lossy)
var imagesDir = filepath.Join("testdata", "images")

// greyAt and colourAt are the fixtures' pixel values.
func greyAt(label, x, y int) int { return 5*x + 20*y + 120*label }

func colourAt(label, ch, x, y int) int {
	switch (ch - label + 3) % 3 {
	case 0:
		return 200
	case 1:
		return 5*x + 20*y
	}
	return 10
}

func TestLoadImageFolder(t *testing.T) {
	for _, test := range []struct {
		name                string
		dir                 string
		opt                 dataset.FolderOptions
		names               []string
		channels, rows, col int
		train, test         int
		split               float64
		// want is the value of channel ch at x, y of an image of label;
		// tol allows for JPEG's losses, above all those of its halved
		// colour resolution.
		want func(label, ch, x, y int) int
		tol  int
	}{
		{name: "grey train and test", dir: "grey", names: []string{"circle", "square"}, channels: 1, rows: 4, col: 6,
			train: 9, test: 2, want: func(l, _, x, y int) int { return greyAt(l, x, y) }, tol: 3},
		{name: "colour split", dir: "colour", names: []string{"blue", "green", "red"}, channels: 3, rows: 4, col: 6,
			train: 12, test: 3, split: dataset.DefaultSplit, want: colourAt, tol: 16},
		{name: "colour split 0.4", dir: "colour", opt: dataset.FolderOptions{Split: 0.4, Seed: 3}, names: []string{"blue", "green", "red"},
			channels: 3, rows: 4, col: 6, train: 9, test: 6, split: 0.4, want: colourAt, tol: 16},
		{name: "grey resized", dir: "grey", opt: dataset.FolderOptions{Rows: 4, Cols: 6}, names: []string{"circle", "square"}, channels: 1,
			rows: 4, col: 6, train: 9, test: 2, want: func(l, _, x, y int) int { return greyAt(l, x, y) }, tol: 3},
		{name: "formats", dir: "formats", names: []string{"a", "b"}, channels: 3, rows: 4, col: 6,
			train: 12, test: 2, split: dataset.DefaultSplit, want: colourAt},
		{name: "sizes resized", dir: "sizes", opt: dataset.FolderOptions{Rows: 2, Cols: 3}, names: []string{"a", "b"}, channels: 3,
			rows: 2, col: 3, train: 2, test: 2, split: dataset.DefaultSplit},
	} {
		t.Run(test.name, func(t *testing.T) {
			f, err := dataset.LoadImageFolder(filepath.Join(imagesDir, test.dir), test.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.Names, test.names) || f.Split != test.split {
				t.Errorf("classes %q, split %g; want %q, %g", f.Names, f.Split, test.names, test.split)
			}
			for _, s := range []struct {
				name string
				im   *dataset.Images
				n    int
			}{{"train", f.Train, test.train}, {"test", f.Test, test.test}} {
				im := s.im
				if !slices.Equal(im.Names, test.names) {
					t.Errorf("%s: names %q, want %q", s.name, im.Names, test.names)
				}
				if im.N != s.n || im.Channels != test.channels || im.Rows != test.rows || im.Cols != test.col ||
					im.Classes != len(test.names) || len(im.Labels) != im.N || len(im.Pixels) != im.N*im.ImageLen() {
					t.Fatalf("%s: %d images of %dx%dx%d, %d classes, %d labels, %d bytes; want %d of %dx%dx%d, %d classes",
						s.name, im.N, im.Channels, im.Rows, im.Cols, im.Classes, len(im.Labels), len(im.Pixels),
						s.n, test.channels, test.rows, test.col, len(test.names))
				}
				perClass := make([]int, im.Classes)
				for i := range im.N {
					perClass[im.Labels[i]]++
					if test.want != nil {
						checkPixels(t, im, i, test.want, test.tol)
					}
				}
				if s.name == "test" && test.split > 0 && slices.Min(perClass) != slices.Max(perClass) {
					t.Errorf("test images per class %v, want a split of each class alike", perClass)
				}
			}
		})
	}
}

// checkPixels compares image i of im with want.
func checkPixels(t *testing.T, im *dataset.Images, i int, want func(label, ch, x, y int) int, tol int) {
	t.Helper()
	px := im.Pixels[i*im.ImageLen() : (i+1)*im.ImageLen()]
	for ch := range im.NumChannels() {
		for y := range im.Rows {
			for x := range im.Cols {
				got, w := int(px[(ch*im.Rows+y)*im.Cols+x]), want(im.Labels[i], ch, x, y)
				if got < w-tol || got > w+tol {
					t.Fatalf("image %d, label %d: channel %d at x %d, y %d is %d, want %d±%d", i, im.Labels[i], ch, x, y, got, w, tol)
				}
			}
		}
	}
}

// TestResize checks the images of testdata/images/sizes, resized to 3x2:
// colours and grey levels kept, grey images in three equal channels, and
// the 12x8 gradient along x still one.
func TestResize(t *testing.T) {
	f, err := dataset.LoadImageFolder(filepath.Join(imagesDir, "sizes"), dataset.FolderOptions{Rows: 2, Cols: 3, Split: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	gradients := 0
	for _, im := range []*dataset.Images{f.Train, f.Test} {
		for i := range im.N {
			px := im.Image(nil, i)
			plane := func(ch int) []float64 { return px[ch*6 : (ch+1)*6] }
			switch {
			case im.Labels[i] == 1:
				for ch, want := range []float64{200, 100, 50} {
					for _, v := range plane(ch) {
						if d := v*255 - want; d < -3 || d > 3 {
							t.Errorf("image %d of class b: channel %d is %v, want %v", i, ch, plane(ch), want/255)
						}
					}
				}
			case !slices.Equal(plane(0), plane(1)) || !slices.Equal(plane(0), plane(2)):
				t.Errorf("grey image %d in unequal channels %v", i, px)
			case px[0] == px[1]:
				if p := plane(0); slices.Min(p) != slices.Max(p) || p[0] != 60.0/255 {
					t.Errorf("flat grey image %d is %v, want 60/255 throughout", i, p)
				}
			default:
				gradients++
				p := plane(0)
				if !(p[0] < p[1] && p[1] < p[2]) || !slices.Equal(p[:3], p[3:]) {
					t.Errorf("gradient image %d is %v, want rising along x and alike along y", i, p)
				}
			}
		}
	}
	if gradients != 1 {
		t.Errorf("found %d gradient images, want 1", gradients)
	}
}

// TestImageFolderSeed checks that the seed alone decides the split and the
// order: the same seed gives the same images, and some other seed others.
func TestImageFolderSeed(t *testing.T) {
	load := func(seed uint64) *dataset.ImageFolder {
		f, err := dataset.LoadImageFolder(filepath.Join(imagesDir, "colour"), dataset.FolderOptions{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a, b := load(1), load(1)
	if !reflect.DeepEqual(a, b) {
		t.Error("two loads with seed 1 differ")
	}
	for seed := uint64(2); seed < 10; seed++ {
		if c := load(seed); !slices.Equal(c.Train.Pixels, a.Train.Pixels) {
			return
		}
	}
	t.Error("seeds 1 to 9 give the same images")
}

func TestImagesChannels(t *testing.T) {
	f, err := dataset.LoadImageFolder(filepath.Join(imagesDir, "colour"), dataset.FolderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	im := f.Train
	x, x32 := im.Image(nil, 2), im.Image32(nil, 2)
	if len(x) != 3*4*6 || len(x32) != len(x) {
		t.Fatalf("images of %d and %d values, want 3x4x6", len(x), len(x32))
	}
	for j, p := range im.Pixels[2*72 : 3*72] {
		if x[j] != float64(p)/255 || x32[j] != float32(p)/255 {
			t.Fatalf("value %d is %v and %v, want %d/255", j, x[j], x32[j], p)
		}
	}
	s := im.Subset([]int{2})
	if s.Channels != 3 || !slices.Equal(s.Image(nil, 0), x) {
		t.Errorf("subset of %d channels, image %v; want 3 and %v", s.Channels, s.Image(nil, 0), x)
	}
	if !slices.Equal(s.Names, im.Names) {
		t.Errorf("subset of classes %q, want %q", s.Names, im.Names)
	}
}

func TestLoadImages(t *testing.T) {
	f, err := dataset.LoadImages(idxDir, dataset.FolderOptions{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	train, test := f.Train, f.Test
	wantTrain, err := dataset.LoadIDX(idxDir, "train")
	if err != nil {
		t.Fatal(err)
	}
	wantTest, err := dataset.LoadIDXClasses(idxDir, "t10k", wantTrain.Classes)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(train, wantTrain) || !reflect.DeepEqual(test, wantTest) {
		t.Error("the IDX data set read by LoadImages differs from LoadIDX's")
	}
	if _, err := dataset.LoadImages(idxDir, dataset.FolderOptions{Rows: 2, Cols: 2}); err == nil || !strings.Contains(err.Error(), "IDX") {
		t.Errorf("resizing IDX images: error %v", err)
	}
	refused := errors.New("refused")
	var got []int
	_, err = dataset.LoadImages(idxDir, dataset.FolderOptions{Check: func(channels, rows, cols, classes, images int) error {
		got = []int{channels, rows, cols, classes, images}
		return refused
	}})
	if want := []int{1, train.Rows, train.Cols, train.Classes, train.N + test.N}; err != refused || !slices.Equal(got, want) {
		t.Errorf("IDX: error %v, check of %v; want %v and a check of %v", err, got, refused, want)
	}
	dir := filepath.Join(imagesDir, "grey")
	folder, err := dataset.LoadImages(dir, dataset.FolderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := dataset.LoadImageFolder(dir, dataset.FolderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(folder, want) {
		t.Error("the folder read by LoadImages differs from LoadImageFolder's")
	}
}

// pngBytes returns a w x h grey PNG.
func pngBytes(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// hugePNG returns a 1x1 PNG whose header claims 100000x100000 pixels.
func hugePNG(t *testing.T) []byte {
	b := pngBytes(t, 1, 1)
	ihdr := b[8+8 : 8+8+13] // after the signature, the chunk length and type
	binary.BigEndian.PutUint32(ihdr, 100000)
	binary.BigEndian.PutUint32(ihdr[4:], 100000)
	binary.BigEndian.PutUint32(b[8+8+13:], crc32.ChecksumIEEE(b[8+4:8+8+13]))
	return b
}

func TestImageFolderErrors(t *testing.T) {
	good := pngBytes(t, 4, 3)
	for _, test := range []struct {
		name  string
		files map[string][]byte // relative path: content; nil content makes an empty folder
		link  string            // a symbolic link, dangling
		to    string            // unless it points to this folder
		opt   dataset.FolderOptions
		want  error
		at    string // the file or folder the error names, if any
		noAt  bool
		msg   string // a part of the error's message, if any
	}{
		{name: "undecodable", files: map[string][]byte{"a/1.png": good, "b/1.png": good, "b/2.jpg": []byte("not a JPEG")},
			want: dataset.ErrImage, at: "b/2.jpg"},
		{name: "truncated", files: map[string][]byte{"a/1.png": good, "a/2.png": good[:len(good)-20], "b/1.png": good},
			want: dataset.ErrImage, at: "a/2.png"},
		{name: "HEIC named .jpg", files: map[string][]byte{"a/1.png": good, "b/1.png": good, "b/IMG_0001.jpg": []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic")},
			want: dataset.ErrImage, at: "b/IMG_0001.jpg", msg: `its first bytes are those of an HEIC image (ftyp "heic"), a format not read: convert it to JPEG or PNG`},
		{name: "AVIF named .png", files: map[string][]byte{"a/1.png": good, "b/1.png": good, "b/2.png": []byte("\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1")},
			want: dataset.ErrImage, at: "b/2.png", msg: `an AVIF image (ftyp "avif")`},
		{name: "unreadable", files: map[string][]byte{"a/1.png": good, "b/1.png": good}, link: "b/0.png",
			want: fs.ErrNotExist, at: "b/0.png"},
		{name: "class without images", files: map[string][]byte{"a/1.png": good, "b/readme.txt": []byte("x")},
			want: dataset.ErrEmptyClass, at: "b"},
		{name: "class missing from test", files: map[string][]byte{"train/a/1.png": good, "train/b/1.png": good, "test/a/1.png": good},
			want: dataset.ErrMissingClass, at: "test/b"},
		{name: "class missing from train", files: map[string][]byte{"train/a/1.png": good, "test/a/1.png": good, "test/c/1.png": good},
			want: dataset.ErrMissingClass, at: "train/c"},
		{name: "no test folder", files: map[string][]byte{"train/a/1.png": good},
			want: fs.ErrNotExist, at: "test"},
		{name: "no images", files: map[string][]byte{"1.png": good, ".git/a.png": good},
			want: dataset.ErrNoImages, at: ""},
		{name: "too large", files: map[string][]byte{"a/1.png": good, "b/1.png": hugePNG(t)},
			want: dataset.ErrTooLarge, at: "b/1.png"},
		{name: "sizes differ", files: map[string][]byte{"a/1.png": good, "a/2.png": good, "b/1.png": pngBytes(t, 3, 4)},
			want: dataset.ErrImageSize, at: "b/1.png"},
		{name: "resized too large", files: map[string][]byte{"a/1.png": good}, opt: dataset.FolderOptions{Rows: 1 << 13, Cols: 1 << 13},
			want: dataset.ErrTooLarge, noAt: true},
		{name: "empty class", files: map[string][]byte{"a/1.png": good, "b": nil},
			want: dataset.ErrEmptyClass, at: "b"},
		{name: "empty file", files: map[string][]byte{"a/1.png": good, "b/1.png": good, "b/2.png": {}},
			want: dataset.ErrImage, at: "b/2.png", msg: "an empty file"},
		{name: "folder named as an image", files: map[string][]byte{"a/1.png": good, "b/1.png": good}, link: "b/2.png", to: "a",
			at: "b/2.png", msg: "is a directory"},
		{name: "class folders one level down", files: map[string][]byte{"set/train/a/1.png": good, "set/test/a/1.png": good},
			want: dataset.ErrEmptyClass, at: "set", msg: "only folders (test, train): are the class folders one level down?"},
		{name: "one class", files: map[string][]byte{"a/1.png": good, "a/2.png": good, ".b/1.png": good},
			want: dataset.ErrOneClass, at: "", msg: "a is the only class folder"},
		{name: "one class in train and test", files: map[string][]byte{"train/a/1.png": good, "test/a/1.png": good},
			want: dataset.ErrOneClass, at: ""},
		{name: "no image to test", files: map[string][]byte{"a/1.png": good, "b/1.png": good},
			want: dataset.ErrNoImages, at: "", msg: "no class folder holds two images or more"},
	} {
		t.Run(test.name, func(t *testing.T) {
			dir := writeTree(t, test.files)
			if test.link != "" {
				to := cmp.Or(test.to, "gone")
				if err := os.Symlink(filepath.Join(dir, to), filepath.Join(dir, filepath.FromSlash(test.link))); err != nil {
					t.Fatal(err)
				}
			}
			f, err := dataset.LoadImageFolder(dir, test.opt)
			if err == nil || test.want != nil && !errors.Is(err, test.want) {
				t.Fatalf("error %v, want %v (result %+v)", err, test.want, f)
			}
			if at := filepath.Join(dir, filepath.FromSlash(test.at)); !test.noAt && !strings.Contains(err.Error(), at+":") {
				t.Errorf("error %q does not name %s", err, at)
			}
			if !strings.Contains(err.Error(), test.msg) {
				t.Errorf("error %q does not say %q", err, test.msg)
			}
		})
	}
}

// TestImageFolderMixedSizes checks that, without resizing, the fixture of
// several sizes is refused with an error that names the first image of
// another size and the image it differs from, and that a folder with
// train and test folders refuses a split.
func TestImageFolderMixedSizes(t *testing.T) {
	_, err := dataset.LoadImageFolder(filepath.Join(imagesDir, "sizes"), dataset.FolderOptions{})
	want := filepath.Join(imagesDir, "sizes", "a", "2.png") + ": image of another size: 12x8, but " +
		filepath.Join(imagesDir, "sizes", "a", "1.png") + " is 6x4"
	if !errors.Is(err, dataset.ErrImageSize) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want one starting %q", err, want)
	}
	_, err = dataset.LoadImageFolder(filepath.Join(imagesDir, "grey"), dataset.FolderOptions{Split: 0.3})
	if err == nil || !strings.Contains(err.Error(), "own train and test folders") {
		t.Errorf("a split of a folder with train and test folders: error %v", err)
	}
}

// TestWebP checks that a WebP image reads as the PNG image of the same
// pixels does.
func TestWebP(t *testing.T) {
	dir := t.TempDir()
	for _, split := range []string{"train", "test"} {
		for class, name := range map[string]string{"a": "gopher.webp", "b": "gopher.png"} {
			data, err := os.ReadFile(filepath.Join(imagesDir, "webp", name))
			if err != nil {
				t.Fatal(err)
			}
			writeNested(t, filepath.Join(dir, split, class, name), data)
		}
	}
	f, err := dataset.LoadImageFolder(dir, dataset.FolderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	im := f.Train
	if im.N != 2 || im.Labels[0] == im.Labels[1] {
		t.Fatalf("%d training images of labels %v, want one of each class", im.N, im.Labels)
	}
	if a, b := im.Image(nil, 0), im.Image(nil, 1); !slices.Equal(a, b) {
		t.Error("the WebP image and its PNG image differ")
	}
}

// TestGIFFrame checks that a GIF whose first frame covers part of its
// picture is read at the size of the picture, the frame in its place.
func TestGIFFrame(t *testing.T) {
	frame := image.NewPaletted(image.Rect(2, 1, 5, 3), color.Palette{color.Gray{0}, color.Gray{90}})
	for i := range frame.Pix {
		frame.Pix[i] = 1
	}
	var b bytes.Buffer
	err := gif.EncodeAll(&b, &gif.GIF{Image: []*image.Paletted{frame}, Delay: []int{0},
		Config: image.Config{ColorModel: frame.Palette, Width: 6, Height: 4}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, path := range []string{"a/1.gif", "a/2.gif", "b/1.gif", "b/2.gif"} {
		writeNested(t, filepath.Join(dir, path), b.Bytes())
	}
	f, err := dataset.LoadImageFolder(dir, dataset.FolderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkPixels(t, f.Train, 0, func(_, _, x, y int) int {
		if image.Pt(x, y).In(frame.Rect) {
			return 90
		}
		return 0
	}, 0)
}

// writeNested writes a file, making the folders of its path.
func writeNested(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Dir(path), filepath.Base(path), data)
}

// TestFolderCheck checks that FolderOptions.Check sees the shape, the
// classes and the number of the images before any pixel is decoded: its
// error comes before that of a damaged file.
func TestFolderCheck(t *testing.T) {
	good := pngBytes(t, 4, 3)
	dir := t.TempDir()
	for _, path := range []string{"a/1.png", "a/2.png", "b/1.png"} {
		writeNested(t, filepath.Join(dir, path), good)
	}
	writeNested(t, filepath.Join(dir, "b", "2.png"), good[:len(good)-20])
	refused := errors.New("refused")
	var got []int
	_, err := dataset.LoadImageFolder(dir, dataset.FolderOptions{Rows: 5, Cols: 6, Check: func(channels, rows, cols, classes, images int) error {
		got = []int{channels, rows, cols, classes, images}
		return refused
	}})
	if want := []int{1, 5, 6, 2, 4}; err != refused || !slices.Equal(got, want) {
		t.Errorf("error %v, check of %v; want %v and a check of %v", err, got, refused, want)
	}
}

// withFiles returns the files of base and extra, extra's where both name
// a path.
func withFiles(base, extra map[string][]byte) map[string][]byte {
	m := maps.Clone(base)
	maps.Copy(m, extra)
	return m
}

// writeTree writes the files, by their paths relative to a new temporary
// folder, and returns the folder; nil content makes an empty folder.
func writeTree(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if data == nil {
			path = filepath.Join(path, "x")
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if data != nil {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// TestFolderSkipped checks the warnings of the files and folders of
// class folders that are not read, and that hidden files, Thumbs.db and
// desktop.ini go unmentioned.
func TestFolderSkipped(t *testing.T) {
	good := pngBytes(t, 6, 4)
	for _, test := range []struct {
		name  string
		files map[string][]byte
		want  []string // with DIR for the folder
		err   string
	}{
		{name: "none", files: map[string][]byte{"a/1.png": good, "a/2.PNG": good, "b/1.png": good, "b/.DS_Store": {1}, "b/._1.png": {1},
			"b/Thumbs.db": {1}, "a/desktop.ini": {1}, "a/.hidden/3.png": good, "__MACOSX/a/._1.png": {1}, "a/__MACOSX/._1.png": {1}}},
		{name: "files and folders", files: map[string][]byte{"a/1.png": good, "a/x.heic": {1}, "a/y.HEIC": {1}, "a/notes.txt": {1},
			"b/1.png": good, "b/2.png": good, "b/z.heic": {1}, "b/README": {1}, "b/2019/3.png": good},
			want: []string{"5 files in the class folders not read, of other formats (3 .heic, 1 without an extension, 1 .txt), such as DIR/a/x.heic; " +
				"formats such as HEIC, AVIF, JPEG XL and camera raw are not read: convert them to JPEG or PNG to use them",
				"1 folder in the class folders not read, such as DIR/b/2019: only the images directly in a class folder are read"}},
		{name: "one file", files: map[string][]byte{"a/1.png": good, "a/2.png": good, "b/1.png": good, "b/x.svg": {1}},
			want: []string{"1 file in the class folders not read, of other formats (1 .svg), such as DIR/b/x.svg"}},
		{name: "a class of HEIC files", files: map[string][]byte{"a/1.png": good, "b/1.heic": {1}, "b/2.heic": {1}},
			err: "empty class folder: no .png, .jpg, .jpeg, .gif, .bmp, .tif, .tiff, .webp, .pbm, .pgm, .ppm, .pnm, .pam files, only 2 .heic; formats such as HEIC"},
	} {
		t.Run(test.name, func(t *testing.T) {
			dir := writeTree(t, test.files)
			f, err := dataset.LoadImageFolder(dir, dataset.FolderOptions{})
			if test.err != "" {
				if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "b")+": "+test.err) {
					t.Fatalf("error %v, want one that says %q", err, test.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, w := range test.want {
				want = append(want, strings.ReplaceAll(w, "DIR/", dir+string(filepath.Separator)))
			}
			if !slices.Equal(f.Warnings, want) {
				t.Errorf("warnings %q\nwant %q", f.Warnings, want)
			}
		})
	}
}

// TestValidFolder checks that a validation folder beside train and test
// is read as the validation images, and the errors of one that does not
// fit.
func TestValidFolder(t *testing.T) {
	good := pngBytes(t, 6, 4)
	base := map[string][]byte{"train/a/1.png": good, "train/a/2.png": good, "train/b/1.png": good,
		"test/a/1.png": good, "test/b/1.png": good}
	with := func(extra map[string][]byte) map[string][]byte { return withFiles(base, extra) }
	for _, test := range []struct {
		name  string
		files map[string][]byte
		valid int // images, or -1 for none
		err   error
		msg   string
	}{
		{name: "none", files: base, valid: -1},
		{name: "valid", files: with(map[string][]byte{"valid/a/1.png": good, "valid/b/1.png": good, "valid/b/2.png": good}), valid: 3},
		{name: "val", files: with(map[string][]byte{"val/a/1.png": good, "val/b/1.png": good}), valid: 2},
		{name: "validation", files: with(map[string][]byte{"validation/a/1.png": good, "validation/b/1.png": good}), valid: 2},
		{name: "Train, Test and Val", files: map[string][]byte{"Train/a/1.png": good, "Train/a/2.png": good, "Train/b/1.png": good,
			"TEST/a/1.png": good, "TEST/b/1.png": good, "Val/a/1.png": good, "Val/b/1.png": good}, valid: 2},
		{name: "a class missing", files: with(map[string][]byte{"valid/a/1.png": good}), err: dataset.ErrMissingClass,
			msg: "valid/b: missing class: b is a class of the training images but has no validation folder"},
		{name: "two", files: with(map[string][]byte{"valid/a/1.png": good, "valid/b/1.png": good, "val/a/1.png": good, "val/b/1.png": good}),
			msg: "two folders of validation images"},
		{name: "train and val without test", files: map[string][]byte{"train/a/1.png": good, "train/b/1.png": good, "val/a/1.png": good, "val/b/1.png": good},
			err: fs.ErrNotExist, msg: "val: to test on its images, rename it test"},
	} {
		t.Run(test.name, func(t *testing.T) {
			dir := writeTree(t, test.files)
			f, err := dataset.LoadImageFolder(dir, dataset.FolderOptions{})
			if test.msg != "" {
				if err == nil || test.err != nil && !errors.Is(err, test.err) || !strings.Contains(err.Error(), test.msg) {
					t.Fatalf("error %v, want %v saying %q", err, test.err, test.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case test.valid < 0 && f.Valid != nil:
				t.Errorf("%d validation images, want none", f.Valid.N)
			case test.valid >= 0 && (f.Valid == nil || f.Valid.N != test.valid || !slices.Equal(f.Valid.Names, []string{"a", "b"})):
				t.Errorf("validation images %+v, want %d of classes a and b", f.Valid, test.valid)
			case f.Train.N != 3 || f.Test.N != 2:
				t.Errorf("%d training and %d test images, want 3 and 2", f.Train.N, f.Test.N)
			}
		})
	}
}

// TestFolderLayout checks the rules of class folders that are not what
// they seem: a validation folder without train and test folders, a link
// to the folder itself, and names that are not UTF-8 text.
func TestFolderLayout(t *testing.T) {
	good := pngBytes(t, 6, 4)
	classes := map[string][]byte{"a/1.png": good, "a/2.png": good, "b/1.png": good, "b/2.png": good}
	with := func(extra map[string][]byte) map[string][]byte { return withFiles(classes, extra) }
	for _, test := range []struct {
		name  string
		files map[string][]byte
		link  string // a link to the folder itself, if not ""
		names []string
		want  string // the warning, with DIR for the folder
		err   string
	}{
		{name: "val of class folders", files: with(map[string][]byte{"val/a/1.png": good, "val/b/1.png": good}),
			err: "val: empty class folder, only folders: a folder of validation images, of class folders, is read only beside train and test folders"},
		{name: "another folder of class folders", files: with(map[string][]byte{"c/a/1.png": good}),
			err: "c: empty class folder: no .png, .jpg, .jpeg, .gif, .bmp, .tif, .tiff, .webp, .pbm, .pgm, .ppm, .pnm, .pam files, only folders (a): are the class folders one level down?"},
		{name: "valid of images", files: with(map[string][]byte{"valid/1.png": good, "valid/2.png": good}), names: []string{"a", "b", "valid"},
			want: `DIR/valid is read as a class, "valid", since DIR has no train and test folders: if its images are validation images of the other classes`},
		{name: "a link to the folder", files: classes, link: "loop", err: "loop: a link to DIR or a folder that holds it, not a class folder: remove it"},
		{name: "Windows-1252", files: with(map[string][]byte{"caf\xe9/1.png": good, "caf\xe9/2.png": good}), names: []string{"a", "b", "café"},
			want: `1 class folder name of DIR not UTF-8 text, read as Windows-1252 ("caf\xe9" as "café")`},
		{name: "Windows-1252 and UTF-8 alike", files: with(map[string][]byte{"caf\xe9/1.png": good, "café/1.png": good}),
			err: `class folders "caf\u00e9" and "caf\xe9" are both "café", one of them not UTF-8 text read as Windows-1252: rename one`},
	} {
		t.Run(test.name, func(t *testing.T) {
			dir := writeTree(t, test.files)
			if test.link != "" {
				if err := os.Symlink(dir, filepath.Join(dir, test.link)); err != nil {
					t.Fatal(err)
				}
			}
			f, err := dataset.LoadImageFolder(dir, dataset.FolderOptions{})
			if test.err != "" {
				if msg := strings.ReplaceAll(test.err, "DIR", dir); err == nil || !strings.Contains(err.Error(), msg) {
					t.Fatalf("error %v, want one that says %q", err, msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(test.want, "DIR", dir)
			if !slices.Equal(f.Names, test.names) || len(f.Warnings) != 1 || !strings.HasPrefix(f.Warnings[0], want) {
				t.Errorf("classes %q, warnings %q; want %q and one warning %q", f.Names, f.Warnings, test.names, want)
			}
		})
	}
}

// TestImageFiles lists the image files of a folder and its folders, as
// predict reads them, warning of the others.
func TestImageFiles(t *testing.T) {
	good := pngBytes(t, 6, 4)
	dir := writeTree(t, map[string][]byte{"b.png": good, "a/1.JPG": good, "a/2/3.ppm": good, ".git/x.png": good, "a/.DS_Store": {1}, "notes.txt": {1}})
	files, warnings, err := dataset.ImageFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range []string{"a/1.JPG", "a/2/3.ppm", "b.png"} {
		want = append(want, filepath.Join(dir, filepath.FromSlash(f)))
	}
	if !slices.Equal(files, want) || len(warnings) != 1 || !strings.HasPrefix(warnings[0], "1 file not read, of other formats (1 .txt), such as "+filepath.Join(dir, "notes.txt")) {
		t.Errorf("files %q, warnings %q; want %q and one of notes.txt", files, warnings, want)
	}
	if files, _, err := dataset.ImageFiles(want[0]); err != nil || !slices.Equal(files, want[:1]) {
		t.Errorf("a file: %q, %v", files, err)
	}
	if _, _, err := dataset.ImageFiles(filepath.Join(dir, ".git")); err != nil {
		t.Errorf("a hidden folder named: %v", err)
	}
	if err := os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "c")); err != nil {
		t.Fatal(err)
	}
	if files, warnings, err := dataset.ImageFiles(dir); err != nil || len(files) != 3 || len(warnings) != 2 ||
		warnings[1] != "1 link to folders not followed, such as "+filepath.Join(dir, "c")+": name the folder itself" {
		t.Errorf("a link to a folder: files %q, warnings %q, error %v", files, warnings, err)
	}
	empty := writeTree(t, map[string][]byte{"x.heic": {1}})
	if _, _, err := dataset.ImageFiles(empty); !errors.Is(err, dataset.ErrNoImages) || !strings.Contains(err.Error(), "only 1 .heic") {
		t.Errorf("no images: %v", err)
	}
}

// TestFewInColour checks the warning of a few colour images among grey
// ones, which make the set three channels, and its absence when none
// or many are in colour.
func TestFewInColour(t *testing.T) {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 4, 3))); err != nil {
		t.Fatal(err)
	}
	colour, grey := b.Bytes(), pngBytes(t, 4, 3)
	tree := func(colours int) map[string][]byte {
		files := map[string][]byte{}
		for i := range 20 {
			files[fmt.Sprintf("%c/%d.png", 'a'+i%2, i)] = grey
			if i < colours {
				files[fmt.Sprintf("%c/%d.png", 'a'+i%2, i)] = colour
			}
		}
		return files
	}
	for _, tc := range []struct {
		colours int
		want    string
	}{
		{0, ""},
		{2, "2 of the 20 images are in colour, such as "},
		{3, ""},
	} {
		f, err := dataset.LoadImageFolder(writeTree(t, tree(tc.colours)), dataset.FolderOptions{})
		switch {
		case err != nil:
			t.Fatal(err)
		case tc.want == "" && f.Warnings != nil, tc.want != "" && (len(f.Warnings) != 1 || !strings.HasPrefix(f.Warnings[0], tc.want)):
			t.Errorf("%d in colour: warnings %q, want %q", tc.colours, f.Warnings, tc.want)
		}
	}
}

// TestStretched checks the warning of images of unlike aspect ratios
// resized to one size, and its absence for images of one aspect ratio.
func TestStretched(t *testing.T) {
	wide, tall := pngBytes(t, 6, 4), pngBytes(t, 4, 6)
	opt := dataset.FolderOptions{Rows: 4, Cols: 4}
	dir := writeTree(t, map[string][]byte{"a/1.png": wide, "a/2.png": tall, "b/1.png": wide, "b/2.png": pngBytes(t, 12, 8)})
	f, err := dataset.LoadImageFolder(dir, opt)
	want := "images of aspect ratios (width/height) from 0.667 (" + filepath.Join(dir, "a", "2.png") + ", 4x6) to 1.5 ("
	if err != nil || len(f.Warnings) != 1 || !strings.HasPrefix(f.Warnings[0], want) {
		t.Errorf("warnings %q, error %v; want one that begins %q", f.Warnings, err, want)
	}
	dir = writeTree(t, map[string][]byte{"a/1.png": wide, "a/2.png": pngBytes(t, 12, 8), "b/1.png": wide, "b/2.png": pngBytes(t, 3, 2)})
	if f, err := dataset.LoadImageFolder(dir, opt); err != nil || f.Warnings != nil {
		t.Errorf("images of one aspect ratio: warnings %q, error %v", f.Warnings, err)
	}
}
