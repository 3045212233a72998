package core

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/james-bowman/sparse"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
)

// MulTrans sets dst = Aᵀ·B for a dense A (d×k) and a dense or sparse B
// (d×n). *sparse.CSC and *sparse.CSR go through blas.SparseAtB(CSR), other
// mat.NonZeroDoer types through their non-zeros, at O(k·nnz(B)) either way.
// dst is resized if empty.
func MulTrans(dst *mat.Dense, a *mat.Dense, b mat.Matrix) {
	d, k := a.Dims()
	bd, n := b.Dims()
	if bd != d {
		panic(mat.ErrShape)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(k, n)
	}
	if r, c := dst.Dims(); r != k || c != n {
		panic(mat.ErrShape)
	}
	switch b := b.(type) {
	case *mat.Dense:
		blas.AtB(dst.RawMatrix(), a.RawMatrix(), b.RawMatrix())
		return
	case *sparse.CSC:
		blas.SparseAtB(dst.RawMatrix(), a.RawMatrix(), b)
		return
	case *sparse.CSR:
		blas.SparseAtBCSR(dst.RawMatrix(), a.RawMatrix(), b)
		return
	}
	nz, ok := b.(mat.NonZeroDoer)
	if !ok {
		dst.Mul(a.T(), b)
		return
	}
	// Accumulate dstᵀ (n×k) so that both A's rows and the result rows are
	// contiguous, then transpose.
	t := make([]float64, n*k)
	ar := a.RawMatrix()
	nz.DoNonZero(func(i, j int, v float64) {
		row := ar.Data[i*ar.Stride : i*ar.Stride+k]
		acc := t[j*k : j*k+k]
		for p, x := range row {
			acc[p] += v * x
		}
	})
	dst.Copy(mat.NewDense(n, k, t).T())
}

// MulBT sets dst = Y·Xᵀ for a dense or sparse Y (d×n) and a dense X (k×n).
// A Y that implements mat.NonZeroDoer costs O(k·nnz(Y)). dst is resized if
// empty.
func MulBT(dst *mat.Dense, y mat.Matrix, x *mat.Dense) {
	d, n := y.Dims()
	k, xn := x.Dims()
	if xn != n {
		panic(mat.ErrShape)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(d, k)
	}
	nz, ok := y.(mat.NonZeroDoer)
	if _, dense := y.(*mat.Dense); dense || !ok {
		dst.Mul(y, x.T())
		return
	}
	if r, c := dst.Dims(); r != d || c != k {
		panic(mat.ErrShape)
	}
	// dst[i,:] += v·X[:,j] = v·Xᵀ[j,:]: transpose X once for contiguity.
	xt := mat.DenseCopyOf(x.T())
	xr, dr := xt.RawMatrix(), dst.RawMatrix()
	dst.Zero()
	nz.DoNonZero(func(i, j int, v float64) {
		src := xr.Data[j*xr.Stride : j*xr.Stride+k]
		acc := dr.Data[i*dr.Stride : i*dr.Stride+k]
		for p, s := range src {
			acc[p] += v * s
		}
	})
}

// LassoOptions controls Lasso. The zero value means the defaults.
type LassoOptions struct {
	MaxIter int     // iteration limit; zero means 200 (FISTA) or 100 (ADMM)
	Tol     float64 // relative tolerance; zero means 1e-6
	Restart bool    // adaptive restart of FISTA's momentum
	// ADMM codes many samples with a fixed dictionary: each column by the
	// exact homotopy path of the lasso (active-set Cholesky updates on G,
	// O(k·a²) for a active atoms) where its codes are sparse, and by
	// LassoADMM (one Cholesky factor of G + ρI for every column, a k×k×n
	// Gemm per iteration, MaxIter and Tol) where they are too dense for the
	// path to be cheaper or it fails; ill-conditioned G (many correlated
	// atoms, small λ) costs either far less than FISTA. The warm start in X
	// is not used.
	ADMM bool
}

// Lasso sets X (k×n) to
//
//	argmin_X ½‖Y − DX‖²_F + λ‖X‖₁
//
// by FISTA on the gradient DᵀD·X − DᵀY, starting from the contents of X
// (warm start; zeros for a cold start). Non-finite D or Y give an error
// wrapping ErrNotFinite.
func Lasso(ctx context.Context, X, D *mat.Dense, Y mat.Matrix, lambda float64, opts LassoOptions) error {
	var w lassoWork
	return w.lasso(ctx, X, D, Y, lambda, opts)
}

