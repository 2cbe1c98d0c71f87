package dataset

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/parametric-machines/machines/ad"
	"golang.org/x/image/bmp"
	"golang.org/x/image/draw"
	"golang.org/x/image/riff"
	"golang.org/x/image/tiff"
	"golang.org/x/image/vp8"
	"golang.org/x/image/vp8l"
	"golang.org/x/image/webp"
)

// Errors wrapped by the *ParseError values of LoadImageFolder. A class
// folder of the training images without a namesake among the test images,
// or the other way round, is reported with an error wrapping
// ErrMissingClass.
var (
	ErrNoImages   = errors.New("no images")
	ErrEmptyClass = errors.New("empty class folder")
	ErrImage      = errors.New("not a readable PNG, JPEG, GIF, BMP, TIFF, WebP or Netpbm image")
	ErrImageSize  = errors.New("image of another size")
	ErrTooLarge   = errors.New("image too large")
)

// DefaultSplit is the fraction of the images of each class held out for
// testing when a folder has no train and test folders and
// FolderOptions.Split is zero.
const DefaultSplit = 0.2

// MaxImagePixels is the largest width times height of an image file that
// LoadImageFolder decodes, or resizes to: a 8192x4096 photograph. It is
// checked against the file's header before the decoder allocates the
// pixels, so that a corrupt or hostile header cannot claim gigabytes.
const MaxImagePixels = 1 << 25

// FolderOptions says how LoadImageFolder reads a folder of images. The zero
// value reads images of one size as they are, holding out DefaultSplit of a
// single folder for testing.
type FolderOptions struct {
	// Rows and Cols, if not zero, are the size every image is resized to;
	// otherwise all images must be of one size. Both or neither must be
	// set.
	Rows, Cols int
	// Split is the fraction of the images of each class held out for
	// testing when the folder has no train and test folders; zero means
	// DefaultSplit. It must be zero when it has them.
	Split float64
	// Seed seeds the split and the order of the images.
	Seed uint64
	// Check, if not nil, is called with the shape of the images
	// (channels, rows and columns), their number of classes and their
	// number once every file's header is read, before a pixel is
	// decoded, so that a caller can refuse images it cannot use without
	// waiting for them to be read; its error is returned.
	Check func(channels, rows, cols, classes, images int) error
}

// ImageFolder is a data set read from a folder of images, or from IDX
// files by LoadImages.
type ImageFolder struct {
	Train, Test *Images
	// Valid are the images of the validation folder beside the train
	// and test folders (one of ValidFolders), or nil if there is none.
	Valid *Images
	// Names are the classes: label i is the class folder Names[i]; nil
	// for IDX files.
	Names []string
	// Split is the fraction of each class held out for testing, or zero
	// if the folder had its own train and test folders.
	Split float64
	// Warnings say what was not read, files of other formats and
	// folders within the class folders, and what may not be what it
	// seems. Hidden files (names that begin with a dot), Thumbs.db,
	// desktop.ini and __MACOSX are left out in silence.
	Warnings []string
}

// imageFile is one image to read: its path and label, and its header.
type imageFile struct {
	path  string
	label int
	imageHeader
}

