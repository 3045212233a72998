package blas

import "github.com/lrsdl/lrsdl/internal/parallel"

// parallelFor runs t.Do(c) for c in [0, n) on the cores, as parallel.For:
// chunk boundaries depend only on the shapes, never on the number of
// workers, so every output element is computed by the same operations
// whatever GOMAXPROCS is.
func parallelFor(n int, t parallel.Task, work int) { parallel.For(n, t, work) }

// freeList recycles kernel arguments without allocating.
type freeList[T any] = parallel.FreeList[T]

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

// elemWork is the work of one element of a pass over memory
// (parallel.ElemWork).
const elemWork = parallel.ElemWork
