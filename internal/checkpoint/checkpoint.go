// Package checkpoint is the one checkpoint mechanism of the module's
// training loops. A checkpoint is a file holding the state a run needs
// to go on, in the module's envelope; the loop saves it from its hook at
// the end of every epoch, atomically, so that a run interrupted at any
// moment loses at most the epoch in progress, and a run that finds it
// resumes from it. train.Run and sculpt.Run keep their checkpoints so.
package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/internal/jsonfile"
)

// State is what a checkpoint holds: a struct that embeds
// jsonfile.Header, which Save stamps.
type State interface {
	SetHeader(jsonfile.Header)
}

// File is the checkpoint of one run: the file at Path, in Format, whose
// older versions Load reads too.
type File struct {
	Path   string
	Format jsonfile.Format
}

// Save writes s to the file, stamped with the newest version of the
// format, through a temporary file renamed into place: an interrupted
// save leaves the previous checkpoint.
func (f File) Save(s State) error {
	s.SetHeader(f.Format.Header())
	err := atomicfile.WriteFile(f.Path, func(w io.Writer) error { return json.NewEncoder(w).Encode(s) })
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// Load reads the file into s and reports whether there was one: no file
// is no error, but a run that starts afresh. Errors name the file.
func (f File) Load(s State) (bool, error) {
	data, err := os.ReadFile(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	if err := f.Format.Decode(data, s); err != nil {
		return false, fmt.Errorf("checkpoint %s: %w", f.Path, err)
	}
	return true, nil
}

// Hook returns the hook that attaches the checkpoint to a loop: called
// at the end of an epoch with its record, it saves the state that
// snapshot returns then.
func Hook[E any](f File, snapshot func() (State, error)) func(E) error {
	return func(E) error {
		s, err := snapshot()
		if err != nil {
			return fmt.Errorf("checkpoint %s: %w", f.Path, err)
		}
		return f.Save(s)
	}
}
