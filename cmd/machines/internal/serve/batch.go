package serve

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// version is one loaded version of a model file: its model, and the
// queue and workers that batch its requests. A request takes a reference
// to the version before it queues, so that a version that is replaced or
// removed still computes the requests that started on it: the queue
// closes when the version is retired and the last reference is gone, and
// the workers stop when they have emptied it.
type version struct {
	name, id string
	file     string
	model    Model
	meta     Metadata
	loaded   time.Time
	queue    chan *job
	metrics  *modelMetrics

	// active counts the inference requests to v in flight, from their
	// arrival to their answer.
	active atomic.Int32

	mu      sync.Mutex
	refs    int
	retired bool
	stopped sync.WaitGroup // the workers
}

// job is one request's prepared rows on their way through a batch. Once
// queued, its rows belong to the worker that takes it; the worker sets
// the results and closes done, unless the request has given up (ctx is
// done), in which case the job is dropped.
type job struct {
	ctx  context.Context
	rows *Rows
	n    int
	done chan struct{}

	outputs []Tensor
	lo, hi  int
	err     error
}

// acquire takes a reference to v, or reports false if v is retired.
func (v *version) acquire() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.retired {
		return false
	}
	v.refs++
	return true
}

// release gives back a reference taken by acquire.
func (v *version) release() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.refs--; v.refs == 0 && v.retired {
		close(v.queue)
	}
}

// retire stops v from taking new requests; the queued ones are still
// computed.
func (v *version) retire() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.retired {
		return
	}
	v.retired = true
	if v.refs == 0 {
		close(v.queue)
	}
}

// batching is how the workers of a version form batches.
type batching struct {
	size    int           // rows at most
	delay   time.Duration // wait for more requests once the queue is empty, > 0
	workers int
	queue   int // capacity of a version's queue
	pool    *rowsPool
}

// start starts the workers of v.
func (v *version) start(b batching) {
	for range b.workers {
		v.stopped.Add(1)
		go func() {
			defer v.stopped.Done()
			v.work(b)
		}()
	}
}

// work takes batches from v's queue and computes them until the queue
// is closed and empty.
func (v *version) work(b batching) {
	var (
		pending []*job // taken from the queue, not yet in a batch
		batch   []*job
		stacked Rows
		timer   = time.NewTimer(b.delay)
	)
	timer.Stop()
	for {
		if len(pending) == 0 {
			j, ok := <-v.queue
			if !ok {
				return
			}
			pending = append(pending, j)
		}
		batch, pending = v.collect(batch[:0], pending, b, timer)
		if len(batch) > 0 {
			v.run(batch, &stacked, b.pool)
		}
	}
}

// collect forms a batch: the first pending job and the pending and
// queued jobs of the same row shape, in order, up to b.size rows (a
// first job of more rows is computed alone). It takes queued jobs until
// the batch is full, or b.delay, timed by timer, has passed, or the
// queue is empty and every inference request in flight to v is in the
// batch or pending: under light load a batch does not wait in vain,
// under heavy load it waits for the requests of the clients it answers.
// Jobs that do not fit stay pending, for the next batch; jobs whose
// requests have given up are dropped.
func (v *version) collect(batch, pending []*job, b batching, timer *time.Timer) ([]*job, []*job) {
	rows := 0
	var shape []int
	// take adds j to the batch, or drops it, unless j does not fit.
	take := func(j *job) bool {
		switch {
		case j.ctx.Err() != nil:
			b.pool.put(j.rows)
		case len(batch) == 0:
			batch, rows, shape = append(batch, j), j.n, j.rows.Shape
		case rows+j.n > b.size || !slices.Equal(j.rows.Shape, shape):
			return false
		default:
			batch, rows = append(batch, j), rows+j.n
		}
		return true
	}
	kept := pending[:0]
	for _, j := range pending {
		if !take(j) {
			kept = append(kept, j)
		}
	}
	if len(batch) == 0 {
		return batch, kept
	}
	timer.Reset(b.delay)
	defer timer.Stop()
	for rows < b.size {
		var (
			j  *job
			ok bool
		)
		select {
		case j, ok = <-v.queue:
		default:
			if int(v.active.Load()) <= len(batch)+len(kept) {
				return batch, kept // every request in flight is here: waiting is in vain
			}
			select {
			case j, ok = <-v.queue:
			case <-timer.C:
				return batch, kept
			}
		}
		if !ok {
			break
		}
		if !take(j) {
			kept = append(kept, j)
		}
	}
	return batch, kept
}

// run computes a batch, stacking its rows into stacked if it holds
// several jobs, and hands each job its part of the outputs.
func (v *version) run(batch []*job, stacked *Rows, pool *rowsPool) {
	in := batch[0].rows
	if len(batch) > 1 {
		n := 0
		for _, j := range batch {
			n += j.n
		}
		stacked.Reset(n, in.Shape...)
		at := 0
		for _, j := range batch {
			at += copy(stacked.Data[at:], j.rows.Data)
		}
		in = stacked
	}
	v.metrics.batchRows.Observe(float64(in.N))
	outputs, err := infer(v.model, in, len(v.meta.Outputs))
	lo := 0
	for _, j := range batch {
		pool.put(j.rows)
		j.rows = nil
		j.outputs, j.lo, j.hi, j.err = outputs, lo, lo+j.n, err
		lo += j.n
		close(j.done)
	}
}

// infer calls m.Infer, turning a panic into an error, and checks that
// it returns the given number of outputs with a row per sample.
func infer(m Model, rows *Rows, outputs int) (out []Tensor, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the model panicked: %v\n%s", p, debug.Stack())
		}
	}()
	out, err = m.Infer(rows)
	if err != nil {
		return nil, err
	}
	if len(out) != outputs {
		return nil, fmt.Errorf("the model returned %d outputs, want %d", len(out), outputs)
	}
	for _, t := range out {
		size := len(t.Numbers)
		if t.Datatype == BYTES {
			size = len(t.Texts)
		}
		if len(t.Shape) == 0 || t.Shape[0] != rows.N || size != rows.N*t.rowLen() {
			return nil, fmt.Errorf("the model returned output %q of shape %v and %d elements for %d rows", t.Name, t.Shape, size, rows.N)
		}
	}
	return out, nil
}

// rowsPool keeps the Rows of finished requests for new ones, except
// those grown beyond maxPooled values, which are left to the garbage
// collector so that one large request does not hold memory for good.
type rowsPool struct{ p sync.Pool }

const maxPooled = 1 << 20

func (p *rowsPool) get() *Rows {
	if r, ok := p.p.Get().(*Rows); ok {
		return r
	}
	return new(Rows)
}

func (p *rowsPool) put(r *Rows) {
	if r != nil && cap(r.Data) <= maxPooled {
		p.p.Put(r)
	}
}