// LoadImageFolder reads the images of a classification task from dir,
// which holds either a train and a test folder (so named in any case:
// Train, TEST), each with one folder of images per class, the same
// classes in both:
//
//	dir/train/CLASS/*.png, *.jpg, *.jpeg, ...
//	dir/test/CLASS/*.png, *.jpg, *.jpeg, ...
//
// and perhaps a validation folder of the same classes beside them
// (dir/valid, dir/val or dir/validation: ValidFolders), or the class
// folders alone, dir/CLASS/*.png and so on, of which a fraction o.Split
// of each class, drawn by o.Seed, is held out for testing. The images
// are PNG, JPEG, GIF (its first frame), BMP, TIFF, WebP and Netpbm
// files (.png, .jpg, .jpeg, .gif, .bmp, .tif, .tiff, .webp, and .pbm,
// .pgm, .ppm, .pnm, .pam, in any case), each told by its first bytes. The
// classes are the folder names in sorted order; the other files and the
// folders in a class folder are skipped, as Warnings says, and hidden
// files (names that begin with a dot), Thumbs.db, desktop.ini and
// __MACOSX folders are ignored. A class folder name that is not UTF-8
// text is read as Windows-1252, with a warning. Links are followed; a
// link to the folder, or to one that holds it, is refused. Without train
// and test folders, a validation folder (one of ValidFolders) of class
// folders is refused, and one of images is a class, with a warning.
//
// The images are grey (one channel) if every file is grey, as a grey PNG
// or JPEG or a file whose palette is grey is, and RGB (three channels)
// otherwise; transparency is dropped, each pixel keeping the colour it
// stores, as removing the alpha channel does. The EXIF orientation of a
// JPEG, PNG, WebP or TIFF file, as phones write it, turns the image
// upright first. If o.Rows and o.Cols are set, every image is resized to
// that size by Catmull-Rom interpolation, whose kernel widens as it shrinks an image so that it
// averages away detail rather than aliasing it, as a sampling of the four
// nearest pixels (draw.ApproxBiLinear) would, and Warnings says if their
// aspect ratios differ by more than a factor of 1.25; otherwise the
// images must all be of one size. Each split comes in an order shuffled
// by o.Seed, so that its first images, as quick runs take, hold every
// class.
//
// Problems with the data are returned as *ParseError values naming the
// file or folder at fault: a file that cannot be decoded (ErrImage), one
// larger than MaxImagePixels (ErrTooLarge) or of another size than the
// first (ErrImageSize), a class folder without images (ErrEmptyClass), a
// class in one split only (ErrMissingClass), a folder without class
// folders or whose classes have one image each, none to hold out for
// testing (ErrNoImages), and a folder of one class folder only
// (ErrOneClass).
func LoadImageFolder(dir string, o FolderOptions) (*ImageFolder, error) {
	if err := checkFolderOptions(o); err != nil {
		return nil, err
	}
	f, train, valid, test, err := listImageFolder(dir, o.Split)
	if err != nil {
		return nil, err
	}
	channels, rows, cols, err := readHeaders(dir, [][]imageFile{train, valid, test}, o)
	if err != nil {
		return nil, err
	}
	all := slices.Concat(train, valid, test)
	for _, w := range []string{stretched(all, rows, cols), fewInColour(all)} {
		if w != "" {
			f.Warnings = append(f.Warnings, w)
		}
	}
	if o.Check != nil {
		if err := o.Check(channels, rows, cols, len(f.Names), len(train)+len(valid)+len(test)); err != nil {
			return nil, err
		}
	}

	rnd := rand.New(rand.NewPCG(o.Seed, 0x666f6c646572)) // "folder": a stream of its own
	if f.Split != 0 {
		train, test = splitClasses(train, len(f.Names), f.Split, rnd)
		if len(test) == 0 {
			return nil, &ParseError{File: dir, Err: fmt.Errorf("%w for testing: no class folder holds two images or more, and a class keeps its only image for training",
				ErrNoImages)}
		}
	}
	var conv converter
	for _, s := range []struct {
		files []imageFile
		im    **Images
	}{{train, &f.Train}, {valid, &f.Valid}, {test, &f.Test}} {
		if s.im == &f.Valid && f.Valid == nil {
			continue // no validation folder
		}
		rnd.Shuffle(len(s.files), func(i, j int) { s.files[i], s.files[j] = s.files[j], s.files[i] })
		if *s.im, err = conv.read(s.files, len(f.Names), channels, rows, cols); err != nil {
			return nil, err
		}
		(*s.im).Names = slices.Clone(f.Names)
	}
	return f, nil
}

// checkFolderOptions panics on options no caller should pass and refuses
// a size to resize to that is too large.
func checkFolderOptions(o FolderOptions) error {
	if o.Rows < 0 || o.Cols < 0 || (o.Rows == 0) != (o.Cols == 0) || !(o.Split >= 0 && o.Split < 1) {
		panic(fmt.Errorf("%w: dataset: folder options %+v", ad.ErrValue, o))
	}
	if o.Rows > MaxImagePixels/max(o.Cols, 1) {
		return fmt.Errorf("dataset: %w: resizing to %dx%d, more than %d pixels", ErrTooLarge, o.Cols, o.Rows, MaxImagePixels)
	}
	return nil
}

// ValidFolders are the names a folder of validation images may have
// beside the train and test folders, in lower case; they are read in
// any case, as the train and test folders are.
var ValidFolders = []string{"valid", "val", "validation"}

