package kernels

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// task is work split into a fixed number of chunks. Chunk boundaries
// depend only on the shapes, never on the number of workers, so every
// output element is computed by the same operations whatever GOMAXPROCS is.
type task interface{ do(chunk int) }

// batch tracks one parallelFor call.
type batch struct {
	t    task
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
		b.t.do(int(c))
	}
}

var (
	helpers     = make(chan *batch) // idle helpers receive here
	helpersOnce sync.Once
	batches     = make(freeList[batch], 16)
)

func helper() {
	for b := range helpers {
		b.drain()
		b.wg.Done()
	}
}

// minParallelWork is the smallest amount of work (multiply-adds or
// elements) worth waking a second core for.
const minParallelWork = 1 << 16

// parallelFor runs t.do(c) for c in [0, n), on the calling goroutine and, if
// work is at least minParallelWork, on whichever helper goroutines are idle.
// It does not allocate once warm.
func parallelFor(n int, t task, work int) {
	procs := runtime.GOMAXPROCS(0)
	if n <= 1 || procs < 2 || work < minParallelWork {
		for c := 0; c < n; c++ {
			t.do(c)
		}
		return
	}
	helpersOnce.Do(func() {
		for i := 1; i < max(runtime.NumCPU(), runtime.GOMAXPROCS(0)); i++ {
			go helper()
		}
	})
	b := batches.get()
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
	batches.put(b)
}

// freeList recycles kernel arguments without allocating.
type freeList[T any] chan *T

func (f freeList[T]) get() *T {
	select {
	case t := <-f:
		return t
	default:
		return new(T)
	}
}

func (f freeList[T]) put(t *T) {
	select {
	case f <- t:
	default:
	}
}

// chunks splits n items into at most maxChunks chunks of at least minSize
// items and returns the chunk size and count.
func chunks(n, minSize int) (size, count int) {
	if n == 0 {
		return 1, 0
	}
	size = max(minSize, (n+maxChunks-1)/maxChunks, 1)
	return size, (n + size - 1) / size
}

const maxChunks = 64
