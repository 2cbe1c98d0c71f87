package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
)

// The Netpbm formats (netpbm.sourceforge.net/doc): PBM, PGM and PPM, in
// their plain (P1, P2, P3: numbers in ASCII) and raw (P4, P5, P6: bytes)
// forms, and PAM (P7: a header of named fields, then bytes). Neither the
// standard library nor golang.org/x/image reads them.

// isNetpbm reports whether a file's head is a Netpbm signature, P1 to
// P7 and a white space.
func isNetpbm(head []byte) bool {
	return len(head) >= 3 && head[0] == 'P' && head[1] >= '1' && head[1] <= '7' && isSpace(head[2])
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// netpbmHeader is the header of a Netpbm file.
type netpbmHeader struct {
	kind          byte // '1' to '7'
	width, height int
	maxval        int // 1 for a bitmap
	// depth is the number of samples of a pixel: 1 (grey), 3 (RGB), and
	// for PAM 2 and 4, the same with alpha.
	depth int
}

func (h netpbmHeader) plain() bool  { return h.kind <= '3' }
func (h netpbmHeader) bitmap() bool { return h.kind == '1' || h.kind == '4' }
func (h netpbmHeader) colour() bool { return h.depth >= 3 }
func (h netpbmHeader) alpha() bool  { return h.depth%2 == 0 }

// readNetpbmHeader reads a Netpbm header from r, which is left at the
// first byte of the pixels.
func readNetpbmHeader(r *bufio.Reader) (netpbmHeader, error) {
	var magic [2]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil || magic[0] != 'P' || magic[1] < '1' || magic[1] > '7' {
		return netpbmHeader{}, errors.New("netpbm: not a PBM, PGM, PPM or PAM file")
	}
	if magic[1] == '7' {
		return readPAMHeader(r)
	}
	h := netpbmHeader{kind: magic[1], maxval: 1, depth: 1}
	if h.kind == '3' || h.kind == '6' {
		h.depth = 3
	}
	fields := []*int{&h.width, &h.height}
	if !h.bitmap() {
		fields = append(fields, &h.maxval)
	}
	for i, p := range fields {
		v, err := readNetpbmNumber(r, true)
		if err != nil {
			return netpbmHeader{}, fmt.Errorf("netpbm: header field %d: %w", i+1, err)
		}
		*p = v
	}
	if err := h.check(); err != nil {
		return netpbmHeader{}, err
	}
	// A raw file's pixels follow one white space; readNetpbmNumber
	// stopped at it.
	if !h.plain() {
		if c, err := r.ReadByte(); err != nil || !isSpace(c) {
			return netpbmHeader{}, errors.New("netpbm: no white space before the pixels")
		}
	}
	return h, nil
}

// check refuses a header's size and maximum value out of range.
func (h netpbmHeader) check() error {
	switch {
	case h.width < 1 || h.height < 1:
		return fmt.Errorf("netpbm: %dx%d pixels", h.width, h.height)
	case h.maxval < 1 || h.maxval > 0xffff:
		return fmt.Errorf("netpbm: maximum value %d, want 1 to 65535", h.maxval)
	}
	return nil
}

// maxNetpbmNumber bounds a number of a Netpbm file, which no size or
// sample of one that LoadImageFolder reads exceeds.
const maxNetpbmNumber = MaxImagePixels

// readNetpbmNumber reads a decimal number after white space (and, in a
// header, comments from # to the end of the line), leaving r at the
// byte that ends it.
func readNetpbmNumber(r *bufio.Reader, header bool) (int, error) {
	c, err := r.ReadByte()
	for err == nil && (isSpace(c) || header && c == '#') {
		if c == '#' {
			_, err = r.ReadSlice('\n') // a comment longer than the buffer is read in parts
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
		}
		if err == nil {
			c, err = r.ReadByte()
		}
	}
	if err != nil {
		return 0, io.ErrUnexpectedEOF
	}
	if c < '0' || c > '9' {
		return 0, fmt.Errorf("%q where a number was due", c)
	}
	v := 0
	for ; err == nil && c >= '0' && c <= '9'; c, err = r.ReadByte() {
		if v = 10*v + int(c-'0'); v > maxNetpbmNumber {
			return 0, fmt.Errorf("a number beyond %d", maxNetpbmNumber)
		}
	}
	if err == nil {
		err = r.UnreadByte()
	}
	if err != nil && err != io.EOF {
		return 0, err
	}
	return v, nil
}

// netpbmConfig reads the header of a Netpbm file.
func netpbmConfig(r io.Reader) (image.Config, error) {
	h, err := readNetpbmHeader(bufio.NewReader(r))
	if err != nil {
		return image.Config{}, err
	}
	return h.config(), nil
}

func (h netpbmHeader) config() image.Config {
	m := color.GrayModel
	switch {
	case h.colour() && h.alpha():
		m = color.NRGBAModel
	case h.colour():
		m = color.RGBAModel
	case h.alpha():
		m = greyAlphaModel
	}
	return image.Config{ColorModel: m, Width: h.width, Height: h.height}
}

// decodeNetpbm decodes a Netpbm file into an *image.Gray or, for PPM and
// PAM's RGB, an *image.RGBA, or for PAM with alpha an *image.NRGBA, its
// samples scaled from 0 to its maximum value to 0 to 255. An image of
// more than MaxImagePixels is refused before its pixels are allocated.
func decodeNetpbm(r io.Reader) (image.Image, error) {
	br := bufio.NewReader(r)
	h, err := readNetpbmHeader(br)
	if err != nil {
		return nil, err
	}
	if h.width > MaxImagePixels/h.height {
		return nil, fmt.Errorf("%w: %dx%d, more than %d pixels", ErrTooLarge, h.width, h.height, MaxImagePixels)
	}
	r0 := image.Rect(0, 0, h.width, h.height)
	switch {
	case h.alpha():
		img := image.NewNRGBA(r0)
		err := h.read(br, img.Pix, h.depth, 4)
		if !h.colour() { // grey and alpha in the first two bytes of each pixel
			for p := 0; p < len(img.Pix); p += 4 {
				img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = img.Pix[p], img.Pix[p], img.Pix[p+1]
			}
		}
		return img, err
	case h.colour():
		img := image.NewRGBA(r0)
		for i := range img.Pix {
			img.Pix[i] = 0xff // opaque; the samples fill R, G and B
		}
		return img, h.read(br, img.Pix, 3, 4)
	}
	img := image.NewGray(r0)
	return img, h.read(br, img.Pix, 1, 1)
}

// read reads the pixels of the file into pix, channels samples a pixel
// at a stride of stride bytes, scaled to 0 to 255.
func (h netpbmHeader) read(r *bufio.Reader, pix []uint8, channels, stride int) error {
	next := h.sampler(r)
	for p := range h.width * h.height {
		for c := range channels {
			v, err := next(p % h.width)
			if err == nil && v > h.maxval {
				err = fmt.Errorf("sample %d beyond the maximum value %d", v, h.maxval)
			}
			if err != nil {
				return fmt.Errorf("netpbm: pixel %d of %d: %w", p+1, h.width*h.height, err)
			}
			pix[p*stride+c] = uint8((v*0xff + h.maxval/2) / h.maxval)
		}
	}
	return nil
}

// sampler returns the reader of the file's samples, given the column
// of the pixel each is of. A bitmap's 1 is black and 0 white, so that
// its samples are returned as 1 for white.
func (h netpbmHeader) sampler(r *bufio.Reader) func(x int) (int, error) {
	switch h.kind {
	case '1':
		return func(int) (int, error) {
			c, err := r.ReadByte()
			for err == nil && isSpace(c) {
				c, err = r.ReadByte()
			}
			switch {
			case err != nil:
				return 0, io.ErrUnexpectedEOF
			case c != '0' && c != '1':
				return 0, fmt.Errorf("%q in a bitmap of 0 and 1", c)
			}
			return int('1' - c), nil
		}
	case '4':
		var b byte
		return func(x int) (int, error) {
			if x%8 == 0 { // each row begins a byte
				var err error
				if b, err = r.ReadByte(); err != nil {
					return 0, io.ErrUnexpectedEOF
				}
			}
			return int(b>>(7-x%8)&1) ^ 1, nil
		}
	case '2', '3':
		return func(int) (int, error) { return readNetpbmNumber(r, false) }
	}
	wide := h.maxval > 0xff
	return func(int) (int, error) {
		hi, err := r.ReadByte()
		if err != nil {
			return 0, io.ErrUnexpectedEOF
		}
		if !wide {
			return int(hi), nil
		}
		lo, err := r.ReadByte()
		if err != nil {
			return 0, io.ErrUnexpectedEOF
		}
		return int(hi)<<8 | int(lo), nil
	}
}
