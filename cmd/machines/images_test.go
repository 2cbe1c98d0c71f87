package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeImages writes n PNG images of each of classes classes into
// dir/CLASS, of size w x h (and of 2w x 2h for every third image if mixed)
// in colour if colour: a bright square, whose corner depends on the class,
// on noise.
func writeImages(t *testing.T, dir string, n, classes, w, h int, colour, mixed bool) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(uint64(n), 11))
	for c := range classes {
		class := filepath.Join(dir, string(rune('a'+c)))
		if err := os.MkdirAll(class, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			s := 1 + btoi(mixed && i%3 == 0)
			var img image.Image
			at := func(x, y int) uint8 {
				if x/s >= c && x/s < c+3 && y/s >= c && y/s < c+3 {
					return 255
				}
				return uint8(rnd.IntN(60))
			}
			r := image.Rect(0, 0, s*w, s*h)
			if colour {
				im := image.NewNRGBA(r)
				for y := range s * h {
					for x := range s * w {
						im.SetNRGBA(x, y, color.NRGBA{uint8(rnd.IntN(256)), at(x, y), 40, 255})
					}
				}
				img = im
			} else {
				im := image.NewGray(r)
				for y := range s * h {
					for x := range s * w {
						im.SetGray(x, y, color.Gray{at(x, y)})
					}
				}
				img = im
			}
			var b bytes.Buffer
			if err := png.Encode(&b, img); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(class, string(rune('0'+i/10))+string(rune('0'+i%10))+".png"), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestSculptImageFolders(t *testing.T) {
	colour := t.TempDir() // one folder, mixed sizes
	writeImages(t, colour, 20, 3, 8, 8, true, true)
	// Images resized to 3000x3000 ask for too large an architecture,
	// refused before the pixels are read: before the damaged file.
	large := t.TempDir()
	writeImages(t, large, 2, 2, 8, 8, false, false)
	damaged := filepath.Join(large, "b", "01.png")
	if b, err := os.ReadFile(damaged); err != nil || os.WriteFile(damaged, b[:len(b)-20], 0o644) != nil {
		t.Fatal("cannot damage ", damaged)
	}
	grey := t.TempDir() // train and test folders, one size
	writeImages(t, filepath.Join(grey, "train"), 16, 2, 6, 8, false, false)
	writeImages(t, filepath.Join(grey, "test"), 4, 2, 6, 8, false, false)
	valid := t.TempDir() // train, valid and test folders, and a photograph not read
	for split, n := range map[string]int{"train": 16, "valid": 6, "test": 4} {
		writeImages(t, filepath.Join(valid, split), n, 2, 6, 8, false, false)
	}
	if err := os.WriteFile(filepath.Join(valid, "train", "a", "IMG_0001.HEIC"), []byte("\x00\x00\x00\x18ftypheic"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		input string // the input shape in the checkpoint, or another part of it
		warn  string // on standard error
	}{
		{"colour resized", []string{"-data", colour, "-size", "8", "-split", "0.25"}, `"input":[3,8,8]`, ""},
		{"grey train and test", []string{"-data", grey}, `"input":[1,8,6]`, ""},
		{"valid folder", []string{"-data", valid}, `"train_images":32,"validation_images":12`,
			"machines sculpt: warning: 1 file in the class folders not read, of other formats (1 .heic), such as " + filepath.Join(valid, "train", "a", "IMG_0001.HEIC")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"sculpt", "-out", out, "-nodes", "2", "-channels", "2", "-epochs", "1", "-batch", "4"}, tc.args...)
			var stdout, stderr bytes.Buffer
			if code := run(args, &stdout, &stderr); code != 0 {
				t.Fatalf("exit status %d; stderr:\n%s", code, stderr.String())
			}
			if !strings.Contains(stdout.String(), "edges ") || !strings.Contains(stderr.String(), tc.warn) {
				t.Errorf("stdout:\n%s\nstderr, without %q:\n%s", stdout.String(), tc.warn, stderr.String())
			}
			ck, err := os.ReadFile(filepath.Join(out, "checkpoint.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(strings.Fields(string(ck)), ""), tc.input) {
				t.Errorf("checkpoint without %s:\n%.300s", tc.input, ck)
			}
			// sculpt.json holds the warnings of standard error, the
			// loader's and the run's.
			var warned []string
			for line := range strings.Lines(stderr.String()) {
				if _, w, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "sculpt: warning: "); ok {
					warned = append(warned, w)
				}
			}
			b, err := os.ReadFile(filepath.Join(out, "sculpt.json"))
			if err != nil {
				t.Fatal(err)
			}
			var rep struct{ Warnings []string }
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rep.Warnings, warned) || tc.warn != "" && !slices.ContainsFunc(warned, func(w string) bool {
				return strings.Contains(w, strings.TrimPrefix(tc.warn, "machines sculpt: warning: "))
			}) {
				t.Errorf("sculpt.json warnings %q, want those of standard error, %q, %q among them", rep.Warnings, warned, tc.warn)
			}
		})
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"mixed sizes", []string{"-data", colour}, 1, filepath.Join(colour, "a", "01.png") + ": image of another size: 8x8, but " + filepath.Join(colour, "a", "00.png") + " is 16x16; resize them to one size (-size)"},
		{"split of train and test", []string{"-data", grey, "-split", "0.3"}, 1, "own train and test folders"},
		{"too large", []string{"-data", large, "-size", "3000"}, 1, "on 1x3000x3000 images has 4 edges with 3.6e+07 weights, more than the 16777216 a machine may have; use fewer nodes or channels, or smaller images"},
		{"size of IDX", []string{"-data", idxDir(t), "-size", "4"}, 1, "IDX"},
		{"bad size", []string{"-data", colour, "-size", "8x"}, 2, `"8x" is not a size`},
		{"zero size", []string{"-data", colour, "-size", "0"}, 2, "not a size"},
		{"split 1", []string{"-data", colour, "-split", "1"}, 2, "-split 1"},
		{"validation and a valid folder", []string{"-data", valid, "-validation", "0.2"}, 2, "-validation 0.2, but " + valid + " has a folder of validation images"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"sculpt", "-out", t.TempDir(), "-nodes", "2", "-epochs", "1"}, tc.args...)
			if code := run(args, &stdout, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit status %d, stderr %q; want %d and a mention of %q", code, stderr.String(), tc.code, tc.want)
			}
		})
	}
}

