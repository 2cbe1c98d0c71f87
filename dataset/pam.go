package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"image/color"
	"strconv"
	"strings"
)

// PAM (netpbm.sourceforge.net/doc/pam.html) is the Netpbm format of a
// header of named fields, one a line, from "P7" to "ENDHDR":
//
//	P7
//	WIDTH 28
//	HEIGHT 28
//	DEPTH 2
//	MAXVAL 255
//	TUPLTYPE GRAYSCALE_ALPHA
//	ENDHDR
//
// then the samples in bytes, as in PGM and PPM. The tuple types read are
// those of images: BLACKANDWHITE, GRAYSCALE and RGB, and each _ALPHA.

// greyAlphaModel is the colour model of a grey image with alpha, which
// decodes as an *image.NRGBA but is grey.
var greyAlphaModel = color.ModelFunc(color.NRGBAModel.Convert)

// pamDepths are the depths of the tuple types read, without _ALPHA.
var pamDepths = map[string]int{"BLACKANDWHITE": 1, "GRAYSCALE": 1, "RGB": 3}

// readPAMHeader reads the header of a PAM file after its "P7", leaving r
// at the first byte of the samples.
func readPAMHeader(r *bufio.Reader) (netpbmHeader, error) {
	h := netpbmHeader{kind: '7'}
	fields := map[string]*int{"WIDTH": &h.width, "HEIGHT": &h.height, "DEPTH": &h.depth, "MAXVAL": &h.maxval}
	var tuple []string
	for line := 1; ; line++ {
		text, err := r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return h, fmt.Errorf("netpbm: PAM header line %d is longer than %d bytes", line, r.Size())
		case err != nil:
			return h, errors.New("netpbm: PAM header without ENDHDR")
		}
		words := strings.Fields(string(text))
		switch {
		case line == 1 && len(words) > 0:
			return h, fmt.Errorf("netpbm: P7 followed by %q on its line, not a PAM file", words[0])
		case len(words) == 0 || strings.HasPrefix(words[0], "#"):
		case words[0] == "ENDHDR":
			return h, h.checkPAM(strings.Join(tuple, " "))
		case words[0] == "TUPLTYPE":
			tuple = append(tuple, words[1:]...)
		case fields[words[0]] == nil:
			return h, fmt.Errorf("netpbm: PAM header field %q unknown", words[0])
		default:
			v, err := strconv.Atoi(strings.Join(words[1:], " "))
			if err != nil || v < 0 || v > maxNetpbmNumber {
				return h, fmt.Errorf("netpbm: PAM header %s %q, want a number from 0 to %d", words[0], strings.Join(words[1:], " "), maxNetpbmNumber)
			}
			*fields[words[0]] = v
		}
	}
}

// checkPAM checks a PAM header of the tuple type tuple ("" if none, when
// the depth alone says what the samples are).
func (h netpbmHeader) checkPAM(tuple string) error {
	if err := h.check(); err != nil {
		return err
	}
	name, alpha := strings.CutSuffix(tuple, "_ALPHA")
	depth, known := pamDepths[name]
	if alpha {
		depth++
	}
	switch {
	case tuple == "" && h.depth >= 1 && h.depth <= 4:
	case !known || h.depth != depth:
		return fmt.Errorf("netpbm: PAM of TUPLTYPE %q and DEPTH %d: want GRAYSCALE or BLACKANDWHITE of depth 1, RGB of depth 3, or one of them _ALPHA of one more", tuple, h.depth)
	case name == "BLACKANDWHITE" && h.maxval != 1:
		return fmt.Errorf("netpbm: PAM of TUPLTYPE %s and MAXVAL %d, want 1", tuple, h.maxval)
	}
	return nil
}
