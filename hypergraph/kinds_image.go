package hypergraph

import "fmt"

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
