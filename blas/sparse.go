package blas

import (
	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// SparseAtB sets dst = Aᵀ·B for a dense d×K matrix A and a sparse d×N
// matrix B in CSC form (samples as columns), reading B's raw arrays:
//
//	dst[:, j] = Σ_{i: B_ij ≠ 0} B_ij · A[i, :]ᵀ
//
// at a cost of 2·K·nnz(B) flops. Within each column B's entries are added in
// storage order, so with sorted indices the result equals SparseAtBCSR's
// bit for bit. Columns are shared between the cores.
func SparseAtB(dst, a blas64.General, b *sparse.CSC) {
	r := b.RawMatrix() // r.I = N columns, r.J = d rows
	if a.Rows != r.J || dst.Rows != a.Cols || dst.Cols != r.I || len(r.Indptr) != r.I+1 {
		panic(errShape)
	}
	atb(dst, a, r.Indptr, r.Ind, r.Data, false)
}

// SparseAtBCSR is SparseAtB for B in CSR form (d×N, one row per feature).
// Rows of dst are shared between the cores.
func SparseAtBCSR(dst, a blas64.General, b *sparse.CSR) {
	r := b.RawMatrix() // r.I = d rows, r.J = N columns
	if a.Rows != r.I || dst.Rows != a.Cols || dst.Cols != r.J || len(r.Indptr) != r.I+1 {
		panic(errShape)
	}
	atb(dst, a, r.Indptr, r.Ind, r.Data, true)
}

func atb(dst, a blas64.General, ptr, ind []int, val []float64, csr bool) {
	K, N := dst.Rows, dst.Cols
	if K == 0 || N == 0 {
		return
	}
	j := atbJobs.Get()
	*j = atbJob{dst: dst, a: a, ptr: ptr, ind: ind, val: val, csr: csr}
	n, step := N, cscTile
	if csr {
		n, step = K, 16 // CSR: chunks of 16 rows of dst
	}
	j.size = step
	parallelFor((n+step-1)/step, j, K*len(val))
	*j = atbJob{}
	atbJobs.Put(j)
}

type atbJob struct {
	dst, a   blas64.General
	ptr, ind []int
	val      []float64
	size     int
	csr      bool
}

var atbJobs = make(freeList[atbJob], 8)

func (j *atbJob) Do(c int) {
	if j.csr {
		j.rowsCSR(c*j.size, min((c+1)*j.size, j.dst.Rows))
	} else {
		j.colsCSC(c*j.size, min((c+1)*j.size, j.dst.Cols))
	}
}

// colsCSC computes columns [lo, hi) of dst, at most cscTile of them, in
// a scratch tile holding cscRows rows at a time, four entries of B at a time.
func (j *atbJob) colsCSC(lo, hi int) {
	K, ld, lda := j.dst.Rows, j.dst.Stride, j.a.Stride
	ptr, ind, val, ad := j.ptr, j.ind, j.val, j.a.Data
	var s [cscTile][cscRows]float64
	for k0 := 0; k0 < K; k0 += cscRows {
		kb := min(cscRows, K-k0)
		for col := lo; col < hi; col++ {
			acc := s[col-lo][:kb]
			clear(acc)
			q, end := ptr[col], ptr[col+1]
			for ; q+4 <= end; q += 4 {
				a0 := ad[ind[q]*lda+k0:][:kb]
				a1 := ad[ind[q+1]*lda+k0:][:kb]
				a2 := ad[ind[q+2]*lda+k0:][:kb]
				a3 := ad[ind[q+3]*lda+k0:][:kb]
				v0, v1, v2, v3 := val[q], val[q+1], val[q+2], val[q+3]
				for k, x := range acc {
					x += v0 * a0[k]
					x += v1 * a1[k]
					x += v2 * a2[k]
					x += v3 * a3[k]
					acc[k] = x
				}
			}
			for ; q < end; q++ {
				v := val[q]
				a0 := ad[ind[q]*lda+k0:][:kb]
				for k := range acc {
					acc[k] += v * a0[k]
				}
			}
		}
		for k := 0; k < kb; k++ {
			d := j.dst.Data[(k0+k)*ld+lo : (k0+k)*ld+hi]
			for c := range d {
				d[c] = s[c][k]
			}
		}
	}
}

const (
	cscTile = 8   // columns of dst per chunk: one cache line of a row
	cscRows = 256 // rows of dst per pass over a column
)

// rowsCSR computes rows [lo, hi) of dst.
func (j *atbJob) rowsCSR(lo, hi int) {
	N, ld, lda := j.dst.Cols, j.dst.Stride, j.a.Stride
	ptr, ind, val := j.ptr, j.ind, j.val
	for k := lo; k < hi; k++ {
		clear(j.dst.Data[k*ld : k*ld+N])
	}
	for i := 0; i+1 < len(ptr); i++ {
		q, end := ptr[i], ptr[i+1]
		if q == end {
			continue
		}
		ix, xv := ind[q:end], val[q:end]
		for k, av := range j.a.Data[i*lda+lo : i*lda+hi] {
			d := j.dst.Data[(lo+k)*ld : (lo+k)*ld+N]
			for t, col := range ix {
				d[col] += av * xv[t]
			}
		}
	}
}

// Density crossovers for SparseWorkspace.Mul: A·X goes through the
// compressed copy of X when the fraction of non-zeros of X is at most the
// value for the BLAS in use, and through Gemm otherwise; the value is
// about the cost of a sparse multiply-add relative to Gemm's. gonum's Gemm
// is slower than the sparse path at any density, hence 1. Chosen by
// benchmarks; see bench/NOTES.md.
const (
	DensityCrossoverGonum    = 1
	DensityCrossoverOpenBLAS = 0.15
)

// DensityCrossover returns the crossover density for the BLAS that blas64
// currently uses: DensityCrossoverGonum for gonum's, DensityCrossoverOpenBLAS
// for any other.
func DensityCrossover() float64 {
	if PureGo() {
		return DensityCrossoverGonum
	}
	return DensityCrossoverOpenBLAS
}

// PureGo reports whether blas64 currently uses gonum's pure-Go BLAS, whose
// kernels favour different shapes than OpenBLAS's.
func PureGo() bool {
	_, ok := blas64.Implementation().(gonum.Implementation)
	return ok
}

// NonZeros returns the number of non-zero elements of x.
func NonZeros(x blas64.General) int {
	var n int
	for i := 0; i < x.Rows; i++ {
		for _, v := range x.Data[i*x.Stride : i*x.Stride+x.Cols] {
			if v != 0 {
				n++
			}
		}
	}
	return n
}
