package dataset

import (
	"context"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// parquetBuffer is the size of the buffer through which a Parquet
// column chunk is read, so that the chunk is not read whole.
const parquetBuffer = 1 << 20

// newParquetSource reads the footer of the Parquet file r, named name,
// and returns a reader of its rows by batches of batchRows, which closes
// r (if it is an io.Closer) when closed. The Parquet library checks the
// sizes that the footer and the page headers claim against the file's
// size and its limits before it allocates.
func newParquetSource(r parquet.ReaderAtSeeker, name string, opts FrameOptions) (src *columnarSource, err error) {
	s := &columnarSource{format: frameFormat{name: name}}
	defer s.recoverMalformed(&err)
	props := parquet.NewReaderProperties(allocator)
	props.BufferedStreamEnabled = true
	props.BufferSize = parquetBuffer
	pf, err := file.NewParquetReader(r, file.WithReadProps(props))
	if err != nil {
		return nil, s.malformed(err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: batchRows}, allocator)
	if err != nil {
		return nil, s.malformed(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return nil, s.malformed(err)
	}
	return newColumnarSource(rr, pf, name, opts)
}
