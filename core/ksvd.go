package core

import (
	"context"
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
)

// KSVDOptions controls KSVD. The zero value means the defaults.
type KSVDOptions struct {
	// Tol stops OMP for a sample once ‖yᵢ − Dxᵢ‖₂ ≤ Tol; zero: T atoms.
	Tol float64
	// PowerIter bounds the Lanczos steps computing each atom's leading
	// singular pair; zero means 20.
	PowerIter int
	// Progress, if set, is called after every iteration with the current
	// dictionary and codes, which it must not modify.
	Progress func(iter int, D, X *mat.Dense)
	// DtY, if set, sets dst (k×n) to DᵀY for the current dictionary, for
	// data whose structure gives a cheaper product than the dense one.
	DtY func(dst, D *mat.Dense)
}

// KSVD improves the dictionary D (d×k) in place for the columns of Y (d×n)
// by iters iterations of K-SVD (Aharon, Elad and Bruckstein) towards
//
//	min_{D,X} ‖Y − DX‖²_F  subject to ‖xᵢ‖₀ ≤ T, ‖dⱼ‖₂ = 1,
//
// and returns the codes X (k×n) matching the final D. Each iteration codes
// Y by OMP, keeping a sample's previous code when OMP does not lower its
// error, then updates the atoms one by one: with ω the samples using atom
// j and E = (Y − DX + dⱼxʲ)_ω the residual without it, (dⱼ, xʲ_ω) becomes
// the leading singular pair (u, σv) of E, computed by Lanczos on EEᵀ
// started from the current atom. Hence ‖Y − DX‖_F never increases. An
// unused atom is replaced by the worst-represented sample (largest
// residual, normalised), each sample used at most once per sweep. The
// columns of D are normalised first. ctx is checked before every atom
// update and in the OMP batches; non-finite data is an error wrapping
// ErrNotFinite.
func KSVD(ctx context.Context, D *mat.Dense, Y mat.Matrix, T, iters int, opts KSVDOptions) (*mat.Dense, error) {
	if iters < 0 {
		return nil, fmt.Errorf("core: K-SVD iterations %d < 0", iters)
	}
	r, err := NewKSVDRun(D, Y, T, opts)
	if err != nil {
		return nil, err
	}
	for it := 1; it <= iters; it++ {
		if err := r.Step(ctx); err != nil {
			return nil, err
		}
		if opts.Progress != nil {
			opts.Progress(it, D, r.X)
		}
	}
	return r.X, nil
}

// KSVDRun is a K-SVD run (see KSVD) advanced one iteration at a time by
// Step, for callers with their own outer loop.
type KSVDRun struct {
	D *mat.Dense // d×k dictionary, updated in place
	X *mat.Dense // k×n codes matching D after each Step

	// The residual is kept sample by sample, Rt = (Y − DX)ᵀ (n×d), so that
	// the samples using an atom are contiguous rows.
	y, yt, rt, g, b, xn, rnt *mat.Dense
	yy, rr, dt               []float64
	t                        int
	opts                     KSVDOptions
	ow                       OMPWork
	sw                       ksvdWork
}

// NewKSVDRun starts K-SVD from the dictionary D (normalised in place) for
// the columns of Y with sparsity T.
func NewKSVDRun(D *mat.Dense, Y mat.Matrix, T int, opts KSVDOptions) (*KSVDRun, error) {
	d, k := D.Dims()
	yr, n := Y.Dims()
	switch {
	case yr != d:
		return nil, fmt.Errorf("core: K-SVD dictionary has %d rows, data has %d", d, yr)
	case T < 1 || T > k:
		return nil, fmt.Errorf("core: K-SVD sparsity T=%d, want 1..%d (the number of atoms)", T, k)
	case n == 0:
		return nil, ErrNoSamples
	}
	Yd, ok := Y.(*mat.Dense)
	if !ok {
		Yd = mat.DenseCopyOf(Y)
	}
	for j := 0; j < k; j++ {
		col := D.ColView(j).(*mat.VecDense)
		if nrm := mat.Norm(col, 2); nrm > 0 {
			col.ScaleVec(1/nrm, col)
		}
	}
	yt := mat.DenseCopyOf(Yd.T())
	r := &KSVDRun{D: D, X: mat.NewDense(k, n, nil), y: Yd, yt: yt, rt: mat.DenseCopyOf(yt), t: T, opts: opts,
		g: mat.NewDense(k, k, nil), b: mat.NewDense(k, n, nil), xn: mat.NewDense(k, n, nil), rnt: mat.NewDense(n, d, nil)}
	r.yy = colNorms2(Yd)
	r.rr = append([]float64(nil), r.yy...)
	return r, nil
}

