package methods

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// spanOff disables reduceSpan; tests set it to compare against training on
// the full data.
var spanOff bool

// spanRatio is the least d/N for which reduceSpan reduces. The thin QR costs
// about 4dN² flops and expand 2dNK, roughly one d-sized training pass; the
// gain is a factor d/N on every pass, so near-square data is left alone.
const spanRatio = 1.2

// reduceSpan returns the thin QR factors Y = Q·Yr of the d×N matrix Y, with
// Q d×N orthonormal and Yr = QᵀY N×N upper triangular, or nil, nil when
// d ≤ spanRatio·N (reduction does not pay) or spanOff is set.
//
// A dictionary learned from columns of Y stays in span(Y) ⊆ range(Q): its
// updates only combine columns of Y and of the dictionary, and the costs
// depend on D only through DᵀD, DᵀY and column norms, which Q preserves
// (QᵀQ = I). So training on Yr gives D_r with D = Q·D_r (expand), at N
// instead of d rows. Householder QR keeps N columns even when Y is rank
// deficient, so range(Q) ⊇ span(Y) and nothing is lost. For a test sample y,
// ‖y − Dx‖² = ‖Qᵀy − D_r x‖² + ‖(I−QQᵀ)y‖², the last term the same for every
// class, so prediction with D on raw data gives the same labels.
//
// The factorisation runs on its own goroutine, so that a cancelled ctx
// returns ctx.Err() at once (LAPACK cannot be interrupted; the goroutine
// finishes and its result is dropped).
func reduceSpan(ctx context.Context, Y mat.Matrix) (Q *spanBasis, Yr *mat.Dense, err error) {
	d, n := Y.Dims()
	if spanOff || float64(d) <= spanRatio*float64(n) {
		return nil, nil, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	type qr struct {
		Q  *spanBasis
		Yr *mat.Dense
	}
	done := make(chan qr, 1)
	go func() {
		q, r := thinQR(Y)
		done <- qr{q, r}
	}()
	select {
	case f := <-done:
		return f.Q, f.Yr, nil
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// thinQR returns the Householder QR factors Y = Q·Yr of the d×N matrix Y,
// d ≥ N: Q (d×N, orthonormal columns) kept as its reflectors, and the
// upper triangular Yr = QᵀY (N×N) (householderQR).
func thinQR(Y mat.Matrix) (Q *spanBasis, Yr *mat.Dense) {
	Yd, ok := Y.(*mat.Dense)
	if !ok {
		Yd = mat.DenseCopyOf(Y)
	}
	return householderQR(Yd)
}

// gramSpanTol is the squared residual, relative to the column, below which
// gramSpan treats a column as inside the span of the others: a residual of
// 10⁻⁷‖b‖, about the accuracy of a Gram matrix route (√ε).
const gramSpanTol = 1e-14

// gramSpan returns an orthonormal basis Q (d×r) of the span of the columns
// of B (d×n) and their coordinates C = QᵀB (r×n), so that B = Q·C up to
// columns' residuals of gramSpanTol^½ relative, or ok false when the
// factorisation fails.
//
// With S the column norms of B, the Gram matrix G = S⁻¹BᵀBS⁻¹ (unit
// diagonal) is factorised by Cholesky with complete pivoting, PᵀGP = UᵀU,
// U r×n upper trapezoidal, stopping when the residuals fall below
// gramSpanTol (rank r); then CholeskyQR2 (Fukaya et al. 2014) on the r
// kept columns B₁: Q₁ = B₁S₁⁻¹U₁₁⁻¹, Q₁ᵀQ₁ = VᵀV (Cholesky), Q = Q₁V⁻¹,
// which is orthonormal to rounding for κ(B₁S₁⁻¹) up to about ε^(−½)
// (the first pass leaves QᵀQ − I = O(εκ²), the second O(ε)). Then
// B·P = Q·(V·U·S_P). About dn² + 3dr² flops, all level-3 BLAS, against
// 8dn² for Householder QR with Q formed.
func gramSpan(B *mat.Dense) (Q, C *mat.Dense, ok bool) {
	d, n := B.Dims()
	g := blas64.Symmetric{N: n, Stride: n, Data: make([]float64, n*n), Uplo: blas.Upper}
	blas64.Syrk(blas.Trans, 1, B.RawMatrix(), 0, g)
	b := B.RawMatrix()
	Q, V, C, ok := gramBasis(g, d, func(qrow []float64, i int, piv []int, inv []float64) {
		row := b.Data[i*b.Stride : i*b.Stride+n]
		for c, p := range piv {
			qrow[c] = row[p] * inv[c]
		}
	})
	if !ok {
		return nil, nil, false
	}
	blas64.Trsm(blas.Right, blas.NoTrans, 1, V, Q.RawMatrix())
	return Q, C, true
}

// gramBasis is gramSpan from the Gram matrix g = BᵀB (upper triangle,
// overwritten) of a d×n matrix B whose columns it reads through col, which
// sets qrow[c] = B[i, piv[c]]·inv[c]. It leaves the basis factored: Q =
// Q₁V⁻¹ with Q₁ (d×r) and V (r×r upper triangular) the factor of
// CholeskyQR2's second pass; C = QᵀB (r×n).
func gramBasis(g blas64.Symmetric, d int, col func(qrow []float64, i int, piv []int, inv []float64)) (Q1 *mat.Dense, V blas64.Triangular, C *mat.Dense, ok bool) {
	n := g.N
	scale := make([]float64, n)
	for j := range scale {
		if v := g.Data[j*g.Stride+j]; v > 0 {
			scale[j] = math.Sqrt(v)
		}
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if scale[i] > 0 && scale[j] > 0 {
				g.Data[i*g.Stride+j] /= scale[i] * scale[j]
			}
		}
	}
	piv := make([]int, n)
	u, r, _ := lapack64.Pstrf(g, piv, gramSpanTol, make([]float64, 2*n))
	if r == 0 || r > d {
		return nil, V, nil, false
	}
	Q1 = mat.NewDense(d, r, nil)
	q := Q1.RawMatrix()
	inv := make([]float64, r)
	for c, p := range piv[:r] {
		inv[c] = 1 / scale[p]
	}
	for i := 0; i < d; i++ {
		col(q.Data[i*q.Stride:i*q.Stride+r], i, piv[:r], inv)
	}
	u11 := blas64.Triangular{N: r, Stride: u.Stride, Data: u.Data, Uplo: blas.Upper, Diag: blas.NonUnit}
	blas64.Trsm(blas.Right, blas.NoTrans, 1, u11, q)
	g2 := blas64.Symmetric{N: r, Stride: r, Data: make([]float64, r*r), Uplo: blas.Upper}
	blas64.Syrk(blas.Trans, 1, q, 0, g2)
	V, ok = lapack64.Potrf(g2)
	if !ok {
		return nil, V, nil, false
	}
	// W = V·U (r×n, pivoted order), then C = W·S_P unpermuted.
	W := blas64.General{Rows: r, Cols: n, Stride: n, Data: make([]float64, r*n)}
	for i := 0; i < r; i++ {
		copy(W.Data[i*n+i:(i+1)*n], u.Data[i*u.Stride+i:i*u.Stride+n])
	}
	blas64.Trmm(blas.Left, blas.NoTrans, 1, V, W)
	C = mat.NewDense(r, n, nil)
	c := C.RawMatrix()
	for i := 0; i < r; i++ {
		for p, j := range piv {
			c.Data[i*c.Stride+j] = W.Data[i*n+p] * scale[j]
		}
	}
	return Q1, V, C, true
}

// householderQR is thinQR by Householder QR, valid for any Y (it keeps N
// columns when Y is rank deficient).
func householderQR(Y *mat.Dense) (Q *spanBasis, Yr *mat.Dense) {
	d, n := Y.Dims()
	Q = &spanBasis{a: mat.DenseCopyOf(Y).RawMatrix(), tau: make([]float64, n)}
	w := []float64{0}
	lapack64.Geqrf(Q.a, Q.tau, w, -1)
	work := make([]float64, max(int(w[0]), d))
	lapack64.Geqrf(Q.a, Q.tau, work, len(work))
	Yr = mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		copy(Yr.RawRowView(i)[i:], Q.a.Data[i*Q.a.Stride+i:i*Q.a.Stride+n])
	}
	return Q, Yr
}

// spanBasis is the orthonormal Q (d×N) of a Householder QR, held as its N
// reflectors (Geqrf's output) and never formed.
type spanBasis struct {
	a   blas64.General // reflectors below the diagonal (d×N)
	tau []float64
}

// Dims returns the dimensions of Q.
func (q *spanBasis) Dims() (d, n int) { return q.a.Rows, q.a.Cols }

// expand returns Q·Dr, a dictionary learned on reduced data mapped back to
// the data space: the reflectors applied to [Dr; 0] (Ormqr), about 4dNK
// flops for K atoms, less than forming Q (4dN²) and multiplying.
func expand(Q *spanBasis, Dr *mat.Dense) *mat.Dense {
	d, n := Q.Dims()
	_, k := Dr.Dims()
	D := mat.NewDense(d, k, nil)
	D.Slice(0, n, 0, k).(*mat.Dense).Copy(Dr)
	c := D.RawMatrix()
	w := []float64{0}
	lapack64.Ormqr(blas.Left, blas.NoTrans, Q.a, Q.tau, c, w, -1)
	work := make([]float64, max(int(w[0]), 1))
	lapack64.Ormqr(blas.Left, blas.NoTrans, Q.a, Q.tau, c, work, len(work))
	return D
}
