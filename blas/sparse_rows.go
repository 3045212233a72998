package blas

import (
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// AddCombination adds to dst the rows of x weighted by the non-zeros of a:
//
//	dst += Σ_{p<n, a[p·inc] ≠ 0} a[p·inc] · x[p·ldx : p·ldx+len(dst)]
//
// term by term in order of p, rounded as that sequence of axpys (no fused
// multiply-adds); the terms are applied four at a time.
func AddCombination(dst []float64, n int, a []float64, inc int, x []float64, ldx int) {
	if n < 0 || inc < 1 || ldx < 0 || n > 0 && (len(a) <= (n-1)*inc || len(x) < (n-1)*ldx+len(dst)) {
		panic(errShape)
	}
	var v [4]float64
	var r [4][]float64
	q := 0
	for p := 0; p < n; p++ {
		f := a[p*inc]
		if f == 0 {
			continue
		}
		v[q], r[q] = f, x[p*ldx:]
		if q++; q == 4 {
			addScaled4(dst, &v, r[0], r[1], r[2], r[3])
			q = 0
		}
	}
	for i := range q {
		axpy1(dst, v[i], r[i])
	}
}

// addScaled4 sets dst[i] = (((dst[i] + v[0]·x0[i]) + v[1]·x1[i]) +
// v[2]·x2[i]) + v[3]·x3[i], rounded as four axpys in sequence. The float64
// conversions forbid fused multiply-adds, so the vector kernel and this
// loop round identically. Each x has at least len(dst) elements.
func addScaled4(dst []float64, v *[4]float64, x0, x1, x2, x3 []float64) {
	n := len(dst)
	k := 0
	if hasVec && n >= 4 {
		k = n &^ 3
		axpy4Vec(&dst[0], k, &v[0], &x0[0], &x1[0], &x2[0], &x3[0])
	}
	v0, v1, v2, v3 := v[0], v[1], v[2], v[3]
	x0, x1, x2, x3 = x0[:n], x1[:n], x2[:n], x3[:n]
	for ; k < n; k++ {
		x := dst[k] + float64(v0*x0[k])
		x += float64(v1 * x1[k])
		x += float64(v2 * x2[k])
		dst[k] = x + float64(v3*x3[k])
	}
}

// axpy1 sets acc[i] += v·a[i], unfused; a has at least len(acc) elements.
func axpy1(acc []float64, v float64, a []float64) {
	k := 0
	if hasVec && len(acc) >= 4 {
		k = len(acc) &^ 3
		axpy1Vec(&acc[0], k, v, &a[0])
	}
	a = a[:len(acc)]
	for i := k; i < len(acc); i++ {
		acc[i] += float64(v * a[i])
	}
}

// SparseRowsMul sets dst = A·B for an m×K matrix A that is mostly zero and
// a K×N matrix B, the layout of iterates kept one sample a row. When B has
// enough columns and A at most DensityCrossover()·m·K non-zeros, row i of
// dst is
//
//	dst[i, :] = Σ_{k: A_ik ≠ 0} A_ik · B[k, :]   (k increasing)
//
// (AddCombination), fixed chunks of rows shared between the cores;
// otherwise it calls Gemm. It reports whether the sparse path was taken.
// dst must not overlap a or b.
func SparseRowsMul(dst, a, b blas64.General) (sparse bool) {
	m, K, N := a.Rows, a.Cols, b.Cols
	if b.Rows != K || dst.Rows != m || dst.Cols != N {
		panic(errShape)
	}
	if m == 0 || N == 0 {
		return true
	}
	if N >= rowsMulMinCols {
		if nz := NonZeros(a); float64(nz) <= DensityCrossover()*float64(m)*float64(K) {
			rowsMul(dst, a, b, nz)
			return true
		}
	}
	Gemm(gblas.NoTrans, gblas.NoTrans, 1, a, b, 0, dst)
	return false
}

// rowsMul is SparseRowsMul's sparse path, for a with nz non-zeros.
func rowsMul(dst, a, b blas64.General, nz int) {
	j := rowsMulJobs.Get()
	*j = rowsMulJob{dst: dst, a: a, b: b}
	parallelFor((a.Rows+rowsMulRows-1)/rowsMulRows, j, a.Rows*a.Cols*elemWork+b.Cols*nz)
	*j = rowsMulJob{}
	rowsMulJobs.Put(j)
}

// rowsMulRows is the number of rows of dst in a chunk of SparseRowsMul.
const rowsMulRows = 8

// rowsMulMinCols is the fewest columns of B for SparseRowsMul's sparse
// path: on shorter rows each non-zero's axpy costs more than its share of
// a Gemm. Chosen by BenchmarkSparseRowsMul_*; see bench/NOTES.md.
const rowsMulMinCols = 128

type rowsMulJob struct{ dst, a, b blas64.General }

var rowsMulJobs = make(freeList[rowsMulJob], 4)

func (j *rowsMulJob) Do(c int) {
	dst, a, b := j.dst, j.a, j.b
	for i := c * rowsMulRows; i < min((c+1)*rowsMulRows, a.Rows); i++ {
		dr := dst.Data[i*dst.Stride : i*dst.Stride+dst.Cols]
		clear(dr)
		AddCombination(dr, a.Cols, a.Data[i*a.Stride:], 1, b.Data, b.Stride)
	}
}
