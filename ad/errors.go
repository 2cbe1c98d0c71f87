package ad

import "errors"

// The errors that the library's panics carry, in every package. A panic
// is for a programmer's error, such as shapes that do not fit; its value
// is an error that wraps one of these, so that a caller who recovers it
// can tell the kind with errors.Is. Bad data and failed convergence are
// returned errors, never panics.
var (
	// ErrShape: a tensor, node or setting of the wrong shape or size.
	ErrShape = errors.New("shape mismatch")
	// ErrNil: a required value is missing.
	ErrNil = errors.New("missing value")
	// ErrName: a name that is unknown, empty or taken.
	ErrName = errors.New("bad name")
	// ErrState: a call that the object's state does not allow, such as
	// registering a parameter after the set was packed.
	ErrState = errors.New("call out of order")
	// ErrValue: an argument or setting outside its range, such as a
	// negative tolerance or a label beyond the classes.
	ErrValue = errors.New("invalid argument")
	// ErrBudget: a parameter set asked to grow beyond its Limit, as a
	// crafted file can make a model ask.
	ErrBudget = errors.New("parameter budget exceeded")
)
