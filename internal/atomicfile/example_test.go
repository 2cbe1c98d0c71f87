package atomicfile_test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/parametric-machines/machines/internal/atomicfile"
)

// A file is replaced whole or not at all: a write that fails half-way
// leaves the previous content in place.
func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "atomicfile")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "report.json")

	err = atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, `{"epoch": 1}`)
		return err
	})
	if err != nil {
		log.Fatal(err)
	}

	// The second write breaks off after part of its content.
	err = atomicfile.WriteFile(path, func(w io.Writer) error {
		fmt.Fprint(w, `{"epo`)
		return errors.New("interrupted")
	})
	fmt.Println("second write:", err)

	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print("content: ", string(data))
	entries, err := os.ReadDir(dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("files:", len(entries))

	// Output:
	// second write: interrupted
	// content: {"epoch": 1}
	// files: 1
}
