package serve

import (
	"errors"
	"fmt"
	"slices"
)

// The datatypes of the protocol that the models of this module take and
// return.
const (
	FP64  = "FP64"
	FP32  = "FP32"
	BYTES = "BYTES"
)

// A Model is one loaded model file: what it takes and returns, and how
// it computes a batch. The server calls Prepare for each request, in
// that request's goroutine, and Infer for batches of prepared rows, from
// several goroutines at once: a Model must be safe for concurrent use
// and must not change once loaded.
//
// Another kind of model is one more implementation with its Kind.
type Model interface {
	// Metadata describes the model's inputs and outputs. It is called
	// once, when the model is loaded.
	Metadata() Metadata
	// Prepare checks the inputs of one request and encodes them into
	// rows, one row per sample, setting rows.Shape and filling rows.Data
	// (see Rows.Reset). in holds one tensor per input of Metadata, in its
	// order, whose datatypes and shapes the server has checked against
	// Metadata: they share the first dimension, the number of samples,
	// at least 1. Errors are the client's: they name the input and the
	// element at fault. Warnings about the data that do not stop the
	// prediction go to rows.Warnings, and with the response.
	Prepare(rows *Rows, in []Tensor) error
	// Infer computes every output of Metadata, in its order, for the
	// rows of one or more requests stacked into one batch: each output
	// has rows.N as its first dimension. Its errors are the server's.
	Infer(rows *Rows) ([]Tensor, error)
}

// Kind is a kind of model file: the server reads a file's "format" and
// "kind" fields and loads the file with the Kind of both.
type Kind struct {
	// Format is the "format" of the files of this kind; "" is for files
	// without one.
	Format string
	// Kind, if not "", is the "kind" of the files of this kind, for a
	// format whose files say what they hold in that field, as the
	// module's envelope "machines" does ("model"); "" is for files of
	// any kind or none.
	Kind string
	// Load decodes data, the content of the model file at path, which
	// the server has read once for the model's version and its kind:
	// Load does not read the file again. Its errors say what is wrong
	// with the file, and name it.
	Load func(path string, data []byte) (Model, error)
}

// Metadata describes a model's inputs and outputs, as the protocol's
// model metadata endpoint gives them.
type Metadata struct {
	// Platform names the kind of model, as "machines_kernel".
	Platform string
	Inputs   []TensorSpec
	Outputs  []TensorSpec
	// Warnings say what the model cannot give as loaded, such as an
	// output it leaves out at a setting of the server, and why: they
	// are logged when it loads and returned with every answer.
	Warnings []string
}

// TensorSpec describes an input or an output of a model.
type TensorSpec struct {
	Name     string `json:"name"`
	Datatype string `json:"datatype"`
	// Shape is the tensor's shape, of at least one dimension: the first
	// is the number of samples, -1 as any other dimension of any size.
	Shape []int `json:"shape"`
	// Parameters, if any, say more of the tensor, such as the classes
	// of a label.
	Parameters map[string]any `json:"parameters,omitempty"`
}

// check reports what makes md unusable by the server.
func (md *Metadata) check() error {
	if len(md.Inputs) == 0 || len(md.Outputs) == 0 {
		return fmt.Errorf("a model of %d inputs and %d outputs", len(md.Inputs), len(md.Outputs))
	}
	var names []string
	for _, specs := range [][]TensorSpec{md.Inputs, md.Outputs} {
		for _, s := range specs {
			switch {
			case s.Name == "":
				return errors.New("a tensor without a name")
			case slices.Contains(names, s.Name):
				return fmt.Errorf("two tensors named %q", s.Name)
			case s.Datatype != FP64 && s.Datatype != FP32 && s.Datatype != BYTES:
				return fmt.Errorf("tensor %q: datatype %q", s.Name, s.Datatype)
			case len(s.Shape) == 0 || s.Shape[0] != -1:
				return fmt.Errorf("tensor %q: shape %v, want the samples first, as -1", s.Name, s.Shape)
			}
			for _, d := range s.Shape[1:] {
				if d < 1 && d != -1 {
					return fmt.Errorf("tensor %q: shape %v", s.Name, s.Shape)
				}
			}
			names = append(names, s.Name)
		}
	}
	return nil
}

// Tensor is an input or output tensor of a request: its elements in
// row-major order, the samples first.
type Tensor struct {
	Name     string
	Datatype string
	Shape    []int
	// Numbers holds the elements of an FP64 or FP32 tensor, NaN for a
	// JSON null (a missing value), and Texts those of a BYTES tensor.
	Numbers []float64
	Texts   []string
}

// rowLen returns the number of elements of one sample of t.
func (t *Tensor) rowLen() int { return shapeSize(t.Shape[1:]) }

// Rows are the prepared inputs of one or more requests: N samples
// encoded as the model computes on them, each a row of Shape, row after
// row in Data. Batches stack the rows of requests of one Shape.
type Rows struct {
	N     int
	Shape []int
	Data  []float64
	// Warnings about the request's data, returned with the response.
	Warnings []string
}

// Reset makes r hold n rows of the given shape, reusing its Data if it is
// large enough; the values of Data are left as they were.
func (r *Rows) Reset(n int, shape ...int) {
	r.N = n
	r.Shape = append(r.Shape[:0], shape...)
	size := n * r.Width()
	if cap(r.Data) < size {
		r.Data = make([]float64, size)
	}
	r.Data = r.Data[:size]
	r.Warnings = r.Warnings[:0]
}

// Width returns the number of values of one row.
func (r *Rows) Width() int { return shapeSize(r.Shape) }

// Row returns the values of row i.
func (r *Rows) Row(i int) []float64 {
	w := r.Width()
	return r.Data[i*w : (i+1)*w]
}
