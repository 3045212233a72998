package blas

import (
	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/blas"
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
// bit for bit. Columns are shared between both cores.
func SparseAtB(dst, a blas64.General, b *sparse.CSC) {
	r := b.RawMatrix() // r.I = N columns, r.J = d rows
	if a.Rows != r.J || dst.Rows != a.Cols || dst.Cols != r.I || len(r.Indptr) != r.I+1 {
		panic(errShape)
	}
	atb(dst, a, r.Indptr, r.Ind, r.Data, false)
}

// SparseAtBCSR is SparseAtB for B in CSR form (d×N, one row per feature).
// Rows of dst are shared between both cores.
func SparseAtBCSR(dst, a blas64.General, b *sparse.CSR) {
	r := b.RawMatrix() // r.I = d rows, r.J = N columns
	if a.Rows != r.I || dst.Rows != a.Cols || dst.Cols != r.J || len(r.Indptr) != r.I+1 {
		panic(errShape)
	}
	atb(dst, a, r.Indptr, r.Ind, r.Data, true)
}

// minParallelFlops is the smallest multiply-add count worth a second core.
const minParallelFlops = 1 << 16

func atb(dst, a blas64.General, ptr, ind []int, val []float64, csr bool) {
	K, N := dst.Rows, dst.Cols
	if K == 0 || N == 0 {
		return
	}
	j := atbJobs.get()
	*j = atbJob{dst: dst, a: a, ptr: ptr, ind: ind, val: val, csr: csr}
	n, step := N, 8 // CSC: chunks of 8 columns (one cache line of a dst row)
	if csr {
		n, step = K, 16 // CSR: chunks of 16 rows of dst
	}
	if K*len(val) < minParallelFlops {
		step = n
	}
	j.size = step
	parallelFor((n+step-1)/step, j)
	*j = atbJob{}
	atbJobs.put(j)
}

type atbJob struct {
	dst, a   blas64.General
	ptr, ind []int
	val      []float64
	size     int
	csr      bool
}

var atbJobs = make(freeList[atbJob], 8)

func (j *atbJob) do(c int) {
	if j.csr {
		j.rowsCSR(c*j.size, min((c+1)*j.size, j.dst.Rows))
	} else {
		j.colsCSC(c*j.size, min((c+1)*j.size, j.dst.Cols))
	}
}

// colsCSC computes columns [lo, hi) of dst, four entries of B at a time.
func (j *atbJob) colsCSC(lo, hi int) {
	K, ld, lda := j.dst.Rows, j.dst.Stride, j.a.Stride
	ptr, ind, val, ad := j.ptr, j.ind, j.val, j.a.Data
	for col := lo; col < hi; col++ {
		d := j.dst.Data[col : col+(K-1)*ld+1]
		for k := 0; k < K; k++ {
			d[k*ld] = 0
		}
		q, end := ptr[col], ptr[col+1]
		for ; q+4 <= end; q += 4 {
			a0 := ad[ind[q]*lda:][:K]
			a1 := ad[ind[q+1]*lda:][:K]
			a2 := ad[ind[q+2]*lda:][:K]
			a3 := ad[ind[q+3]*lda:][:K]
			v0, v1, v2, v3 := val[q], val[q+1], val[q+2], val[q+3]
			for k, x := range a0 {
				s := d[k*ld]
				s += v0 * x
				s += v1 * a1[k]
				s += v2 * a2[k]
				s += v3 * a3[k]
				d[k*ld] = s
			}
		}
		for ; q < end; q++ {
			v := val[q]
			for k, x := range ad[ind[q]*lda:][:K] {
				d[k*ld] += v * x
			}
		}
	}
}

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
// value for the BLAS in use, and through Gemm otherwise. Measured with
// BenchmarkSparseX_K1000N2000 against BenchmarkDgemm_K1000K1000N2000 on the
// project's 2-core machine.
const (
	DensityCrossoverGonum    = 0.10
	DensityCrossoverOpenBLAS = 0.03
)

// DensityCrossover returns the crossover density for the BLAS that blas64
// currently uses.
func DensityCrossover() float64 {
	if _, ok := blas64.Implementation().(gonum.Implementation); ok {
		return DensityCrossoverGonum
	}
	return DensityCrossoverOpenBLAS
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

// SparseWorkspace holds a compressed-row copy of a K×N matrix X that is
// stored densely but is mostly zero, such as FISTA's codes, so that A·X costs
// 2·m·nnz(X) flops instead of 2·m·K·N. Its zero value is not usable; build it
// with NewSparseWorkspace once and reuse it.
type SparseWorkspace struct {
	rows, cols int
	ptr        []int
	ind        []int32
	val        []float64
}

// NewSparseWorkspace returns a workspace for K×N matrices X, with room for
// max(DensityCrossoverGonum, DensityCrossoverOpenBLAS)·K·N non-zeros.
func NewSparseWorkspace(K, N int) *SparseWorkspace {
	c := int(max(DensityCrossoverGonum, DensityCrossoverOpenBLAS)*float64(K)*float64(N)) + 1
	return &SparseWorkspace{rows: K, cols: N, ptr: make([]int, K+1), ind: make([]int32, c), val: make([]float64, c)}
}

// Mul sets dst = A·X for an m×K matrix A and the K×N matrix X. When the
// density of X is at most DensityCrossover() it compresses X into the
// workspace and computes
//
//	dst[i, :] = Σ_{k} A[i, k] · X[k, :]   over the non-zeros of X's rows,
//
// sharing rows of dst between both cores; otherwise it calls Gemm. It
// reports whether the sparse path was taken. dst must not overlap a or x.
func (w *SparseWorkspace) Mul(dst, a, x blas64.General) (sparse bool) {
	m, K, N := a.Rows, x.Rows, x.Cols
	if K != w.rows || N != w.cols || a.Cols != K || dst.Rows != m || dst.Cols != N {
		panic(errShape)
	}
	if m == 0 || N == 0 {
		return true
	}
	limit := min(int(DensityCrossover()*float64(K)*float64(N)), len(w.val))
	if K == 0 || !w.compress(x, limit) {
		if K == 0 {
			zero(dst)
			return true
		}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, a, x, 0, dst)
		return false
	}
	w.mulCompressed(dst, a)
	return true
}

// mulCompressed sets dst = A·X from the compressed copy of X.
func (w *SparseWorkspace) mulCompressed(dst, a blas64.General) {
	m := dst.Rows
	j := spmmJobs.get()
	*j = spmmJob{w: w, dst: dst, a: a, size: m}
	if m*w.ptr[w.rows] >= minParallelFlops {
		j.size = 8
	}
	parallelFor((m+j.size-1)/j.size, j)
	*j = spmmJob{}
	spmmJobs.put(j)
}

// compress stores the non-zeros of x by rows; it reports false if there are
// more than limit.
func (w *SparseWorkspace) compress(x blas64.General, limit int) bool {
	n := 0
	for k := 0; k < x.Rows; k++ {
		w.ptr[k] = n
		for j, v := range x.Data[k*x.Stride : k*x.Stride+x.Cols] {
			if v != 0 {
				if n == limit {
					return false
				}
				w.ind[n] = int32(j)
				w.val[n] = v
				n++
			}
		}
	}
	w.ptr[x.Rows] = n
	return true
}

type spmmJob struct {
	w      *SparseWorkspace
	dst, a blas64.General
	size   int
}

var spmmJobs = make(freeList[spmmJob], 8)

// do computes rows [c·size, (c+1)·size) of dst, four at a time. Every
// element is summed over k in increasing order however rows are grouped.
func (j *spmmJob) do(c int) {
	lo, hi := c*j.size, min((c+1)*j.size, j.dst.Rows)
	N, K, ld, lda := j.dst.Cols, j.a.Cols, j.dst.Stride, j.a.Stride
	ptr, ind, val := j.w.ptr, j.w.ind, j.w.val
	i := lo
	for ; i+4 <= hi; i += 4 {
		d0 := j.dst.Data[i*ld : i*ld+N]
		d1 := j.dst.Data[(i+1)*ld : (i+1)*ld+N]
		d2 := j.dst.Data[(i+2)*ld : (i+2)*ld+N]
		d3 := j.dst.Data[(i+3)*ld : (i+3)*ld+N]
		clear(d0)
		clear(d1)
		clear(d2)
		clear(d3)
		a0 := j.a.Data[i*lda : i*lda+K]
		a1 := j.a.Data[(i+1)*lda : (i+1)*lda+K]
		a2 := j.a.Data[(i+2)*lda : (i+2)*lda+K]
		a3 := j.a.Data[(i+3)*lda : (i+3)*lda+K]
		for k, x0 := range a0 {
			x1, x2, x3 := a1[k], a2[k], a3[k]
			q, end := ptr[k], ptr[k+1]
			for t, col := range ind[q:end] {
				v := val[q+t]
				d0[col] += x0 * v
				d1[col] += x1 * v
				d2[col] += x2 * v
				d3[col] += x3 * v
			}
		}
	}
	for ; i < hi; i++ {
		d := j.dst.Data[i*ld : i*ld+N]
		clear(d)
		for k, x := range j.a.Data[i*lda : i*lda+K] {
			q, end := ptr[k], ptr[k+1]
			for t, col := range ind[q:end] {
				d[col] += x * val[q+t]
			}
		}
	}
}
