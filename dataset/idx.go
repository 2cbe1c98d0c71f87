package dataset

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parametric-machines/machines/ad"
)

// Errors wrapped by ParseError for IDX files and returned by
// Images.OnePerClass. Test for them with errors.Is. A missing IDX file is
// reported with an error wrapping fs.ErrNotExist.
var (
	ErrMagic        = errors.New("wrong magic number")
	ErrDataType     = errors.New("unsupported data type")
	ErrDims         = errors.New("wrong number of dimensions")
	ErrSize         = errors.New("bad dimensions")
	ErrTruncated    = errors.New("truncated")
	ErrTrailing     = errors.New("trailing data")
	ErrGzip         = errors.New("corrupt gzip stream")
	ErrLabelCount   = errors.New("label count differs from image count")
	ErrLabel        = errors.New("label out of range")
	ErrNoIDX        = errors.New("no IDX files found")
	ErrMissingClass = errors.New("missing class")
)

// Magic numbers of the IDX files of MNIST: unsigned bytes (0x08) in three
// dimensions (images) or one (labels).
const (
	idxImagesMagic = 0x00000803
	idxLabelsMagic = 0x00000801
	idxUbyte       = 0x08
)

// maxIDXBytes bounds the data an IDX header may announce, so that a corrupt
// header cannot make the reader allocate without limit.
const maxIDXBytes = min(1<<31, math.MaxInt)

// Images is a set of labelled images, grey or in colour, stored as raw
// bytes.
type Images struct {
	N, Rows, Cols int // number of images and their size in pixels
	// Channels is the number of colour channels: 3 for RGB, and 1 or 0
	// (as LoadIDX leaves it) for grey.
	Channels int
	// Pixels holds N*ImageLen() bytes: image i at [i*ImageLen(),
	// (i+1)*ImageLen()), channel after channel, each row-major, the
	// layout of one image of an N x C x H x W batch.
	Pixels  []uint8
	Labels  []int // N labels
	Classes int   // labels are 0..Classes-1; LoadIDX sets 1 + the largest label (10 for MNIST)
	// Names are the names of the classes, label i being Names[i], when
	// the data set has them, as an image folder has its class folders;
	// nil otherwise.
	Names []string
}

// NumChannels returns the number of channels of each image: Channels, or
// 1 if Channels is 0.
func (im *Images) NumChannels() int {
	return max(im.Channels, 1)
}

// ImageLen returns the number of values of each image,
// NumChannels()*Rows*Cols.
func (im *Images) ImageLen() int {
	return im.NumChannels() * im.Rows * im.Cols
}

// pixelScale maps a pixel byte to its value in [0, 1].
var pixelScale = func() (s [256]float64) {
	for i := range s {
		s[i] = float64(i) / 255
	}
	return s
}()

// image returns the pixels of image i, panicking with a message if i is out
// of range or dst (if not nil) has the wrong length.
func (im *Images) image(i, dstLen int, isNil bool) []uint8 {
	if i < 0 || i >= im.N {
		panic(fmt.Errorf("%w: dataset: image %d of %d", ad.ErrShape, i, im.N))
	}
	size := im.ImageLen()
	if !isNil && dstLen != size {
		panic(fmt.Errorf("%w: dataset: destination of length %d for a %dx%dx%d image (channels x rows x columns)", ad.ErrShape, dstLen, im.NumChannels(), im.Rows, im.Cols))
	}
	return im.Pixels[i*size : (i+1)*size]
}

// Image stores the pixels of image i, in the layout of Pixels and scaled
// from 0..255 to [0, 1], in dst and returns it. If dst is nil, a new slice
// is allocated; otherwise its length must be ImageLen().
func (im *Images) Image(dst []float64, i int) []float64 {
	src := im.image(i, len(dst), dst == nil)
	if dst == nil {
		dst = make([]float64, len(src))
	}
	for j, p := range src {
		dst[j] = pixelScale[p]
	}
	return dst
}

// Image32 is like Image for float32 values.
func (im *Images) Image32(dst []float32, i int) []float32 {
	src := im.image(i, len(dst), dst == nil)
	if dst == nil {
		dst = make([]float32, len(src))
	}
	for j, p := range src {
		dst[j] = float32(p) / 255
	}
	return dst
}

