package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	flatbuffers "github.com/google/flatbuffers/go"
)

// arrowBodyLimit bounds the body of a message of an Arrow stream, a
// batch of a table, and arrowMetadataLimit its metadata, which describes
// the batch's buffers: a message claiming more is refused before its
// buffer is allocated. checkedStream refuses it: the Arrow library's
// reader of streams does not apply the limits it is given (v18.8.0).
const (
	arrowBodyLimit     = 256 << 20
	arrowMetadataLimit = 1 << 20
)

// maxNesting bounds the depth of the types of an Arrow schema.
const maxNesting = 64

// newArrowSource reads the schema of the Arrow stream r, named name, and
// returns a reader of its record batches, which closes closer when
// closed. size is the size of the file that holds the stream, and 0 if
// unknown: no message is larger than the file.
func newArrowSource(r io.Reader, closer io.Closer, name string, size int64, opts FrameOptions) (src *columnarSource, err error) {
	s := &columnarSource{format: frameFormat{name: name}}
	defer s.recoverMalformed(&err)
	body, metadata := int64(arrowBodyLimit), int64(arrowMetadataLimit)
	if size > 0 {
		body, metadata = min(body, size), min(metadata, size)
	}
	r = &checkedStream{r: r, limit: metadata, bodyLimit: body}
	rr, err := ipc.NewReader(r, ipc.WithAllocator(allocator), ipc.WithBodySizeLimit(body), ipc.WithMetadataSizeLimit(metadata))
	if err != nil {
		return nil, s.malformed(err)
	}
	return newColumnarSource(rr, closer, name, opts)
}

// checkedStream passes an Arrow stream through, checking the metadata
// of each message (see checkMessage) before the Arrow library reads it,
// which allocates by the lengths that the metadata claims.
type checkedStream struct {
	r         io.Reader
	limit     int64  // of a message's metadata
	bodyLimit int64  // of its body
	pending   []byte // checked bytes not yet read
	body      int64  // bytes of the message's body not yet read
	rest      bool   // the rest is passed through, for the library to read or refuse
}

func (c *checkedStream) Read(p []byte) (int, error) {
	if len(c.pending) == 0 && c.body == 0 && !c.rest {
		if err := c.next(); err != nil {
			return 0, err
		}
	}
	switch {
	case len(c.pending) > 0:
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	case c.body > 0:
		if int64(len(p)) > c.body {
			p = p[:c.body]
		}
		n, err := c.r.Read(p)
		c.body -= int64(n)
		return n, err
	}
	return c.r.Read(p)
}

// next reads the framing and the metadata of the next message and checks
// them. A message is 0xFFFFFFFF, the length of its metadata, the metadata
// and the body; in streams written before Arrow 0.15 it lacks the
// 0xFFFFFFFF. The end of the stream and a short message are left to the
// library; metadata or a body larger than their limits are refused.
func (c *checkedStream) next() error {
	head := make([]byte, 8)
	n, err := io.ReadFull(c.r, head)
	c.pending = head[:n]
	if err != nil {
		c.rest = true
		return nil
	}
	length, skip := int64(int32(binary.LittleEndian.Uint32(head[4:]))), 8
	if !bytes.Equal(head[:4], arrowContinue) {
		length, skip = int64(int32(binary.LittleEndian.Uint32(head))), 4
	}
	if length > c.limit {
		return fmt.Errorf("%w: a message's metadata of %d bytes, more than %d", ErrMalformed, length, c.limit)
	}
	if length < 8 {
		c.rest = true
		return nil
	}
	meta := make([]byte, int(length)-(8-skip))
	n, err = io.ReadFull(c.r, meta)
	c.pending = append(c.pending, meta[:n]...)
	if err != nil {
		c.rest = true
		return nil
	}
	if c.body, err = checkMessage(c.pending[skip:]); err == nil && c.body > c.bodyLimit {
		err = fmt.Errorf("%w: a message's body of %d bytes, more than %d", ErrMalformed, c.body, c.bodyLimit)
	}
	return err
}

// The vtable offsets of the fields of the Arrow format's flatbuffers
// tables (see Arrow's format/Message.fbs and format/Schema.fbs).
const (
	messageHeaderType     = 6
	messageHeader         = 8
	messageBodyLength     = 10
	messageCustomMetadata = 12
	schemaFields          = 6
	schemaCustomMetadata  = 8
	fieldChildren         = 14
	fieldCustomMetadata   = 16
	dictionaryData        = 6
	batchBuffers          = 8
	batchVariadicCounts   = 12
)