// Step runs one K-SVD iteration: OMP coding (keeping a sample's code when
// OMP does not lower its error) and one sweep over the atoms.
func (r *KSVDRun) Step(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	D := r.D
	gramTo(r.g, D)
	if r.opts.DtY != nil {
		r.opts.DtY(r.b, D)
	} else {
		r.b.Mul(D.T(), r.y)
	}
	if err := BatchOMP(ctx, r.xn, r.g, r.b, r.yy, r.t, r.opts.Tol, &r.ow); err != nil {
		return err
	}
	r.residualT()
	keepBetter(r.X, r.rt, r.rr, r.xn, r.rnt)
	if err := r.sw.sweep(ctx, D, r.X, r.rt, r.yt, r.opts.PowerIter); err != nil {
		return err
	}
	rowNorms2(r.rr, r.rt)
	return nil
}

// gramTo sets G (k×k) to DᵀD by a symmetric rank-k product (half the
// multiply-adds of a general one), mirrored into the lower triangle.
func gramTo(G, D *mat.Dense) {
	g := G.RawMatrix()
	k := g.Rows
	blas64.Syrk(gblas.Trans, 1, D.RawMatrix(), 0, blas64.Symmetric{N: k, Stride: g.Stride, Data: g.Data, Uplo: gblas.Upper})
	for i := 1; i < k; i++ {
		for j := 0; j < i; j++ {
			g.Data[i*g.Stride+j] = g.Data[j*g.Stride+i]
		}
	}
}

// residualT sets rnt = (Y − D·Xn)ᵀ from the T-sparse codes Xn, one axpy of
// an atom per non-zero code: O(d·T·n) instead of a dense product.
func (r *KSVDRun) residualT() {
	d, k := r.D.Dims()
	if cap(r.dt) < d*k {
		r.dt = make([]float64, d*k)
	}
	dt := r.dt[:d*k]
	dr := r.D.RawMatrix()
	for i := 0; i < d; i++ {
		for a, v := range dr.Data[i*dr.Stride : i*dr.Stride+k] {
			dt[a*d+i] = v
		}
	}
	r.rnt.Copy(r.yt)
	rn, x := r.rnt.RawMatrix(), r.xn.RawMatrix()
	for a := 0; a < k; a++ {
		for j, v := range x.Data[a*x.Stride : a*x.Stride+x.Cols] {
			if v != 0 {
				floats.AddScaled(rn.Data[j*rn.Stride:j*rn.Stride+d], -v, dt[a*d:(a+1)*d])
			}
		}
	}
}

// keepBetter replaces each column of X and each row of Rt (the residuals
// of the samples, with squared norms rr) by that of Xn and Rnt when the new
// residual is smaller.
func keepBetter(X, Rt *mat.Dense, rr []float64, Xn, Rnt *mat.Dense) {
	x, xn, r, rn := X.RawMatrix(), Xn.RawMatrix(), Rt.RawMatrix(), Rnt.RawMatrix()
	for j := range rr {
		row := rn.Data[j*rn.Stride : j*rn.Stride+rn.Cols]
		v := floats.Dot(row, row)
		if v > rr[j] {
			continue
		}
		rr[j] = v
		for i := 0; i < x.Rows; i++ {
			x.Data[i*x.Stride+j] = xn.Data[i*xn.Stride+j]
		}
		copy(r.Data[j*r.Stride:j*r.Stride+r.Cols], row)
	}
}

// rowNorms2 sets s[i] to the squared Euclidean norm of row i of A.
func rowNorms2(s []float64, A *mat.Dense) {
	a := A.RawMatrix()
	for i := range s {
		row := a.Data[i*a.Stride : i*a.Stride+a.Cols]
		s[i] = floats.Dot(row, row)
	}
}

// ksvdWork holds the buffers of one K-SVD atom sweep.
type ksvdWork struct {
	omega  []int
	e, v   []float64
	u, dk  []float64
	picked []bool
	rr     []float64
	lw     lanczosWork
}

