package onnxpb_test

import (
	"fmt"

	"github.com/parametric-machines/machines/onnx/onnxpb"
	"google.golang.org/protobuf/proto"
)

// A model of one Relu node, written to the bytes of an .onnx file and
// read back.
func Example() {
	float := onnxpb.TensorProto_FLOAT
	io := func(name string) *onnxpb.ValueInfoProto {
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{
			Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(float))}}}}
	}
	model := &onnxpb.ModelProto{
		IrVersion:   proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(17)}},
		Graph: &onnxpb.GraphProto{
			Name:   proto.String("relu"),
			Node:   []*onnxpb.NodeProto{{OpType: proto.String("Relu"), Input: []string{"x"}, Output: []string{"y"}}},
			Input:  []*onnxpb.ValueInfoProto{io("x")},
			Output: []*onnxpb.ValueInfoProto{io("y")},
		},
	}
	data, err := proto.Marshal(model)
	if err != nil {
		panic(err)
	}
	var back onnxpb.ModelProto
	if err := proto.Unmarshal(data, &back); err != nil {
		panic(err)
	}
	n := back.GetGraph().GetNode()[0]
	fmt.Printf("%s: %v -> %v, opset %d\n", n.GetOpType(), n.GetInput(), n.GetOutput(), back.GetOpsetImport()[0].GetVersion())
	// Output: Relu: [x] -> [y], opset 17
}
