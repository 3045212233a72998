// Package parallel shares fixed chunks of work between the cores: one pool
// of helper goroutines serves the kernels of package blas and the solvers
// of packages core and methods. Chunk boundaries are chosen
// by the callers from the shapes alone, never from the number of workers,
// so every result is computed by the same operations whatever GOMAXPROCS is.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Task is work split into a fixed number of chunks; Do(c) computes chunk c.
// Chunks of one For call run concurrently and must not write the same
// memory.
type Task interface{ Do(chunk int) }

// batch tracks one For call. Chunks are claimed from next; done counts
// the finished ones, and whoever finishes the last signals fin. refs
// counts the goroutines holding the batch (the caller and the helpers
// handed it); the last to let go recycles it. The caller waits only for
// chunks that were claimed, never for a helper that has not run yet: on a
// loaded machine a woken helper may wait milliseconds for a CPU, and the
// caller then computes every chunk itself.
type batch struct {
	t    Task
	n    int64
	next atomic.Int64
	done atomic.Int64
	refs atomic.Int32
	// wait is waitSpin while the caller spins on done, waitDone once the
	// last chunk is done, waitSleep when the caller sleeps on fin.
	wait atomic.Int32
	fin  chan struct{}
}

const (
	waitSpin = iota
	waitDone
	waitSleep
)

func (b *batch) drain() {
	for {
		c := b.next.Add(1) - 1
		if c >= b.n {
			return
		}
		b.t.Do(int(c))
		if b.done.Add(1) == b.n && !b.wait.CompareAndSwap(waitSpin, waitDone) {
			b.fin <- struct{}{}
		}
	}
}

// finish returns once every chunk of b is done: it spins for up to spin,
// yielding the processor between checks, then sleeps on fin.
func (b *batch) finish() {
	for start := time.Now(); b.done.Load() != b.n; {
		if time.Since(start) > spin {
			if b.wait.CompareAndSwap(waitSpin, waitSleep) {
				<-b.fin
			}
			return
		}
		runtime.Gosched()
	}
}

// release drops one reference to b and recycles it after the last.
func (b *batch) release() {
	if b.refs.Add(-1) == 0 {
		b.t = nil
		batches.Put(b)
	}
}

var (
	helpers     = make(chan *batch) // idle helpers receive here
	helpersOnce sync.Once
	batches     = make(FreeList[batch], 16)
	// offer hands a batch to a helper that is spinning after its last
	// one (spinning counts them), without waking a sleeping goroutine.
	offer    atomic.Pointer[batch]
	spinning atomic.Int32
)

// spin is how long a helper waits for a batch on offer after finishing
// one, and For's caller for the helpers' chunks, yielding the processor
// between checks, before sleeping: a Fisher X step's FISTA iterations
// call For in quick succession, and waking a sleeping helper costs more
// than a short spin. Chosen by blas.BenchmarkGemm_M50K50N700; see
// bench/NOTES.md.
const spin = 50 * time.Microsecond

func helper() {
	for b := range helpers {
		for b != nil {
			b.drain()
			b.release()
			b = next()
		}
	}
}

// next waits up to spin for a batch on offer and returns it, or nil.
func next() *batch {
	spinning.Add(1)
	defer spinning.Add(-1)
	for start := time.Now(); time.Since(start) <= spin; runtime.Gosched() {
		if b := offer.Load(); b != nil && offer.CompareAndSwap(b, nil) {
			return b
		}
	}
	return nil
}

// MinWork is the work (multiply-adds, or ElemWork per element of a pass
// over memory) from which callers split a product into chunks for For
// (blas.Gemm, whose chunks round differently from the whole product, so
// it fixes those bits) or start goroutines of their own: below it a
// hand-off costs more than it saves. Chosen by the scaling study's E-FDDL
// (BenchmarkScaleTwoCores); see bench/NOTES.md.
const MinWork = 1 << 20

// ElemWork is the work of one element of a pass over memory (the FISTA
// prox step, counting and storing non-zeros, the Fisher X step's per-class
// pass), in multiply-adds: each reads and writes several arrays. Chosen by
// BenchmarkScaleTwoCores/E-FDDL/C=100/d=300; see bench/NOTES.md.
const ElemWork = 4

