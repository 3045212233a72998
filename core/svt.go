package core

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// SVT sets dst to the singular value thresholding of a,
//
//	D_τ(A) = U·diag(max(σᵢ − τ, 0))·Vᵀ,
//
// the proximal operator of τ‖·‖_*, argmin_Z τ‖Z‖_* + ½‖Z − A‖²_F (Cai,
// Candès and Shen), computed from LAPACK's thin SVD, or for a with at least
// twice as many rows as columns from that of its triangular factor. It
// returns the rank of the result. dst may be a; an empty dst is resized. When a is not finite
// it returns an error wrapping ErrNotFinite and leaves dst unset.
func SVT(dst, a *mat.Dense, tau float64) (int, error) {
	var w SVTWorkspace
	return w.SVT(dst, a, tau)
}

// SVTWorkspace computes SVT and NuclearNorm with its work matrices kept
// between calls: for tall a (at least twice as many rows as columns) a
// warm call at the same shape does not allocate. The results are those of
// the functions, bit for bit. The zero value is ready to use.
type SVTWorkspace struct {
	q, g, r  []float64 // tallR: the copy of A, its Gram matrix, R
	svd      svdWork
	v, vs, w []float64 // svtTall: V, V_r·Σ' and V_r·Σ'·V_rᵀ
	t        mat.Dense // svtTall's product when dst is a
}

// SVT is the function SVT using w's workspace.
func (w *SVTWorkspace) SVT(dst, a *mat.Dense, tau float64) (int, error) {
	r, c := a.Dims()
	if !finiteDense(a) { // gonum's SVD panics on infinite entries
		return 0, fmt.Errorf("core: SVT: %w", ErrNotFinite)
	}
	if R, ok := w.tallR(a); ok {
		return w.svtTall(dst, a, R, tau)
	}
	var svd mat.SVD
	s, err := svtFactorize(&svd, a, mat.SVDThin)
	if err != nil {
		return 0, err
	}
	rank := 0
	for i, x := range s {
		s[i] = math.Max(x-tau, 0)
		if s[i] > 0 {
			rank++
		}
	}
	if dst.IsEmpty() {
		dst.ReuseAs(r, c)
	}
	if rank == 0 {
		dst.Zero()
		return 0, nil
	}
	// Singular values are in decreasing order: keep the first rank triplets.
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	ur := u.RawMatrix()
	for i := 0; i < r; i++ {
		row := ur.Data[i*ur.Stride : i*ur.Stride+rank]
		for j := range row {
			row[j] *= s[j]
		}
	}
	dst.Mul(u.Slice(0, r, 0, rank), v.Slice(0, c, 0, rank).T())
	return rank, nil
}

// svtFactorize factorizes a into svd and returns its singular values, or
// an error if the SVD fails or they are not finite.
func svtFactorize(svd *mat.SVD, a mat.Matrix, kind mat.SVDKind) ([]float64, error) {
	if !svd.Factorize(a, kind) {
		return nil, fmt.Errorf("core: SVT: the SVD did not converge: %w", ErrNotFinite)
	}
	s := svd.Values(nil)
	if !finite(s) {
		return nil, fmt.Errorf("core: SVT: singular values %w", ErrNotFinite)
	}
	return s, nil
}

// svtTall is SVT for a = QR, R from tallR: with R = U_RΣVᵀ (the SVD of the
// n×n R), A = (QU_R)ΣVᵀ, so D_τ(A) = QU_R·Σ_τVᵀ = A·V·diag(max(σᵢ−τ, 0)/σᵢ)·Vᵀ
// (Q = AR⁻¹ and R⁻¹U_R = VΣ⁻¹), one m×n×n product without Q. Directions
// with σᵢ ≤ τ get a factor 0, so their rounding in A·vᵢ does not matter;
// the others are scaled by at most 1.
func (w *SVTWorkspace) svtTall(dst, a *mat.Dense, R blas64.General, tau float64) (int, error) {
	r, c := a.Dims()
	s, vt, err := w.svd.factorize(R, true)
	if err != nil {
		return 0, err
	}
	rank := 0
	for i, x := range s {
		if x > tau {
			s[i] = (x - tau) / x
			rank++
		} else {
			s[i] = 0
		}
	}
	if dst.IsEmpty() {
		dst.ReuseAs(r, c)
	}
	if rank == 0 {
		dst.Zero()
		return 0, nil
	}
	// V_r, the first rank columns of V: vs = V_r·diag(s), W = vs·V_rᵀ.
	w.v = grow(w.v, c*c)
	w.vs = grow(w.vs, c*rank)
	w.w = grow(w.w, c*c)
	for i := 0; i < c; i++ {
		for j := 0; j < c; j++ {
			w.v[i*c+j] = vt.Data[j*vt.Stride+i]
		}
		for j := 0; j < rank; j++ {
			w.vs[i*rank+j] = s[j] * w.v[i*c+j]
		}
	}
	vk := blas64.General{Rows: c, Cols: rank, Stride: c, Data: w.v}
	vs := blas64.General{Rows: c, Cols: rank, Stride: rank, Data: w.vs}
	wm := blas64.General{Rows: c, Cols: c, Stride: c, Data: w.w}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, vs, vk, 0, wm)
	out := dst
	if dst == a {
		w.t.ReuseAs(r, c)
		out = &w.t
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, a.RawMatrix(), wm, 0, out.RawMatrix())
	if out != dst {
		dst.Copy(out)
		w.t.Reset()
	}
	return rank, nil
}