// Subset returns a copy of the images listed in idx, in that order. An index
// may be listed more than once. The copy keeps the number of classes of im,
// even if some classes have no image in it.
func (im *Images) Subset(idx []int) *Images {
	size := im.ImageLen()
	s := &Images{
		N:        len(idx),
		Rows:     im.Rows,
		Cols:     im.Cols,
		Channels: im.Channels,
		Pixels:   make([]uint8, len(idx)*size),
		Labels:   make([]int, len(idx)),
		Classes:  im.Classes,
		Names:    slices.Clone(im.Names),
	}
	for k, i := range idx {
		if i < 0 || i >= im.N {
			panic(fmt.Errorf("%w: dataset: subset index %d of %d images", ad.ErrShape, i, im.N))
		}
		copy(s.Pixels[k*size:(k+1)*size], im.Pixels[i*size:(i+1)*size])
		s.Labels[k] = im.Labels[i]
	}
	return s
}

// OnePerClass chooses one image of each class 0..Classes-1, uniformly at
// random among the images of that class, and returns their indices in class
// order: the training set of a one-shot task. The choice depends only on the
// labels and the state of rnd. The returned error wraps ErrMissingClass if a
// class has no images.
func (im *Images) OnePerClass(rnd *rand.Rand) ([]int, error) {
	count := make([]int, im.Classes)
	for i, l := range im.Labels {
		if l < 0 || l >= im.Classes {
			return nil, fmt.Errorf("dataset: %w: image %d has label %d, want 0..%d", ErrLabel, i, l, im.Classes-1)
		}
		count[l]++
	}
	var missing []string
	for c, n := range count {
		if n == 0 {
			missing = append(missing, fmt.Sprint(c))
		}
	}
	if missing != nil {
		return nil, fmt.Errorf("dataset: %w: no images of class %s among %d images of %d classes",
			ErrMissingClass, strings.Join(missing, ", "), len(im.Labels), im.Classes)
	}

	// Draw the rank of the chosen image within each class, then find it.
	rank := make([]int, im.Classes)
	for c, n := range count {
		rank[c] = rnd.IntN(n)
	}
	idx := make([]int, im.Classes)
	for i, l := range im.Labels {
		if rank[l] == 0 {
			idx[l] = i
		}
		rank[l]--
	}
	return idx, nil
}

// LoadIDX reads a split of an MNIST-style data set from the directory dir:
// the images from dir/SPLIT-images-idx3-ubyte and the labels from
// dir/SPLIT-labels-idx1-ubyte, where SPLIT is split, usually "train" or
// "t10k". Each file may be gzip-compressed, with or without a .gz suffix in
// its name; if both names exist, the one without .gz is read.
//
// Problems with the content are returned as *ParseError values naming the file.
// The number of classes is 1 + the largest label.
func LoadIDX(dir, split string) (*Images, error) {
	return LoadIDXClasses(dir, split, 0)
}

// LoadIDXClasses is like LoadIDX, but if classes is positive it checks that
// every label is below classes and sets the number of classes of the result to
// classes, also when the last classes have no images.
func LoadIDXClasses(dir, split string, classes int) (*Images, error) {
	if classes < 0 {
		panic(fmt.Errorf("%w: dataset: %d classes", ad.ErrValue, classes))
	}
	imagesPath, err := findIDX(dir, split+"-images-idx3-ubyte")
	if err != nil {
		return nil, err
	}
	labelsPath, err := findIDX(dir, split+"-labels-idx1-ubyte")
	if err != nil {
		return nil, err
	}

	im := &Images{}
	err = readIDXFile(imagesPath, func(r io.Reader) (err error) {
		im.N, im.Rows, im.Cols, im.Pixels, err = ReadIDXImages(r, imagesPath)
		return err
	})
	if err != nil {
		return nil, err
	}
	err = readIDXFile(labelsPath, func(r io.Reader) (err error) {
		im.Labels, err = ReadIDXLabels(r, labelsPath)
		return err
	})
	if err != nil {
		return nil, err
	}

	if len(im.Labels) != im.N {
		return nil, &ParseError{File: labelsPath,
			Err: fmt.Errorf("%w: %d labels for %d images in %s", ErrLabelCount, len(im.Labels), im.N, imagesPath)}
	}
	for i, l := range im.Labels {
		if classes > 0 && l >= classes {
			return nil, &ParseError{File: labelsPath,
				Err: fmt.Errorf("%w: label %d of image %d, want below %d classes", ErrLabel, l, i, classes)}
		}
		im.Classes = max(im.Classes, l+1)
	}
	if classes > 0 {
		im.Classes = classes
	}
	return im, nil
}