// forMin is the least work For shares with helpers. A helper spins for
// its next batch and the caller for the helpers' chunks (spin), so that
// back-to-back calls hand off without a wake-up. Chosen by
// BenchmarkTwoCores (package methods); see bench/NOTES.md.
const forMin = MinWork / 8

// For runs t.Do(c) for c in [0, n), on the calling goroutine and, if work
// is at least forMin, on whichever helper goroutines are idle: below
// MinWork only on one still spinning after its last batch, since waking a
// sleeping one costs the caller more than it saves (BenchmarkTwoCores;
// see bench/NOTES.md). It returns when every chunk is done. It does
// not allocate once warm.
func For(n int, t Task, work int) {
	procs := Procs()
	if n <= 1 || procs < 2 || work < forMin || work < MinWork && spinning.Load() == 0 {
		for c := 0; c < n; c++ {
			t.Do(c)
		}
		return
	}
	helpersOnce.Do(func() {
		for i := 1; i < max(runtime.NumCPU(), runtime.GOMAXPROCS(0)); i++ {
			go helper()
		}
	})
	b := batches.Get()
	if b.fin == nil {
		b.fin = make(chan struct{}, 1)
	}
	b.t, b.n = t, int64(n)
	b.next.Store(0)
	b.done.Store(0)
	b.wait.Store(waitSpin)
	b.refs.Store(int32(min(procs, n))) // the caller and at most procs−1 helpers
	h := 1
	offered := spinning.Load() > 0 && offer.CompareAndSwap(nil, b)
	if offered {
		h++
	}
	if work < MinWork { // wake none
		b.refs.Add(int32(h - min(procs, n)))
		h = min(procs, n)
	}
	for ; h < min(procs, n); h++ {
		select {
		case helpers <- b:
			continue
		default:
			// No idle helper: drop the references of those not handed b.
			b.refs.Add(int32(h - min(procs, n)))
		}
		break
	}
	b.drain()
	if offered && offer.CompareAndSwap(b, nil) {
		b.refs.Add(-1) // no helper took the offer
	}
	b.finish()
	b.release()
}

// jobs counts the goroutines running a whole job (Job) at the moment.
var jobs atomic.Int32

// Job runs f, a whole job such as one fit, counted among the jobs that
// run at once (eval's splits and cross-validation fits trained side by
// side, or the two halves of a fit's fused X step, each keeping a core).
// A job may run jobs of its own: each counts while it runs.
func Job(f func()) {
	jobs.Add(1)
	defer jobs.Add(-1)
	f()
}

// Procs returns how many goroutines work within a job may use: GOMAXPROCS,
// or 1 while at least GOMAXPROCS jobs run, each then keeping a core busy,
// so that handing chunks to helpers would only take turns with the other
// jobs (For then runs every chunk on its caller, with the same result).
func Procs() int {
	p := runtime.GOMAXPROCS(0)
	if int(jobs.Load()) >= p {
		return 1
	}
	return p
}

// FreeList recycles values without allocating: Get returns a recycled
// value or a new zero one, Put keeps a value if there is room.
type FreeList[T any] chan *T

// Get returns a value from f, or a new one if f is empty.
func (f FreeList[T]) Get() *T {
	select {
	case t := <-f:
		return t
	default:
		return new(T)
	}
}

// Put returns t to f, dropping it if f is full.
func (f FreeList[T]) Put(t *T) {
	select {
	case f <- t:
	default:
	}
}

// Chunks returns the size and count of the chunks that a side of n rows or
// columns of a level-3 product splits into (blas.Gemm, blas.Level3),
// from n alone: at most 4 chunks of a multiple of 8 rows, at least 32 each
// (the last may be shorter), or one chunk of n when n < 64. Each chunk of
// a product packs the other operand again, so fewer chunks cost less; at
// most 4 was chosen by BenchmarkFDDLUpdateD_Original (package methods);
// see bench/NOTES.md.
func Chunks(n int) (size, count int) {
	const least, most = 32, 4
	if n < 2*least {
		return n, min(n, 1)
	}
	size = (max(least, (n+most-1)/most) + 7) &^ 7
	return size, (n + size - 1) / size
}
