package core

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/internal/parallel"
)

// OMP sets the columns of dst (k×n) to the sparse codes of the columns of Y
// (d×n) over D (d×k) found by orthogonal matching pursuit:
//
//	xᵢ ≈ argmin_x ‖yᵢ − Dx‖₂  subject to ‖x‖₀ ≤ T,
//
// selecting one atom at a time (the one most correlated with the residual,
// |dₖᵀr|/‖dₖ‖) and refitting all selected coefficients by least squares. A
// sample stops early when ‖yᵢ − Dxᵢ‖₂ ≤ tol (tol ≤ 0: always T atoms), when
// the residual is orthogonal to every atom or when the next atom is linearly
// dependent on the selected ones. It computes DᵀD and DᵀY once, in tiles
// between which ctx is checked, and runs BatchOMP.
func OMP(ctx context.Context, dst, D *mat.Dense, Y mat.Matrix, T int, tol float64) error {
	d, k := D.Dims()
	yr, n := Y.Dims()
	if yr != d {
		return fmt.Errorf("core: OMP dictionary has %d rows, data has %d", d, yr)
	}
	if r, c := dst.Dims(); r != k || c != n {
		return fmt.Errorf("core: OMP codes are %d×%d, want %d×%d", r, c, k, n)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	G := mat.NewDense(k, k, nil)
	if err := ompGram(ctx, G, D); err != nil {
		return err
	}
	B := mat.NewDense(k, n, nil)
	if err := mulTransContext(ctx, B, D, Y); err != nil {
		return err
	}
	var yy []float64
	if tol > 0 {
		yy = colNorms2(Y)
	}
	return BatchOMP(ctx, dst, G, B, yy, T, tol, nil)
}

// ompGram sets G = DᵀD as gramTo does, by symmetric tiles between which
// ctx is checked when the product is larger than one tile (gemmTiles).
func ompGram(ctx context.Context, G, D *mat.Dense) error {
	d, k := D.Dims()
	if !tiled(ctx, k, k, d) {
		gramTo(G, D)
		return nil
	}
	return gemmTiles(ctx, true, false, 1, D.RawMatrix(), D.RawMatrix(), 0, G.RawMatrix(), true)
}

// colNorms2 returns the squared Euclidean norms of the columns of Y.
func colNorms2(Y mat.Matrix) []float64 {
	_, n := Y.Dims()
	s := make([]float64, n)
	if nz, ok := Y.(mat.NonZeroDoer); ok {
		nz.DoNonZero(func(_, j int, v float64) { s[j] += v * v })
		return s
	}
	r, _ := Y.Dims()
	for i := 0; i < r; i++ {
		for j := range s {
			v := Y.At(i, j)
			s[j] += v * v
		}
	}
	return s
}

// OMPWork is the workspace of BatchOMP. The zero value is ready to use; it
// grows to the largest problem seen and is then reused without allocation.
type OMPWork struct {
	l      []float64 // T×T lower Cholesky factor of G_II, stride T
	alpha0 []float64 // Dᵀy
	alpha  []float64 // Dᵀr
	x, w   []float64
	nx     []float64 // −x
	gi     []float64 // T×k rows G_{I,:} of the selected atoms
	idx    []int
	ginv   []float64 // 1/G_ii (0 when G_ii ≤ 0), shared by the goroutines
	sel    []float64 // ginv with the selected atoms set to 0
	sub    []OMPWork // workspaces of the extra goroutines
}

func (w *OMPWork) grow(k, T int) {
	if cap(w.alpha) < k {
		w.alpha0 = make([]float64, k)
		w.alpha = make([]float64, k)
		w.ginv = make([]float64, k)
		w.sel = make([]float64, k)
	}
	if cap(w.gi) < T*k {
		w.gi = make([]float64, T*k)
	}
	w.gi = w.gi[:T*k]
	if cap(w.x) < T {
		w.nx = make([]float64, T)
		w.l = make([]float64, T*T)
		w.x = make([]float64, T)
		w.w = make([]float64, T)
		w.idx = make([]int, T)
	}
	w.alpha0, w.alpha, w.ginv, w.sel = w.alpha0[:k], w.alpha[:k], w.ginv[:k], w.sel[:k]
	w.l, w.x, w.w, w.idx, w.nx = w.l[:T*T], w.x[:T], w.w[:T], w.idx[:T], w.nx[:T]
}

// BatchOMP is OMP given the Gram matrix G = DᵀD (k×k) and B = DᵀY (k×n),
// by the Cholesky-updated batch OMP of Rubinstein, Zibulevsky and Elad:
// with I the selected atoms and L the Cholesky factor of G_II, each step
// appends one row to L, solves L·Lᵀ·x_I = (DᵀY)_I and updates the
// correlations Dᵀr = Dᵀy − G_{:,I}·x_I without forming any residual.
// yy holds ‖yᵢ‖² and is needed only when tol > 0 (the residual norm is
// tracked as ‖yᵢ‖² − x_Iᵀ(Dᵀyᵢ)_I). work may be nil; a reused work makes
// the call allocation-free (when it runs on one goroutine: a small n·T·k
// or GOMAXPROCS 1). Chunks of samples are coded on up to GOMAXPROCS
// goroutines with the same result whatever their number, and ctx is
// checked between chunks; a non-finite entry of G or B is an error
// wrapping ErrNotFinite.
func BatchOMP(ctx context.Context, dst, G, B *mat.Dense, yy []float64, T int, tol float64, work *OMPWork) error {
	k, kc := G.Dims()
	br, n := B.Dims()
	switch {
	case k != kc || br != k:
		return fmt.Errorf("core: BatchOMP Gram %d×%d and DᵀY %d×%d do not match", k, kc, br, n)
	case T < 1:
		return fmt.Errorf("core: OMP sparsity T=%d, want at least 1", T)
	case tol > 0 && len(yy) != n:
		return fmt.Errorf("core: BatchOMP has %d squared norms for %d samples", len(yy), n)
	}
	if r, c := dst.Dims(); r != k || c != n {
		return fmt.Errorf("core: OMP codes are %d×%d, want %d×%d", r, c, k, n)
	}
	if T > k {
		T = k
	}
	if work == nil {
		work = &OMPWork{}
	}
	work.grow(k, T)
	g := G.RawMatrix()
	for i := 0; i < k; i++ {
		if !finite(g.Data[i*g.Stride : i*g.Stride+k]) {
			return fmt.Errorf("core: OMP Gram matrix row %d: %w", i, ErrNotFinite)
		}
		work.ginv[i] = 0
		if gii := g.Data[i*g.Stride+i]; gii > 0 {
			work.ginv[i] = 1 / gii
		}
	}
	chunks := (n + ompCtxEvery - 1) / ompCtxEvery
	procs := min(parallel.Procs(), chunks)
	if procs < 2 || float64(n)*float64(T)*float64(k) < ompParallelWork {
		for c := 0; c < chunks; c++ {
			if err := work.chunk(ctx, c, dst, g, B, yy, T, tol, n, work.ginv); err != nil {
				return err
			}
		}
		return nil
	}
	// Samples are coded independently, in chunks of ompCtxEvery, so the
	// codes do not depend on the number of goroutines. The error of the
	// first failing chunk is returned.
	if len(work.sub) < procs-1 {
		work.sub = append(work.sub, make([]OMPWork, procs-1-len(work.sub))...)
	}
	for p := 1; p < procs; p++ {
		work.sub[p-1].grow(k, T)
	}
	return ForEach(chunks, procs, func(w, c int) error {
		ws := work
		if w > 0 {
			ws = &work.sub[w-1]
		}
		return ws.chunk(ctx, c, dst, g, B, yy, T, tol, n, work.ginv)
	})
}

// ompParallelWork is the least n·T·k for which BatchOMP codes on several
// goroutines; chosen by BenchmarkBatchOMP_k50_T20_n500 (bench/NOTES.md).
const ompParallelWork = 1 << 16

// chunk codes the samples of chunk c (ompCtxEvery of them) into dst,
// checking ctx first; ginv holds 1/G_ii (0 for G_ii ≤ 0).
func (work *OMPWork) chunk(ctx context.Context, c int, dst *mat.Dense, g blas64.General, B *mat.Dense, yy []float64, T int, tol float64, n int, ginv []float64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k := g.Rows
	b := B.RawMatrix()
	xr := dst.RawMatrix()
	tol2 := tol * tol
	for j := c * ompCtxEvery; j < min((c+1)*ompCtxEvery, n); j++ {
		for i := 0; i < k; i++ {
			work.alpha0[i] = b.Data[i*b.Stride+j]
			xr.Data[i*xr.Stride+j] = 0
		}
		if !finite(work.alpha0) || tol > 0 && !(yy[j] <= math.MaxFloat64) {
			return fmt.Errorf("core: OMP sample %d: %w", j, ErrNotFinite)
		}
		var err2 float64
		if tol > 0 {
			err2 = yy[j]
		}
		m := work.code(g.Data, g.Stride, ginv, T, tol > 0, tol2, err2)
		for p, a := range work.idx[:m] {
			xr.Data[a*xr.Stride+j] = work.x[p]
		}
	}
	return nil
}

// ompCtxEvery is the number of samples BatchOMP codes between checks of
// its context.
const ompCtxEvery = 64

// finite reports whether every element of x is finite.
func finite(x []float64) bool {
	// v·0 is ±0 for a finite v and NaN for ±Inf and NaN, which every sum
	// keeps; four sums run without branches at several elements a cycle.
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		s0 += v[0] * 0
		s1 += v[1] * 0
		s2 += v[2] * 0
		s3 += v[3] * 0
	}
	for ; i < len(x); i++ {
		s0 += x[i] * 0
	}
	return s0+s1+s2+s3 == 0
}

