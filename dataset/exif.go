package dataset

import (
	"encoding/binary"
	"io"
)

// Phones store a photograph as the sensor saw it and say in the EXIF
// orientation tag how to turn it upright; viewers apply it, and so does
// LoadImageFolder, for JPEG files, where phones write the tag, and for
// the other formats that hold EXIF data: PNG (its eXIf chunk), WebP (its
// EXIF chunk) and TIFF (whose own first directory holds the tag). Each
// reader returns 1 (upright) for a file without the tag or whose tag
// cannot be read: a damaged tag leaves the image as stored, as viewers
// do. They read the file at offsets, a few bytes at a time, and allocate
// nothing by what it claims.

// exifScan bounds how far into a JPEG file jpegOrientation looks for its
// EXIF segment, which comes before the pixels, near the start.
const exifScan = 1 << 20

// jpegOrientation returns the EXIF orientation of the JPEG file r, 1 to
// 8, from its APP1 segment of EXIF data.
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
		case marker == 0xe1: // APP1: EXIF, or XMP
			if exif, ok := exifSection(r, off+4, n-2); ok {
				return exifOrientation(exif)
			}
		}
		off += 2 + n
	}
	return 1
}

// pngOrientation returns the EXIF orientation of the PNG file r from
// its eXIf chunk, which the PNG specification places before the pixels
// (the first IDAT chunk).
func pngOrientation(r io.ReaderAt) int {
	var chunk [8]byte // its length and type
	for off := int64(8); ; {
		if _, err := r.ReadAt(chunk[:], off); err != nil {
			return 1
		}
		n := int64(binary.BigEndian.Uint32(chunk[:4]))
		switch string(chunk[4:]) {
		case "IDAT", "IEND":
			return 1
		case "eXIf":
			exif, _ := exifSection(r, off+8, n)
			return exifOrientation(exif)
		}
		off += 12 + n // the chunk and its CRC
	}
}

// webpOrientation returns the EXIF orientation of the WebP file r from
// its EXIF chunk, which an extended file puts after its frame.
func webpOrientation(r io.ReaderAt) int {
	var chunk [8]byte // its type and length
	for off := int64(12); ; {
		if _, err := r.ReadAt(chunk[:], off); err != nil {
			return 1
		}
		n := int64(binary.LittleEndian.Uint32(chunk[4:]))
		if string(chunk[:4]) == "EXIF" {
			exif, _ := exifSection(r, off+8, n)
			return exifOrientation(exif)
		}
		off += 8 + n + n&1 // chunks are padded to an even length
	}
}

// exifSection returns the EXIF data of n bytes at off in r, after the
// "Exif\x00\x00" that begins it in JPEG and, as some programs write
// it, in PNG and WebP, and whether it began so.
func exifSection(r io.ReaderAt, off, n int64) (io.ReaderAt, bool) {
	const prefix = "Exif\x00\x00"
	var head [len(prefix)]byte
	if _, err := r.ReadAt(head[:], off); err == nil && string(head[:]) == prefix {
		return io.NewSectionReader(r, off+int64(len(prefix)), n-int64(len(prefix))), true
	}
	return io.NewSectionReader(r, off, n), false
}

// exifOrientation returns the orientation tag (0x0112) of the first
// image file directory of the TIFF structure r, as EXIF data and TIFF
// files hold it, or 1.
func exifOrientation(r io.ReaderAt) int {
	var head [8]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return 1
	}
	var order binary.ByteOrder
	switch string(head[:4]) {
	case "II*\x00":
		order = binary.LittleEndian
	case "MM\x00*":
		order = binary.BigEndian
	default:
		return 1
	}
	ifd := int64(order.Uint32(head[4:]))
	var count [2]byte
	if _, err := r.ReadAt(count[:], ifd); err != nil {
		return 1
	}
	var e [12]byte // an entry: tag, type, count, value
	for i := range int64(order.Uint16(count[:])) {
		if _, err := r.ReadAt(e[:], ifd+2+12*i); err != nil {
			return 1
		}
		const orientationTag, short = 0x0112, 3
		if order.Uint16(e[:]) != orientationTag {
			continue
		}
		if order.Uint16(e[2:]) != short || order.Uint32(e[4:]) != 1 {
			return 1
		}
		if o := int(order.Uint16(e[8:])); o >= 1 && o <= 8 {
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
