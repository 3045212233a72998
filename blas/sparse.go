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
	j := atbJobs.get()
	*j = atbJob{dst: dst, a: a, ptr: ptr, ind: ind, val: val, csr: csr}
	n, step := N, cscTile
	if csr {
		n, step = K, 16 // CSR: chunks of 16 rows of dst
	}
	j.size = step
	parallelFor((n+step-1)/step, j, K*len(val))
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
// value for the BLAS in use, and through Gemm otherwise. Measured at
// K=1000, N=2000 on one core (CPU time, BenchmarkSparseX_K1000N2000 against
// BenchmarkDgemm_K1000K1000N2000): the sparse path costs about 1 ns per
// non-zero per row of A, OpenBLAS's Dgemm about 0.04 ns and gonum's about
// 0.3 ns per element of X per row of A.
const (
	DensityCrossoverGonum    = 0.40
	DensityCrossoverOpenBLAS = 0.05
)

// DensityCrossover returns the crossover density for the BLAS that blas64
// currently uses: DensityCrossoverGonum for gonum's, DensityCrossoverOpenBLAS
// for any other.
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

// SparseWorkspace holds a compressed copy of a K×N matrix X that is stored
// densely but is mostly zero, such as FISTA's codes, so that A·X costs
// 2·m·nnz(X) flops instead of 2·m·K·N. X is kept by rows within panels of
// panelCols columns so that the part of dst being updated stays in cache.
// Its zero value is not usable; build it once with NewSparseWorkspace.
type SparseWorkspace struct {
	rows, cols int
	ptr        []int   // entries of row k in panel p: ptr[p·K+k] to ptr[p·K+k+1]
	ind        []uint8 // column within the panel
	val        []float64
}

const panelCols = 256 // columns addressed by a uint8

// NewSparseWorkspace returns a workspace for K×N matrices X, with room for
// max(DensityCrossoverGonum, DensityCrossoverOpenBLAS)·K·N non-zeros.
func NewSparseWorkspace(K, N int) *SparseWorkspace {
	return newSparseWorkspace(K, N, int(max(DensityCrossoverGonum, DensityCrossoverOpenBLAS)*float64(K)*float64(N))+1)
}

func newSparseWorkspace(K, N, capacity int) *SparseWorkspace {
	panels := (N + panelCols - 1) / panelCols
	return &SparseWorkspace{rows: K, cols: N, ptr: make([]int, panels*K+1), ind: make([]uint8, capacity), val: make([]float64, capacity)}
}

// Mul sets dst = A·X for an m×K matrix A and the K×N matrix X. When the
// density of X is at most DensityCrossover() it compresses X into the
// workspace and computes
//
//	dst[i, j] = Σ_{k: X_kj ≠ 0} A[i, k] · X[k, j]   (k increasing)
//
// sharing tiles of dst between the cores; otherwise it calls Gemm. It
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
	if K > 0 && !w.compress(x, limit) {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, a, x, 0, dst)
		return false
	}
	w.mulCompressed(dst, a)
	return true
}

// compress stores the non-zeros of x by panels and rows; it reports false if
// there are more than limit.
func (w *SparseWorkspace) compress(x blas64.General, limit int) bool {
	K, n := w.rows, 0
	for p := 0; p*panelCols < w.cols; p++ {
		c0, c1 := p*panelCols, min((p+1)*panelCols, w.cols)
		for k := 0; k < K; k++ {
			w.ptr[p*K+k] = n
			for j, v := range x.Data[k*x.Stride+c0 : k*x.Stride+c1] {
				if v != 0 {
					if n == limit {
						return false
					}
					w.ind[n] = uint8(j)
					w.val[n] = v
					n++
				}
			}
		}
	}
	w.ptr[len(w.ptr)-1] = n
	return true
}

// mulCompressed sets dst = A·X from the compressed copy of X.
func (w *SparseWorkspace) mulCompressed(dst, a blas64.General) {
	m := dst.Rows
	j := spmmJobs.get()
	*j = spmmJob{w: w, dst: dst, a: a, panels: (w.cols + panelCols - 1) / panelCols}
	parallelFor((m+tileRows-1)/tileRows*j.panels, j, m*w.ptr[len(w.ptr)-1])
	*j = spmmJob{}
	spmmJobs.put(j)
}

type spmmJob struct {
	w      *SparseWorkspace
	dst, a blas64.General
	panels int
}

var spmmJobs = make(freeList[spmmJob], 8)

const tileRows = 8

// do computes one tile of dst: up to tileRows rows by one panel of columns.
// Partial tiles are computed in a zeroed scratch tile and copied out.
func (j *spmmJob) do(c int) {
	ld := j.dst.Stride
	p := c % j.panels
	lo, hi := c/j.panels*tileRows, min(c/j.panels*tileRows+tileRows, j.dst.Rows)
	c0, c1 := p*panelCols, min((p+1)*panelCols, j.dst.Cols)
	var d [tileRows]*[panelCols]float64
	if hi-lo == tileRows && c1-c0 == panelCols {
		for r := range d {
			d[r] = (*[panelCols]float64)(j.dst.Data[(lo+r)*ld+c0:])
			clear(d[r][:])
		}
		j.tile(&d, lo, hi, p)
		return
	}
	var s [tileRows][panelCols]float64
	for r := range d {
		d[r] = &s[r]
	}
	j.tile(&d, lo, hi, p)
	for i := lo; i < hi; i++ {
		copy(j.dst.Data[i*ld+c0:i*ld+c1], s[i-lo][:c1-c0])
	}
}

// tile adds A[lo:hi, :]·X[:, panel p] to d. Rows past hi repeat row hi−1
// and are discarded by the caller. Every element is summed over k in
// increasing order, whatever the tiling.
func (j *spmmJob) tile(d *[tileRows]*[panelCols]float64, lo, hi, p int) {
	K, lda := j.a.Cols, j.a.Stride
	var a [tileRows][]float64
	for r := range a {
		i := min(lo+r, hi-1)
		a[r] = j.a.Data[i*lda : i*lda+K]
	}
	ptr, ind, val := j.w.ptr[p*K:p*K+K+1], j.w.ind, j.w.val
	d0, d1, d2, d3, d4, d5, d6, d7 := d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]
	a0, a1, a2, a3, a4, a5, a6, a7 := a[0], a[1][:K], a[2][:K], a[3][:K], a[4][:K], a[5][:K], a[6][:K], a[7][:K]
	for k, x0 := range a0 {
		q, end := ptr[k], ptr[k+1]
		if q == end {
			continue
		}
		x1, x2, x3, x4, x5, x6, x7 := a1[k], a2[k], a3[k], a4[k], a5[k], a6[k], a7[k]
		cols := ind[q:end]
		vs := val[q:end]
		vs = vs[:len(cols)]
		for t, col := range cols {
			v := vs[t]
			d0[col] += x0 * v
			d1[col] += x1 * v
			d2[col] += x2 * v
			d3[col] += x3 * v
			d4[col] += x4 * v
			d5[col] += x5 * v
			d6[col] += x6 * v
			d7[col] += x7 * v
		}
	}
}
