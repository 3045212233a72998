package blas

import (
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/lrsdl/lrsdl/internal/parallel"
)

// MulM sets dst = M(A)·X for a square K×K matrix A whose diagonal blocks are
// A[p[c]:p[c+1], p[c]:p[c+1]] and a K×N matrix X:
//
//	dst = M(A)·X = A·X + diag(A₁₁, …, A_CC)·X
//
// M(A), A with its diagonal blocks doubled, is formed once in a pooled
// buffer (K² copies) and multiplied with one Gemm, 2K²N flops; the result
// equals DoubleDiagBlocks followed by Gemm bit for bit. p has C+1
// non-decreasing entries, p[0] = 0, p[C] = K. dst must not overlap a or x.
// When M(A) (or M(A)+cI) multiplies many matrices, as in FISTA, form it
// once with DoubleDiagBlocks instead and use a single Gemm per product.
func MulM(dst, a, x blas64.General, p []int) {
	K, N := x.Rows, x.Cols
	if a.Rows != K || a.Cols != K || dst.Rows != K || dst.Cols != N {
		panic(errShape)
	}
	if len(p) < 2 || p[0] != 0 || p[len(p)-1] != K {
		panic(errPart)
	}
	for c := 0; c+1 < len(p); c++ {
		if p[c+1] < p[c] {
			panic(errPart)
		}
	}
	if K == 0 || N == 0 {
		return
	}
	buf := mBufs.Get()
	if cap(*buf) < K*K {
		*buf = make([]float64, K*K)
	}
	m := blas64.General{Rows: K, Cols: K, Stride: K, Data: (*buf)[:K*K]}
	for i := 0; i < K; i++ {
		copy(m.Data[i*K:(i+1)*K], a.Data[i*a.Stride:i*a.Stride+K])
	}
	DoubleDiagBlocks(m, p, p)
	blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, m, x, 0, dst)
	mBufs.Put(buf)
}

// mBufs holds MulM's buffers for M(A).
var mBufs = make(freeList[[]float64], 2)

// AtB sets dst = Aᵀ·B for a d×K matrix A and a d×N matrix B with one Gemm,
// 2dKN flops: DᵀY for dense samples Y. See SparseAtB for sparse Y.
func AtB(dst, a, b blas64.General) {
	if a.Rows != b.Rows || dst.Rows != a.Cols || dst.Cols != b.Cols {
		panic(errShape)
	}
	if dst.Rows == 0 || dst.Cols == 0 {
		return
	}
	if a.Rows == 0 {
		zero(dst)
		return
	}
	blas64.Gemm(gblas.Trans, gblas.NoTrans, 1, a, b, 0, dst)
}

// View returns the submatrix a[r0:r1, c0:c1], sharing a's storage; it
// must not be empty.
func View(a blas64.General, r0, r1, c0, c1 int) blas64.General {
	return blas64.General{
		Rows:   r1 - r0,
		Cols:   c1 - c0,
		Stride: a.Stride,
		Data:   a.Data[r0*a.Stride+c0 : (r1-1)*a.Stride+c1],
	}
}

func zero(a blas64.General) {
	for i := 0; i < a.Rows; i++ {
		clear(a.Data[i*a.Stride : i*a.Stride+a.Cols])
	}
}

// Gemm sets c = alpha·op(A)·op(B) + beta·c as blas64.Gemm does, split
// into fixed chunks of rows or columns of c shared between the cores,
// each computed by one Gemm call. It splits the longer side of c (columns
// if c is square) into the chunks of parallel.Chunks; they depend only on
// the shapes, so the result is the same whatever GOMAXPROCS is, though it
// need not round as the unsplit product. Products of fewer than
// parallel.MinWork multiply-adds are one call, and so are those of at
// least GemmThreadsMin, which the BLAS splits itself (Level3
// by rows if c is square, gonum's by blocks).
func Gemm(tA, tB gblas.Transpose, alpha float64, a, b blas64.General, beta float64, c blas64.General) {
	m, n := c.Rows, c.Cols
	k := a.Cols
	if tA == gblas.Trans {
		k = a.Rows
	}
	work := m * n * k
	side := max(m, n)
	if work < parallel.MinWork || work >= GemmThreadsMin || m == 0 || n == 0 || k == 0 {
		blas64.Gemm(tA, tB, alpha, a, b, beta, c)
		return
	}
	// Each chunk of rows repacks op(B) and each chunk of columns op(A), so
	// splitting the longer side repacks the smaller operand.
	j := gemmJobs.Get()
	*j = gemmJob{tA: tA, tB: tB, alpha: alpha, beta: beta, a: a, b: b, c: c, k: k, rows: m > n}
	var nc int
	j.size, nc = parallel.Chunks(side)
	parallelFor(nc, j, work)
	*j = gemmJob{}
	gemmJobs.Put(j)
}

type gemmJob struct {
	tA, tB      gblas.Transpose
	alpha, beta float64
	a, b, c     blas64.General
	k, size     int
	rows        bool // chunks of rows of c, else of columns
}

var gemmJobs = make(freeList[gemmJob], 8)

func (j *gemmJob) Do(ch int) {
	a, b, c := j.a, j.b, j.c
	if j.rows {
		lo, hi := ch*j.size, min((ch+1)*j.size, c.Rows)
		if j.tA == gblas.Trans {
			a = View(a, 0, j.k, lo, hi)
		} else {
			a = View(a, lo, hi, 0, j.k)
		}
		c = View(c, lo, hi, 0, c.Cols)
	} else {
		lo, hi := ch*j.size, min((ch+1)*j.size, c.Cols)
		if j.tB == gblas.Trans {
			b = View(b, lo, hi, 0, j.k)
		} else {
			b = View(b, 0, j.k, lo, hi)
		}
		c = View(c, 0, c.Rows, lo, hi)
	}
	blas64.Gemm(j.tA, j.tB, j.alpha, a, b, j.beta, c)
}