// The header types of the messages of an Arrow stream.
const (
	schemaHeader     = 1
	dictionaryHeader = 2
	batchHeader      = 3
)

// checkMessage checks the metadata meta of a message of an Arrow stream
// and returns the length of its body: its vectors of metadata, fields
// and buffers must fit in it, and a batch may not claim more buffers of
// variable size than it has buffers.
func checkMessage(meta []byte) (body int64, err error) {
	msg := flatbuffers.Table{Bytes: meta, Pos: flatbuffers.GetUOffsetT(meta)}
	if o := msg.Offset(messageBodyLength); o != 0 {
		body = msg.GetInt64(msg.Pos + flatbuffers.UOffsetT(o))
	}
	if body < 0 {
		return 0, fmt.Errorf("a message's body of %d bytes", body)
	}
	if _, err := vectorLength(&msg, messageCustomMetadata); err != nil {
		return 0, err
	}
	var header flatbuffers.Table
	o := msg.Offset(messageHeader)
	if o == 0 {
		return body, nil
	}
	msg.Union(&header, flatbuffers.UOffsetT(o))
	switch msg.GetUint8(msg.Pos + flatbuffers.UOffsetT(msg.Offset(messageHeaderType))) {
	case schemaHeader:
		return body, checkFields(&header, schemaFields, schemaCustomMetadata, 0)
	case dictionaryHeader:
		o := header.Offset(dictionaryData)
		if o == 0 {
			return body, nil
		}
		header.Pos = header.Indirect(header.Pos + flatbuffers.UOffsetT(o))
		fallthrough
	case batchHeader:
		return body, checkBatch(&header)
	}
	return body, nil
}

// checkBatch checks the vector of buffers of a record batch and its
// counts of variable-size buffers, which may not exceed the buffers.
func checkBatch(batch *flatbuffers.Table) error {
	buffers, err := vectorLength(batch, batchBuffers)
	if err != nil {
		return err
	}
	o := batch.Offset(batchVariadicCounts)
	if o == 0 {
		return nil
	}
	n := batch.VectorLen(flatbuffers.UOffsetT(o))
	start := batch.Vector(flatbuffers.UOffsetT(o))
	if int64(start)+8*int64(n) > int64(len(batch.Bytes)) {
		return errVector
	}
	for i := range n {
		if count := batch.GetInt64(start + flatbuffers.UOffsetT(8*i)); count < 0 || count > int64(buffers) {
			return fmt.Errorf("a batch claims %d buffers of variable size, of its %d buffers", count, buffers)
		}
	}
	return nil
}

// checkFields checks the vector of fields of table t, of a schema or a
// field, at the offset fields, and its vector of metadata, and theirs.
func checkFields(t *flatbuffers.Table, fields, metadata flatbuffers.VOffsetT, depth int) error {
	if depth > maxNesting {
		return fmt.Errorf("types nested more than %d deep", maxNesting)
	}
	if _, err := vectorLength(t, metadata); err != nil {
		return err
	}
	n, err := vectorLength(t, fields)
	if err != nil || n == 0 {
		return err
	}
	start := t.Vector(flatbuffers.UOffsetT(t.Offset(fields)))
	for i := range n {
		field := flatbuffers.Table{Bytes: t.Bytes, Pos: t.Indirect(start + flatbuffers.UOffsetT(4*i))}
		if err := checkFields(&field, fieldChildren, fieldCustomMetadata, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// errVector is a vector of a message longer than the message.
var errVector = errors.New("a vector longer than its message")

// vectorLength returns the length of the vector of offsets of table t
// at the vtable offset slot, which must fit in the table's bytes.
func vectorLength(t *flatbuffers.Table, slot flatbuffers.VOffsetT) (int, error) {
	o := t.Offset(slot)
	if o == 0 {
		return 0, nil
	}
	n := t.VectorLen(flatbuffers.UOffsetT(o))
	if int64(t.Vector(flatbuffers.UOffsetT(o)))+4*int64(n) > int64(len(t.Bytes)) {
		return 0, errVector
	}
	return n, nil
}
