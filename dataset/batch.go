package dataset

import (
	"fmt"
	"math/rand/v2"
)

// Batches yields the indices 0..n-1 in minibatches, in an order shuffled anew
// at the start of each epoch. Every index is in exactly one batch of an epoch.
// All batches have the batch size except the last of an epoch, which is
// smaller if the size does not divide n.
type Batches struct {
	// DropLast makes Next skip the last batch of an epoch if it is
	// smaller than the batch size, so that every batch has the same size.
	// Those indices then miss that epoch.
	DropLast bool

	size    int
	rnd     *rand.Rand
	perm    []int // order of the indices in the current epoch
	pos     int   // start of the next batch in perm
	epoch   int   // number of epochs started
	inEpoch bool
}

// NewBatches returns minibatches of size indices from 0..n-1, shuffled by rnd.
// It panics if n is negative, size is not positive or rnd is nil.
func NewBatches(n, size int, rnd *rand.Rand) *Batches {
	if n < 0 || size < 1 {
		panic(fmt.Sprintf("dataset: batches of size %d from %d indices", size, n))
	}
	if rnd == nil {
		panic("dataset: batches with a nil source of randomness")
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	return &Batches{size: size, rnd: rnd, perm: perm}
}

// Next returns the indices of the next batch of the current epoch, with ok
// true, or nil and false at the end of the epoch. The call after that starts
// a new epoch, in a new order.
//
// The returned slice belongs to b: it stays valid until the next epoch starts
// and must not be modified.
func (b *Batches) Next() (idx []int, ok bool) {
	if !b.inEpoch {
		b.rnd.Shuffle(len(b.perm), func(i, j int) { b.perm[i], b.perm[j] = b.perm[j], b.perm[i] })
		b.pos = 0
		b.epoch++
		b.inEpoch = true
	}
	rest := len(b.perm) - b.pos
	if rest == 0 || (b.DropLast && rest < b.size) {
		b.inEpoch = false
		return nil, false
	}
	k := min(b.size, rest)
	idx = b.perm[b.pos : b.pos+k : b.pos+k]
	b.pos += k
	return idx, true
}

// Len returns the number of batches in an epoch.
func (b *Batches) Len() int {
	n := len(b.perm) / b.size
	if !b.DropLast && len(b.perm)%b.size != 0 {
		n++
	}
	return n
}

// Epoch returns the number of epochs that Next has started: 0 before the
// first call, 1 from then until the call that ends the first epoch, included,
// and so on.
func (b *Batches) Epoch() int {
	return b.epoch
}
