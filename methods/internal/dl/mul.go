package dl

import (
	"sync"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
)

// MulDense sets dst = a·b, as dst.Mul(a, b), for a and b each a *mat.Dense
// or its transpose (Dense.T()), by blas.Gemm: products of at least
// parallel.MinWork multiply-adds are shared between the cores in fixed
// chunks, so the result does not depend on the number of cores. An empty
// dst is sized; otherwise it must be len(a's rows)×len(b's columns) and
// must not overlap a or b. A large untransposed a times an untransposed b
// of few columns goes through blas.MulThin instead, which streams a once.
func MulDense(dst *mat.Dense, a, b mat.Matrix) {
	ta, ra := rawOf(a)
	tb, rb := rawOf(b)
	m, k := ra.Rows, ra.Cols
	if ta == gblas.Trans {
		m, k = k, m
	}
	kb, n := rb.Rows, rb.Cols
	if tb == gblas.Trans {
		kb, n = n, kb
	}
	if k != kb {
		panic(mat.ErrShape)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(m, n)
	} else if r, c := dst.Dims(); r != m || c != n {
		panic(mat.ErrShape)
	}
	if ta == gblas.NoTrans && tb == gblas.NoTrans && n <= thinMaxCols && m*k >= thinMinElems {
		w := thinWork.Get().(*[]float64)
		if len(*w) < k*n {
			*w = make([]float64, k*n)
		}
		blas.MulThin(dst.RawMatrix(), ra, rb, *w)
		thinWork.Put(w)
		return
	}
	blas.Gemm(ta, tb, 1, ra, rb, 0, dst.RawMatrix())
}

// thinMaxCols and thinMinElems bound the products MulDense computes by
// blas.MulThin: a out of the L2 cache (4 MB) and b of few columns
// (BenchmarkMulThin of package blas).
const (
	thinMaxCols  = 12
	thinMinElems = 1 << 19
)

var thinWork = sync.Pool{New: func() any { return new([]float64) }}

// rawOf returns the storage of a *mat.Dense or of the *mat.Dense a
// transposes, and whether it is transposed.
func rawOf(a mat.Matrix) (gblas.Transpose, blas64.General) {
	switch a := a.(type) {
	case *mat.Dense:
		return gblas.NoTrans, a.RawMatrix()
	case mat.Transpose:
		if d, ok := a.Matrix.(*mat.Dense); ok {
			return gblas.Trans, d.RawMatrix()
		}
	}
	panic("methods: MulDense operand is neither a *mat.Dense nor its transpose")
}

// Reuse returns m as a zero r×c matrix in m's storage when it is large
// enough.
func Reuse(m *mat.Dense, r, c int) *mat.Dense {
	m.Reset()
	m.ReuseAs(r, c)
	return m
}
