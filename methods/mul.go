package methods

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/kernels"
)

// mulDense sets dst = a·b, as dst.Mul(a, b), for a and b each a *mat.Dense
// or its transpose (Dense.T()), by kernels.Gemm: products of at least
// parallel.MinWork multiply-adds are shared between the cores in fixed
// chunks, so the result does not depend on the number of cores. An empty
// dst is sized; otherwise it must be len(a's rows)×len(b's columns) and
// must not overlap a or b.
func mulDense(dst *mat.Dense, a, b mat.Matrix) {
	ta, ra := rawOf(a)
	tb, rb := rawOf(b)
	m, k := ra.Rows, ra.Cols
	if ta == blas.Trans {
		m, k = k, m
	}
	kb, n := rb.Rows, rb.Cols
	if tb == blas.Trans {
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
	kernels.Gemm(ta, tb, 1, ra, rb, 0, dst.RawMatrix())
}

// rawOf returns the storage of a *mat.Dense or of the *mat.Dense a
// transposes, and whether it is transposed.
func rawOf(a mat.Matrix) (blas.Transpose, blas64.General) {
	switch a := a.(type) {
	case *mat.Dense:
		return blas.NoTrans, a.RawMatrix()
	case mat.Transpose:
		if d, ok := a.Matrix.(*mat.Dense); ok {
			return blas.Trans, d.RawMatrix()
		}
	}
	panic("methods: mulDense operand is neither a *mat.Dense nor its transpose")
}
