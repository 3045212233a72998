package dl

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// spanInlineWork is the d·N² below which ReduceSpan factorises on the
// calling goroutine instead of one it can leave when ctx is done
// (BenchmarkDLSIFit_*/span).
const spanInlineWork = 1 << 26

// SpanRatio is the least d/N for which ReduceSpan reduces. The
// factorisation costs about 2dN² multiply-adds and Expand dNK, roughly one
// d-sized training pass; the gain is a factor d/N on every pass, so
// near-square data is left alone.
const SpanRatio = 1.2

// ReduceSpan returns Y = Q·Yr for the d×N matrix Y, with Q (d×r)
// orthonormal, r the numerical rank of Y, and Yr = QᵀY (r×N), by ThinQR;
// or nil, nil when d ≤ SpanRatio·N (reduction does not pay), when
// set.NoSpan or when the factorisation fails.
//
// A dictionary learned from columns of Y stays in span(Y) = range(Q): its
// updates only combine columns of Y and of the dictionary, and the costs
// depend on D only through DᵀD, DᵀY and column norms, which Q preserves
// (QᵀQ = I). So training on Yr gives D_r with D = Q·D_r (SpanBasis.Expand),
// at r ≤ N instead of d rows. For a test sample y, ‖y − Dx‖² = ‖Qᵀy −
// D_r x‖² + ‖(I−QQᵀ)y‖², the last term the same for every class, so
// prediction with D on raw data gives the same labels.
//
// A large factorisation runs on its own goroutine, so that a cancelled ctx
// returns ctx.Err() at once (BLAS cannot be
// interrupted; the goroutine finishes and its result is dropped).
func ReduceSpan(ctx context.Context, Y mat.Matrix, set Settings) (Q *SpanBasis, Yr *mat.Dense, err error) {
	if d, n := Y.Dims(); !reduces(d, n, set) {
		return nil, nil, ctx.Err()
	}
	Yd, ok := Y.(*mat.Dense)
	if !ok {
		Yd = DenseCopy(Y)
	}
	return reduceDense(ctx, Yd, set)
}

// reduces reports whether ReduceSpan reduces a d×n matrix.
func reduces(d, n int, set Settings) bool {
	return !set.NoSpan && float64(d) > SpanRatio*float64(n)
}

