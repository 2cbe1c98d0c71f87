package dataset

import (
	"bytes"
	"encoding/binary"
	"io"
)

// Phones store a photograph as the sensor saw it and say in the EXIF
// orientation tag how to turn it upright; viewers apply it, and so does
// LoadImageFolder for JPEG files, which is where phones write the tag.

// exifScan bounds how far into a JPEG file jpegOrientation looks for its
// EXIF segment, which comes before the pixels, near the start.
const exifScan = 1 << 20

// jpegOrientation returns the EXIF orientation of the JPEG file r, 1 to
// 8 (1 is upright), or 1 if it has none or it cannot be read: a damaged
// tag leaves the image as stored, as viewers do. It reads at most one
// segment, of at most 64 KiB, at a time.
func jpegOrientation(r io.ReaderAt) int {
	var seg [4]byte
	for off := int64(2); off < exifScan; {
		if _, err := r.ReadAt(seg[:], off); err != nil || seg[0] != 0xff {
			return 1
		}
		marker, n := seg[1], int64(binary.BigEndian.Uint16(seg[2:]))
		switch {
		case marker == 0xff: // a fill byte
			off++
			continue
		case marker == 0xda || marker == 0xd9: // the pixels, or the end
			return 1
		case n < 2:
			return 1
		case marker == 0xe1 && n >= 8: // APP1
			data := make([]byte, n-2)
			if _, err := r.ReadAt(data, off+4); err != nil {
				return 1
			}
			if tiff, ok := bytes.CutPrefix(data, []byte("Exif\x00\x00")); ok {
				return exifOrientation(tiff)
			}
		}
		off += 2 + n
	}
	return 1
}

// exifOrientation returns the orientation tag (0x0112) of the first
// image file directory of the TIFF structure of an EXIF segment, or 1.
func exifOrientation(tiff []byte) int {
	if len(tiff) < 8 {
		return 1
	}
	var order binary.ByteOrder
	switch string(tiff[:4]) {
	case "II*\x00":
		order = binary.LittleEndian
	case "MM\x00*":
		order = binary.BigEndian
	default:
		return 1
	}
	ifd := uint64(order.Uint32(tiff[4:]))
	if ifd+2 > uint64(len(tiff)) {
		return 1
	}
	entries := uint64(order.Uint16(tiff[ifd:]))
	for i := range entries {
		e := ifd + 2 + 12*i
		if e+12 > uint64(len(tiff)) {
			return 1
		}
		const orientationTag, short = 0x0112, 3
		if order.Uint16(tiff[e:]) != orientationTag {
			continue
		}
		if order.Uint16(tiff[e+2:]) != short || order.Uint32(tiff[e+4:]) != 1 {
			return 1
		}
		if o := int(order.Uint16(tiff[e+8:])); o >= 1 && o <= 8 {
			return o
		}
		return 1
	}
	return 1
}

// transposed reports whether an orientation turns the image a quarter,
// swapping its width and height.
func transposed(orientation int) bool { return orientation >= 5 }

// orientedAt returns the pixel (x, y) of the image as stored, of width w
// and height h, that shows at (u, v) of it turned upright by the EXIF
// orientation.
func orientedAt(orientation, u, v, w, h int) (x, y int) {
	x, y = u, v
	if transposed(orientation) {
		x, y = v, u
	}
	switch orientation {
	case 2, 3, 7, 8:
		x = w - 1 - x
	}
	switch orientation {
	case 3, 4, 6, 7:
		y = h - 1 - y
	}
	return x, y
}
