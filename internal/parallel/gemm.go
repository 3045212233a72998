package parallel

import "gonum.org/v1/gonum/blas"

// Dgemmer is the Dgemm of a blas.Float64Level3 (row-major, as in gonum's
// blas package).
type Dgemmer interface {
	Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int)
}

// SplitMin is the smallest product, in multiply-adds m·n·k, that SplitDgemm
// shares between the cores. At AR-gender size (the 50×50 by 50×700 product
// of the LRSDL X step, 1.75e6) a single-threaded OpenBLAS call lasts about
// 0.1 ms, long enough to pay for waking a second core.
const SplitMin = 1 << 18

// SplitDgemm sets C = alpha·op(A)·op(B) + beta·C with calls of d.Dgemm
// (arguments as in blas.Float64Level3's Dgemm). A product of at least
// SplitMin multiply-adds is computed as fixed chunks of the columns of C
// (of its rows when C has fewer than 2·gemmMinSize columns), which run on
// the calling goroutine and on whichever of the package's helper goroutines
// are idle; d.Dgemm must be safe for concurrent use. The chunks depend only
// on m and n, never on GOMAXPROCS, so the result does not depend on it
// either; it equals one call of d.Dgemm on the whole product when d
// computes each element of C by the same operations whatever the size of
// the product (single-threaded OpenBLAS does; gonum's Dgemm does in the
// NoTrans×NoTrans and Trans×NoTrans cases). SplitDgemm does not allocate
// once warm.
func SplitDgemm(d Dgemmer, tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	work := float64(m) * float64(n) * float64(k)
	rows := n < 2*gemmMinSize
	size, count := gemmChunks(n, work)
	if rows {
		size, count = gemmChunks(m, work)
	}
	if count < 2 || work < SplitMin || m == 0 || n == 0 || k == 0 {
		d.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if (tA != blas.NoTrans && tA != blas.Trans && tA != blas.ConjTrans) || (tB != blas.NoTrans && tB != blas.Trans && tB != blas.ConjTrans) {
		panic(errTrans)
	}
	// Each chunk passes d only its own part of a, b and c: check the whole
	// product's here.
	if !fits(tA, m, k, a, lda) || !fits(tB, k, n, b, ldb) || !fits(blas.NoTrans, m, n, c, ldc) {
		panic(errShape)
	}
	j := gemmJobs.Get()
	*j = gemmJob{d: d, tA: tA, tB: tB, m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, beta: beta, c: c, ldc: ldc, size: size, rows: rows}
	For(count, j, int(min(work, 1<<62)))
	*j = gemmJob{}
	gemmJobs.Put(j)
}

// fits reports whether s holds op(X), an r×c matrix with leading dimension
// ld, X = op(X) if t is NoTrans and op(X)ᵀ otherwise.
func fits(t blas.Transpose, r, c int, s []float64, ld int) bool {
	if t != blas.NoTrans {
		r, c = c, r
	}
	return ld >= max(1, c) && len(s) >= ld*(r-1)+c
}

// gemmChunks returns the size and number of SplitDgemm's chunks of n
// columns (or rows) of a product of work multiply-adds: 2 chunks, 4 or 8
// when each still gets at least gemmChunkWork, of a multiple of 8 and at
// least gemmMinSize. Narrow chunks cost single-threaded OpenBLAS more in
// total than one call (at 50×700×50, 8 chunks of 88 columns take 1.6 times
// the CPU time of one call, 2 chunks 1.1 times), so products are split in
// as few chunks as keep two cores busy.
func gemmChunks(n int, work float64) (size, count int) {
	count = 2
	for count < gemmMaxChunks && work/float64(2*count) >= gemmChunkWork {
		count *= 2
	}
	size = max(gemmMinSize, ((n+count-1)/count+7)&^7)
	return size, (n + size - 1) / size
}

const (
	gemmMaxChunks = 8
	gemmMinSize   = 32
	gemmChunkWork = 1 << 22
)

type gemmJob struct {
	d             Dgemmer
	tA, tB        blas.Transpose
	m, n, k       int
	alpha, beta   float64
	a, b, c       []float64
	lda, ldb, ldc int
	size          int
	rows          bool // chunks of rows, not columns
}

var gemmJobs = make(FreeList[gemmJob], 8)

// Do computes chunk ch: columns [lo, lo+size) of C, which read the same
// columns of op(B), or rows, which read the same rows of op(A).
func (j *gemmJob) Do(ch int) {
	lo := ch * j.size
	if j.rows {
		h := min(j.size, j.m-lo)
		off := lo * j.lda
		if j.tA != blas.NoTrans {
			off = lo
		}
		j.d.Dgemm(j.tA, j.tB, h, j.n, j.k, j.alpha, j.a[off:], j.lda, j.b, j.ldb, j.beta, j.c[lo*j.ldc:], j.ldc)
		return
	}
	w := min(j.size, j.n-lo)
	off := lo
	if j.tB != blas.NoTrans {
		off = lo * j.ldb
	}
	j.d.Dgemm(j.tA, j.tB, j.m, w, j.k, j.alpha, j.a, j.lda, j.b[off:], j.ldb, j.beta, j.c[lo:], j.ldc)
}

const (
	errShape = "parallel: dimension mismatch"
	errTrans = "parallel: bad transpose"
)
