package blas

import (
	"sync/atomic"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

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
