package sculpt

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// warnData warns, through the run's Progress, of data that train a
// machine that cannot be good or whose test accuracy misleads.
func (r *run) warnData() {
	r.warnUntrained()
	r.warnSmall()
	r.warnUnbalanced()
}

// warnUntrained warns of classes without a training image, whose logits
// are never trained: labels that skip numbers, or that count from 1, or
// test labels of another numbering than the training labels, make them.
func (r *run) warnUntrained() {
	seen := make([]bool, r.arch.Classes)
	for _, y := range r.train.Labels {
		seen[y] = true
	}
	var missing []string
	for y, ok := range seen {
		if !ok {
			missing = append(missing, strconv.Itoa(y))
		}
	}
	if missing == nil {
		return
	}
	r.warnf("%d of the %d classes have no training image, and the machine cannot learn them: labels %s",
		len(missing), len(seen), shortList(missing))
}

// minSide is the side, in pixels, of the smallest images not warned of
// as too small for the generous architecture, whose nodes max-pool an
// image of a side that 2 or 4 divides to a half and a quarter of it.
const minSide = 8

// warnSmall warns of images smaller than minSide on a side: their few
// pixels, pooled down further, leave the convolutions little to read.
func (r *run) warnSmall() {
	a := r.arch
	if a.Rows >= minSide && a.Cols >= minSide {
		return
	}
	low := [2]int{a.Rows, a.Cols}
	for _, n := range a.Nodes {
		if n.Out[0]*n.Out[1] < low[0]*low[1] {
			low = n.Out
		}
	}
	pooled := fmt.Sprintf("whose nodes pool them down to %dx%d", low[1], low[0])
	if low == [2]int{a.Rows, a.Cols} {
		pooled = "whose convolutions read 3x3 pixels"
	}
	r.warnf("images of %dx%d pixels are small for the architecture, %s: "+
		"such images may train at chance; resized larger (to 28x28, say), the same pixels give its convolutions room", a.Cols, a.Rows, pooled)
}

// maxImbalance is the ratio of the largest class's training images to
// the smallest's beyond which the classes are warned of as unbalanced.
const maxImbalance = 10

// warnUnbalanced warns of classes of very unlike numbers of training
// images, where a machine that answers the largest class whatever the
// image scores a test accuracy of that class's share, and of classes
// without a test image, of which the test accuracy says nothing.
func (r *run) warnUnbalanced() {
	count := func(labels []int) []int {
		n := make([]int, r.arch.Classes)
		for _, y := range labels {
			n[y]++
		}
		return n
	}
	train, test := count(r.train.Labels), count(r.test.Labels)
	name := func(y int) string {
		if y < len(r.train.Names) {
			return strconv.Quote(r.train.Names[y])
		}
		return strconv.Itoa(y)
	}
	big := slices.Index(train, slices.Max(train))
	small := -1
	for y, n := range train {
		if n > 0 && (small < 0 || n < train[small]) {
			small = y
		}
	}
	if train[big] > maxImbalance*train[small] {
		r.warnf("the classes are unbalanced, %d training images of class %s and %d of class %s: "+
			"a machine that answers %s whatever the image scores a test accuracy of %.4f; weigh the test accuracy against it",
			train[big], name(big), train[small], name(small), name(big), float64(test[big])/float64(r.test.N))
	}
	var untested []string
	for y := range train {
		if train[y] > 0 && test[y] == 0 {
			untested = append(untested, name(y))
		}
	}
	if untested != nil {
		r.warnf("no test image of %d of the %d classes (%s): the test accuracy says nothing of them",
			len(untested), len(train), shortList(untested))
	}
}

// shortList joins the first few of the items, saying how many more
// there are.
func shortList(items []string) string {
	const show = 10
	list := strings.Join(items[:min(len(items), show)], ", ")
	if len(items) > show {
		list += fmt.Sprintf(" and %d more", len(items)-show)
	}
	return list
}