// grow returns b resliced to n, or a new slice when b is shorter.
func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// svdWork computes singular values, and Vᵀ if asked, by LAPACK's Dgesvd
// as mat.SVD.Factorize does (the same calls, so the same results), in
// buffers kept between calls.
type svdWork struct {
	a, vt, s, work []float64
	query          [1]float64
}

// factorize returns the singular values of a and, if wantV, its thin Vᵀ,
// in s's buffers until the next call; or an error if the SVD fails or the
// values are not finite.
func (w *svdWork) factorize(a blas64.General, wantV bool) ([]float64, blas64.General, error) {
	m, n := a.Rows, a.Cols
	k := min(m, n)
	w.a = grow(w.a, m*n)
	ac := blas64.General{Rows: m, Cols: n, Stride: n, Data: w.a}
	for i := 0; i < m; i++ {
		copy(w.a[i*n:(i+1)*n], a.Data[i*a.Stride:i*a.Stride+n])
	}
	var u, vt blas64.General
	jobVT := lapack.SVDNone
	if wantV {
		w.vt = grow(w.vt, k*n)
		vt = blas64.General{Rows: k, Cols: n, Stride: n, Data: w.vt}
		jobVT = lapack.SVDStore
	}
	w.s = grow(w.s, k)
	lapack64.Gesvd(lapack.SVDNone, jobVT, ac, u, vt, w.s, w.query[:], -1)
	w.work = grow(w.work, int(w.query[0]))
	if !lapack64.Gesvd(lapack.SVDNone, jobVT, ac, u, vt, w.s, w.work, len(w.work)) {
		return nil, vt, fmt.Errorf("core: SVT: the SVD did not converge: %w", ErrNotFinite)
	}
	if !finite(w.s) {
		return nil, vt, fmt.Errorf("core: SVT: singular values %w", ErrNotFinite)
	}
	return w.s, vt, nil
}

// NuclearNorm returns ‖A‖_*, the sum of the singular values of a, or NaN
// when the SVD fails (a not finite). A dense a with at least twice as many
// rows as columns is first reduced to its n×n triangular factor R (A = QR,
// same singular values).
func NuclearNorm(a mat.Matrix) float64 {
	var w SVTWorkspace
	return w.NuclearNorm(a)
}

// NuclearNorm is the function NuclearNorm using w's workspace.
func (w *SVTWorkspace) NuclearNorm(a mat.Matrix) float64 {
	if d, ok := a.(*mat.Dense); !ok || !finiteDense(d) {
		r, c := a.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if v := a.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					return math.NaN()
				}
			}
		}
	} else if R, ok := w.tallR(d); ok {
		s, _, err := w.svd.factorize(R, false)
		if err != nil {
			return math.NaN()
		}
		var sum float64
		for _, x := range s {
			sum += x
		}
		return sum
	}
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDNone) {
		return math.NaN()
	}
	var s float64
	for _, x := range svd.Values(nil) {
		s += x
	}
	return s
}

// tallMinPivot is the least ratio min_i U_ii / max_i U_ii of a Cholesky
// factor that tallR accepts: κ(A) below about 10⁶, well inside
// CholeskyQR2's range κ ≲ ε^(−½).
const tallMinPivot = 1e-6

