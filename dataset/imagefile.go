package dataset

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ImageFiles returns the image files at path: path itself if it is a
// file, or the files of a format LoadImageFolder reads in the folder and
// its folders, sorted, hidden ones left out as LoadImageFolder leaves
// them. The warnings count the other files, as ImageFolder.Warnings do,
// and the links to folders, which are not followed.
func ImageFiles(path string) (files, warnings []string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.IsDir() {
		return []string{path}, nil, nil
	}
	var sk skipped
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		switch ext := strings.ToLower(filepath.Ext(d.Name())); {
		case err != nil:
			return err
		case p != path && hidden(d.Name()) && d.IsDir():
			return filepath.SkipDir
		case d.IsDir() || hidden(d.Name()):
		case d.Type()&fs.ModeSymlink != 0 && isDir(p):
			sk.folders = append(sk.folders, p)
		case slices.Contains(imageExts, ext):
			files = append(files, p)
		default:
			sk.addFile(p, ext)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	n, list, example := sk.files()
	if files == nil {
		err := fmt.Errorf("%w: no %s files in the folder or its folders", ErrNoImages, strings.Join(imageExts, ", "))
		if n > 0 {
			err = fmt.Errorf("%w, only %s%s", err, list, notRead(list))
		}
		return nil, nil, &ParseError{File: path, Err: err}
	}
	if n > 0 {
		warnings = append(warnings, plural(n, "file")+" not read, of other formats ("+list+"), such as "+example+notRead(list))
	}
	if len(sk.folders) > 0 {
		warnings = append(warnings, plural(len(sk.folders), "link")+" to folders not followed, such as "+sk.folders[0]+": name the folder itself")
	}
	return files, warnings, nil
}

// ImageInfo is what the header of an image file says of it.
type ImageInfo struct {
	// Width and Height are its size upright, turned by its EXIF
	// orientation.
	Width, Height int
	// Grey is whether it is grey, as LoadImageFolder judges it: a
	// folder of grey files is read in one channel.
	Grey bool
}

// ReadImage reads the image file at path as LoadImageFolder reads one:
// turned upright by its EXIF orientation, resized to rows x cols if it
// is of another size, in channels (1 or 3) planes of bytes. It returns
// what its header says, its size before it was resized among it.
func ReadImage(path string, channels, rows, cols int) (pix []uint8, info ImageInfo, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, info, err
	}
	defer fh.Close()
	img, h, err := decodeImage(fh)
	if err != nil {
		return nil, info, &ParseError{File: path, Err: err}
	}
	pix = make([]uint8, channels*rows*cols)
	var c converter
	c.convert(pix, img, h.orientation, channels, rows, cols)
	return pix, ImageInfo{Width: h.cols, Height: h.rows, Grey: h.grey}, nil
}
