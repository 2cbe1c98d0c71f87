package dataset

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// skipped counts the entries of class folders that are not read: files
// by their extension in lower case ("" for none), and folders.
type skipped struct {
	count   map[string]int
	first   map[string]string // the first path of each extension
	folders []string
}

// addFile adds a file of the extension ext.
func (s *skipped) addFile(path, ext string) { s.addFiles(path, ext, 1) }

// addFiles adds n files of the extension ext, the first at path.
func (s *skipped) addFiles(path, ext string, n int) {
	if s.count == nil {
		s.count, s.first = map[string]int{}, map[string]string{}
	}
	if s.count[ext] == 0 {
		s.first[ext] = path
	}
	s.count[ext] += n
}

func (s *skipped) merge(o skipped) {
	for ext, n := range o.count {
		s.addFiles(o.first[ext], ext, n)
	}
	s.folders = append(s.folders, o.folders...)
}

// files returns the number of files skipped, their extensions with
// their counts, the most first, and the first file of the most common.
func (s *skipped) files() (n int, list, example string) {
	exts := slices.Collect(maps.Keys(s.count))
	slices.SortFunc(exts, func(a, b string) int { return cmp.Or(s.count[b]-s.count[a], strings.Compare(a, b)) })
	var parts []string
	for _, ext := range exts {
		n += s.count[ext]
		name := ext
		if ext == "" {
			name = "without an extension"
		}
		parts = append(parts, fmt.Sprintf("%d %s", s.count[ext], name))
	}
	if n == 0 {
		return 0, "", ""
	}
	return n, strings.Join(parts, ", "), s.first[exts[0]]
}

// notRead is the advice for files of the formats phones and cameras
// write that LoadImageFolder does not read.
func notRead(list string) string {
	for _, ext := range []string{".heic", ".heif", ".avif", ".jxl", ".dng", ".raw", ".cr2", ".nef"} {
		if strings.Contains(list+",", " "+ext+",") {
			return "; formats such as HEIC, AVIF, JPEG XL and camera raw are not read: convert them to JPEG or PNG to use them"
		}
	}
	return ""
}

// warnings says what was skipped: files of other formats, and folders
// within class folders, whose images are not read.
func (s *skipped) warnings() []string {
	var w []string
	if n, list, example := s.files(); n > 0 {
		w = append(w, fmt.Sprintf("%s in the class folders not read, of other formats (%s), such as %s%s",
			plural(n, "file"), list, example, notRead(list)))
	}
	if len(s.folders) > 0 {
		w = append(w, fmt.Sprintf("%s in the class folders not read, such as %s: only the images directly in a class folder are read",
			plural(len(s.folders), "folder"), s.folders[0]))
	}
	return w
}

// plural returns n and the noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// empty is the error of a class folder without images that holds the
// entries s: files of other formats, or folders, which may be class
// folders one level further down (a data set in a folder of its own,
// Train and Test folders).
func (s *skipped) empty() error {
	err := fmt.Errorf("%w: no %s files", ErrEmptyClass, strings.Join(imageExts, ", "))
	if n, list, _ := s.files(); n > 0 {
		return fmt.Errorf("%w, only %s%s", err, list, notRead(list))
	}
	if len(s.folders) == 0 {
		return err
	}
	const show = 3
	names := make([]string, min(len(s.folders), show))
	for i := range names {
		names[i] = filepath.Base(s.folders[i])
	}
	list := strings.Join(names, ", ")
	if len(s.folders) > show {
		list += fmt.Sprintf(" and %d more", len(s.folders)-show)
	}
	return fmt.Errorf("%w, only folders (%s): are the class folders one level down?", err, list)
}
