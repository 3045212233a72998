package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// DictObjective returns −2tr(EDᵀ) + tr(F·DᵀD).
func DictObjective(D, E, F *mat.Dense) float64 {
	var dtd mat.Dense
	dtd.Mul(D.T(), D)
	return -2*Dot(E, D) + Dot(F, &dtd)
}

// UpdateDictOptions controls UpdateDict. The zero value means the defaults.
type UpdateDictOptions struct {
	MaxIter int     // sweeps over the columns; zero means 50
	Tol     float64 // stop when ‖ΔD‖_F ≤ Tol·‖D‖_F; zero means 1e-6
}

// UpdateDict updates D (d×k) in place towards
//
//	argmin_D −2tr(E·Dᵀ) + tr(F·DᵀD)  subject to ‖dᵢ‖₂ ≤ 1,
//
// with E d×k and F k×k symmetric positive semidefinite, by the block
// coordinate descent of online dictionary learning (Mairal et al.):
//
//	u = (eᵢ − D·fᵢ)/F_ii + dᵢ,  dᵢ = u / max(1, ‖u‖₂).
//
// Columns with F_ii = 0 (unused atoms) are left unchanged. Each column update
// is exact, so the objective never increases.
func UpdateDict(D, E, F *mat.Dense, opts UpdateDictOptions) {
	d, k := D.Dims()
	maxIter := opts.MaxIter
	if maxIter <= 0 {
		maxIter = 50
	}
	tol := opts.Tol
	if tol == 0 {
		tol = 1e-6
	}
	u := make([]float64, d)
	df := make([]float64, d)
	col := make([]float64, d)
	for it := 0; it < maxIter; it++ {
		var change, norm float64
		for i := 0; i < k; i++ {
			fii := F.At(i, i)
			if fii <= 0 {
				continue
			}
			// df = D·fᵢ
			fv := F.ColView(i)
			dfv := mat.NewVecDense(d, df)
			dfv.MulVec(D, fv)
			mat.Col(col, i, D)
			for r := 0; r < d; r++ {
				u[r] = (E.At(r, i)-df[r])/fii + col[r]
			}
			s := math.Max(1, floats.Norm(u, 2))
			for r := 0; r < d; r++ {
				v := u[r] / s
				change += (v - col[r]) * (v - col[r])
				norm += v * v
				D.Set(r, i, v)
			}
		}
		if math.Sqrt(change) <= tol*math.Sqrt(norm) {
			break
		}
	}
}

// LearnDictOptions controls LearnDict. The zero value means the defaults.
type LearnDictOptions struct {
	Iter   int          // alternations of coding and dictionary update; zero means 20
	Lasso  LassoOptions // options of the coding step
	Update UpdateDictOptions
}

// LearnDict learns k atoms for the columns of Y (d×n) by online dictionary
// learning in batch form, alternating
//
//	X = argmin_X ½‖Y − DX‖²_F + λ‖X‖₁   (Lasso)
//	D = argmin_D −2tr(Y·XᵀDᵀ) + tr(XXᵀ·DᵀD), ‖dᵢ‖ ≤ 1   (UpdateDict)
//
// D starts from k distinct random columns of Y (random unit vectors when
// k > n), normalised. It returns D (d×k) and X (k×n).
func LearnDict(ctx context.Context, Y mat.Matrix, k int, lambda float64, rng *rand.Rand, opts LearnDictOptions) (D, X *mat.Dense, err error) {
	d, n := Y.Dims()
	if k <= 0 || n == 0 {
		return nil, nil, fmt.Errorf("core: LearnDict needs k > 0 atoms and samples, have k=%d, n=%d", k, n)
	}
	iters := opts.Iter
	if iters <= 0 {
		iters = 20
	}
	D = mat.NewDense(d, k, nil)
	perm := rng.Perm(n)
	for j := 0; j < k; j++ {
		col := make([]float64, d)
		if j < n {
			mat.Col(col, perm[j], Y)
		}
		nrm := floats.Norm(col, 2)
		if nrm == 0 {
			for r := range col {
				col[r] = rng.NormFloat64()
			}
			nrm = floats.Norm(col, 2)
		}
		floats.Scale(1/nrm, col)
		D.SetCol(j, col)
	}
	X = mat.NewDense(k, n, nil)
	E := mat.NewDense(d, k, nil)
	F := mat.NewDense(k, k, nil)
	for it := 0; it < iters; it++ {
		if err := Lasso(ctx, X, D, Y, lambda, opts.Lasso); err != nil {
			return nil, nil, err
		}
		E.Mul(Y, X.T())
		F.Mul(X, X.T())
		UpdateDict(D, E, F, opts.Update)
	}
	if err := Lasso(ctx, X, D, Y, lambda, opts.Lasso); err != nil {
		return nil, nil, err
	}
	return D, X, nil
}

// Dot returns the Frobenius inner product Σᵢⱼ aᵢⱼbᵢⱼ = tr(AᵀB).
func Dot(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	var s float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			s += a.At(i, j) * b.At(i, j)
		}
	}
	return s
}
