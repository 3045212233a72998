package core

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// MulTrans sets dst = Aᵀ·B for a dense A (d×k) and a dense or sparse B (d×n).
func MulTrans(dst *mat.Dense, a *mat.Dense, b mat.Matrix) {
	// TODO(blas): sparse B through blas kernels on raw arrays.
	dst.Mul(a.T(), b)
}

// LassoOptions controls Lasso. The zero value means the defaults.
type LassoOptions struct {
	MaxIter int     // FISTA iteration limit; zero means 200
	Tol     float64 // FISTA relative tolerance; zero means 1e-6
}

// Lasso sets X (k×n) to
//
//	argmin_X ½‖Y − DX‖²_F + λ‖X‖₁
//
// by FISTA on the gradient DᵀD·X − DᵀY, starting from the contents of X.
func Lasso(ctx context.Context, X, D *mat.Dense, Y mat.Matrix, lambda float64, opts LassoOptions) error {
	d, k := D.Dims()
	yr, n := Y.Dims()
	xr, xc := X.Dims()
	if yr != d || xr != k || xc != n {
		return fmt.Errorf("core: lasso shapes D %d×%d, Y %d×%d, X %d×%d do not match", d, k, yr, n, xr, xc)
	}
	G := mat.NewDense(k, k, nil)
	G.Mul(D.T(), D)
	B := mat.NewDense(k, n, nil)
	MulTrans(B, D, Y)
	return LassoGram(ctx, X, G, B, lambda, opts)
}

// LassoGram is Lasso given the Gram matrix G = DᵀD and B = DᵀY.
func LassoGram(ctx context.Context, X, G, B *mat.Dense, lambda float64, opts LassoOptions) error {
	k, _ := G.Dims()
	L := MaxEigSym(G, make([]float64, k), 100, 1e-6) * 1.01
	if L == 0 {
		X.Zero()
		return nil
	}
	f := FISTA{MaxIter: opts.MaxIter, Tol: opts.Tol}
	_, err := f.Solve(ctx, X, func(g, w *mat.Dense) {
		g.Mul(G, w)
		g.Sub(g, B)
	}, L, lambda, nil)
	return err
}
