package pipeline

import (
	"context"
	"fmt"
	"io"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/parametric-machines/machines/tabular"
)

// ChunkRows is how many rows a worker reads at a time: its memory holds
// one chunk and its statistics, whatever the size of its shard.
const ChunkRows = 4096

func init() {
	register.DoFn2x2[context.Context, shard, *tabular.Stats, error](&accumulateFn{})
	register.Combiner1[*tabular.Stats](&sumFn{})
	register.DoFn2x1[context.Context, *tabular.Stats, error](&writeFn{})
	beam.RegisterCoder(reflect.TypeFor[*tabular.Stats](), encodeStats, decodeStats)
}

// build adds to s the pipeline that sums the statistics of the rows of
// shards under the plan and writes them to the file at statsPath (a path
// of any file system Beam knows: local, gs://, s3://).
func build(s beam.Scope, shards []shard, planBytes []byte, statsPath string) {
	paths := beam.CreateList(s.Scope("shards"), shards)
	each := beam.ParDo(s.Scope("accumulate"), &accumulateFn{Plan: planBytes}, paths)
	sum := beam.Combine(s.Scope("sum"), &sumFn{}, each)
	beam.ParDo0(s.Scope("write"), &writeFn{Path: statsPath}, sum)
}

// run runs the pipeline of build on the runner of Beam's -runner flag
// (prism, in this process, by default) and returns the summed statistics.
func run(ctx context.Context, shards []shard, planBytes []byte, statsPath string) (*tabular.Stats, error) {
	p, s := beam.NewPipelineWithRoot()
	build(s, shards, planBytes, statsPath)
	if err := beamx.Run(ctx, p); err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	b, err := readAll(ctx, statsPath)
	if err != nil {
		return nil, err
	}
	return decodeStats(b)
}

// accumulateFn adds up the statistics of one shard, a chunk at a time.
type accumulateFn struct {
	Plan []byte
	plan *tabular.Plan
}

// Setup decodes the plan once per worker.
func (fn *accumulateFn) Setup() error {
	p, err := decodePlan(fn.Plan)
	fn.plan = p
	return err
}

// ProcessElement adds up the rows of the shard, with the warnings of
// reading it.
func (fn *accumulateFn) ProcessElement(ctx context.Context, sh shard) (*tabular.Stats, error) {
	st := fn.plan.NewStats()
	_, warnings, err := readShard(ctx, sh, st.Add)
	if err != nil {
		return nil, err
	}
	st.Read = warnings
	return st, nil
}

// sumFn sums the shards' statistics.
type sumFn struct{}

// MergeAccumulators adds b to a.
func (sumFn) MergeAccumulators(a, b *tabular.Stats) (*tabular.Stats, error) {
	return a, a.Merge(b)
}

// writeFn writes the summed statistics to Path.
type writeFn struct {
	Path string
}

// ProcessElement writes st.
func (fn *writeFn) ProcessElement(ctx context.Context, st *tabular.Stats) error {
	b, err := encodeStats(st)
	if err != nil {
		return err
	}
	fs, err := filesystem.New(ctx, fn.Path)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, fn.Path)
	if err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return fmt.Errorf("pipeline: %s: %w", fn.Path, err)
	}
	return w.Close()
}

// readAll reads the file at path of any file system Beam knows.
func readAll(ctx context.Context, path string) ([]byte, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("pipeline: the statistics: %w", err)
	}
	defer r.Close()
	return io.ReadAll(r)
}