// code runs OMP for one sample whose Dᵀy is in w.alpha0 and returns the
// number of selected atoms, w.idx[:m], with coefficients w.x[:m]. The
// next atom maximises αᵢ²/G_ii, computed as αᵢ²·ginv[i] over a copy of
// ginv whose selected entries are 0 (so they, and atoms with G_ii ≤ 0,
// never win).
func (w *OMPWork) code(g []float64, gs int, ginv []float64, T int, useTol bool, tol2, yy float64) int {
	err2 := yy
	copy(w.alpha, w.alpha0)
	sel := w.sel
	copy(sel, ginv)
	l, x := w.l, w.x
	m := 0
	for m < T {
		if useTol && err2 <= tol2 {
			break
		}
		best, bv := -1, 0.0
		for i, a := range w.alpha {
			if v := a * a * sel[i]; v > bv {
				best, bv = i, v
			}
		}
		if best < 0 {
			break // residual orthogonal to every remaining atom
		}
		gbb := g[best*gs+best]
		// New Cholesky row: solve L·v = G_{I,best}, L[m,m] = √(G_bb − vᵀv).
		v := w.w[:m]
		var vv float64
		for p := 0; p < m; p++ {
			s := g[w.idx[p]*gs+best]
			for q := 0; q < p; q++ {
				s -= l[p*T+q] * v[q]
			}
			v[p] = s / l[p*T+p]
			vv += v[p] * v[p]
		}
		s := gbb - vv
		if s <= 1e-12*gbb {
			break // atom (numerically) in the span of the selected ones
		}
		copy(l[m*T:m*T+m], v)
		l[m*T+m] = math.Sqrt(s)
		w.idx[m] = best
		sel[best] = 0
		k := len(w.alpha)
		copy(w.gi[m*k:(m+1)*k], g[best*gs:best*gs+k])
		m++
		// x_I = (L·Lᵀ)⁻¹·alpha0_I.
		for p := 0; p < m; p++ {
			s := w.alpha0[w.idx[p]]
			for q := 0; q < p; q++ {
				s -= l[p*T+q] * x[q]
			}
			x[p] = s / l[p*T+p]
		}
		for p := m - 1; p >= 0; p-- {
			s := x[p]
			for q := p + 1; q < m; q++ {
				s -= l[q*T+p] * x[q]
			}
			x[p] = s / l[p*T+p]
		}
		if m == T {
			break // no further selection needs the correlations
		}
		// alpha = alpha0 − G_{:,I}·x_I, using the rows of symmetric G,
		// rounded as one axpy per selected atom: AddCombination for the
		// groups of four, vector axpys (also unfused) for the rest.
		copy(w.alpha, w.alpha0)
		for p := range m {
			w.nx[p] = -x[p]
		}
		m4 := m &^ 3
		blas.AddCombination(w.alpha, m4, w.nx, 1, w.gi, k)
		for p := m4; p < m; p++ {
			if w.nx[p] != 0 {
				floats.AddScaled(w.alpha, w.nx[p], w.gi[p*k:(p+1)*k])
			}
		}
		if useTol {
			err2 = yy
			for p, a := range w.idx[:m] {
				err2 -= x[p] * w.alpha0[a]
			}
		}
	}
	return m
}
