package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
)

// DictObjective returns −2tr(EDᵀ) + tr(F·DᵀD), with the upper triangle
// of G = DᵀD by Syrk (half Gemm's flops) and tr(F·G) = Σ_i F_ii G_ii +
// Σ_{i<j} (F_ij + F_ji)·G_ij.
func DictObjective(D, E, F *mat.Dense) float64 {
	_, k := D.Dims()
	if fr, fc := F.Dims(); fr != k || fc != k {
		panic(mat.ErrShape)
	}
	g := blas64.Symmetric{Uplo: gblas.Upper, N: k, Stride: max(k, 1), Data: make([]float64, k*k)}
	blas64.Syrk(gblas.Trans, 1, D.RawMatrix(), 0, g)
	f := F.RawMatrix()
	var s float64
	for i := 0; i < k; i++ {
		row := g.Data[i*k : (i+1)*k]
		s += f.Data[i*f.Stride+i] * row[i]
		for j := i + 1; j < k; j++ {
			s += (f.Data[i*f.Stride+j] + f.Data[j*f.Stride+i]) * row[j]
		}
	}
	return -2*Dot(E, D) + s
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
// update is exact, so the objective never increases. UpdateDict allocates
// its scratch on every call; DictUpdater reuses it.
func UpdateDict(D, E, F *mat.Dense, opts UpdateDictOptions) {
	var w DictUpdater
	w.Update(D, E, F, opts)
}

// odlBlock is the number of atoms whose products D·fᵢ one Gemm computes.
const odlBlock = 48

// DictUpdater runs UpdateDict with scratch (two d×k transposes and a
// block of products) that is kept between calls, so repeated
// updates of same-sized dictionaries do not allocate. The zero value is
// ready to use.
type DictUpdater struct {
	dt, et, p []float64
}

// Update is UpdateDict(D, E, F, opts) using w's scratch. It sweeps the
// atoms in blocks B: P = F[B,:]·Dᵀ (one Gemm, which
// blas.Gemm shares between the cores; F is symmetric, so row s of P is
// D·fᵢ for i = B[s]) is computed at the block's start, and row t gains
// Σ_{s<t} F_ts·δ_s, the changes of the block's earlier atoms, just before
// atom B[t] is updated; the iterates are those of the column-by-column
// sweep up to rounding. Blocks are single atoms (no Gemm) for small k,
// for a sparse F and, on the gonum backend, for a small d·k; products that
// skip the zeros of F replace the Gemm there (d·nnz(F) multiply-adds per
// sweep instead of d·k²).
func (w *DictUpdater) Update(D, E, F *mat.Dense, opts UpdateDictOptions) {
	_ = w.UpdateContext(context.Background(), D, E, F, opts)
}

// UpdateContext is Update checking ctx before every block of atoms; when
// ctx is cancelled it leaves D as updated so far (still feasible) and
// returns ctx.Err().
func (w *DictUpdater) UpdateContext(ctx context.Context, D, E, F *mat.Dense, opts UpdateDictOptions) error {
	return w.update(ctx, D, E, F, opts, odlPlan{resident: odlResident, sparseMax: odlSparseMax})
}

// odlPlan holds the thresholds of UpdateContext's choice of sweep: d·k up
// to which pure Go sweeps atom by atom, and the density of F up to which
// every backend does.
type odlPlan struct {
	resident  int
	sparseMax float64
}

// update is UpdateContext with the sweep chosen by plan.
func (w *DictUpdater) update(ctx context.Context, D, E, F *mat.Dense, opts UpdateDictOptions, plan odlPlan) error {
	d, k := D.Dims()
	if er, ec := E.Dims(); er != d || ec != k {
		panic(mat.ErrShape)
	}
	if fr, fc := F.Dims(); fr != k || fc != k {
		panic(mat.ErrShape)
	}
	if d == 0 || k == 0 {
		return ctx.Err()
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
	pureGo := blas.PureGo()
	bs := min(odlBlock, k)
	if k < 2*odlBlock || pureGo && d*k <= plan.resident ||
		float64(blas.NonZeros(F.RawMatrix())) <= plan.sparseMax*float64(k)*float64(k) {
		bs = 1 // the plain sweep: faster for few atoms, sparse F, and in pure Go while D stays in cache
	}
	if cap(w.p) < bs*d {
		w.p = make([]float64, bs*d)
	}
	dt, et := w.dt[:d*k], w.et[:d*k]
	dr, er, fr := D.RawMatrix(), E.RawMatrix(), F.RawMatrix()
	for j := 0; j < k; j++ {
		dj, ej := dt[j*d:(j+1)*d], et[j*d:(j+1)*d]
		for i := range dj {
			dj[i] = dr.Data[i*dr.Stride+j]
			ej[i] = er.Data[i*er.Stride+j]
		}
	}
	var err error
	for it := 0; it < maxIter; it++ {
		if err = ctx.Err(); err != nil {
			break
		}
		var change, norm float64
		for b0 := 0; b0 < k; b0 += bs {
			if err = ctx.Err(); err != nil {
				break
			}
			nb := min(bs, k-b0)
			p := w.p[:nb*d]
			fb := blas64.General{Rows: nb, Cols: k, Stride: fr.Stride, Data: fr.Data[b0*fr.Stride:]}
			if pureGo || nb == 1 {
				odlProducts(p, fb, dt, d)
			} else {
				blas.Gemm(gblas.NoTrans, gblas.NoTrans, 1, fb, blas64.General{Rows: k, Cols: d, Stride: d, Data: dt},
					0, blas64.General{Rows: nb, Cols: d, Stride: d, Data: p})
			}
			for s := 0; s < nb; s++ {
				i := b0 + s
				pi, di, ei := p[s*d:(s+1)*d], dt[i*d:(i+1)*d], et[i*d:(i+1)*d]
				// The changes δ_t of the block's earlier atoms, held in
				// their rows of p, in order of t (so rounded as the
				// column-by-column sweep's updates).
				blas.AddCombination(pi, s, fr.Data[i*fr.Stride+b0:], 1, p, d)
				fii := fr.Data[i*fr.Stride+i]
				if !(fii > 0) || math.IsInf(fii, 1) {
					clear(pi) // no change
					continue
				}
				var u2 float64
				for r, x := range di {
					u := (ei[r]-pi[r])/fii + x
					pi[r] = u
					u2 += u * u
				}
				if math.IsNaN(u2) || math.IsInf(u2, 0) {
					clear(pi)
					continue
				}
				sc := 1 / math.Max(1, math.Sqrt(u2))
				for r, x := range di {
					v := pi[r] * sc
					pi[r] = v - x
					change += (v - x) * (v - x)
					norm += v * v
					di[r] = v
				}
			}
		}
		if err != nil || math.Sqrt(change) <= tol*math.Sqrt(norm) {
			break
		}
	}
	for j := 0; j < k; j++ {
		for i, v := range dt[j*d : (j+1)*d] {
			dr.Data[i*dr.Stride+j] = v
		}
	}
	return err
}

// odlResident is the size d·k up to which pure Go sweeps atom by atom.
const odlResident = 1 << 20

// odlSparseMax is the density of F up to which the sweep goes atom by atom
// over F's non-zeros, as for M(XXᵀ) with sparse codes; chosen by timing
// both sweeps against the density (bench/NOTES.md).
const odlSparseMax = 0.25

// odlChunk is the length of the pieces of the atoms odlProducts works on,
// so that a nb×odlChunk block of products stays in cache.
const odlChunk = 256

// odlProducts sets p (f.Rows×d) = f·dt, dt k×d, over pieces of odlChunk
// columns (blas.AddCombination): faster than gonum's Dgemm at these shapes.
func odlProducts(p []float64, f blas64.General, dt []float64, d int) {
	clear(p)
	c := odlChunk
	if f.Rows == 1 {
		c = d
	}
	for c0 := 0; c0 < d; c0 += c {
		c1 := min(c0+c, d)
		for s := 0; s < f.Rows; s++ {
			blas.AddCombination(p[s*d+c0:s*d+c1], f.Cols, f.Data[s*f.Stride:], 1, dt[c0:], d)
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
// from D = InitDict(Y, k, rng). It returns D (d×k) and X (k×n).
// ctx is checked by every step (lasso iterations, dictionary sweeps);
// non-finite Y is an error wrapping ErrNotFinite.
func LearnDict(ctx context.Context, Y mat.Matrix, k int, lambda float64, rng *rand.Rand, opts LearnDictOptions) (D, X *mat.Dense, err error) {
	if D, err = InitDict(Y, k, rng); err != nil {
		return nil, nil, err
	}
	if X, err = LearnDictFrom(ctx, Y, D, lambda, opts); err != nil {
		return nil, nil, err
	}
	return D, X, nil
}

// InitDict returns LearnDict's starting dictionary: k distinct random
// columns of Y (d×n) drawn from rng, normalised (random unit vectors for
// k > n or zero columns). It is the only part of LearnDict that draws
// from rng, so that dictionaries drawn one after another from one source
// can then be learned concurrently (LearnDictFrom).
func InitDict(Y mat.Matrix, k int, rng *rand.Rand) (*mat.Dense, error) {
	d, n := Y.Dims()
	if k <= 0 || n == 0 || d == 0 {
		return nil, fmt.Errorf("core: LearnDict needs k > 0 atoms and a non-empty Y, have k=%d, Y %d×%d", k, d, n)
	}
	if rng == nil {
		return nil, fmt.Errorf("core: LearnDict needs a random source")
	}
	D := mat.NewDense(d, k, nil)
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
	return D, nil
}

// LearnDictFrom runs LearnDict's alternations from the dictionary D (d×k),
// which it updates in place, and returns the codes X (k×n).
func LearnDictFrom(ctx context.Context, Y mat.Matrix, D *mat.Dense, lambda float64, opts LearnDictOptions) (*mat.Dense, error) {
	d, n := Y.Dims()
	r, k := D.Dims()
	if r != d || k == 0 || n == 0 {
		return nil, fmt.Errorf("core: LearnDictFrom needs a d×k dictionary with k > 0 for a non-empty d×n Y, have D %d×%d, Y %d×%d", r, k, d, n)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	iters := opts.Iter
	if iters <= 0 {
		iters = 20
	}
	X := mat.NewDense(k, n, nil)
	E := mat.NewDense(d, k, nil)
	F := mat.NewDense(k, k, nil)
	var w DictUpdater
	var lw lassoWork
	for it := 0; it < iters; it++ {
		if err := lw.lasso(ctx, X, D, Y, lambda, opts.Lasso); err != nil {
			return nil, err
		}
		if err := mulBTContext(ctx, E, Y, X); err != nil {
			return nil, err
		}
		if err := outerContext(ctx, F, X); err != nil {
			return nil, err
		}
		if err := w.UpdateContext(ctx, D, E, F, opts.Update); err != nil {
			return nil, err
		}
	}
	if err := lw.lasso(ctx, X, D, Y, lambda, opts.Lasso); err != nil {
		return nil, err
	}
	return X, nil
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
