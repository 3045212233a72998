//go:build openblas && cgo

package blas

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/netlib/blas/netlib"

	"github.com/lrsdl/lrsdl/blas/internal/openblas"
	"github.com/lrsdl/lrsdl/internal/parallel"
)

const openBLASLinked = true

// OpenBLAS is the openblas build's BLAS: level 3 (Gemm, Syrk, Trsm, …) from
// OpenBLAS through netlib, levels 1 and 2 from gonum. OpenBLAS's ddot and
// dgemv round differently depending on the alignment of their arguments in
// memory, so the same seed could train different models within one process;
// gonum's are reproducible, and these memory-bound routines gain little from
// OpenBLAS. Level 3 runs as Level3 says.
type OpenBLAS struct {
	gblas.Float64Level1
	gblas.Float64Level2
	gblas.Float64Level3
}

var openBLAS = OpenBLAS{gonum.Implementation{}, gonum.Implementation{}, Level3{}}

// Level3 is OpenBLAS's level 3 through netlib, OpenBLAS kept on one thread.
// A call of at least GemmThreadsMin multiply-adds (as each routine's doc
// counts them) is split into fixed chunks, each a one-thread call, that
// the cores share (SetOpenBLASThreads):
//
//   - Dgemm: the longer side of C (rows if C is square) in the chunks of
//     internal/parallel.Chunks, which blas.Gemm uses for smaller ones;
//   - Dsymm, Dtrmm, Dtrsm: the columns of B (Left) or its rows (Right);
//   - Dsyrk, Dsyr2k: blocks of columns of C's triangle, the diagonal block
//     by the routine itself and the rest of the block by Dgemm.
//
// The chunks depend on the shapes alone, so a result is the same whatever
// the number of cores, GOMAXPROCS and SetOpenBLASThreads, though it need
// not round as the unsplit call. Threaded OpenBLAS rounds differently with
// its thread count, and after every threaded call its threads spin, taking
// the other cores from the library's goroutines; so OpenBLAS never runs
// threaded here.
type Level3 struct {
	netlib.Implementation
	from int // when not 0, the size split from instead of GemmThreadsMin (tests)
}

// GemmThreadsMin is the size, in multiply-adds, of a level-3 call from
// which Level3 splits it between the cores. At 2^25 every product of AR
// gender training (d=300, N=700, K̄=50: at most 1.1e7) is one call;
// blas.Gemm splits products from parallel.MinWork on itself. Chosen with
// BenchmarkGemmThreads (bench/NOTES.md).
const GemmThreadsMin = 1 << 25