// tallR returns the upper triangular n×n R of A = QR for the m×n matrix a,
// m ≥ 2n, by CholeskyQR2 (Fukaya et al. 2014): AᵀA = R₁ᵀR₁ (Cholesky),
// Q₁ = AR₁⁻¹, Q₁ᵀQ₁ = R₂ᵀR₂, R = R₂R₁; the second pass makes R as
// accurate as Householder's for κ(A) ≲ ε^(−½). About 2mn² flops, level-3
// BLAS, against the slower column-by-column Householder QR of the SVD.
// ok is false for short a or when a Cholesky pivot ratio falls below
// tallMinPivot (A rank deficient or ill conditioned).
func (w *SVTWorkspace) tallR(a *mat.Dense) (R blas64.General, ok bool) {
	m, n := a.Dims()
	if n == 0 || m < 2*n {
		return R, false
	}
	ar := a.RawMatrix()
	w.q = grow(w.q, m*n)
	for i := 0; i < m; i++ {
		copy(w.q[i*n:(i+1)*n], ar.Data[i*ar.Stride:i*ar.Stride+n])
	}
	qr := blas64.General{Rows: m, Cols: n, Stride: n, Data: w.q}
	w.g = grow(w.g, n*n)
	g := blas64.Symmetric{N: n, Stride: n, Data: w.g, Uplo: blas.Upper}
	w.r = grow(w.r, n*n)
	clear(w.r)
	rr := blas64.General{Rows: n, Cols: n, Stride: n, Data: w.r}
	for pass := 0; pass < 2; pass++ {
		blas64.Syrk(blas.Trans, 1, qr, 0, g)
		u, ok := lapack64.Potrf(g)
		if !ok {
			return R, false
		}
		lo, hi := math.Inf(1), 0.0
		for i := 0; i < n; i++ {
			v := u.Data[i*u.Stride+i]
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if !(lo >= tallMinPivot*hi) {
			return R, false
		}
		if pass == 0 {
			blas64.Trsm(blas.Right, blas.NoTrans, 1, u, qr)
			for i := 0; i < n; i++ {
				copy(rr.Data[i*rr.Stride+i:i*rr.Stride+n], u.Data[i*u.Stride+i:i*u.Stride+n])
			}
			continue
		}
		blas64.Trmm(blas.Left, blas.NoTrans, 1, u, rr)
	}
	return rr, true
}

// ProxFunc sets z = argmin_z r(z) + ρ/2‖z − v‖²_F.
type ProxFunc func(z, v *mat.Dense, rho float64)

// SVTProx returns the ProxFunc of r = η‖·‖_*: z = D_{η/ρ}(v). When the SVD
// fails it sets z to NaN, which ADMMDict reports.
func SVTProx(eta float64) ProxFunc {
	return func(z, v *mat.Dense, rho float64) {
		if _, err := SVT(z, v, eta/rho); err != nil {
			if z.IsEmpty() {
				z.ReuseAs(v.Dims())
			}
			r, c := z.Dims()
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					z.Set(i, j, math.NaN())
				}
			}
		}
	}
}

// ADMMOptions controls ADMMDict. The zero value means the defaults.
type ADMMOptions struct {
	Rho     float64 // penalty ρ; zero means 1
	MaxIter int     // ADMM iterations; zero means 50
	Tol     float64 // stop when ‖D − Z‖_F and ‖ΔZ‖_F are ≤ Tol·max(1,‖D‖_F); zero means 1e-5
	Update  UpdateDictOptions
	// Dual, if not nil, warm-starts the dual: a d×k Dual = ρ'U' from an
	// earlier call (at any penalty ρ') starts U = Dual/ρ instead of 0, and
	// on return Dual holds ρU. An empty Dual starts U = 0.
	Dual *mat.Dense
}

// ADMMDict updates D in place towards
//
//	argmin_D −2tr(E·Dᵀ) + tr(F·DᵀD) + r(D),  ‖dᵢ‖₂ ≤ 1,
//
// by ADMM on the split D = Z, starting from Z = D, U = 0 (or
// U = opts.Dual/ρ) (eqs. lrsdl_d0_1..4):
//
//	D = argmin −2tr(Ē·Dᵀ) + tr(F̄·DᵀD), Ē = E + ρ/2(Z − U), F̄ = F + ρ/2·I  (UpdateDict)
//	Z = prox_{r/ρ}(D + U)
//	U = U + D − Z
//
// which is scaled ADMM for the augmented Lagrangian with penalty ρ/2‖D − Z + U‖²_F.
// With r = η‖·‖_* the Z step is SVTProx(η) (LRSDL-D0); with r = 0 (prox
// z = v) the result is UpdateDict's solution. ctx is checked before every
// iteration and every inner sweep; iterates that become NaN (non-finite E,
// F or a failing prox) are an error wrapping ErrNotFinite.
func ADMMDict(ctx context.Context, D, E, F *mat.Dense, prox ProxFunc, opts ADMMOptions) error {
	var w ADMMDictWorkspace
	return w.Update(ctx, D, E, F, prox, opts)
}

// ADMMDictWorkspace runs ADMMDict with its d×k and k×k work matrices and
// the inner DictUpdater kept between calls. The zero value is ready to use.
type ADMMDictWorkspace struct {
	z, u, eb, fb, v, zp mat.Dense
	odl                 DictUpdater
}