// findIDX returns the path of the file dir/base, or else dir/base.gz.
func findIDX(dir, base string) (string, error) {
	if _, err := os.Stat(dir); err != nil {
		return "", err
	}
	for _, name := range []string{base, base + ".gz"} {
		path := filepath.Join(dir, name)
		_, err := os.Stat(path)
		if err == nil {
			return path, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var found []string
	for _, e := range entries {
		if name := e.Name(); isIDXName(name) {
			found = append(found, name)
		}
	}
	if found == nil {
		return "", fmt.Errorf("%w in %s", ErrNoIDX, dir)
	}
	const show = 6
	list := strings.Join(found[:min(len(found), show)], ", ")
	if len(found) > show {
		list += fmt.Sprintf(" and %d more", len(found)-show)
	}
	return "", &ParseError{File: filepath.Join(dir, base) + "[.gz]",
		Err: fmt.Errorf("%w; the directory holds %s", fs.ErrNotExist, list)}
}

// isIDXName reports whether a file name is that of an IDX file of MNIST,
// such as train-images-idx3-ubyte.gz.
func isIDXName(name string) bool {
	return strings.Contains(name, "-idx") && strings.Contains(name, "-ubyte")
}

func readIDXFile(path string, read func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return read(f)
}

// ReadIDXImages reads an IDX file of unsigned-byte images, such as
// train-images-idx3-ubyte of MNIST, from r, decompressing it if it is
// gzip-compressed. It returns the number of images, their size and their
// pixels, image after image, row by row. The name is used in error messages.
//
// Problems with the content are returned as *ParseError values.
func ReadIDXImages(r io.Reader, name string) (n, rows, cols int, pixels []uint8, err error) {
	r, err = idxReader(r)
	if err != nil {
		return 0, 0, 0, nil, &ParseError{File: name, Err: err}
	}
	dims, err := readIDXHeader(r, idxImagesMagic)
	if err != nil {
		return 0, 0, 0, nil, &ParseError{File: name, Err: err}
	}
	shape := fmt.Sprintf("%d images of %dx%d", dims[0], dims[1], dims[2])
	if dims[0] == 0 || dims[1] == 0 || dims[2] == 0 {
		return 0, 0, 0, nil, &ParseError{File: name, Err: fmt.Errorf("%w: %s", ErrSize, shape)}
	}
	if dims[1]*dims[2] > maxIDXBytes || dims[0]*dims[1]*dims[2] > maxIDXBytes {
		return 0, 0, 0, nil, &ParseError{File: name,
			Err: fmt.Errorf("%w: %s would take more than %d bytes", ErrSize, shape, uint64(maxIDXBytes))}
	}
	n, rows, cols = int(dims[0]), int(dims[1]), int(dims[2])

	pixels, got, err := readIDXData(r, n*rows*cols)
	if err == io.ErrUnexpectedEOF {
		err = fmt.Errorf("%w: header says %s (%d bytes), found %d bytes (%d whole images)",
			ErrTruncated, shape, n*rows*cols, got, got/(rows*cols))
	}
	if err == nil {
		err = checkIDXEnd(r, shape)
	}
	if err != nil {
		return 0, 0, 0, nil, &ParseError{File: name, Err: err}
	}
	return n, rows, cols, pixels, nil
}

// ReadIDXLabels reads an IDX file of unsigned-byte labels, such as
// train-labels-idx1-ubyte of MNIST, from r, decompressing it if it is
// gzip-compressed. The name is used in error messages.
//
// Problems with the content are returned as *ParseError values.
func ReadIDXLabels(r io.Reader, name string) ([]int, error) {
	r, err := idxReader(r)
	if err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	dims, err := readIDXHeader(r, idxLabelsMagic)
	if err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	shape := fmt.Sprintf("%d labels", dims[0])
	if dims[0] == 0 {
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: %s", ErrSize, shape)}
	}
	if dims[0] > maxIDXBytes {
		return nil, &ParseError{File: name,
			Err: fmt.Errorf("%w: %s would take more than %d bytes", ErrSize, shape, uint64(maxIDXBytes))}
	}
	n := int(dims[0])

	data, got, err := readIDXData(r, n)
	if err == io.ErrUnexpectedEOF {
		err = fmt.Errorf("%w: header says %s, found %d", ErrTruncated, shape, got)
	}
	if err == nil {
		err = checkIDXEnd(r, shape)
	}
	if err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	labels := make([]int, n)
	for i, b := range data {
		labels[i] = int(b)
	}
	return labels, nil
}

// idxReader returns a buffered reader of the content of r, decompressed if r
// starts with the gzip magic bytes.
func idxReader(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
		return br, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, gzipError(err)
	}
	return gzipReader{zr}, nil
}

// gzipReader marks the errors of a gzip.Reader that come from a corrupt
// stream, so that they are not mistaken for a truncated IDX file.
type gzipReader struct{ z *gzip.Reader }

func (g gzipReader) Read(p []byte) (int, error) {
	n, err := g.z.Read(p)
	if err != nil && err != io.EOF {
		err = gzipError(err)
	}
	return n, err
}

func gzipError(err error) error {
	var corrupt flate.CorruptInputError
	if err == io.EOF || err == io.ErrUnexpectedEOF || errors.Is(err, gzip.ErrHeader) ||
		errors.Is(err, gzip.ErrChecksum) || errors.As(err, &corrupt) {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("%w: %v", ErrGzip, err)
	}
	return err
}

var idxTypeNames = map[byte]string{
	0x08: "unsigned byte",
	0x09: "signed byte",
	0x0b: "int16",
	0x0c: "int32",
	0x0d: "float32",
	0x0e: "float64",
}

// readIDXHeader reads the magic number and the dimensions of an IDX file
// and checks the magic number against want.
func readIDXHeader(r io.Reader, want uint32) ([]uint64, error) {
	kind, other, otherDims := "images", "labels", idxLabelsMagic&0xff
	if want == idxLabelsMagic {
		kind, other, otherDims = other, kind, idxImagesMagic&0xff
	}
	var buf [4 * 4]byte
	if got, err := io.ReadFull(r, buf[:4]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("%w: %d bytes, too short for an IDX header", ErrTruncated, got)
		}
		return nil, err
	}
	magic := binary.BigEndian.Uint32(buf[:4])
	switch typ, ndims := buf[2], int(buf[3]); {
	case buf[0] != 0 || buf[1] != 0:
		return nil, fmt.Errorf("%w 0x%08x, want 0x%08x (IDX %s)", ErrMagic, magic, want, kind)
	case typ != idxUbyte:
		tname, ok := idxTypeNames[typ]
		if !ok {
			tname = "unknown"
		}
		return nil, fmt.Errorf("%w 0x%02x (%s) in magic number 0x%08x, want 0x%02x (unsigned byte)",
			ErrDataType, typ, tname, magic, idxUbyte)
	case ndims != int(want&0xff):
		hint := ""
		if ndims == otherDims {
			hint = "; is this a file of " + other + "?"
		}
		return nil, fmt.Errorf("%w: %d in magic number 0x%08x, want %d (IDX %s)%s",
			ErrDims, ndims, magic, want&0xff, kind, hint)
	}

	ndims := int(want & 0xff)
	hdr := buf[:4*ndims]
	if got, err := io.ReadFull(r, hdr); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("%w: header of %d bytes, found %d", ErrTruncated, 4+len(hdr), 4+got)
		}
		return nil, err
	}
	dims := make([]uint64, ndims)
	for i := range dims {
		dims[i] = uint64(binary.BigEndian.Uint32(hdr[4*i:]))
	}
	return dims, nil
}

