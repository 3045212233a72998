// Package parallel shares fixed chunks of work between the cores: one pool
// of helper goroutines serves the kernels of package kernels and the
// column-split Dgemm of the OpenBLAS backend. Chunk boundaries are chosen
// by the callers from the shapes alone, never from the number of workers,
// so every result is computed by the same operations whatever GOMAXPROCS is.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Task is work split into a fixed number of chunks; Do(c) computes chunk c.
// Chunks of one For call run concurrently and must not write the same
// memory.
type Task interface{ Do(chunk int) }

// batch tracks one For call.
type batch struct {
	t    Task
	n    int64
	next atomic.Int64
	wg   sync.WaitGroup
}

func (b *batch) drain() {
	for {
		c := b.next.Add(1) - 1
		if c >= b.n {
			return
		}
		b.t.Do(int(c))
	}
}

var (
	helpers     = make(chan *batch) // idle helpers receive here
	helpersOnce sync.Once
	batches     = make(FreeList[batch], 16)
)

func helper() {
	for b := range helpers {
		b.drain()
		b.wg.Done()
	}
}

// MinWork is the smallest amount of work (multiply-adds or elements) For
// wakes a second core for.
const MinWork = 1 << 16

// For runs t.Do(c) for c in [0, n), on the calling goroutine and, if work
// is at least MinWork, on whichever helper goroutines are idle. It does not
// allocate once warm.
func For(n int, t Task, work int) {
	procs := runtime.GOMAXPROCS(0)
	if n <= 1 || procs < 2 || work < MinWork {
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
	b.t, b.n = t, int64(n)
	b.next.Store(0)
	for h := 1; h < min(procs, n); h++ {
		b.wg.Add(1)
		select {
		case helpers <- b:
			continue
		default:
			b.wg.Done()
		}
		break
	}
	b.drain()
	b.wg.Wait()
	b.t = nil
	batches.Put(b)
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
