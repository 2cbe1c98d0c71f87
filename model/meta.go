package model

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// Meta says what a model's inputs and outputs mean to whoever sends it
// data and reads its answers, as a model file of version 2 records it:
// the names of a classifier's classes and how an image is read. A
// server or a program that predicts answers in these terms; the model
// itself computes without them.
type Meta struct {
	// Classes names the columns of classifier outputs, by output space:
	// column i of the space is the class Classes[space][i].
	Classes map[string][]string `json:"classes,omitempty"`
	// Pixels says how images become the values of image inputs ([C, H,
	// W]), by input space.
	Pixels map[string]Pixels `json:"pixels,omitempty"`
}

// Pixels says how an image becomes the values of an input space of
// shape [C, H, W]: each pixel's value of 0 to 255 times Scale, in the
// channels Channels ("grey", or "red", "green" and "blue"), the image
// at H x W pixels.
type Pixels struct {
	Scale    float64  `json:"scale"`
	Channels []string `json:"channels"`
}

// Byte255 is the Scale of pixels divided by 255, into [0, 1].
const Byte255 = 1.0 / 255

// PixelChannels returns the channel names of images of 1 (grey) or 3
// (red, green, blue) channels.
func PixelChannels(channels int) []string {
	if channels == 1 {
		return []string{"grey"}
	}
	return []string{"red", "green", "blue"}
}

// checkMeta reports what of the model's Meta does not fit its spaces.
func (m *Model[T]) checkMeta() error {
	md := m.Meta
	for _, space := range slices.Sorted(maps.Keys(md.Classes)) {
		classes := md.Classes[space]
		shape, _, output := m.space(space)
		switch {
		case !output:
			return fmt.Errorf("meta: classes of %q, which is not an output space", space)
		case len(shape) != 1 || shape[0] != len(classes):
			return fmt.Errorf("meta: %d classes of output %q, of shape %v", len(classes), space, shape)
		}
		for i, c := range classes {
			if c == "" || slices.Contains(classes[:i], c) {
				return fmt.Errorf("meta: class %d of output %q is %q, empty or given twice", i, space, c)
			}
		}
	}
	for _, space := range slices.Sorted(maps.Keys(md.Pixels)) {
		p := md.Pixels[space]
		shape, input, _ := m.space(space)
		switch {
		case !input:
			return fmt.Errorf("meta: pixels of %q, which is not an input space", space)
		case len(shape) != 3 || shape[0] != len(p.Channels) || !slices.Equal(p.Channels, PixelChannels(len(p.Channels))):
			return fmt.Errorf("meta: pixels of input %q, of shape %v, in channels %q: want [C, H, W] in grey or red, green and blue", space, shape, p.Channels)
		case !(p.Scale > 0) || math.IsInf(p.Scale, 0):
			return fmt.Errorf("meta: pixels of input %q scaled by %g, want a positive number", space, p.Scale)
		}
	}
	return nil
}

// space returns the shape of the space name and whether it is an input
// and an output; a space the model lacks is neither.
func (m *Model[T]) space(name string) (shape []int, input, output bool) {
	v := m.h.Vertex(name)
	if v < 0 {
		return nil, false, false
	}
	return m.spaces[v].Shape, slices.Contains(m.inputs, v), slices.Contains(m.outputs, v)
}
