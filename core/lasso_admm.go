package core

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// LassoADMM sets X (k×n) to argmin_X ½tr(XᵀGX) − tr(BᵀX) + λ‖X‖₁, the
// lasso of LassoGram, by over-relaxed ADMM on the split X = Z (Boyd et al.,
// §3.4.3 and §6.4), with α = 1.8:
//
//	X ← (G + ρI)⁻¹(B + ρ(Z − U))
//	X̂ ← αX + (1 − α)Z
//	Z ← S_{λ/ρ}(X̂ + U)
//	U ← U + X̂ − Z
//
// starting from Z = X (warm start) and U = 0, and returns Z, whose zeros
// are exact. ρ starts at a tenth of the mean eigenvalue of G, tr(G)/(10k),
// and is balanced (×2 or ÷2, U rescaled, G + ρI refactored) whenever the
// primal residual ‖X − Z‖ and the dual residual ρ‖Z − Z_prev‖ differ by
// more than 10×. It stops when both are below opts.Tol (default 1e-6)
// relative to max(‖X‖, ‖Z‖) and ‖ρU‖, or after opts.MaxIter (default 100)
// iterations. For n ≥ k/16, (G + ρI)⁻¹ is formed (Cholesky, then its
// inverse) at every change of ρ, so that each iteration is one k×k×n Gemm:
// the same multiply-adds as the two triangular solves used for fewer
// columns, at Gemm's higher speed. Forming the inverse costs 2k³/3 more
// per change of ρ, which few columns would not repay. The start of ρ and α
// were chosen on training data (see bench/docfigures.md).
func LassoADMM(ctx context.Context, X, G, B *mat.Dense, lambda float64, opts LassoOptions) error {
	if err := lassoArgs(X, G, B, lambda); err != nil {
		return err
	}
	k, _ := G.Dims()
	_, n := B.Dims()
	if !finiteDense(G) || !finiteDense(B) {
		return fmt.Errorf("core: lasso Gram matrix or DᵀY: %w", ErrNotFinite)
	}
	maxIter, tol := opts.MaxIter, opts.Tol
	if maxIter <= 0 {
		maxIter = 100
	}
	if tol == 0 {
		tol = 1e-6
	}
	var tr float64
	for i := 0; i < k; i++ {
		tr += G.At(i, i)
	}
	if tr == 0 {
		X.Zero()
		return nil
	}
	rho := tr / float64(10*k)
	explicit := 16*n >= k
	var F mat.Dense // (G + ρI)⁻¹ if explicit, else its Cholesky factor
	var T blas64.Triangular
	inv := func() error {
		F.CloneFrom(G)
		f := F.RawMatrix()
		for i := 0; i < k; i++ {
			f.Data[i*f.Stride+i] += rho
		}
		var ok bool
		T, ok = lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: k, Data: f.Data, Stride: f.Stride})
		if ok && explicit {
			_, ok = lapack64.Potri(T)
			for i := 1; i < k; i++ {
				for j := 0; j < i; j++ {
					f.Data[i*f.Stride+j] = f.Data[j*f.Stride+i]
				}
			}
		}
		if !ok {
			return fmt.Errorf("core: lasso: G + ρI (ρ = %v) is not positive definite: %w", rho, ErrNotFinite)
		}
		return nil
	}
	if err := inv(); err != nil {
		return err
	}
	x := mat.NewDense(k, n, nil)
	w := x // the right-hand side, solved in place unless explicit
	if explicit {
		w = mat.NewDense(k, n, nil)
	}
	z := mat.DenseCopyOf(X)
	u := mat.NewDense(k, n, nil)
	xd, wd, zd, ud := x.RawMatrix().Data, w.RawMatrix().Data, z.RawMatrix().Data, u.RawMatrix().Data
	for it := 0; it < maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := 0; i < k; i++ {
			b := B.RawRowView(i)
			row := i * n
			for j, bv := range b {
				wd[row+j] = bv + rho*(zd[row+j]-ud[row+j])
			}
		}
		if explicit {
			if err := gemmTiles(ctx, false, false, 1, F.RawMatrix(), w.RawMatrix(), 0, x.RawMatrix(), false); err != nil {
				return err
			}
		} else {
			lapack64.Potrs(T, x.RawMatrix())
		}
		thr := lambda / rho
		sums := ADMMShrink(xd, zd, ud, ADMMRelax, thr, [5]float64{})
		r2, s2, x2, z2, u2 := sums[0], sums[1], sums[2], sums[3], sums[4]
		if !(r2 <= math.MaxFloat64 && x2 <= math.MaxFloat64) {
			return fmt.Errorf("core: lasso ADMM iterate %d: %w", it+1, ErrNotFinite)
		}
		rp, rd := math.Sqrt(r2), rho*math.Sqrt(s2)
		if rp <= tol*math.Max(math.Sqrt(math.Max(x2, z2)), 1e-300) && rd <= tol*math.Max(rho*math.Sqrt(u2), 1e-300) {
			break
		}
		var scale float64
		switch {
		case rp > 10*rd:
			scale = 2
		case rd > 10*rp:
			scale = 0.5
		default:
			continue
		}
		rho *= scale
		for i := range ud {
			ud[i] /= scale
		}
		if err := inv(); err != nil {
			return err
		}
	}
	X.Copy(z)
	return nil
}

// ADMMRelax is LassoADMM's over-relaxation α.
const ADMMRelax = 1.8

// ADMMShrink is the Z and U update of over-relaxed ADMM on X = Z for an
// ℓ1 term: for every i,
//
//	v = αx_i + (1 − α)z_i + u_i,  z_i ← S_thr(v),  u_i ← v − z_i.
//
// It returns sums with, added in the order of i, (x_i − z_i)², the change
// of z_i squared, and x_i², z_i² and u_i² (the new z and u).
func ADMMShrink(x, z, u []float64, alpha, thr float64, sums [5]float64) [5]float64 {
	z, u = z[:len(x)], u[:len(x)]
	r2, s2, x2, z2, u2 := sums[0], sums[1], sums[2], sums[3], sums[4]
	for i, xv := range x {
		v := alpha*xv + (1-alpha)*z[i] + u[i]
		zn := 0.0
		if v > thr {
			zn = v - thr
		} else if v < -thr {
			zn = v + thr
		}
		dz := zn - z[i]
		z[i], u[i] = zn, v-zn
		r := xv - zn
		r2 += r * r
		s2 += dz * dz
		x2 += xv * xv
		z2 += zn * zn
		u2 += u[i] * u[i]
	}
	return [5]float64{r2, s2, x2, z2, u2}
}