// sweep updates every atom of D and its row of X in turn, keeping
// Rt = (Y − DX)ᵀ, with Yt = Yᵀ; see KSVD. It checks ctx before every atom.
func (w *ksvdWork) sweep(ctx context.Context, D, X, Rt, Yt *mat.Dense, powerIter int) error {
	if powerIter <= 0 {
		powerIter = 20
	}
	d, k := D.Dims()
	_, n := X.Dims()
	x, r, dr := X.RawMatrix(), Rt.RawMatrix(), D.RawMatrix()
	if cap(w.picked) < n {
		w.picked = make([]bool, n)
		w.rr = make([]float64, n)
	}
	w.picked, w.rr = w.picked[:n], w.rr[:n]
	if cap(w.u) < d {
		w.u, w.dk = make([]float64, d), make([]float64, d)
	}
	w.u, w.dk = w.u[:d], w.dk[:d]
	haveRR := false
	for j := 0; j < k; j++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		xrow := x.Data[j*x.Stride : j*x.Stride+n]
		w.omega = w.omega[:0]
		for i, v := range xrow {
			if v != 0 {
				w.omega = append(w.omega, i)
			}
		}
		m := len(w.omega)
		if m == 0 {
			if !haveRR {
				rowNorms2(w.rr, Rt)
				clear(w.picked)
				haveRR = true
			}
			w.replace(D, Yt, j)
			continue
		}
		for p := 0; p < d; p++ {
			w.dk[p] = dr.Data[p*dr.Stride+j]
		}
		// Eᵀ = (R_ω + dⱼ·xʲ_ω)ᵀ, m×d row-major: row q is the residual of
		// sample ω_q without atom j.
		if cap(w.e) < d*m {
			w.e = make([]float64, d*m)
		}
		if cap(w.v) < m {
			w.v = make([]float64, m)
		}
		e, v := w.e[:d*m], w.v[:m]
		for q, i := range w.omega {
			v[q] = xrow[i]
			floats.AddScaledTo(e[q*d:(q+1)*d], r.Data[i*r.Stride:i*r.Stride+d], v[q], w.dk)
		}
		u := w.u
		if leadingPair(u, v, w.dk, e, powerIter, &w.lw) == 0 {
			continue
		}
		for p := 0; p < d; p++ {
			dr.Data[p*dr.Stride+j] = u[p]
		}
		for q, i := range w.omega {
			floats.AddScaledTo(r.Data[i*r.Stride:i*r.Stride+d], e[q*d:(q+1)*d], -v[q], u)
			xrow[i] = v[q]
		}
	}
	return nil
}

// replace sets atom j to the normalised sample (a row of Yt) with the
// largest residual not yet picked in this sweep.
func (w *ksvdWork) replace(D, Yt *mat.Dense, j int) {
	best, bv := -1, 0.0
	for i, v := range w.rr {
		if !w.picked[i] && v > bv {
			best, bv = i, v
		}
	}
	if best < 0 {
		return
	}
	w.picked[best] = true
	col := w.u
	copy(col, Yt.RawRowView(best))
	nrm := floats.Norm(col, 2)
	if nrm == 0 {
		return
	}
	floats.Scale(1/nrm, col)
	D.SetCol(j, col)
}