// listImageFolder finds the classes and the image files of dir, from its
// train and test folders (and validation folder, if any) or, split by
// the fraction split (zero meaning DefaultSplit) later, from its class
// folders alone. The ImageFolder it returns has its Names, Split and
// Warnings set, and Valid, with no images yet, if there is a validation
// folder.
func listImageFolder(dir string, split float64) (f *ImageFolder, train, valid, test []imageFile, err error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, nil, nil, nil, err
	}
	trainDir, testDir := splitDir(dir, "train"), splitDir(dir, "test")
	hasTrain, hasTest := isDir(trainDir), isDir(testDir)
	f = &ImageFolder{}
	var sk skipped
	switch {
	case hasTrain && hasTest:
		if split != 0 {
			return nil, nil, nil, nil, &ParseError{File: dir, Err: fmt.Errorf("a split of %g, but the folder has its own train and test folders", split)}
		}
		if f.Names, train, err = classFiles(trainDir, &sk); err != nil {
			return nil, nil, nil, nil, err
		}
		if test, err = splitFiles(trainDir, testDir, "test", f.Names, &sk); err != nil {
			return nil, nil, nil, nil, err
		}
		validDir, err := validFolder(dir)
		if err == nil && validDir != "" {
			f.Valid = &Images{}
			valid, err = splitFiles(trainDir, validDir, "validation", f.Names, &sk)
		}
		if err != nil {
			return nil, nil, nil, nil, err
		}
	case hasTrain || hasTest:
		have, missing := trainDir, testDir
		if hasTest {
			have, missing = testDir, trainDir
		}
		err := fmt.Errorf("%w: there is %s but not this folder", fs.ErrNotExist, have)
		if validDir, _ := validFolder(dir); validDir != "" && hasTrain {
			err = fmt.Errorf("%w, and %s: to test on its images, rename it test (the validation images are then held out of the training images)", err, validDir)
		}
		return nil, nil, nil, nil, &ParseError{File: missing, Err: err}
	default:
		f.Split = split
		if f.Split == 0 {
			f.Split = DefaultSplit
		}
		if f.Names, train, err = classFiles(dir, &sk); err != nil {
			return nil, nil, nil, nil, err
		}
		if i := slices.IndexFunc(f.Names, isValidFolder); i >= 0 {
			f.Warnings = append(f.Warnings, fmt.Sprintf("%s is read as a class, %q, since %s has no train and test folders: "+
				"if its images are validation images of the other classes, put them in class folders of their own, beside train and test folders of the same classes (train/CLASS, test/CLASS, %s/CLASS)",
				filepath.Join(dir, f.Names[i]), f.Names[i], dir, f.Names[i]))
		}
	}
	if err := textNames(dir, f); err != nil {
		return nil, nil, nil, nil, err
	}
	if len(f.Names) == 1 {
		return nil, nil, nil, nil, &ParseError{File: dir, Err: fmt.Errorf("%w: %s is the only class folder; a classifier needs two or more", ErrOneClass, f.Names[0])}
	}
	f.Warnings = append(sk.warnings(), f.Warnings...)
	return f, train, valid, test, nil
}

// textNames turns the names of f's classes that are not UTF-8 text, as
// an archive made on Windows may leave folder names, into text, reading
// their other bytes as Windows-1252, with a warning; the classes are
// written as text (sculpt.json, the model file), where such a name
// would become U+FFFD and two of them one class.
func textNames(dir string, f *ImageFolder) error {
	var renamed []string
	was := slices.Clone(f.Names)
	for i, name := range f.Names {
		if !utf8.ValidString(name) {
			f.Names[i] = utf8Text(name)
			renamed = append(renamed, fmt.Sprintf("%+q as %q", name, f.Names[i]))
		}
	}
	if renamed == nil {
		return nil
	}
	for i, name := range f.Names {
		if j := slices.Index(f.Names[i+1:], name); j >= 0 {
			return &ParseError{File: dir, Err: fmt.Errorf("class folders %+q and %+q are both %q, one of them not UTF-8 text read as Windows-1252: rename one",
				was[i], was[i+1+j], name)}
		}
	}
	f.Warnings = append(f.Warnings, fmt.Sprintf("%s of %s not UTF-8 text, read as Windows-1252 (%s): rename them in UTF-8 if they read wrong",
		plural(len(renamed), "class folder name"), dir, strings.Join(renamed, ", ")))
	return nil
}

// splitFiles returns the image files of the folder dir of a split
// (what: test or validation), whose classes must be those of the
// training images in trainDir.
func splitFiles(trainDir, dir, what string, classes []string, sk *skipped) ([]imageFile, error) {
	names, files, err := classFiles(dir, sk)
	if err != nil {
		return nil, err
	}
	return files, sameClasses(trainDir, dir, what, classes, names)
}

// splitDir returns the folder of a split in dir, dir/name, or if there
// is none so named a folder named so in other letters (Train, TEST), as
// a file system that ignores case would find it; dir/name if there is
// none.
func splitDir(dir, name string) string {
	path := filepath.Join(dir, name)
	if isDir(path) {
		return path
	}
	entries, _ := os.ReadDir(dir) // an error is the caller's, who reads dir itself
	for _, e := range entries {
		if other := filepath.Join(dir, e.Name()); strings.EqualFold(e.Name(), name) && isDir(other) {
			return other
		}
	}
	return path
}

// isValidFolder reports whether a folder's name is one of ValidFolders,
// in any case.
func isValidFolder(name string) bool {
	return slices.ContainsFunc(ValidFolders, func(v string) bool { return strings.EqualFold(v, name) })
}