// reduceDense is ReduceSpan for dense Y.
func reduceDense(ctx context.Context, Y *mat.Dense, set Settings) (Q *SpanBasis, Yr *mat.Dense, err error) {
	d, n := Y.Dims()
	if !reduces(d, n, set) {
		return nil, nil, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if float64(d)*float64(n)*float64(n) < spanInlineWork {
		// A few milliseconds at most: run here, since a goroutine costs
		// the caller a wake-up on each side.
		Q, Yr = ThinQR(Y, set)
	} else {
		type qr struct {
			Q  *SpanBasis
			Yr *mat.Dense
		}
		done := make(chan qr, 1)
		go func() {
			q, r := ThinQR(Y, set)
			done <- qr{q, r}
		}()
		select {
		case f := <-done:
			Q, Yr = f.Q, f.Yr
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	if Q == nil {
		return nil, nil, nil
	}
	return Q, Yr, nil
}

// ThinQR returns Y = Q·Yr for the d×N matrix Y: Q (d×r) orthonormal and
// kept factored, Yr = QᵀY (r×N), r the numerical rank of Y, by pivoted
// CholeskyQR2 (GramBasis): about 1.5dN² multiply-adds, all level-3 BLAS,
// against 2dN² mostly in level-2 panels for Householder QR. Sparse Y
// (SpanDensity, set.SpanRoute) takes a sparse route by rows, about
// nnz(Y)·1.5N + N³ multiply-adds; there Q is orthonormal to about
// ε·κ(Y)² instead of ε (1e-14 on Oxford Flower, 3e-10 for κ ≈ 10⁶).
// When the factorisation fails (Y is zero) it returns nil and Y.
// Columns of Y inside the span of the others up to 1e-7 relative count as
// such: Q·Yr = Y to that accuracy.
func ThinQR(Yd *mat.Dense, set Settings) (Q *SpanBasis, Yr *mat.Dense) {
	d, n := Yd.Dims()
	g := blas64.Symmetric{N: n, Stride: n, Data: make([]float64, n*n), Uplo: blas.Upper}
	b := Yd.RawMatrix()
	sp := sparseRows(b, set.SpanRoute.density())
	if sp != nil {
		sp.gram(g)
	} else {
		blas64.Syrk(blas.Trans, 1, b, 0, g)
	}
	Q1, V, C, ok := GramBasis(g, d, sp, func(qrow []float64, i int, piv []int, inv []float64) {
		row := b.Data[i*b.Stride : i*b.Stride+n]
		for c, p := range piv {
			qrow[c] = row[p] * inv[c]
		}
	})
	if !ok {
		return nil, Yd
	}
	return &SpanBasis{q1: Q1, v: V, sp: sp}, C
}

// SpanDensity is the largest fraction of non-zeros of Y for which ThinQR
// takes the sparse route (SpanAuto). By multiply-adds it pays up to about
// ⅓ (its loops run slower than level-3 BLAS); Oxford Flower has 0.8 %.
const SpanDensity = 0.1

// spanSparse is a d×n matrix B by rows, for the sparse route of ThinQR:
// row i holds val[ptr[i]:ptr[i+1]] in columns col[ptr[i]:ptr[i+1]],
// increasing. GramBasis then forms BᵀB row by row (gram), Q₁ =
// B_P·S⁻¹·T with T = U⁻¹ (formQ1: nnz·r/2 multiply-adds instead of a
// dr²/2 triangular solve) and Q₁ᵀQ₁ = Tᵀ·(B_P·S⁻¹)ᵀQ₁ (gram2: nnz·r + r³/2
// instead of dr²/2), and Expand maps coordinates back through T (nnz·K +
// r²K/2 instead of drK).
type spanSparse struct {
	n   int
	ptr []int
	col []int
	val []float64
	// Set by GramBasis: pos[j] is column j's place c among the r pivots
	// (−1 if not one), inv[c] = 1/‖b_j‖ and t = U⁻¹ (r×r upper).
	pos []int
	inv []float64
	t   blas64.Triangular
}

// sparseRows returns b by rows, or nil if more than a fraction density of
// its entries are non-zero.
func sparseRows(b blas64.General, density float64) *spanSparse {
	limit := int(density * float64(b.Rows) * float64(b.Cols))
	s := &spanSparse{n: b.Cols, ptr: make([]int, b.Rows+1)}
	for i := 0; i < b.Rows; i++ {
		for j, v := range b.Data[i*b.Stride : i*b.Stride+b.Cols] {
			if v != 0 {
				s.col, s.val = append(s.col, j), append(s.val, v)
			}
		}
		if len(s.col) > limit {
			return nil
		}
		s.ptr[i+1] = len(s.col)
	}
	return s
}

// gram sets the upper triangle of g to BᵀB, row by row of B.
func (s *spanSparse) gram(g blas64.Symmetric) {
	for i := range g.Data {
		g.Data[i] = 0
	}
	for i := 0; i+1 < len(s.ptr); i++ {
		cols, vals := s.col[s.ptr[i]:s.ptr[i+1]], s.val[s.ptr[i]:s.ptr[i+1]]
		for a, ja := range cols {
			ga, va := g.Data[ja*g.Stride:], vals[a]
			for b := a; b < len(cols); b++ {
				ga[cols[b]] += va * vals[b]
			}
		}
	}
}

// formQ1 sets q (d×r, zero) to B_P·S⁻¹·U⁻¹ for the pivots piv (r of
// them), inv[c] = 1/S_c and the r×r upper triangular u, keeping what
// mulLeft needs.
func (s *spanSparse) formQ1(q blas64.General, piv []int, inv []float64, u blas64.Triangular) bool {
	r := len(piv)
	s.t = blas64.Triangular{N: r, Stride: r, Data: make([]float64, r*r), Uplo: blas.Upper, Diag: blas.NonUnit}
	for i := 0; i < r; i++ {
		copy(s.t.Data[i*r+i:(i+1)*r], u.Data[i*u.Stride+i:i*u.Stride+r])
	}
	if !lapack64.Trtri(s.t) {
		return false
	}
	s.pos = make([]int, s.n)
	for j := range s.pos {
		s.pos[j] = -1
	}
	for c, p := range piv {
		s.pos[p] = c
	}
	s.inv = inv
	s.mulLeft(q, blas64.General{Rows: r, Cols: r, Stride: r, Data: s.t.Data}, true)
	return true
}

// gram2 sets g (r×r) to Q₁ᵀQ₁ = Tᵀ·((B_P·S⁻¹)ᵀQ₁) for q = Q₁ of formQ1.
func (s *spanSparse) gram2(g blas64.Symmetric, q blas64.General) {
	r := g.N
	h := blas64.General{Rows: r, Cols: r, Stride: g.Stride, Data: g.Data}
	for i := range h.Data {
		h.Data[i] = 0
	}
	for i := 0; i < q.Rows; i++ {
		qrow := q.Data[i*q.Stride : i*q.Stride+r]
		for k := s.ptr[i]; k < s.ptr[i+1]; k++ {
			if c := s.pos[s.col[k]]; c >= 0 {
				floats.AddScaled(h.Data[c*h.Stride:c*h.Stride+r], s.val[k]*s.inv[c], qrow)
			}
		}
	}
	blas64.Trmm(blas.Left, blas.Trans, 1, s.t, h)
}

// gramSpanTol is the squared residual, relative to the column, below which
// ThinQR treats a column as inside the span of the others: a residual of
// 10⁻⁷‖b‖, about the accuracy of a Gram matrix route (√ε).
const gramSpanTol = 1e-14

// GramBasis is ThinQR from the Gram matrix g = BᵀB (upper triangle,
// overwritten) of a d×n matrix B whose columns it reads through col, which
// sets qrow[c] = B[i, piv[c]]·inv[c], or through sp when not nil. It
// leaves the basis factored: Q = Q₁V⁻¹ with Q₁ (d×r) and V (r×r upper
// triangular) the factor of CholeskyQR2's second pass; C = QᵀB (r×n).
func GramBasis(g blas64.Symmetric, d int, sp *spanSparse, col func(qrow []float64, i int, piv []int, inv []float64)) (Q1 *mat.Dense, V blas64.Triangular, C *mat.Dense, ok bool) {
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
	u11 := blas64.Triangular{N: r, Stride: u.Stride, Data: u.Data, Uplo: blas.Upper, Diag: blas.NonUnit}
	if sp != nil {
		if !sp.formQ1(q, piv[:r], inv, u11) {
			return nil, V, nil, false
		}
	} else {
		for i := 0; i < d; i++ {
			col(q.Data[i*q.Stride:i*q.Stride+r], i, piv[:r], inv)
		}
		blas64.Trsm(blas.Right, blas.NoTrans, 1, u11, q)
	}
	g2 := blas64.Symmetric{N: r, Stride: r, Data: make([]float64, r*r), Uplo: blas.Upper}
	if sp != nil {
		sp.gram2(g2, q)
	} else {
		blas64.Syrk(blas.Trans, 1, q, 0, g2)
	}
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
