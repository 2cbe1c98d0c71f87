package pipeline

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
)

// MaxShards bounds the files of one -data glob: each is one element of
// the pipeline and one line of its plan.
const MaxShards = 100000

// maxShards is MaxShards, which tests lower.
var maxShards = MaxShards

// Shards returns the files that the glob names, in order, on any file
// system Beam knows (local paths, gs://, s3://). No match is an error
// that names the flag.
func Shards(ctx context.Context, glob string) ([]string, error) {
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return nil, fmt.Errorf("-data %q: %w", glob, err)
	}
	defer fs.Close()
	files, err := fs.List(ctx, glob)
	if err != nil {
		return nil, fmt.Errorf("-data %q: %w", glob, err)
	}
	switch {
	case len(files) == 0:
		return nil, fmt.Errorf("-data %q: no file matches", glob)
	case len(files) > maxShards:
		return nil, fmt.Errorf("-data %q: %d files match, more than %d", glob, len(files), maxShards)
	}
	slices.Sort(files)
	return files, nil
}
