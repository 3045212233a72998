package blas

import (
	"sync/atomic"

	"github.com/james-bowman/sparse"
	gblas "gonum.org/v1/gonum/blas"
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
// BenchmarkSparseX_K1000N2000 against BenchmarkDgemm_K1000K1000N2000 and
// by BenchmarkLRSDLX_C100n20k10k0_10d500 (package methods); see bench/NOTES.md.
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

// SparseWorkspace holds a compressed copy of a K×N matrix X that is stored
// densely but is mostly zero, such as FISTA's codes, so that A·X costs
// 2·m·nnz(X) flops instead of 2·m·K·N. X is kept by columns; the product is
// formed transposed, (A·X)ᵀ[j,:] = Σ_k X_kj·Aᵀ[k,:], by contiguous axpys
// four non-zeros at a time (no cgo). Its zero value is not usable; build it
// once with NewSparseWorkspace.
type SparseWorkspace struct {
	rows, cols int
	ptr        []int   // entries of column j: ptr[j] to ptr[j+1]
	next       []int   // fill position of each column
	ind        []int32 // row k of each entry
	val        []float64
	at, t      []float64 // Aᵀ (K×m) and (A·X)ᵀ (N×m)
	bt         []float64 // X formed from Bᵀ by MulT's dense path
}

// NewSparseWorkspace returns a workspace for K×N matrices X. Room for
// DensityCrossover()·K·N non-zeros is allocated at the first sparse product
// and kept.
func NewSparseWorkspace(K, N int) *SparseWorkspace {
	return &SparseWorkspace{rows: K, cols: N, ptr: make([]int, N+1), next: make([]int, N)}
}

// Dims returns the dimensions K×N of the matrices X of w.
func (w *SparseWorkspace) Dims() (K, N int) { return w.rows, w.cols }

// Mul sets dst = A·X for an m×K matrix A and the K×N matrix X. When the
// density of X is at most DensityCrossover() it compresses X into the
// workspace and computes
//
//	dst[i, j] = Σ_{k: X_kj ≠ 0} A[i, k] · X[k, j]   (k increasing)
//
// sharing columns of dst between the cores; otherwise it calls Gemm (this
// package's, split between the cores). It
// reports whether the sparse path was taken. dst must not overlap a or x.
func (w *SparseWorkspace) Mul(dst, a, x blas64.General) (sparse bool) {
	return w.mul(dst, a, blas64.General{}, x)
}

// MulAT is Mul, bit for bit, with at = Aᵀ (K×m) given, for a caller that
// multiplies by the same A many times: the sparse path reads the columns
// of A from the rows of at instead of transposing A on every call. For a
// symmetric A, at may be A itself.
func (w *SparseWorkspace) MulAT(dst, a, at, x blas64.General) (sparse bool) {
	if at.Rows != a.Cols || at.Cols != a.Rows {
		panic(errShape)
	}
	return w.mul(dst, a, at, x)
}

// mul is Mul, or MulAT when at has data.
func (w *SparseWorkspace) mul(dst, a, at, x blas64.General) bool {
	m, K, N := a.Rows, x.Rows, x.Cols
	if K != w.rows || N != w.cols || a.Cols != K || dst.Rows != m || dst.Cols != N {
		panic(errShape)
	}
	if m == 0 || N == 0 {
		return true
	}
	if K > 0 && !w.compress(x, int(DensityCrossover()*float64(K)*float64(N))) {
		Gemm(gblas.NoTrans, gblas.NoTrans, 1, a, x, 0, dst)
		return false
	}
	if at.Data == nil {
		at = w.transposeA(a)
	}
	w.mulCompressed(dst, at)
	return true
}

// transposeA returns Aᵀ (K×m) in w.at.
func (w *SparseWorkspace) transposeA(a blas64.General) blas64.General {
	m, K := a.Rows, a.Cols
	if len(w.at) < m*K {
		w.at = make([]float64, m*K)
	}
	transpose(w.at, a)
	return blas64.General{Rows: K, Cols: m, Stride: max(m, 1), Data: w.at[:m*K]}
}

// MulT sets dst = A·Bᵀ for an m×N matrix A and a K×N matrix B, with w
// made for the N×K matrix X = Bᵀ (NewSparseWorkspace(N, K)): it is
// Mul(dst, a, X), bit for bit, without forming X on the sparse path, where
// the columns of X are the rows of B. dst must not overlap a or b.
func (w *SparseWorkspace) MulT(dst, a, b blas64.General) (sparse bool) {
	m, N, K := a.Rows, w.rows, w.cols
	if b.Rows != K || b.Cols != N || a.Cols != N || dst.Rows != m || dst.Cols != K {
		panic(errShape)
	}
	if m == 0 || K == 0 {
		return true
	}
	if N > 0 && !w.compressT(b, int(DensityCrossover()*float64(N)*float64(K))) {
		if len(w.bt) < N*K {
			w.bt = make([]float64, N*K)
		}
		x := blas64.General{Rows: N, Cols: K, Stride: K, Data: w.bt[:N*K]}
		transpose(x.Data, b)
		Gemm(gblas.NoTrans, gblas.NoTrans, 1, a, x, 0, dst)
		return false
	}
	w.mulCompressed(dst, w.transposeA(a))
	return true
}

// compressT is compress for X = bᵀ, reading b (w.cols×w.rows) by rows:
// column c of X is row c of b. Rows of b are counted and filled in fixed
// chunks shared between the cores.
func (w *SparseWorkspace) compressT(b blas64.General, limit int) bool {
	return w.compressAny(b, true, limit)
}

// compressMinElems is the fewest elements of a chunk of compressT.
const compressMinElems = 8192

// transpose sets dst (a.Cols×a.Rows, row-major) = aᵀ in fixed chunks
// shared between the cores.
func transpose(dst []float64, a blas64.General) {
	tj := transposeJobs.Get()
	*tj = transposeJob{dst: dst, a: a}
	var count int
	tj.size, count = chunks(a.Cols, transposeMinRows)
	parallelFor(count, tj, a.Rows*a.Cols)
	*tj = transposeJob{}
	transposeJobs.Put(tj)
}

// compress stores the non-zeros of x by columns, rows increasing; it reports
// false if there are more than limit. Columns are counted and filled in
// fixed chunks shared between the cores. When x may have more than limit
// non-zeros, the chunks add their counts to a shared total every
// countBatch rows and all stop once it passes limit: the answer is false
// exactly when x has more than limit non-zeros, whichever chunks ran.
func (w *SparseWorkspace) compress(x blas64.General, limit int) bool {
	return w.compressAny(x, false, limit)
}

// compressAny is compress (trans false) or compressT (trans true).
func (w *SparseWorkspace) compressAny(x blas64.General, trans bool, limit int) bool {
	K, N := w.rows, w.cols
	j := compressJobs.Get()
	j.w, j.x, j.fill, j.trans, j.limit = w, x, false, trans, -1
	j.total.Store(0)
	if limit < K*N {
		j.limit = limit
	}
	var count int
	if trans { // chunks of rows of x, the columns of X
		j.size, count = chunks(N, max(1, compressMinElems/max(K, 1)))
	} else {
		j.size, count = chunks(N, compressMinCols)
	}
	parallelFor(count, j, elemWork*K*N)
	n := 0
	for _, c := range j.part[:count] {
		n += c
	}
	ok := !(j.limit >= 0 && j.total.Load() > int64(limit) || n > limit)
	if ok {
		w.fill(x, n, limit, j)
	}
	j.w, j.x, j.trans = nil, blas64.General{}, false
	compressJobs.Put(j)
	return ok
}

// fill stores the n non-zeros of x counted per column in w.next, room for
// limit kept, by the chunks of j.
func (w *SparseWorkspace) fill(x blas64.General, n, limit int, j *compressJob) {
	if len(w.val) < n { // room for limit entries, so a denser X later does not allocate
		w.ind, w.val = make([]int32, limit), make([]float64, limit)
	}
	w.ptr[0] = 0
	for c, v := range w.next {
		w.ptr[c+1] = w.ptr[c] + v
	}
	copy(w.next, w.ptr[:len(w.next)])
	j.fill = true
	count := (len(w.next) + j.size - 1) / j.size
	parallelFor(count, j, elemWork*w.rows*w.cols)
}

// compressMinCols is the narrowest chunk of columns of compress: narrower
// chunks count the non-zeros by short row pieces, which costs more than
// the sharing gains. Chosen by timing E-FDDL's iteration at C = 100 on one
// core (the scaling study's E-FDDL); see bench/NOTES.md.
const compressMinCols = 128

// countBatch is the number of rows a chunk of compress counts between
// looks at the shared total.
const countBatch = 16

// compressJob counts (fill false) or stores (fill true) the non-zeros of
// chunks of size columns of x, or with trans of size rows of x (the
// columns of xᵀ, compressT); the count of chunk c goes to part[c]. With
// limit ≥ 0 the counts also go to total, and counting stops once it is
// above limit (the counts are then incomplete).
type compressJob struct {
	w     *SparseWorkspace
	x     blas64.General
	size  int
	fill  bool
	trans bool
	limit int
	total atomic.Int64
	part  [maxChunks]int
}

var compressJobs = make(freeList[compressJob], 4)

func (j *compressJob) Do(c int) {
	w, x := j.w, j.x
	lo, hi := c*j.size, min((c+1)*j.size, w.cols)
	if j.trans {
		j.doT(c, lo, hi)
		return
	}
	if !j.fill {
		cnt := w.next[lo:hi]
		clear(cnt)
		var t tally
		for k := 0; k < w.rows; k++ {
			if !j.add(&t, countRow(cnt, x.Data[k*x.Stride+lo:k*x.Stride+hi]), k) {
				break
			}
		}
		j.part[c] = j.end(&t)
		return
	}
	next, ind, val := w.next[lo:hi], w.ind, w.val
	for k := 0; k < w.rows; k++ {
		for i, v := range x.Data[k*x.Stride+lo : k*x.Stride+hi] {
			if v != 0 {
				q := next[i]
				ind[q], val[q] = int32(k), v
				next[i] = q + 1
			}
		}
	}
}

// doT is Do for compressT: chunk c has rows [lo, hi) of x.
func (j *compressJob) doT(c, lo, hi int) {
	w, x := j.w, j.x
	N := x.Cols
	if !j.fill {
		var t tally
		for k := lo; k < hi; k++ {
			r := 0
			for _, v := range x.Data[k*x.Stride : k*x.Stride+N] {
				if v != 0 {
					r++
				}
			}
			w.next[k] = r
			if !j.add(&t, r, k-lo) {
				break
			}
		}
		j.part[c] = j.end(&t)
		return
	}
	for k := lo; k < hi; k++ {
		q := w.ptr[k]
		for i, v := range x.Data[k*x.Stride : k*x.Stride+N] {
			if v != 0 {
				w.ind[q], w.val[q] = int32(i), v
				q++
			}
		}
	}
}

// tally is a chunk's count of non-zeros: n published to compressJob.total,
// m not yet; over once the total passed the limit.
type tally struct {
	n, m int
	over bool
}

// add counts r non-zeros of the chunk's row i and, with a limit, publishes
// the count every countBatch rows; it reports false once the total is past
// the limit.
func (j *compressJob) add(t *tally, r, i int) bool {
	t.m += r
	if j.limit >= 0 && (i+1)%countBatch == 0 {
		t.n += t.m
		t.over = j.total.Add(int64(t.m)) > int64(j.limit)
		t.m = 0
	}
	return !t.over
}

// end publishes the rest of t and returns the chunk's count.
func (j *compressJob) end(t *tally) int {
	if t.over {
		return t.n
	}
	if j.limit >= 0 {
		j.total.Add(int64(t.m))
	}
	return t.n + t.m
}

// countRow adds 1 to cnt[i] for every non-zero row[i] and returns their
// number.
func countRow(cnt []int, row []float64) int {
	cnt = cnt[:len(row)]
	n, k := 0, 0
	if hasVec && len(row) >= 4 {
		k = len(row) &^ 3
		n = countVec(&cnt[0], &row[0], k)
	}
	for i, v := range row[k:] {
		i += k
		b := 0
		if v != 0 {
			b = 1
		}
		cnt[i] += b
		n += b
	}
	return n
}

// mulCompressed sets dst = A·X from the compressed copy of X and at = Aᵀ.
func (w *SparseWorkspace) mulCompressed(dst, at blas64.General) {
	m, N := dst.Rows, w.cols
	if len(w.t) < m*N {
		w.t = make([]float64, m*N)
	}
	j := spmmJobs.Get()
	*j = spmmJob{w: w, dst: dst, at: at, m: m}
	parallelFor((N+spmmCols-1)/spmmCols, j, m*w.ptr[N])
	*j = spmmJob{}
	spmmJobs.Put(j)
}

// transposeJob sets dst (a.Cols×a.Rows, row-major) = aᵀ in chunks of
// size rows of dst.
type transposeJob struct {
	dst  []float64
	a    blas64.General
	size int
}

var transposeJobs = make(freeList[transposeJob], 4)

// transposeMinRows is the fewest rows of aᵀ of a chunk of transposeJob.
const transposeMinRows = 64

func (j *transposeJob) Do(c int) {
	a, m := j.a, j.a.Rows
	lo, hi := c*j.size, min((c+1)*j.size, a.Cols)
	for i := 0; i < m; i++ {
		for k, v := range a.Data[i*a.Stride+lo : i*a.Stride+hi] {
			j.dst[(lo+k)*m+i] = v
		}
	}
}

type spmmJob struct {
	w       *SparseWorkspace
	dst, at blas64.General
	m       int
}

var spmmJobs = make(freeList[spmmJob], 8)

const spmmCols = 16 // columns of dst per chunk

// Do computes columns [c·spmmCols, (c+1)·spmmCols) of dst, four non-zeros
// of a column per pass.
func (j *spmmJob) Do(c int) {
	w, m, ld := j.w, j.m, j.dst.Stride
	at, lda := j.at.Data, j.at.Stride
	lo, hi := c*spmmCols, min((c+1)*spmmCols, w.cols)
	for col := lo; col < hi; col++ {
		acc := w.t[col*m : (col+1)*m]
		clear(acc)
		q, end := w.ptr[col], w.ptr[col+1]
		for ; q+4 <= end; q += 4 {
			ix := w.ind[q : q+4]
			addScaled4(acc, (*[4]float64)(w.val[q:q+4]), at[int(ix[0])*lda:], at[int(ix[1])*lda:], at[int(ix[2])*lda:], at[int(ix[3])*lda:])
		}
		for ; q < end; q++ {
			k := int(w.ind[q])
			axpy1(acc, w.val[q], at[k*lda:k*lda+m])
		}
	}
	for i := 0; i < m; i++ {
		d := j.dst.Data[i*ld+lo : i*ld+hi]
		for c := range d {
			d[c] = w.t[(lo+c)*m+i]
		}
	}
}

// AddCombination adds to dst the rows of x weighted by the non-zeros of a:
//
//	dst += Σ_{p<n, a[p·inc] ≠ 0} a[p·inc] · x[p·ldx : p·ldx+len(dst)]
//
// term by term in order of p, rounded as that sequence of axpys (no fused
// multiply-adds); the terms are applied four at a time (addScaled4).
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
// at least rowsMulMinCols columns and A at most DensityCrossover()·m·K
// non-zeros, row i of dst is
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