// Dgemm is netlib's Dgemm, split from GemmThreadsMin (m·n·k) multiply-adds
// on.
func (l Level3) Dgemm(tA, tB gblas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	side := max(m, n)
	size, count := parallel.Chunks(side)
	if !l.split(float64(m)*float64(n)*float64(k), count) {
		l.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	rows := m >= n
	run(count, func(ch int) {
		lo, hi := ch*size, min((ch+1)*size, side)
		if rows {
			l.Implementation.Dgemm(tA, tB, hi-lo, n, k, alpha, a[sliceAt(tA == gblas.NoTrans, lo, lda):], lda, b, ldb, beta, c[lo*ldc:], ldc)
		} else {
			l.Implementation.Dgemm(tA, tB, m, hi-lo, k, alpha, a, lda, b[sliceAt(tB == gblas.Trans, lo, ldb):], ldb, beta, c[lo:], ldc)
		}
	})
}

// Dsymm is netlib's Dsymm, split from GemmThreadsMin (m·m·n or m·n·n)
// multiply-adds on.
func (l Level3) Dsymm(s gblas.Side, ul gblas.Uplo, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	order, free := sides(s, m, n)
	size, count := parallel.Chunks(free)
	if !l.split(float64(m)*float64(n)*float64(order), count) {
		l.Implementation.Dsymm(s, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	run(count, func(ch int) {
		lo, hi := ch*size, min((ch+1)*size, free)
		if s == gblas.Left {
			l.Implementation.Dsymm(s, ul, m, hi-lo, alpha, a, lda, b[lo:], ldb, beta, c[lo:], ldc)
		} else {
			l.Implementation.Dsymm(s, ul, hi-lo, n, alpha, a, lda, b[lo*ldb:], ldb, beta, c[lo*ldc:], ldc)
		}
	})
}

// Dsyrk is netlib's Dsyrk, split from GemmThreadsMin (n·n·k/2)
// multiply-adds on.
func (l Level3) Dsyrk(ul gblas.Uplo, t gblas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	size, count := parallel.Chunks(n)
	if !l.split(float64(n)*float64(n)*float64(k)/2, count) {
		l.Implementation.Dsyrk(ul, t, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	rowsA, tA, tB := rankK(t)
	run(count, func(ch int) {
		j0, j1 := ch*size, min((ch+1)*size, n)
		aj := a[sliceAt(rowsA, j0, lda):]
		l.Implementation.Dsyrk(ul, t, j1-j0, k, alpha, aj, lda, beta, c[j0*ldc+j0:], ldc)
		if i0, i1 := rect(ul, j0, j1, n); i1 > i0 {
			l.Implementation.Dgemm(tA, tB, i1-i0, j1-j0, k, alpha, a[sliceAt(rowsA, i0, lda):], lda, aj, lda, beta, c[i0*ldc+j0:], ldc)
		}
	})
}

// Dsyr2k is netlib's Dsyr2k, split from GemmThreadsMin (n·n·k)
// multiply-adds on.
func (l Level3) Dsyr2k(ul gblas.Uplo, t gblas.Transpose, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	size, count := parallel.Chunks(n)
	if !l.split(float64(n)*float64(n)*float64(k), count) {
		l.Implementation.Dsyr2k(ul, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	rowsA, tA, tB := rankK(t)
	run(count, func(ch int) {
		j0, j1 := ch*size, min((ch+1)*size, n)
		aj, bj := a[sliceAt(rowsA, j0, lda):], b[sliceAt(rowsA, j0, ldb):]
		l.Implementation.Dsyr2k(ul, t, j1-j0, k, alpha, aj, lda, bj, ldb, beta, c[j0*ldc+j0:], ldc)
		if i0, i1 := rect(ul, j0, j1, n); i1 > i0 {
			ci := c[i0*ldc+j0:]
			l.Implementation.Dgemm(tA, tB, i1-i0, j1-j0, k, alpha, a[sliceAt(rowsA, i0, lda):], lda, bj, ldb, beta, ci, ldc)
			l.Implementation.Dgemm(tA, tB, i1-i0, j1-j0, k, alpha, b[sliceAt(rowsA, i0, ldb):], ldb, aj, lda, 1, ci, ldc)
		}
	})
}

// Dtrmm is netlib's Dtrmm, split from GemmThreadsMin (m·m·n/2 or m·n·n/2)
// multiply-adds on.
func (l Level3) Dtrmm(s gblas.Side, ul gblas.Uplo, tA gblas.Transpose, d gblas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	l.triangular(false, s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}

// Dtrsm is netlib's Dtrsm, split from GemmThreadsMin (m·m·n/2 or m·n·n/2)
// multiply-adds on.
func (l Level3) Dtrsm(s gblas.Side, ul gblas.Uplo, tA gblas.Transpose, d gblas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	l.triangular(true, s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
}

// triangular runs Dtrsm (solve) or Dtrmm, split by columns (Left) or rows
// (Right) of B.
func (l Level3) triangular(solve bool, s gblas.Side, ul gblas.Uplo, tA gblas.Transpose, d gblas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	order, free := sides(s, m, n)
	size, count := parallel.Chunks(free)
	if !l.split(float64(m)*float64(n)*float64(order)/2, count) {
		l.call(solve, s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	l.splitTriangular(solve, s, ul, tA, d, m, n, alpha, a, lda, b, ldb, size, count, free)
}

// call is netlib's Dtrsm (solve) or Dtrmm.
func (l Level3) call(solve bool, s gblas.Side, ul gblas.Uplo, tA gblas.Transpose, d gblas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	if solve {
		l.Implementation.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
	} else {
		l.Implementation.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
	}
}

// splitTriangular is triangular's split call, apart so that a call that
// is not split does not allocate the closure's captures.
func (l Level3) splitTriangular(solve bool, s gblas.Side, ul gblas.Uplo, tA gblas.Transpose, d gblas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, size, count, free int) {
	run(count, func(ch int) {
		lo, hi := ch*size, min((ch+1)*size, free)
		if s == gblas.Left {
			l.call(solve, s, ul, tA, d, m, hi-lo, alpha, a, lda, b[lo:], ldb)
		} else {
			l.call(solve, s, ul, tA, d, hi-lo, n, alpha, a, lda, b[lo*ldb:], ldb)
		}
	})
}

// sides returns the order of the square operand of a Left (m) or Right
// (n) routine and the other dimension of B.
func sides(s gblas.Side, m, n int) (order, free int) {
	if s == gblas.Left {
		return m, n
	}
	return n, m
}

// sliceAt returns the offset of row i of a row-major matrix with leading
// dimension ld (rows), or of its column i.
func sliceAt(rows bool, i, ld int) int {
	if rows {
		return i * ld
	}
	return i
}

// rankK returns, for Dsyrk or Dsyr2k with transpose t, whether the rows
// of op(A) are rows of A (t = NoTrans) or columns, and the transposes of a
// Dgemm that multiplies rows of op(A) by rows of op(B).
func rankK(t gblas.Transpose) (rows bool, tA, tB gblas.Transpose) {
	if t == gblas.NoTrans {
		return true, gblas.NoTrans, gblas.Trans
	}
	return false, gblas.Trans, gblas.NoTrans
}

// rect returns the rows [i0, i1) of the columns [j0, j1) of an n×n
// triangle ul outside their diagonal block.
func rect(ul gblas.Uplo, j0, j1, n int) (i0, i1 int) {
	if ul == gblas.Upper {
		return 0, j0
	}
	return j1, n
}

// policy is the state of Level3's splitting: threads is
// SetOpenBLASThreads's count, and splits counts the split calls (tests).
var policy struct {
	once    sync.Once
	threads atomic.Int64
	splits  atomic.Int64
}

// setup moves OpenBLAS to one thread, keeping its count (OPENBLAS_NUM_THREADS
// or the number of cores) for SetOpenBLASThreads.
func setup() {
	policy.threads.Store(int64(openblas.Threads()))
	openblas.SetThreads(1)
}

// split reports whether a level-3 call of work multiply-adds, whose free
// side makes count chunks, is split.
func (l Level3) split(work float64, count int) bool {
	policy.once.Do(setup)
	from := GemmThreadsMin
	if l.from != 0 {
		from = l.from
	}
	if work < float64(from) || count < 2 {
		return false
	}
	policy.splits.Add(1)
	return true
}

// run computes the chunks of a split call: shared between the cores, or
// in order on the calling goroutine with SetOpenBLASThreads(1). Shared,
// the chunks go to whichever helpers of internal/parallel are idle, except
// while whole jobs (cross-validation fits, splits trained at once) keep
// every core busy (parallel.Procs); once one ends, the others' products
// are shared again.
func run(count int, f func(int)) {
	if policy.threads.Load() <= 1 {
		for ch := 0; ch < count; ch++ {
			f(ch)
		}
		return
	}
	parallel.For(count, chunkFunc(f), math.MaxInt)
}

type chunkFunc func(int)

func (f chunkFunc) Do(ch int) { f(ch) }

// SetOpenBLASThreads sets whether level-3 calls of at least GemmThreadsMin
// multiply-adds are shared between the cores (n > 1, the default on a
// machine of several cores) or run on the calling goroutine (n = 1), and
// returns the previous setting; n < 1 leaves it. OpenBLAS itself always
// runs on one thread, and the result is the same either way. It does
// nothing in builds without OpenBLAS (returns 1).
func SetOpenBLASThreads(n int) int {
	policy.once.Do(setup)
	if n < 1 {
		return int(policy.threads.Load())
	}
	return int(policy.threads.Swap(int64(n)))
}

func backendDetail() string {
	if Backend() != "openblas" {
		return "gonum pure-Go BLAS (OpenBLAS linked, not in use: see UseOpenBLAS)"
	}
	return fmt.Sprintf("%s, core %s, one thread per call, calls from %d multiply-adds split between %d threads", openblas.Config(),
		openblas.CoreName(), GemmThreadsMin, SetOpenBLASThreads(0))
}

func openBLASCoreHint() string {
	return coreHint(openblas.CoreName(), openblas.HasAVX512(), openblas.HasAVX2())
}

// threads returns OpenBLAS's thread count as it is now.
func threads() int { return openblas.Threads() }