// leadingPair sets u (d) and x (m) to the leading singular pair of the d×m
// matrix E, given by its columns as the rows of e (m×d, row-major), with
// ‖u‖ = 1 and x = Eᵀu, and returns σ = ‖x‖. It runs at most maxIter steps
// of Lanczos on A = EEᵀ, each one product Eᵀuⱼ (Gemv) and one E·(Eᵀuⱼ)
// (blas.AddCombination), so E is never transposed: the three-term
// recurrence αⱼ = uⱼᵀAuⱼ, βⱼuⱼ₊₁ = Auⱼ − αⱼuⱼ − βⱼ₋₁uⱼ₋₁ with one full
// reorthogonalisation against u₁..uⱼ. It starts from u₀ (unit norm, the
// current atom) or, when Eᵀu₀ = 0, from Ex for the x given, and stops once
// the largest eigenvalue θ of the tridiagonal T_j (Dsterf) grows by at most
// ritzTol·θ in a step, or βⱼ ≤ lanczosTol·θ (an invariant subspace). Then
// u = U·y/‖U·y‖ for the eigenvector y of θ (Dsteqr), signed as u₀, and
// x = Σ yᵢ·Eᵀuᵢ/‖U·y‖ from the stored products. As the Krylov space holds
// u₀, σ² = θ ≥ ‖Eᵀu₀‖², so ‖E − u·xᵀ‖_F never exceeds ‖E − u₀·x₀ᵀ‖_F for
// any x₀. With E = 0 it returns 0.
func leadingPair(u, x, u0, e []float64, maxIter int, w *lanczosWork) float64 {
	m, d := len(x), len(u)
	maxIter = max(maxIter, 1)
	w.grow(d, m, maxIter)
	g := blas64.General{Rows: m, Cols: d, Stride: d, Data: e}
	eTu := func(j int) []float64 {
		wj := w.eu[j*m : (j+1)*m]
		blas64.Gemv(gblas.NoTrans, 1, g, blas64.Vector{N: d, Inc: 1, Data: w.u[j*d : (j+1)*d]}, 0, blas64.Vector{N: m, Inc: 1, Data: wj})
		return wj
	}
	u1 := w.u[:d]
	copy(u1, u0)
	if w0 := eTu(0); floats.Dot(w0, w0) == 0 {
		// Eᵀu₀ = 0: start from Ex instead.
		clear(u1)
		blas.AddCombination(u1, m, x, 1, e, d)
		nu := math.Sqrt(floats.Dot(u1, u1))
		if nu == 0 {
			return 0
		}
		floats.Scale(1/nu, u1)
		if w0 = eTu(0); floats.Dot(w0, w0) == 0 {
			return 0
		}
	}
	k := 0 // Lanczos vectors
	theta := 0.0
	z := w.z
	for {
		j := k
		uj := w.u[j*d : (j+1)*d]
		if j > 0 {
			eTu(j)
		}
		clear(z)
		blas.AddCombination(z, m, w.eu[j*m:(j+1)*m], 1, e, d)
		w.a[j] = floats.Dot(uj, z)
		k++
		// The three-term recurrence, then one full reorthogonalisation.
		floats.AddScaled(z, -w.a[j], uj)
		if j > 0 {
			floats.AddScaled(z, -w.b[j-1], w.u[(j-1)*d:j*d])
		}
		for i := 0; i < k; i++ {
			ui := w.u[i*d : (i+1)*d]
			floats.AddScaled(z, -floats.Dot(ui, z), ui)
		}
		beta := math.Sqrt(floats.Dot(z, z))
		// θ: the largest eigenvalue of T_k (diagonal a, off-diagonal b).
		copy(w.td, w.a[:k])
		copy(w.te, w.b[:j])
		if !lapackImpl.Dsterf(k, w.td, w.te) {
			k-- // keep the previous T
			break
		}
		prev := theta
		theta = w.td[k-1]
		if beta <= lanczosTol*theta || theta-prev <= ritzTol*theta || k == maxIter {
			break
		}
		w.b[j] = beta
		floats.ScaleTo(w.u[k*d:(k+1)*d], 1/beta, z)
	}
	// The Ritz vector y of T_k for θ: Dsteqr's last eigenvector.
	copy(w.td, w.a[:k])
	copy(w.te, w.b[:k-1])
	if !lapackImpl.Dsteqr(lapack.EVTridiag, k, w.td, w.te, w.tz, k, w.tw) {
		k = 1 // the Rayleigh quotient of u₁
		w.tz[0] = 1
	}
	y := w.y[:k]
	for i := range y {
		y[i] = w.tz[i*k+k-1]
	}
	clear(u)
	blas.AddCombination(u, k, y, 1, w.u, d)
	clear(x)
	blas.AddCombination(x, k, y, 1, w.eu, m)
	nu := math.Sqrt(floats.Dot(u, u))
	if nu == 0 {
		return 0
	}
	if floats.Dot(u, u0) < 0 {
		nu = -nu // keep the sign of the current atom
	}
	floats.Scale(1/nu, u)
	floats.Scale(1/nu, x)
	return math.Sqrt(floats.Dot(x, x))
}

// leadingPair stops when β_k ≤ lanczosTol·θ (an invariant subspace) or
// once the Ritz value θ grows by at most ritzTol·θ in a step. K-SVD
// refines every atom again in its next sweep, so a tighter ritzTol buys
// it Lanczos steps, not accuracy.
const (
	lanczosTol = 1e-12
	ritzTol    = 1e-6
)

// lapackImpl runs the small tridiagonal eigenproblems of leadingPair in
// pure Go on every BLAS backend.
var lapackImpl gonumlapack.Implementation

// lanczosWork holds the buffers of leadingPair.
type lanczosWork struct {
	u, eu, z        []float64 // Lanczos vectors (rows), their Eᵀuᵢ, next vector
	a, b, td, te, y []float64
	tz, tw          []float64
}

func (w *lanczosWork) grow(d, m, k int) {
	if cap(w.u) < k*d {
		w.u = make([]float64, k*d)
	}
	if cap(w.eu) < k*m {
		w.eu = make([]float64, k*m)
	}
	if cap(w.z) < d {
		w.z = make([]float64, d)
	}
	if cap(w.a) < k {
		w.a, w.b, w.td, w.te, w.y = make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k), make([]float64, k)
		w.tz, w.tw = make([]float64, k*k), make([]float64, max(1, 2*k))
	}
	w.u, w.eu, w.z = w.u[:k*d], w.eu[:k*m], w.z[:d]
	w.a, w.b, w.td, w.te, w.y = w.a[:k], w.b[:k], w.td[:k], w.te[:k], w.y[:k]
	w.tz, w.tw = w.tz[:k*k], w.tw[:max(1, 2*k)]
}
