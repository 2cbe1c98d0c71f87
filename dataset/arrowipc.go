package dataset

import (
	"io"

	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// arrowStreamLimit bounds the message bodies of an Arrow stream of
// unknown size: a batch of a table.
const arrowStreamLimit = 1 << 30

// newArrowSource reads the schema of the Arrow stream r, named name, and
// returns a reader of its record batches, which closes closer when
// closed. size is the size of the file that holds the stream, and 0 if
// unknown: no message is larger than the file.
func newArrowSource(r io.Reader, closer io.Closer, name string, size int64, opts FrameOptions) (src *columnarSource, err error) {
	s := &columnarSource{format: frameFormat{name: name}}
	defer s.recoverMalformed(&err)
	limit := int64(arrowStreamLimit)
	if size > 0 {
		limit = min(limit, size)
	}
	rr, err := ipc.NewReader(r, ipc.WithAllocator(allocator), ipc.WithBodySizeLimit(limit), ipc.WithMetadataSizeLimit(limit), ipc.WithDelayReadSchema(false))
	if err != nil {
		return nil, s.malformed(err)
	}
	src, err = newColumnarSource(rr, closer, name, opts)
	if err != nil {
		rr.Release()
	}
	return src, err
}
