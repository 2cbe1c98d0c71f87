package onnx

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/parametric-machines/machines/ad"
	"github.com/parametric-machines/machines/internal/atomicfile"
	"github.com/parametric-machines/machines/onnx/onnxpb"
	"google.golang.org/protobuf/proto"
)

// The versions the models declare; see the package documentation.
const (
	irVersion = 8
	opset     = 17
	mlOpset   = 2
	mlDomain  = "ai.onnx.ml"
)

// internalPrefix starts the name of every value a graph computes, so that
// they cannot clash with the inputs, which are named after the user's
// columns.
const internalPrefix = "machines/"

// batch is the name of the dynamic batch dimension.
const batch = "N"

// builder accumulates the nodes and constants of a graph.
type builder struct {
	g *onnxpb.GraphProto
	n int // values named so far
}

func newBuilder(name string) *builder {
	return &builder{g: &onnxpb.GraphProto{Name: proto.String(name)}}
}

// fresh returns a new internal value name.
func (b *builder) fresh() string {
	b.n++
	return internalPrefix + strconv.Itoa(b.n)
}

// op adds a node of the default domain and returns its output.
func (b *builder) op(opType string, inputs []string, attrs ...*onnxpb.AttributeProto) string {
	return b.domainOp("", opType, inputs, attrs...)
}

func (b *builder) domainOp(domain, opType string, inputs []string, attrs ...*onnxpb.AttributeProto) string {
	out := b.fresh()
	b.g.Node = append(b.g.Node, &onnxpb.NodeProto{
		Name:      proto.String(out),
		OpType:    proto.String(opType),
		Domain:    proto.String(domain),
		Input:     inputs,
		Output:    []string{out},
		Attribute: attrs,
	})
	return out
}

// rename adds an Identity node that gives value the name out, for the
// graph's outputs.
func (b *builder) rename(value, out string) {
	b.g.Node = append(b.g.Node, &onnxpb.NodeProto{
		Name:   proto.String(out),
		OpType: proto.String("Identity"),
		Input:  []string{value},
		Output: []string{out},
	})
}

// constant adds an initializer t under a fresh name and returns the name.
func (b *builder) constant(t *onnxpb.TensorProto) string {
	t.Name = proto.String(b.fresh())
	b.g.Initializer = append(b.g.Initializer, t)
	return t.GetName()
}

func (b *builder) doubles(dims []int64, v []float64) string {
	checkSize(dims, len(v))
	return b.constant(&onnxpb.TensorProto{DataType: proto.Int32(int32(onnxpb.TensorProto_DOUBLE)), Dims: dims, DoubleData: v})
}

// reals adds a constant of element type elem, FLOAT or DOUBLE, with the
// values v.
func (b *builder) reals(elem onnxpb.TensorProto_DataType, dims []int64, v []float64) string {
	return b.constant(realTensor(elem, dims, v))
}

// realTensor returns an unnamed tensor of element type elem, FLOAT or
// DOUBLE, with the values v.
func realTensor(elem onnxpb.TensorProto_DataType, dims []int64, v []float64) *onnxpb.TensorProto {
	checkSize(dims, len(v))
	t := &onnxpb.TensorProto{DataType: proto.Int32(int32(elem)), Dims: dims}
	switch elem {
	case onnxpb.TensorProto_DOUBLE:
		t.DoubleData = v
	case onnxpb.TensorProto_FLOAT:
		t.FloatData = make([]float32, len(v))
		for i, x := range v {
			t.FloatData[i] = float32(x)
		}
	default:
		panic(fmt.Errorf("%w: onnx: real tensor of element type %v", ad.ErrValue, elem))
	}
	return t
}

func (b *builder) int64s(dims []int64, v []int64) string {
	checkSize(dims, len(v))
	return b.constant(&onnxpb.TensorProto{DataType: proto.Int32(int32(onnxpb.TensorProto_INT64)), Dims: dims, Int64Data: v})
}

func (b *builder) strings(dims []int64, v []string) string {
	checkSize(dims, len(v))
	data := make([][]byte, len(v))
	for i, s := range v {
		data[i] = []byte(s)
	}
	return b.constant(&onnxpb.TensorProto{DataType: proto.Int32(int32(onnxpb.TensorProto_STRING)), Dims: dims, StringData: data})
}

// scalar returns a constant double of shape [1], which broadcasts.
func (b *builder) scalar(v float64) string { return b.doubles([]int64{1}, []float64{v}) }

func checkSize(dims []int64, n int) {
	size := int64(1)
	for _, d := range dims {
		size *= d
	}
	if size != int64(n) {
		panic(fmt.Errorf("%w: onnx: %d values for a tensor of shape %v", ad.ErrShape, n, dims))
	}
}

// slice returns columns [lo, hi) of the matrix x.
func (b *builder) slice(x string, lo, hi int) string {
	return b.op("Slice", []string{x, b.int64s([]int64{1}, []int64{int64(lo)}), b.int64s([]int64{1}, []int64{int64(hi)}), b.int64s([]int64{1}, []int64{1})})
}

// valueInfo describes a tensor of the given element type whose first
// dimension is the batch and whose other dimensions are dims.
func valueInfo(name, doc string, elem onnxpb.TensorProto_DataType, dims ...int64) *onnxpb.ValueInfoProto {
	shape := &onnxpb.TensorShapeProto{Dim: []*onnxpb.TensorShapeProto_Dimension{
		{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: batch}},
	}}
	for _, d := range dims {
		shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	return &onnxpb.ValueInfoProto{
		Name:      proto.String(name),
		DocString: proto.String(doc),
		Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{
			ElemType: proto.Int32(int32(elem)),
			Shape:    shape,
		}}},
	}
}

func intAttr(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func intsAttr(name string, v []int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
}

func tensorAttr(name string, t *onnxpb.TensorProto) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: t}
}

func stringAttr(name, v string) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte(v)}
}

func stringsAttr(name string, v []string) *onnxpb.AttributeProto {
	data := make([][]byte, len(v))
	for i, s := range v {
		data[i] = []byte(s)
	}
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRINGS.Enum(), Strings: data}
}

// model wraps the graph of b in a model with the package's versions and
// the metadata meta, pairs of key and value.
func (b *builder) model(doc string, meta ...[2]string) *onnxpb.ModelProto {
	m := &onnxpb.ModelProto{
		IrVersion:       proto.Int64(irVersion),
		ProducerName:    proto.String("github.com/parametric-machines/machines"),
		ProducerVersion: proto.String("1"),
		DocString:       proto.String(doc),
		Graph:           b.g,
		OpsetImport: []*onnxpb.OperatorSetIdProto{
			{Domain: proto.String(""), Version: proto.Int64(opset)},
			{Domain: proto.String(mlDomain), Version: proto.Int64(mlOpset)},
		},
	}
	for _, kv := range meta {
		m.MetadataProps = append(m.MetadataProps, &onnxpb.StringStringEntryProto{Key: proto.String(kv[0]), Value: proto.String(kv[1])})
	}
	return m
}

// Write writes the model m to path in ONNX's binary form, replacing the
// file atomically: a temporary file renamed into place.
func Write(path string, m *onnxpb.ModelProto) error {
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return fmt.Errorf("onnx: %w", err)
	}
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// nan is the double that makes a row's outputs NaN.
var nan = math.NaN()