// TestPredictImages sculpts a machine on a folder of images and predicts
// the classes of its test images with it: one row per image, named by
// its path, whose classes are the test accuracy sculpt reported, to the
// image. A model file of version 1, which does not say how it reads
// pixels, and the flags of tables are refused.
func TestPredictImages(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	writeImages(t, filepath.Join(data, "train"), 16, 2, 6, 8, false, false)
	writeImages(t, filepath.Join(data, "test"), 5, 2, 6, 8, false, false)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"sculpt", "-data", data, "-out", out, "-nodes", "2", "-channels", "2", "-epochs", "2", "-batch", "4"}, &stdout, &stderr); code != 0 {
		t.Fatalf("sculpt: exit status %d; stderr:\n%s", code, stderr.String())
	}
	var rep struct {
		Accuracy float64 `json:"accuracy_pruned"`
	}
	if b, err := os.ReadFile(filepath.Join(out, "sculpt.json")); err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatal("no sculpt.json", err)
	}
	large, colour, classes := t.TempDir(), t.TempDir(), t.TempDir()
	writeImages(t, large, 2, 2, 12, 16, false, false)
	writeImages(t, colour, 2, 2, 6, 8, true, false)
	writeImages(t, classes, 2, 3, 6, 8, false, false)
	pred := filepath.Join(out, "pred.csv")
	stderr.Reset()
	if code := run([]string{"predict", "-model", filepath.Join(out, "sculpt-model.json"), "-data", filepath.Join(data, "test"), "-out", pred}, &stdout, &stderr); code != 0 || stderr.Len() > 0 {
		t.Fatalf("predict: exit status %d; stderr:\n%s", code, stderr.String())
	}
	f, err := os.Open(pred)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 11 || !slices.Equal(rows[0], []string{"file", "class", "p_a", "p_b"}) {
		t.Fatalf("%d rows, header %q; want 10 images and file, class, p_a, p_b", len(rows)-1, rows[0])
	}
	right := 0
	for _, r := range rows[1:] {
		if class, _, _ := strings.Cut(r[0], "/"); class == r[1] {
			right++
		}
	}
	if acc := float64(right) / 10; acc != rep.Accuracy {
		t.Errorf("predict's accuracy %g, sculpt's %g", acc, rep.Accuracy)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"version 1", []string{"-model", filepath.Join("..", "..", "model", "testdata", "sculpt-v1.json"), "-data", data}, 1, `does not say how its input "x" reads pixels`},
		{"interval", []string{"-model", filepath.Join(out, "sculpt-model.json"), "-data", data, "-interval", "0.9"}, 2, "-interval is for the models of fit"},
		{"no images", []string{"-model", filepath.Join(out, "sculpt-model.json"), "-data", t.TempDir()}, 1, "no images: no .png"},
		{"resized", []string{"-model", filepath.Join(out, "sculpt-model.json"), "-data", large}, 0,
			"warning: 4 of 4 images were not of the model's 6x8 pixels and were resized to it"},
		{"colour", []string{"-model", filepath.Join(out, "sculpt-model.json"), "-data", colour}, 0,
			"warning: 4 of 4 images are in colour and the model was trained on grey images: they were read as grey"},
		{"other classes", []string{"-model", filepath.Join(out, "sculpt-model.json"), "-data", classes}, 0,
			"warning: the folders of " + classes + " are named like the model's classes, but 1 like none (c): their images are classified among the model's classes (a, b)"},
	} {
		stderr.Reset()
		if code := run(append([]string{"predict", "-out", "-"}, tc.args...), &stdout, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: exit status %d, stderr %q; want %d and %q", tc.name, code, stderr.String(), tc.code, tc.want)
		}
	}
	// Folders named like none of the classes are not warned of.
	batches := t.TempDir()
	writeImages(t, filepath.Join(batches, "monday"), 2, 2, 6, 8, false, false)
	writeImages(t, filepath.Join(batches, "tuesday"), 2, 2, 6, 8, false, false)
	stderr.Reset()
	if code := run([]string{"predict", "-model", filepath.Join(out, "sculpt-model.json"), "-data", batches, "-out", "-"}, &stdout, &stderr); code != 0 || stderr.Len() > 0 {
		t.Errorf("folders of other names: exit status %d, stderr %q; want 0 and nothing", code, stderr.String())
	}

	// A model of colour images, given grey ones only.
	cdata, cout := t.TempDir(), t.TempDir()
	writeImages(t, filepath.Join(cdata, "train"), 16, 2, 6, 8, true, false)
	writeImages(t, filepath.Join(cdata, "test"), 5, 2, 6, 8, true, false)
	if code := run([]string{"sculpt", "-data", cdata, "-out", cout, "-nodes", "2", "-channels", "2", "-epochs", "2", "-batch", "4"}, &stdout, &stderr); code != 0 {
		t.Fatalf("sculpt: exit status %d; stderr:\n%s", code, stderr.String())
	}
	stderr.Reset()
	const grey = "warning: the 10 images are grey and the model was trained on images in colour: each was read as three equal channels"
	if code := run([]string{"predict", "-model", filepath.Join(cout, "sculpt-model.json"), "-data", filepath.Join(data, "test"), "-out", "-"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), grey) {
		t.Errorf("grey images, colour model: exit status %d, stderr %q; want 0 and %q", code, stderr.String(), grey)
	}
}
