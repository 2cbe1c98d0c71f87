package dataset

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"

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
	if err := checkArrowSchema(pf.MetaData().KeyValueMetadata().FindValue(arrowSchemaKey)); err != nil {
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

// arrowSchemaKey is the key of a Parquet file's metadata under which
// Arrow's writers keep the table's Arrow schema.
const arrowSchemaKey = "ARROW:schema"

// checkArrowSchema checks the Arrow schema that a Parquet file may keep
// in its metadata, base64 of the schema's message as an Arrow stream
// holds it (nil if it keeps none), as checkedStream checks a stream's:
// the Parquet library reads it with the Arrow library, which allocates
// by the lengths that a damaged schema claims.
func checkArrowSchema(encoded *string) error {
	if encoded == nil {
		return nil
	}
	// The Parquet library's decodings, padded then not.
	schema, err := base64.StdEncoding.DecodeString(*encoded)
	if len(schema) == 0 || err != nil {
		if schema, err = base64.RawStdEncoding.DecodeString(*encoded); err != nil {
			return nil // which the library refuses
		}
	}
	c := &checkedStream{r: bytes.NewReader(schema), limit: int64(len(schema))}
	if err := c.next(); err != nil {
		return fmt.Errorf("its Arrow schema (%s): %w", arrowSchemaKey, err)
	}
	return nil
}