// validFolder returns the folder of validation images in dir, one of
// ValidFolders, or "" if there is none.
func validFolder(dir string) (string, error) {
	var found []string
	for _, name := range ValidFolders {
		if path := splitDir(dir, name); isDir(path) {
			found = append(found, path)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", &ParseError{File: dir, Err: fmt.Errorf("two folders of validation images, %s and %s: keep one", found[0], found[1])}
}

// readHeaders reads the headers of the files, in place, in the order of
// the names, which give the number of channels and the size before a
// pixel is decoded and the pixels are allocated, and returns the shape of
// the images of the folder dir: the options' size if they set one,
// otherwise the size every file must share.
func readHeaders(dir string, splits [][]imageFile, o FolderOptions) (channels, rows, cols int, err error) {
	grey := true
	var first *imageFile
	n := 0
	for _, files := range splits {
		n += len(files)
		for i := range files {
			file := &files[i]
			if err := readHeader(file); err != nil {
				return 0, 0, 0, err
			}
			grey = grey && file.grey
			switch {
			case o.Rows != 0:
			case first == nil:
				first = file
			case file.rows != first.rows || file.cols != first.cols:
				return 0, 0, 0, &ParseError{File: file.path, Err: fmt.Errorf("%w: %dx%d, but %s is %dx%d; resize them to one size",
					ErrImageSize, file.cols, file.rows, first.path, first.cols, first.rows)}
			}
		}
	}
	rows, cols = o.Rows, o.Cols
	if rows == 0 {
		rows, cols = first.rows, first.cols
	}
	channels = 3
	if grey {
		channels = 1
	}
	if total := n * channels * rows * cols; total/n != channels*rows*cols || total > maxIDXBytes {
		return 0, 0, 0, &ParseError{File: dir, Err: fmt.Errorf("%w: %d images of %dx%dx%d would take more than %d bytes",
			ErrTooLarge, n, channels, rows, cols, uint64(maxIDXBytes))}
	}
	return channels, rows, cols, nil
}

// maxStretch is the ratio of the widest image's aspect ratio to the
// narrowest's beyond which resizing them to one size is warned of.
const maxStretch = 1.25

// stretched returns a warning if the files, resized to rows x cols, are
// of aspect ratios so unlike that resizing stretches them unlike each
// other (portraits and landscapes, say), and "" otherwise.
func stretched(files []imageFile, rows, cols int) string {
	aspect := func(f imageFile) float64 { return float64(f.cols) / float64(f.rows) }
	lo := slices.MinFunc(files, func(a, b imageFile) int { return cmp.Compare(aspect(a), aspect(b)) })
	hi := slices.MaxFunc(files, func(a, b imageFile) int { return cmp.Compare(aspect(a), aspect(b)) })
	if aspect(hi) <= maxStretch*aspect(lo) {
		return ""
	}
	return fmt.Sprintf("images of aspect ratios (width/height) from %.3g (%s, %dx%d) to %.3g (%s, %dx%d) are resized to %dx%d, which stretches them unlike each other: "+
		"crop them to one aspect ratio if their shapes matter", aspect(lo), lo.path, lo.cols, lo.rows, aspect(hi), hi.path, hi.cols, hi.rows, cols, rows)
}

// fewInColour returns a warning if a few of the files, at most a tenth,
// are in colour and the others grey, and "" otherwise: the few make
// every image read in three channels, three times the input of one,
// which is wasted if they are grey scans saved in colour.
func fewInColour(files []imageFile) string {
	colour, first := 0, ""
	for _, f := range files {
		if !f.grey {
			first = cmp.Or(first, f.path)
			colour++
		}
	}
	if colour == 0 || colour*10 > len(files) {
		return ""
	}
	return fmt.Sprintf("%d of the %d images are in colour, such as %s, and the others grey, so that every image is read in three channels (red, green, blue), three times the input of one: "+
		"if their colour means nothing, save them as grey", colour, len(files), first)
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// hidden reports whether a directory entry is to be ignored: a name
// that begins with a dot (.DS_Store, the ._NAME files macOS leaves on
// other file systems), the folder of such files macOS's archives hold
// (__MACOSX), and the thumbnails and settings Windows keeps.
func hidden(name string) bool {
	return strings.HasPrefix(name, ".") || slices.ContainsFunc(ignoredNames, func(s string) bool { return strings.EqualFold(name, s) })
}

// ignoredNames are the names, in any case, of the entries that hidden
// ignores besides those that begin with a dot.
var ignoredNames = []string{"Thumbs.db", "desktop.ini", "__MACOSX"}

// classFiles returns the class folders of dir, sorted, and their image
// files, labelled by the index of their folder; the files and folders
// in the class folders that are not read are added to sk.
func classFiles(dir string, sk *skipped) ([]string, []imageFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var names []string
	var files []imageFile
	for _, e := range entries { // os.ReadDir sorts them by name
		if hidden(e.Name()) || !isDir(filepath.Join(dir, e.Name())) {
			continue
		}
		classDir := filepath.Join(dir, e.Name())
		if e.Type()&fs.ModeSymlink != 0 && holds(classDir, dir) {
			return nil, nil, &ParseError{File: classDir, Err: fmt.Errorf("a link to %s or a folder that holds it, not a class folder: remove it", dir)}
		}
		inner, err := os.ReadDir(classDir)
		if err != nil {
			return nil, nil, err
		}
		n := len(files)
		var class skipped
		for _, f := range inner {
			path := filepath.Join(classDir, f.Name())
			switch ext := strings.ToLower(filepath.Ext(f.Name())); {
			case hidden(f.Name()):
			case slices.Contains(imageExts, ext): // a folder so named is an error when it is read
				files = append(files, imageFile{path: path, label: len(names)})
			case f.IsDir() || f.Type()&fs.ModeSymlink != 0 && isDir(path): // a folder, or a link to one
				class.folders = append(class.folders, path)
			default:
				class.addFile(path, ext)
			}
		}
		if len(files) == n {
			err := class.empty()
			if isValidFolder(e.Name()) && len(class.folders) > 0 {
				err = fmt.Errorf("%w, only folders: a folder of validation images, of class folders, is read only beside train and test folders of the same classes (train/CLASS, test/CLASS, %s/CLASS)",
					ErrEmptyClass, e.Name())
			}
			return nil, nil, &ParseError{File: classDir, Err: err}
		}
		sk.merge(class)
		names = append(names, e.Name())
	}
	if names == nil {
		return nil, nil, &ParseError{File: dir, Err: fmt.Errorf("%w: no class folders, want CLASS/*.png or train/CLASS/*.png and test/CLASS/*.png", ErrNoImages)}
	}
	return names, files, nil
}

// holds reports whether the folder a holds the folder b, or is b, links
// followed.
func holds(a, b string) bool {
	a, err1 := filepath.EvalSymlinks(a)
	b, err2 := filepath.EvalSymlinks(b)
	rel, err := filepath.Rel(a, b)
	return err1 == nil && err2 == nil && err == nil && (rel == "." || !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != "..")
}

// sameClasses checks that the training images and those of another
// split (what: test or validation) in dir have the same classes, naming
// the first class folder without a namesake.
func sameClasses(trainDir, dir, what string, train, other []string) error {
	for _, c := range train {
		if !slices.Contains(other, c) {
			return &ParseError{File: filepath.Join(dir, c), Err: fmt.Errorf("%w: %s is a class of the training images but has no %s folder", ErrMissingClass, c, what)}
		}
	}
	for _, c := range other {
		if !slices.Contains(train, c) {
			return &ParseError{File: filepath.Join(trainDir, c), Err: fmt.Errorf("%w: %s is a class of the %s images but has no training folder", ErrMissingClass, c, what)}
		}
	}
	return nil
}

// splitClasses holds out the fraction split of the files of each class,
// at least one and leaving at least one, for testing; a class of one
// image keeps it for training.
func splitClasses(files []imageFile, classes int, split float64, rnd *rand.Rand) (train, test []imageFile) {
	byClass := make([][]imageFile, classes)
	for _, f := range files {
		byClass[f.label] = append(byClass[f.label], f)
	}
	for _, class := range byClass {
		k := 0
		if n := len(class); n > 1 {
			k = min(max(int(split*float64(n)+0.5), 1), n-1)
		}
		rnd.Shuffle(len(class), func(i, j int) { class[i], class[j] = class[j], class[i] })
		test = append(test, class[:k]...)
		train = append(train, class[k:]...)
	}
	return train, test
}

// readHeader reads the size and colour model of an image file.
func readHeader(file *imageFile) error {
	fh, err := os.Open(file.path)
	if err != nil {
		return err
	}
	defer fh.Close()
	if file.imageHeader, err = readImageHeader(fh); err != nil {
		return &ParseError{File: file.path, Err: err}
	}
	return nil
}

// imageFormat is a format of image files that LoadImageFolder reads.
type imageFormat struct {
	name         string
	exts         []string // the suffixes of its files, in lower case
	is           func(head []byte) bool
	decodeConfig func(io.Reader) (image.Config, error)
	decode       func(io.Reader) (image.Image, error)
	// readsAt is set for a decoder that reads at the offsets a file's
	// header gives: it is given the file itself, an io.ReaderAt, for
	// given a stream it would keep a copy of the file up to the
	// furthest offset, allocated before it is read, which a header of a
	// few bytes may put gigabytes away.
	readsAt bool
	// orientation, if not nil, reads the EXIF orientation of a file
	// of the format, 1 to 8.
	orientation func(io.ReaderAt) int
}

// imageFormats are the formats read, each told by its signature in the
// first bytes of a file (at most headLen), not by the decoders
// registered with package image, so that no other format slips in. They
// are those of the standard library and golang.org/x/image, which the
// module already requires for resizing.
var imageFormats = []imageFormat{
	{"PNG", []string{".png"}, prefix("\x89PNG\r\n\x1a\n"), png.DecodeConfig, png.Decode, false, pngOrientation},
	{"JPEG", []string{".jpg", ".jpeg"}, prefix("\xff\xd8"), jpeg.DecodeConfig, jpeg.Decode, false, jpegOrientation},
	{"GIF", []string{".gif"}, prefix("GIF87a", "GIF89a"), gif.DecodeConfig, gif.Decode, false, nil},
	{"BMP", []string{".bmp"}, prefix("BM"), bmp.DecodeConfig, bmp.Decode, false, nil},
	{"TIFF", []string{".tif", ".tiff"}, prefix("II*\x00", "MM\x00*"), tiff.DecodeConfig, tiff.Decode, true, exifOrientation},
	{"WebP", []string{".webp"}, func(head []byte) bool {
		return len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP"
	}, webpConfig, webp.Decode, false, webpOrientation},
	{"Netpbm", []string{".pbm", ".pgm", ".ppm", ".pnm", ".pam"}, isNetpbm, netpbmConfig, decodeNetpbm, false, nil},
}

// webpConfig is webp.DecodeConfig, but for the size of the frame, which
// the decoder allocates, rather than that of the canvas of a VP8X chunk,
// which the decoder does not compare with it: a canvas of 1x1 pixels
// could hide a frame of 16383x16383, a gigabyte. A canvas of another size
// than its frame is refused.
func webpConfig(r io.Reader) (image.Config, error) {
	form, chunks, err := riff.NewReader(r)
	if err != nil {
		return image.Config{}, err
	}
	if form != riff.FourCC([4]byte{'W', 'E', 'B', 'P'}) {
		return image.Config{}, errors.New("webp: not a WebP file")
	}
	var canvas image.Point
	for {
		id, n, data, err := chunks.Next()
		if err == io.EOF {
			return image.Config{}, errors.New("webp: no frame")
		}
		if err != nil {
			return image.Config{}, err
		}
		var frame image.Point
		switch string(id[:]) {
		case "VP8X":
			var b [10]byte
			if _, err := io.ReadFull(data, b[:]); err != nil {
				return image.Config{}, err
			}
			canvas = image.Pt(1+int(b[4])|int(b[5])<<8|int(b[6])<<16, 1+int(b[7])|int(b[8])<<8|int(b[9])<<16)
			continue
		case "VP8 ":
			d := vp8.NewDecoder()
			d.Init(data, int(n))
			fh, err := d.DecodeFrameHeader()
			if err != nil {
				return image.Config{}, err
			}
			frame = image.Pt(fh.Width, fh.Height)
		case "VP8L":
			c, err := vp8l.DecodeConfig(data)
			if err != nil {
				return image.Config{}, err
			}
			frame = image.Pt(c.Width, c.Height)
		default: // alpha, colour profile, metadata
			continue
		}
		if canvas != (image.Point{}) && canvas != frame {
			return image.Config{}, fmt.Errorf("webp: a canvas of %dx%d for a frame of %dx%d", canvas.X, canvas.Y, frame.X, frame.Y)
		}
		return image.Config{ColorModel: color.NRGBAModel, Width: frame.X, Height: frame.Y}, nil
	}
}

// imageSource is an image file: an *os.File, or a bytes.Reader.
type imageSource interface {
	io.ReadSeeker
	io.ReaderAt
}

// input returns what the decoders of the format read: r itself for one
// that reads at offsets, and otherwise br, the buffered stream of r.
func (f imageFormat) input(r imageSource, br *bufio.Reader) io.Reader {
	if f.readsAt {
		return r
	}
	return br
}

// headLen is the length of a file's head that tells its format; a PNG's
// colour type is its byte 25, in its header chunk.
const headLen = 26

// imageExts are the suffixes, in lower case, of the files read as images.
var imageExts = func() (exts []string) {
	for _, f := range imageFormats {
		exts = append(exts, f.exts...)
	}
	return exts
}()

// prefix returns a test of whether a file's head begins with one of the
// signatures.
func prefix(signatures ...string) func([]byte) bool {
	return func(head []byte) bool {
		return slices.ContainsFunc(signatures, func(s string) bool { return bytes.HasPrefix(head, []byte(s)) })
	}
}

// imageHeader is what the header of an image file says.
type imageHeader struct {
	// rows and cols are the size of the image upright, turned by its
	// orientation; the pixels as stored may be cols high and rows wide.
	rows, cols int
	grey       bool
	format     imageFormat
	// orientation is the EXIF orientation of the file, 1 to 8; 1 for a
	// file without one, and for the formats that hold none.
	orientation int
}

// stored returns the width and height of the pixels as the file stores
// them, before they are turned upright.
func (h imageHeader) stored() (width, height int) {
	if transposed(h.orientation) {
		return h.rows, h.cols
	}
	return h.cols, h.rows
}

// readImageHeader reads the header of an image in one of imageFormats
// from r. Its size must be at most MaxImagePixels.
func readImageHeader(r imageSource) (imageHeader, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(headLen)
	if err != nil && err != io.EOF {
		return imageHeader{}, err // a directory, a file that cannot be read
	}
	i := slices.IndexFunc(imageFormats, func(f imageFormat) bool { return f.is(head) })
	switch {
	case len(head) == 0:
		return imageHeader{}, fmt.Errorf("%w: an empty file", ErrImage)
	case i < 0 && isoImage(head) != "":
		return imageHeader{}, fmt.Errorf("%w: its first bytes are those of %s, a format not read: convert it to JPEG or PNG", ErrImage, isoImage(head))
	case i < 0:
		return imageHeader{}, fmt.Errorf("%w: its first bytes are the signature of none of them", ErrImage)
	}
	h := imageHeader{format: imageFormats[i], orientation: 1}
	cfg, err := h.format.decodeConfig(h.format.input(r, br))
	if err != nil {
		return imageHeader{}, fmt.Errorf("%w: %s: %v", ErrImage, h.format.name, err)
	}
	if cfg.Width < 1 || cfg.Height < 1 {
		return imageHeader{}, fmt.Errorf("%w: %dx%d pixels", ErrImage, cfg.Width, cfg.Height)
	}
	if cfg.Width > MaxImagePixels/cfg.Height {
		return imageHeader{}, fmt.Errorf("%w: %dx%d, more than %d pixels", ErrTooLarge, cfg.Width, cfg.Height, MaxImagePixels)
	}
	h.rows, h.cols = cfg.Height, cfg.Width
	if h.format.orientation != nil {
		if h.orientation = h.format.orientation(r); transposed(h.orientation) {
			h.rows, h.cols = cfg.Width, cfg.Height
		}
	}
	switch m := cfg.ColorModel.(type) {
	case color.Palette:
		h.grey = true
		for _, c := range m {
			r, g, b, _ := c.RGBA()
			h.grey = h.grey && r == g && g == b
		}
	default:
		const greyAlpha = 4 // the PNG colour type of grey with alpha, decoded as NRGBA
		h.grey = m == color.GrayModel || m == color.Gray16Model || m == greyAlphaModel || h.format.name == "PNG" && len(head) == headLen && head[25] == greyAlpha
	}
	return h, nil
}

// isoImage names the format of a file's head if it is an HEIC or AVIF
// image, as phones write them (and save under other names, IMG_0001.jpg):
// a box "ftyp" of the ISO base media format, of one of their brands.
// Otherwise it returns "".
func isoImage(head []byte) string {
	if len(head) < 12 || string(head[4:8]) != "ftyp" {
		return ""
	}
	brand := string(head[8:12])
	switch brand {
	case "heic", "heix", "heim", "heis", "hevc", "hevx":
		return fmt.Sprintf("an HEIC image (ftyp %q)", brand)
	case "mif1", "msf1": // the brands of either
		return fmt.Sprintf("an HEIC or AVIF image (ftyp %q)", brand)
	case "avif", "avis":
		return fmt.Sprintf("an AVIF image (ftyp %q)", brand)
	}
	return ""
}

// decodeImage decodes the image in r, after checking its header as
// readImageHeader does, and returns it as stored with its header.
func decodeImage(r imageSource) (image.Image, imageHeader, error) {
	h, err := readImageHeader(r)
	if err != nil {
		return nil, h, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, h, err
	}
	img, err := h.format.decode(h.format.input(r, bufio.NewReader(r)))
	if err != nil {
		return nil, h, fmt.Errorf("%w: %v", ErrImage, err)
	}
	img = opaque(img)
	width, height := h.stored()
	// The first frame of a GIF may cover only part of its picture, the
	// size of its header: it is drawn there, on transparent black.
	r0 := image.Rect(0, 0, width, height)
	if b := img.Bounds(); h.format.name == "GIF" && b != r0 && b.In(r0) {
		canvas := image.NewNRGBA(r0)
		draw.Draw(canvas, b, img, b.Min, draw.Src)
		img = canvas
	}
	// The header was read again above, so this holds unless a decoder
	// disagrees with itself.
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		return nil, h, fmt.Errorf("%w: header says %dx%d, pixels are %dx%d", ErrImage, width, height, b.Dx(), b.Dy())
	}
	return img, h, nil
}

// opaque returns img, which it may change, with its alpha dropped and
// its colours kept, as removing an alpha channel does (and PIL's
// convert("RGB")): a transparent pixel shows the colour it stores. Drawn
// as it is, a pixel of any alpha but 0 showed its colour and one of
// alpha 0 showed black, whatever it stored. An image that stores its
// colours premultiplied by alpha (*image.RGBA) has lost those of its
// transparent pixels, which stay black.
func opaque(img image.Image) image.Image {
	switch m := img.(type) {
	case *image.NRGBA:
		for i := 3; i < len(m.Pix); i += 4 {
			m.Pix[i] = 0xff
		}
	case *image.NRGBA64:
		for i := 6; i < len(m.Pix); i += 8 {
			m.Pix[i], m.Pix[i+1] = 0xff, 0xff
		}
	case *image.NYCbCrA:
		return &m.YCbCr
	case *image.Paletted:
		for i, c := range m.Palette {
			if n, ok := c.(color.NRGBA); ok {
				n.A = 0xff
				m.Palette[i] = n
			}
		}
	}
	return img
}

// converter turns decoded images into the bytes of Images, keeping its
// scratch image between them.
type converter struct {
	rgba *image.RGBA
}

// read decodes the files into Images of the given shape.
func (c *converter) read(files []imageFile, classes, channels, rows, cols int) (*Images, error) {
	im := &Images{N: len(files), Rows: rows, Cols: cols, Channels: channels, Classes: classes,
		Pixels: make([]uint8, len(files)*channels*rows*cols), Labels: make([]int, len(files))}
	size := im.ImageLen()
	for i, file := range files {
		if err := c.readFile(im.Pixels[i*size:(i+1)*size], file, channels, rows, cols); err != nil {
			return nil, err
		}
		im.Labels[i] = file.label
	}
	return im, nil
}

func (c *converter) readFile(dst []uint8, file imageFile, channels, rows, cols int) error {
	fh, err := os.Open(file.path)
	if err != nil {
		return err
	}
	defer fh.Close()
	img, h, err := decodeImage(fh)
	if err == nil && (h.rows != file.rows || h.cols != file.cols || h.grey != file.grey || h.orientation != file.orientation) {
		err = errors.New("the file changed while it was read")
	}
	if err != nil {
		return &ParseError{File: file.path, Err: err}
	}
	c.convert(dst, img, h.orientation, channels, rows, cols)
	return nil
}

// convert stores img, turned upright by its EXIF orientation and resized
// to rows x cols if it is of another size, in dst as channels (1 or 3)
// planes of bytes. A grey image is stored by its luma, which for a grey
// image is its grey level.
func (c *converter) convert(dst []uint8, img image.Image, orientation, channels, rows, cols int) {
	// The image is resized as stored, then turned: the Catmull-Rom
	// kernel is the same along either axis and either way, so that the
	// two commute.
	w, h := cols, rows
	if transposed(orientation) {
		w, h = rows, cols
	}
	r := image.Rect(0, 0, w, h)
	if c.rgba == nil || c.rgba.Rect != r {
		c.rgba = image.NewRGBA(r)
	}
	// An RGBA destination takes the fast paths of both packages for the
	// image types the decoders return.
	if b := img.Bounds(); b.Size() == r.Size() {
		draw.Draw(c.rgba, r, img, b.Min, draw.Src)
	} else {
		draw.CatmullRom.Scale(c.rgba, r, img, b, draw.Src, nil)
	}
	plane := rows * cols
	pix := c.rgba.Pix
	for p := range plane {
		x, y := orientedAt(orientation, p%cols, p/cols, w, h)
		q := pix[4*(y*w+x) : 4*(y*w+x)+4 : 4*(y*w+x)+4]
		red, green, blue := unpremultiply(q[0], q[3]), unpremultiply(q[1], q[3]), unpremultiply(q[2], q[3])
		if channels == 1 {
			// The weights of color.GrayModel, which give back r when
			// r, g and b are equal.
			dst[p] = uint8((19595*uint32(red) + 38470*uint32(green) + 7471*uint32(blue) + 1<<15) >> 16)
			continue
		}
		dst[p], dst[plane+p], dst[2*plane+p] = red, green, blue
	}
}

// unpremultiply returns the colour value of a pixel whose value v is
// premultiplied by its alpha a, dropping the transparency: a fully
// transparent pixel is black.
func unpremultiply(v, a uint8) uint8 {
	if a == 0xff || a == 0 {
		return v
	}
	// A resampled pixel may be a little brighter than its alpha allows.
	return uint8(min((uint32(v)*0xff+uint32(a)/2)/uint32(a), 0xff))
}

// LoadImages reads the images of dir: an IDX data set, the "train" and
// "t10k" splits of LoadIDX, if dir holds IDX files, and otherwise a
// folder of images as LoadImageFolder reads it with the options o. An
// IDX data set takes only o.Seed and o.Check, which is called once its
// files are read.
func LoadImages(dir string, o FolderOptions) (*ImageFolder, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return isIDXName(e.Name()) }) {
		return LoadImageFolder(dir, o)
	}
	if o.Rows != 0 || o.Cols != 0 || o.Split != 0 {
		return nil, &ParseError{File: dir, Err: errors.New("an IDX data set, which is read as it is: resizing and splitting are for folders of images")}
	}
	f := &ImageFolder{}
	if f.Train, err = LoadIDX(dir, "train"); err != nil {
		return nil, err
	}
	if f.Test, err = LoadIDXClasses(dir, "t10k", f.Train.Classes); err != nil {
		return nil, err
	}
	if o.Check != nil {
		if err := o.Check(f.Train.NumChannels(), f.Train.Rows, f.Train.Cols, f.Train.Classes, f.Train.N+f.Test.N); err != nil {
			return nil, err
		}
	}
	return f, nil
}
