package hypergraph

import "fmt"

// convMix is the shape rule of conv3x3: images [C, H, W] of one height
// and width in and out, and a kernel [C_t, C_s, 3, 3] per pair of target
// and source (the blocks of one convolution on the stacked channels).
func convMix(src, tgt []port) ([][]int, error) {
	var first *port
	for _, list := range [][]port{src, tgt} {
		for i, p := range list {
			if len(p.shape) != 3 {
				return nil, fmt.Errorf("vertex %s has shape %v, want an image [C H W]", p.name, p.shape)
			}
			if first == nil {
				first = &list[i]
			} else if p.shape[1] != first.shape[1] || p.shape[2] != first.shape[2] {
				return nil, fmt.Errorf("vertex %s is %dx%d but vertex %s is %dx%d; a 3x3 convolution keeps height and width",
					p.name, p.shape[1], p.shape[2], first.name, first.shape[1], first.shape[2])
			}
		}
	}
	var params [][]int
	for _, t := range tgt {
		for _, s := range src {
			params = append(params, []int{t.shape[0], s.shape[0], 3, 3})
		}
	}
	return params, nil
}

func mustImage(s []int) error {
	if len(s) != 3 {
		return fmt.Errorf("shape %v is not an image [C H W]", s)
	}
	return nil
}

func halve(s []int) ([]int, error) {
	if err := mustImage(s); err != nil {
		return nil, err
	}
	if s[1]%2 != 0 || s[2]%2 != 0 {
		return nil, fmt.Errorf("shape %v: max-pooling needs an even height and width", s)
	}
	return []int{s[0], s[1] / 2, s[2] / 2}, nil
}

func double(s []int) ([]int, error) {
	if err := mustImage(s); err != nil {
		return nil, err
	}
	return []int{s[0], 2 * s[1], 2 * s[2]}, nil
}

func flatten(s []int) ([]int, error) {
	if err := mustImage(s); err != nil {
		return nil, err
	}
	return []int{s[0] * s[1] * s[2]}, nil
}