// Update is ADMMDict(ctx, D, E, F, prox, opts) using w's workspace; with
// a prox that does not allocate, a warm call does not allocate.
func (w *ADMMDictWorkspace) Update(ctx context.Context, D, E, F *mat.Dense, prox ProxFunc, opts ADMMOptions) error {
	d, k := D.Dims()
	rho := opts.Rho
	if rho == 0 {
		rho = 1
	}
	maxIter := opts.MaxIter
	if maxIter <= 0 {
		maxIter = 50
	}
	tol := opts.Tol
	if tol == 0 {
		tol = 1e-5
	}
	// ReuseAs zeroes, so U starts at 0.
	for _, m := range []*mat.Dense{&w.z, &w.u, &w.eb, &w.v, &w.zp} {
		m.Reset()
		m.ReuseAs(d, k)
	}
	w.fb.Reset()
	w.fb.ReuseAs(k, k)
	Z, U, Eb, Fb, V, Zp := &w.z, &w.u, &w.eb, &w.fb, &w.v, &w.zp
	Z.Copy(D)
	if dual := opts.Dual; dual != nil && !dual.IsEmpty() {
		if r, c := dual.Dims(); r != d || c != k {
			panic(mat.ErrShape)
		}
		U.Scale(1/rho, dual)
	}
	Fb.Copy(F)
	for i := 0; i < k; i++ {
		Fb.Set(i, i, Fb.At(i, i)+rho/2)
	}
	for it := 0; it < maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		admmPasses(admmBeforeODL, D, E, Z, U, Eb, V, Zp, rho/2)
		if err := w.odl.UpdateContext(ctx, D, Eb, Fb, opts.Update); err != nil {
			return err
		}
		admmPasses(admmBeforeProx, D, E, Z, U, Eb, V, Zp, 0)
		prox(Z, V, rho)
		admmPasses(admmAfterProx, D, E, Z, U, Eb, V, Zp, 0)
		// Primal residual D − Z and dual residual ΔZ; plain sums of squares
		// (the scaled sums of mat.Norm guard against overflow these
		// dictionary-sized entries cannot reach, at several times the cost).
		nd, nv, nz := math.Sqrt(Dot(D, D)), math.Sqrt(Dot(V, V)), math.Sqrt(Dot(Zp, Zp))
		if math.IsNaN(nd + nv + nz) {
			return fmt.Errorf("core: ADMM iteration %d: %w", it+1, ErrNotFinite)
		}
		lim := tol * math.Max(1, nd)
		if nv <= lim && nz <= lim {
			break
		}
	}
	if opts.Dual != nil {
		opts.Dual.Scale(rho, U) // sizes an empty Dual
	}
	return nil
}

// The element-wise steps of ADMMDictWorkspace.Update, each one pass over
// the d×k matrices.
const (
	admmBeforeODL  = iota // Eb = E + h·(Z − U)
	admmBeforeProx        // V = D + U, Zp = Z
	admmAfterProx         // U = (U + D) − Z, V = D − Z, Zp = Z − Zp
)

// admmPasses performs step of ADMMDictWorkspace.Update, rounding as the
// separate Dense operations would. Only D and E may have a stride other
// than k.
func admmPasses(step int, D, E, Z, U, Eb, V, Zp *mat.Dense, h float64) {
	dr, er := D.RawMatrix(), E.RawMatrix()
	k := dr.Cols
	z, u, eb, v, zp := Z.RawMatrix().Data, U.RawMatrix().Data, Eb.RawMatrix().Data, V.RawMatrix().Data, Zp.RawMatrix().Data
	for i := 0; i < dr.Rows; i++ {
		o := i * k
		drow := dr.Data[i*dr.Stride : i*dr.Stride+k]
		zi, ui, vi, pi := z[o:o+k], u[o:o+k], v[o:o+k], zp[o:o+k]
		switch step {
		case admmBeforeODL:
			erow, ebi := er.Data[i*er.Stride:i*er.Stride+k], eb[o:o+k]
			for j := range ebi {
				ebi[j] = float64((zi[j]-ui[j])*h) + erow[j]
			}
		case admmBeforeProx:
			for j, x := range drow {
				vi[j] = x + ui[j]
			}
			copy(pi, zi)
		case admmAfterProx:
			for j, x := range drow {
				zj := zi[j]
				ui[j] = (ui[j] + x) - zj
				vi[j] = x - zj
				pi[j] = zj - pi[j]
			}
		}
	}
}

// finiteDense reports whether every entry of a is finite.
func finiteDense(a *mat.Dense) bool {
	ar := a.RawMatrix()
	for i := 0; i < ar.Rows; i++ {
		if !finite(ar.Data[i*ar.Stride : i*ar.Stride+ar.Cols]) {
			return false
		}
	}
	return true
}