// readIDXData reads size bytes from r. To bound the memory a corrupt header
// can claim, it grows its buffer as data arrives rather than allocating size
// bytes at once. It returns io.ErrUnexpectedEOF, and the number of bytes read,
// if r ends early.
func readIDXData(r io.Reader, size int) ([]byte, int, error) {
	const chunk = 1 << 26
	buf := make([]byte, min(size, chunk))
	got, err := io.ReadFull(r, buf)
	for err == nil && len(buf) < size {
		n := len(buf)
		buf = slices.Grow(buf, min(size-n, n))
		buf = buf[:min(size, cap(buf))]
		var m int
		m, err = io.ReadFull(r, buf[n:])
		got += m
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, got, err
	}
	return buf, got, nil
}

// checkIDXEnd checks that r has no data left after the data of shape.
func checkIDXEnd(r io.Reader, shape string) error {
	extra, err := io.Copy(io.Discard, r)
	if err != nil {
		return err
	}
	if extra > 0 {
		return fmt.Errorf("%w: %d bytes after %s", ErrTrailing, extra, shape)
	}
	return nil
}

// Tensor returns the first n images (all if n is 0 or more than N) as
// one tensor of the library's batch layout, n x C x H x W, their pixels
// scaled to [0, 1], and their labels.
func Tensor[T ad.Float](im *Images, n int) (*ad.Tensor[T], []int) {
	if n <= 0 || n > im.N {
		n = im.N
	}
	size := im.ImageLen()
	x := ad.NewTensor[T](n, im.NumChannels(), im.Rows, im.Cols)
	for i, p := range im.Pixels[:n*size] {
		x.Data[i] = T(pixelScale[p])
	}
	return x, slices.Clone(im.Labels[:n])
}
