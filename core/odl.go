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
	Tol     float64 // stop when ‖ΔD‖_F ≤ Tol·‖D‖_F over a sweep; zero means 1e-6
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
// Columns with F_ii ≤ 0 (unused atoms) are left unchanged. Each column
// update is exact, so the objective never increases.
func UpdateDict(D, E, F *mat.Dense, opts UpdateDictOptions) {
	var w odlWork
	w.update(D, E, F, opts)
}

// odlWork holds UpdateDict's transposed copies, so that atoms are
// contiguous rows.
type odlWork struct {
	dt, et, df []float64
}

func (w *odlWork) update(D, E, F *mat.Dense, opts UpdateDictOptions) {
	d, k := D.Dims()
	if er, ec := E.Dims(); er != d || ec != k {
		panic(mat.ErrShape)
	}
	if fr, fc := F.Dims(); fr != k || fc != k {
		panic(mat.ErrShape)
	}
	if d == 0 || k == 0 {
		return
	}
	maxIter := opts.MaxIter
	if maxIter <= 0 {
		maxIter = 50
	}
	tol := opts.Tol
	if tol == 0 {
		tol = 1e-6
	}
	if cap(w.dt) < d*k {
		w.dt = make([]float64, d*k)
		w.et = make([]float64, d*k)
	}
	if cap(w.df) < d {
		w.df = make([]float64, d)
	}
	dt, et, df := w.dt[:d*k], w.et[:d*k], w.df[:d]
	dr, er, fr := D.RawMatrix(), E.RawMatrix(), F.RawMatrix()
	for i := 0; i < d; i++ {
		for j := 0; j < k; j++ {
			dt[j*d+i] = dr.Data[i*dr.Stride+j]
			et[j*d+i] = er.Data[i*er.Stride+j]
		}
	}
	for it := 0; it < maxIter; it++ {
		var change, norm float64
		for i := 0; i < k; i++ {
			fii := fr.Data[i*fr.Stride+i]
			if !(fii > 0) || math.IsInf(fii, 1) {
				continue
			}
			// df = D·fᵢ = Σⱼ F_ji·dⱼ, one unit-stride axpy per used atom
			// (faster than a Gemv call on either backend at these sizes).
			clear(df)
			for j := 0; j < k; j++ {
				if f := fr.Data[j*fr.Stride+i]; f != 0 {
					floats.AddScaled(df, f, dt[j*d:(j+1)*d])
				}
			}
			di, ei := dt[i*d:(i+1)*d], et[i*d:(i+1)*d]
			var u2 float64
			for r, x := range di {
				u := (ei[r]-df[r])/fii + x
				df[r] = u
				u2 += u * u
			}
			if math.IsNaN(u2) || math.IsInf(u2, 0) {
				continue
			}
			s := 1 / math.Max(1, math.Sqrt(u2))
			for r, x := range di {
				v := df[r] * s
				change += (v - x) * (v - x)
				norm += v * v
				di[r] = v
			}
		}
		if math.Sqrt(change) <= tol*math.Sqrt(norm) {
			break
		}
	}
	for i := 0; i < d; i++ {
		for j := 0; j < k; j++ {
			dr.Data[i*dr.Stride+j] = dt[j*d+i]
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
//	X = argmin_X ½‖Y − DX‖²_F + λ‖X‖₁   (Lasso, warm-started)
//	D = argmin_D −2tr(Y·XᵀDᵀ) + tr(XXᵀ·DᵀD), ‖dᵢ‖ ≤ 1   (UpdateDict)
//
// D starts from k distinct random columns of Y (random unit vectors for
// k > n or zero columns), normalised. It returns D (d×k) and X (k×n).
func LearnDict(ctx context.Context, Y mat.Matrix, k int, lambda float64, rng *rand.Rand, opts LearnDictOptions) (D, X *mat.Dense, err error) {
	d, n := Y.Dims()
	if k <= 0 || n == 0 || d == 0 {
		return nil, nil, fmt.Errorf("core: LearnDict needs k > 0 atoms and a non-empty Y, have k=%d, Y %d×%d", k, d, n)
	}
	if rng == nil {
		return nil, nil, fmt.Errorf("core: LearnDict needs a random source")
	}
	iters := opts.Iter
	if iters <= 0 {
		iters = 20
	}
	D = mat.NewDense(d, k, nil)
	perm := rng.Perm(n)
	col := make([]float64, d)
	for j := 0; j < k; j++ {
		for r := range col {
			col[r] = 0
		}
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
	var w odlWork
	for it := 0; it < iters; it++ {
		if err := Lasso(ctx, X, D, Y, lambda, opts.Lasso); err != nil {
			return nil, nil, err
		}
		MulBT(E, Y, X)
		F.Mul(X, X.T())
		w.update(D, E, F, opts.Update)
	}
	if err := Lasso(ctx, X, D, Y, lambda, opts.Lasso); err != nil {
		return nil, nil, err
	}
	return D, X, nil
}

// Dot returns the Frobenius inner product Σᵢⱼ aᵢⱼbᵢⱼ = tr(AᵀB).
func Dot(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	if br, bc := b.Dims(); br != r || bc != c {
		panic(mat.ErrShape)
	}
	ad, aok := a.(*mat.Dense)
	bd, bok := b.(*mat.Dense)
	if aok && bok {
		ar, br := ad.RawMatrix(), bd.RawMatrix()
		var s float64
		for i := 0; i < r; i++ {
			s += floats.Dot(ar.Data[i*ar.Stride:i*ar.Stride+c], br.Data[i*br.Stride:i*br.Stride+c])
		}
		return s
	}
	var s float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			s += a.At(i, j) * b.At(i, j)
		}
	}
	return s
}
