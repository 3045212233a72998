package core

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// SVT sets dst to the singular value thresholding of a,
//
//	D_τ(A) = U·diag(max(σᵢ − τ, 0))·Vᵀ,
//
// the proximal operator of τ‖·‖_* (Cai, Candès and Shen). It returns the
// rank of the result. dst may be a.
func SVT(dst, a *mat.Dense, tau float64) int {
	r, c := a.Dims()
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		panic("core: SVD did not converge")
	}
	s := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	rank := 0
	for i, x := range s {
		s[i] = math.Max(x-tau, 0)
		if s[i] > 0 {
			rank++
		}
	}
	// dst = U·diag(s)·Vᵀ
	for j := range s {
		for i := 0; i < r; i++ {
			u.Set(i, j, u.At(i, j)*s[j])
		}
	}
	if dst.IsEmpty() {
		dst.ReuseAs(r, c)
	}
	dst.Mul(&u, v.T())
	return rank
}

// NuclearNorm returns ‖A‖_*, the sum of the singular values of a.
func NuclearNorm(a mat.Matrix) float64 {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDNone) {
		panic("core: SVD did not converge")
	}
	var s float64
	for _, x := range svd.Values(nil) {
		s += x
	}
	return s
}

// ProxFunc sets z = argmin_z r(z) + ρ/2‖z − v‖²_F.
type ProxFunc func(z, v *mat.Dense, rho float64)

// ADMMOptions controls ADMMDict. The zero value means the defaults.
type ADMMOptions struct {
	Rho     float64 // penalty ρ; zero means 1
	MaxIter int     // ADMM iterations; zero means 50
	Tol     float64 // stop when ‖D − Z‖_F ≤ Tol·max(1,‖D‖_F); zero means 1e-5
	Update  UpdateDictOptions
}

// ADMMDict updates D in place towards
//
//	argmin_D −2tr(E·Dᵀ) + tr(F·DᵀD) + r(D),  ‖dᵢ‖₂ ≤ 1,
//
// by ADMM on the split D = Z, starting from Z = U = D:
//
//	D = argmin −2tr(Ē·Dᵀ) + tr(F̄·DᵀD), Ē = E + ρ/2(Z − U), F̄ = F + ρ/2·I  (UpdateDict)
//	Z = prox_{r/ρ}(D + U)
//	U = U + D − Z
//
// With r = η‖·‖_* the Z step is SVT with threshold η/ρ (LRSDL-D0); with
// r = η‖A·‖²_F it is one linear solve (E-DLSI-D).
func ADMMDict(ctx context.Context, D, E, F *mat.Dense, prox ProxFunc, opts ADMMOptions) error {
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
	Z := mat.DenseCopyOf(D)
	U := mat.NewDense(d, k, nil)
	Eb := mat.NewDense(d, k, nil)
	Fb := mat.DenseCopyOf(F)
	for i := 0; i < k; i++ {
		Fb.Set(i, i, Fb.At(i, i)+rho/2)
	}
	V := mat.NewDense(d, k, nil)
	for it := 0; it < maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		Eb.Sub(Z, U)
		Eb.Scale(rho/2, Eb)
		Eb.Add(Eb, E)
		UpdateDict(D, Eb, Fb, opts.Update)
		V.Add(D, U)
		prox(Z, V, rho)
		U.Add(U, D)
		U.Sub(U, Z)
		V.Sub(D, Z)
		if mat.Norm(V, 2) <= tol*math.Max(1, mat.Norm(D, 2)) {
			break
		}
	}
	return nil
}
