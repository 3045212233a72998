package dl

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// SpanBasis is the orthonormal Q = Q₁V⁻¹ (d×r) of ThinQR, kept factored:
// Q₁ (d×r) and V (r×r upper triangular), CholeskyQR2's second factor.
type SpanBasis struct {
	q1 *mat.Dense
	v  blas64.Triangular
	sp *spanSparse // Q₁'s sparse factors, or nil
}

// Dims returns the dimensions of Q.
func (q *SpanBasis) Dims() (d, r int) { return q.q1.Dims() }

// Sparse reports whether q keeps Q₁'s sparse factors: Q₁ = B_P·S⁻¹·T.
func (q *SpanBasis) Sparse() bool { return q.sp != nil }

// Triangles returns V and, for a sparse q, T of Q = B_P·S⁻¹·T·V⁻¹.
func (q *SpanBasis) Triangles() (V, T blas64.Triangular) {
	if q.sp == nil {
		return q.v, blas64.Triangular{}
	}
	return q.v, q.sp.t
}

// AddRowTimes adds row i of B_P·S⁻¹ (of a sparse q) times the r×n matrix
// top to dst (n).
func (q *SpanBasis) AddRowTimes(dst []float64, i int, top blas64.General) {
	sp := q.sp
	for k := sp.ptr[i]; k < sp.ptr[i+1]; k++ {
		if c := sp.pos[sp.col[k]]; c >= 0 {
			floats.AddScaled(dst, sp.val[k]*sp.inv[c], top.Data[c*top.Stride:c*top.Stride+top.Cols])
		}
	}
}

// mulLeft adds (B_P·S⁻¹)·Z to dst (d×m) for Z (r×m); upper says Z is
// upper triangular (row c is zero left of column c).
func (s *spanSparse) mulLeft(dst, Z blas64.General, upper bool) {
	for i := 0; i < dst.Rows; i++ {
		drow := dst.Data[i*dst.Stride : i*dst.Stride+dst.Cols]
		for k := s.ptr[i]; k < s.ptr[i+1]; k++ {
			c := s.pos[s.col[k]]
			if c < 0 {
				continue
			}
			a, lo := s.val[k]*s.inv[c], 0
			if upper {
				lo = c
			}
			floats.AddScaled(drow[lo:], a, Z.Data[c*Z.Stride+lo:c*Z.Stride+Z.Cols])
		}
	}
}

// Form returns Q = Q₁V⁻¹ (d×r) formed, in Q₁'s storage: q is used up.
func (q *SpanBasis) Form() *mat.Dense {
	blas64.Trsm(blas.Right, blas.NoTrans, 1, q.v, q.q1.RawMatrix())
	return q.q1
}

// Project returns QᵀY = V⁻ᵀ(Q₁ᵀY) (r×n) for the d×n matrix Y: drn
// multiply-adds, against dr² to form Q first.
func (q *SpanBasis) Project(Y mat.Matrix) *mat.Dense {
	_, r := q.Dims()
	_, n := Y.Dims()
	P := mat.NewDense(r, n, nil)
	P.Mul(q.q1.T(), Y)
	blas64.Trsm(blas.Left, blas.Trans, 1, q.v, P.RawMatrix())
	return P
}

// Expand returns Q·Dr = Q₁·(V⁻¹Dr), a dictionary learned on reduced data
// mapped back to the data space: dr·K multiply-adds for K atoms, or
// r²K/2 + nnz(Y)·K through Q₁ = (Y_P·S⁻¹)·T on the sparse route. A nil Q
// (the data was not reduced) returns Dr itself.
func (q *SpanBasis) Expand(Dr *mat.Dense) *mat.Dense {
	if q == nil {
		return Dr
	}
	W := mat.DenseCopyOf(Dr)
	blas64.Trsm(blas.Left, blas.NoTrans, 1, q.v, W.RawMatrix())
	d, _ := q.Dims()
	_, k := Dr.Dims()
	D := mat.NewDense(d, k, nil)
	if q.sp != nil {
		blas64.Trmm(blas.Left, blas.NoTrans, 1, q.sp.t, W.RawMatrix())
		q.sp.mulLeft(D.RawMatrix(), W.RawMatrix(), false)
		return D
	}
	D.Mul(q.q1, W)
	return D
}
