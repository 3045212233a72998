package blas

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// MulM sets dst = M(A)·X for a square K×K matrix A whose diagonal blocks are
// A[p[c]:p[c+1], p[c]:p[c+1]] and a K×N matrix X:
//
//	dst = A·X + diag(A₁₁, …, A_CC)·X
//
// M(A), A with its diagonal blocks doubled, is never formed: one Gemm with
// A is followed by one accumulating Gemm per block, 2(K² + Σ k_c²)N flops.
// p has C+1 non-decreasing entries, p[0] = 0, p[C] = K. dst must not
// overlap a or x. When M(A) multiplies many matrices, form it once with
// DoubleDiagBlocks instead and use a single Gemm per product.
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
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, a, x, 0, dst)
	for c := 0; c+1 < len(p); c++ {
		lo, hi := p[c], p[c+1]
		if hi > lo {
			blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, view(a, lo, hi, lo, hi), view(x, lo, hi, 0, N), 1, view(dst, lo, hi, 0, N))
		}
	}
}

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
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, a, b, 0, dst)
}

// view returns the submatrix a[r0:r1, c0:c1]; it must not be empty.
func view(a blas64.General, r0, r1, c0, c1 int) blas64.General {
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