// lassoWork holds the matrices of Lasso (G, B, FISTA's iterates and the
// starting point kept for a retry) between calls on same-sized problems,
// as LearnDictFrom makes, so that they are allocated once.
type lassoWork struct {
	G, B, x0 mat.Dense
	f        FISTA
}

// lasso is Lasso with w's matrices.
func (w *lassoWork) lasso(ctx context.Context, X, D *mat.Dense, Y mat.Matrix, lambda float64, opts LassoOptions) error {
	d, k := D.Dims()
	yr, n := Y.Dims()
	xr, xc := X.Dims()
	if yr != d || xr != k || xc != n {
		return fmt.Errorf("core: lasso shapes D %d×%d, Y %d×%d, X %d×%d do not match", d, k, yr, n, xr, xc)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	w.G.Reset()
	w.G.ReuseAs(k, k)
	if err := gramContext(ctx, &w.G, D); err != nil {
		return err
	}
	w.B.Reset()
	w.B.ReuseAs(k, n)
	if err := mulTransContext(ctx, &w.B, D, Y); err != nil {
		return err
	}
	return w.lassoGram(ctx, X, &w.G, &w.B, lambda, opts)
}

// LassoGram is Lasso given the Gram matrix G = DᵀD (k×k) and B = DᵀY (k×n).
// Any of the matrices may be a view.
// The step is 1/L with L the upper bound of λmax(G) from PowerIter.MaxEig,
// or ‖G‖_∞ when FISTA diverges with that bound.
func LassoGram(ctx context.Context, X, G, B *mat.Dense, lambda float64, opts LassoOptions) error {
	var w lassoWork
	return w.lassoGram(ctx, X, G, B, lambda, opts)
}

// lassoGram is LassoGram with w's FISTA and starting point.
func (w *lassoWork) lassoGram(ctx context.Context, X, G, B *mat.Dense, lambda float64, opts LassoOptions) error {
	if err := lassoArgs(X, G, B, lambda); err != nil {
		return err
	}
	if opts.ADMM {
		return lassoPathCodes(ctx, X, G, B, lambda, opts)
	}
	var p PowerIter
	_, L, err := p.maxEig(ctx, G)
	if err != nil {
		return err
	}
	if math.IsNaN(L) || math.IsInf(L, 0) {
		return fmt.Errorf("core: lasso Gram matrix (λmax estimate %v): %w", L, ErrNotFinite)
	}
	if L == 0 {
		X.Zero()
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	x := X
	if _, n := X.Dims(); X.RawMatrix().Stride != n { // FISTA needs contiguous rows
		x = mat.DenseCopyOf(X)
	}
	f := &w.f
	f.MaxIter, f.Tol, f.Restart = opts.MaxIter, opts.Tol, opts.Restart
	w.x0.Reset()
	w.x0.CloneFrom(x)
	if err := ctx.Err(); err != nil {
		return err
	}
	grad := func(g, w *mat.Dense) { lassoGradContext(ctx, g, G, B, w) }
	_, err = f.Solve(ctx, x, grad, L, lambda, nil)
	if errors.Is(err, ErrNotFinite) {
		if inf, _ := normInf(G); L < inf && finiteDense(B) {
			// L missed λmax (see PowerIter.MaxEig): retry with the safe ‖G‖_∞.
			x.Copy(&w.x0)
			_, err = f.Solve(ctx, x, grad, inf, lambda, nil)
		}
	}
	if err == nil {
		err = ctx.Err() // a gradient cut short by a cancellation
	}
	if x != X {
		X.Copy(x)
	}
	return err
}

// lassoArgs checks the shapes of LassoGram's arguments and λ ≥ 0.
func lassoArgs(X, G, B *mat.Dense, lambda float64) error {
	k, gc := G.Dims()
	br, n := B.Dims()
	xr, xc := X.Dims()
	if gc != k || br != k || xr != k || xc != n {
		return fmt.Errorf("core: lasso shapes G %d×%d, B %d×%d, X %d×%d do not match", k, gc, br, n, xr, xc)
	}
	if lambda < 0 || math.IsNaN(lambda) || math.IsInf(lambda, 0) {
		return fmt.Errorf("core: lasso λ = %v must be finite and non-negative", lambda)
	}
	return nil
}

// lassoGrad sets g = G·W − B, the gradient of ½‖Y − DW‖²_F.
func lassoGrad(g, G, B, W *mat.Dense) {
	g.Copy(B)
	blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, G.RawMatrix(), W.RawMatrix(), -1, g.RawMatrix())
}
