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
// buffer is allocated.
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
	head, err := checkSchemaMessage(r, metadata)
	if err != nil {
		return nil, s.malformed(err)
	}
	r = io.MultiReader(bytes.NewReader(head), r)
	rr, err := ipc.NewReader(r, ipc.WithAllocator(allocator), ipc.WithBodySizeLimit(body), ipc.WithMetadataSizeLimit(metadata))
	if err != nil {
		return nil, s.malformed(err)
	}
	src, err = newColumnarSource(rr, closer, name, opts)
	if err != nil {
		rr.Release()
	}
	return src, err
}

// checkSchemaMessage reads the first message of an Arrow stream from r,
// the schema, and checks that the lengths of its vectors fit in it: the
// Arrow library allocates by them before it reads them. It returns the
// bytes it read, which a short or long message leaves to the library to
// refuse.
func checkSchemaMessage(r io.Reader, limit int64) ([]byte, error) {
	head := make([]byte, 8)
	n, err := io.ReadFull(r, head)
	if err != nil {
		return head[:n], nil
	}
	// A message is 0xFFFFFFFF, its length and its metadata, or in
	// streams written before Arrow 0.15 its length and its metadata.
	length, skip := int64(int32(binary.LittleEndian.Uint32(head[4:]))), 8
	if !bytes.Equal(head[:4], arrowContinue) {
		length, skip = int64(int32(binary.LittleEndian.Uint32(head))), 4
	}
	if length < 8 || length > limit {
		return head, nil
	}
	meta := make([]byte, int(length)-(8-skip))
	n, err = io.ReadFull(r, meta)
	head = append(head, meta[:n]...)
	if err != nil {
		return head, nil
	}
	return head, checkSchema(head[skip:])
}

// The vtable offsets of the fields of the Arrow format's flatbuffers
// tables (see Arrow's format/Message.fbs and format/Schema.fbs).
const (
	messageHeaderType     = 6
	messageHeader         = 8
	messageCustomMetadata = 12
	schemaHeader          = 1 // the header type of a schema
	schemaFields          = 6
	schemaCustomMetadata  = 8
	fieldChildren         = 14
	fieldCustomMetadata   = 16
)

// checkSchema checks the vectors of the message meta, if it is a
// schema.
func checkSchema(meta []byte) error {
	msg := flatbuffers.Table{Bytes: meta, Pos: flatbuffers.GetUOffsetT(meta)}
	if o := msg.Offset(messageHeaderType); o == 0 || msg.GetUint8(msg.Pos+flatbuffers.UOffsetT(o)) != schemaHeader {
		return nil
	}
	if _, err := vectorLength(&msg, messageCustomMetadata); err != nil {
		return err
	}
	var schema flatbuffers.Table
	o := msg.Offset(messageHeader)
	if o == 0 {
		return nil
	}
	msg.Union(&schema, flatbuffers.UOffsetT(o))
	return checkFields(&schema, schemaFields, schemaCustomMetadata, 0)
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

// errVector is a vector of a schema longer than its message.
var errVector = errors.New("a schema's vector is longer than its message")

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
