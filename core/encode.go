package core

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/parallel"
)

// SparseAlgorithm names an algorithm of the sparse coder.
type SparseAlgorithm int

const (
	// AlgoAuto lets the coder choose by regime (see SparseCoder.Encode).
	AlgoAuto SparseAlgorithm = iota
	// AlgoCD is coordinate descent on the Gram matrix over growing working
	// sets, with gap-safe screening and Anderson extrapolation.
	AlgoCD
	// AlgoPath is the homotopy (LARS-lasso) path of every column, certified
	// (and where needed finished) by AlgoCD.
	AlgoPath
	// AlgoFISTA is LassoGram's FISTA on all columns at once, finished to the
	// certificate by AlgoCD.
	AlgoFISTA
	// AlgoADMM is LassoADMM on all columns at once, finished to the
	// certificate by AlgoCD.
	AlgoADMM
)

// String returns the algorithm's name: auto, cd, path, fista or admm.
func (a SparseAlgorithm) String() string {
	switch a {
	case AlgoAuto:
		return "auto"
	case AlgoCD:
		return "cd"
	case AlgoPath:
		return "path"
	case AlgoFISTA:
		return "fista"
	case AlgoADMM:
		return "admm"
	}
	return fmt.Sprintf("SparseAlgorithm(%d)", int(a))
}

// EncodeStop says why the coder stopped.
type EncodeStop int

const (
	// StopGap: every column's duality gap is at most Tol times its primal
	// objective (the certificate).
	StopGap EncodeStop = iota
	// StopCap: at least one column reached an iteration cap before its
	// certificate; EncodeInfo.Capped counts them.
	StopCap
)

// String returns gap or cap.
func (s EncodeStop) String() string {
	switch s {
	case StopGap:
		return "gap"
	case StopCap:
		return "cap"
	}
	return fmt.Sprintf("EncodeStop(%d)", int(s))
}

// DefaultEncodeTol is the default relative duality gap of the sparse coder.
const DefaultEncodeTol = 1e-7

// EncodeOptions controls the sparse coder. The zero value means the
// defaults.
type EncodeOptions struct {
	// Algorithm forces an algorithm; AlgoAuto (zero) chooses by regime.
	Algorithm SparseAlgorithm
	// Tol is the relative duality gap at which a column stops:
	// gap ≤ Tol·P(x) with P the column's primal objective. Zero means
	// DefaultEncodeTol.
	Tol float64
	// MaxSweeps caps the coordinate-descent sweeps (over a working set) of
	// one column; zero means 20000. A column stopped by it is reported.
	MaxSweeps int
	// MaxOuter caps the working-set iterations (gradient, gap, screening
	// and a new working set) of one column; zero means 200.
	MaxOuter int
	// Warm starts from the contents of X (otherwise from zero).
	Warm bool
	// NoScreening turns gap-safe screening off.
	NoScreening bool
	// NoAnderson turns Anderson extrapolation of the sweeps off.
	NoAnderson bool
	// NoNewton turns off the Newton steps on a stable support.
	NoNewton bool
}

// EncodeInfo reports a call of the sparse coder.
type EncodeInfo struct {
	Algorithm SparseAlgorithm // the algorithm used (never AlgoAuto)
	Stop      EncodeStop      // StopGap when every column is certified
	Columns   int             // columns coded
	Capped    int             // columns stopped by MaxSweeps or MaxOuter
	Fallbacks int             // AlgoPath: columns whose path failed and CD solved
	Sweeps    int             // coordinate-descent sweeps, all columns
	MaxSweeps int             // the most sweeps of one column
	Outer     int             // working-set iterations, all columns
	Newton    int             // Newton steps on a stable support, all columns
	Screened  int             // atoms screened out, summed over columns
	Primal    float64         // Σ_j ½‖y_j − Dx_j‖² + λ‖x_j‖₁ at return
	Gap       float64         // Σ_j of the columns' duality gaps at return
	MaxRelGap float64         // max_j gap_j / P_j at return
}

// SparseCoder codes data over a fixed dictionary D (d×k):
//
//	x_j = argmin_x ½‖y_j − Dx‖₂² + λ‖x‖₁
//
// for every column y_j of Y, the scaling of Lasso (no 1/d factor). It
// computes the Gram matrix G = DᵀD once. A SparseCoder may be used by one
// goroutine at a time; it reuses its workspaces between calls.
type SparseCoder struct {
	k    int
	gram *mat.Dense // DᵀD (k×k)
	dict *mat.Dense // D, nil for a coder built from G
	norm []float64  // ‖d_i‖
	work []*cdWork
	dty  *mat.Dense // DᵀY of the last Encode
	yy   []float64
	cols []colStat
}

// NewSparseCoder returns a coder for the dictionary D (d×k), which it
// keeps (not a copy). Non-finite D gives an error wrapping ErrNotFinite.
func NewSparseCoder(D *mat.Dense) (*SparseCoder, error) {
	_, k := D.Dims()
	if !finiteDense(D) {
		return nil, fmt.Errorf("core: sparse coder dictionary: %w", ErrNotFinite)
	}
	G := mat.NewDense(k, k, nil)
	gramTo(G, D)
	c, err := NewSparseCoderGram(G)
	if err != nil {
		return nil, err
	}
	c.dict = D
	return c, nil
}

// NewSparseCoderGram returns a coder given only the Gram matrix G = DᵀD
// (k×k, kept, not copied); it codes by EncodeGram.
func NewSparseCoderGram(G *mat.Dense) (*SparseCoder, error) {
	k, kc := G.Dims()
	if k != kc {
		return nil, fmt.Errorf("core: sparse coder Gram matrix is %d×%d", k, kc)
	}
	if !finiteDense(G) {
		return nil, fmt.Errorf("core: sparse coder Gram matrix: %w", ErrNotFinite)
	}
	if G.RawMatrix().Stride != k {
		G = mat.DenseCopyOf(G)
	}
	c := &SparseCoder{k: k, gram: G, norm: make([]float64, k)}
	for i := range c.norm {
		c.norm[i] = math.Sqrt(max(G.At(i, i), 0))
	}
	return c, nil
}

// Encode sets X (k×n) to the codes of Y (d×n) at λ ≥ 0 (see SparseCoder).
func (c *SparseCoder) Encode(ctx context.Context, X *mat.Dense, Y mat.Matrix, lambda float64, opts EncodeOptions) (EncodeInfo, error) {
	if c.dict == nil {
		return EncodeInfo{}, fmt.Errorf("core: sparse coder built from a Gram matrix: use EncodeGram")
	}
	d, k := c.dict.Dims()
	yr, n := Y.Dims()
	if yr != d {
		return EncodeInfo{}, fmt.Errorf("core: sparse coder dictionary has %d rows, data has %d", d, yr)
	}
	if c.dty == nil || !sameDims(c.dty, k, n) {
		c.dty = mat.NewDense(k, n, nil)
	}
	MulTrans(c.dty, c.dict, Y)
	c.yy = colNorms2To(c.yy, Y)
	return c.EncodeGram(ctx, X, c.dty, c.yy, lambda, opts)
}

func sameDims(a *mat.Dense, r, c int) bool {
	ar, ac := a.Dims()
	return ar == r && ac == c
}

// colNorms2To is colNorms2 into dst (grown as needed).
func colNorms2To(dst []float64, Y mat.Matrix) []float64 {
	_, n := Y.Dims()
	if y, ok := Y.(*mat.Dense); ok {
		dst = grow(dst, n)
		clear(dst)
		r := y.RawMatrix()
		for i := 0; i < r.Rows; i++ {
			row := r.Data[i*r.Stride : i*r.Stride+n]
			for j, v := range row {
				dst[j] += v * v
			}
		}
		return dst
	}
	return colNorms2(Y)
}

// EncodeGram is Encode given B = DᵀY (k×n) and yy, the squared norms of
// the columns of Y (n), which the duality gap needs. For a lasso given
// only in Gram form, ½xᵀGx − bᵀx + λ‖x‖₁, yy must be ‖y‖² of data y with
// Dᵀy = b for some D with DᵀD = G (at least bᵀG⁺b); the objectives and
// gaps reported then include the constant ½yy.
//
// AlgoAuto chooses AlgoPath for an overcomplete dictionary (k > d, known
// when the coder was built from D) when most columns have λ small against
// ‖b_j‖_∞ (expected support near d atoms), and AlgoCD, coordinate descent
// over working sets with Newton steps, otherwise. Every algorithm ends with the certificate: a column stops when
// its duality gap, computed from the Gram matrix with the dual point
// θ = r·min(1, λ/‖Dᵀr‖_∞) (r the residual), is at most Tol times its primal
// objective, or reports reaching a cap.
func (c *SparseCoder) EncodeGram(ctx context.Context, X, B *mat.Dense, yy []float64, lambda float64, opts EncodeOptions) (EncodeInfo, error) {
	k := c.k
	br, n := B.Dims()
	if xr, xc := X.Dims(); br != k || xr != k || xc != n || len(yy) != n {
		return EncodeInfo{}, fmt.Errorf("core: sparse coder shapes G %d×%d, B %d×%d, X %d×%d, %d norms do not match", k, k, br, n, xr, xc, len(yy))
	}
	if lambda < 0 || math.IsNaN(lambda) || math.IsInf(lambda, 0) {
		return EncodeInfo{}, fmt.Errorf("core: sparse coder λ = %v must be finite and non-negative", lambda)
	}
	if !finiteDense(B) {
		return EncodeInfo{}, fmt.Errorf("core: sparse coder DᵀY: %w", ErrNotFinite)
	}
	if err := ctx.Err(); err != nil {
		return EncodeInfo{}, err
	}
	o := opts.defaults()
	algo := o.Algorithm
	d := 0
	if c.dict != nil {
		d, _ = c.dict.Dims()
	}
	if algo == AlgoAuto {
		algo = chooseAlgorithm(B, lambda, d)
	}
	warm := o.Warm
	if o.Algorithm == AlgoAuto && algo == AlgoCD && !warm && denseRegime(B, lambda, d) && c.signStart(X, B, lambda) {
		warm = true
	}
	switch algo {
	case AlgoFISTA, AlgoADMM:
		if !warm {
			X.Zero()
		}
		var err error
		if algo == AlgoADMM {
			err = LassoADMM(ctx, X, c.gram, B, lambda, LassoOptions{})
		} else {
			err = LassoGram(ctx, X, c.gram, B, lambda, LassoOptions{})
		}
		if err != nil {
			return EncodeInfo{}, err
		}
		warm = true
	case AlgoCD, AlgoPath:
	default:
		return EncodeInfo{}, fmt.Errorf("core: unknown sparse coder algorithm %v", algo)
	}
	if cap(c.cols) < n {
		c.cols = make([]colStat, n)
	}
	cols := c.cols[:n]
	chunks := (n + encodeChunk - 1) / encodeChunk
	procs := min(parallel.Procs(), chunks)
	for len(c.work) < procs {
		c.work = append(c.work, nil)
	}
	g := c.gram.RawMatrix().Data
	xr, bm := X.RawMatrix(), B.RawMatrix()
	err := ForEach(chunks, procs, func(w, ch int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		wk := c.work[w]
		if wk == nil || wk.k != k {
			wk = newCDWork(k)
			c.work[w] = wk
		}
		for j := ch * encodeChunk; j < min((ch+1)*encodeChunk, n); j++ {
			for i := 0; i < k; i++ {
				wk.b[i] = bm.Data[i*bm.Stride+j]
				if warm {
					wk.x[i] = xr.Data[i*xr.Stride+j]
				} else {
					wk.x[i] = 0
				}
			}
			var st colStat
			if algo == AlgoPath {
				st = wk.path(g, c.norm, yy[j], lambda, &o)
			} else {
				st = wk.solve(g, c.norm, yy[j], lambda, &o)
			}
			cols[j] = st
			for i := 0; i < k; i++ {
				xr.Data[i*xr.Stride+j] = wk.x[i]
			}
		}
		return nil
	})
	if err != nil {
		return EncodeInfo{}, err
	}
	info := EncodeInfo{Algorithm: algo, Columns: n}
	for _, s := range cols {
		info.Sweeps += s.sweeps
		info.MaxSweeps = max(info.MaxSweeps, s.sweeps)
		info.Outer += s.outer
		info.Newton += s.newton
		info.Screened += s.screened
		info.Primal += s.primal
		info.Gap += s.gap
		if s.capped {
			info.Capped++
		}
		if s.fallback {
			info.Fallbacks++
		}
		if s.primal > 0 {
			info.MaxRelGap = max(info.MaxRelGap, s.gap/s.primal)
		} else if s.gap > 0 {
			info.MaxRelGap = math.Inf(1)
		}
	}
	if info.Capped > 0 {
		info.Stop = StopCap
	}
	return info, nil
}

// Encode sets X (k×n) to argmin_X ½‖Y − DX‖²_F + λ‖X‖₁ by a SparseCoder
// built for this call.
func Encode(ctx context.Context, X, D *mat.Dense, Y mat.Matrix, lambda float64, opts EncodeOptions) (EncodeInfo, error) {
	c, err := NewSparseCoder(D)
	if err != nil {
		return EncodeInfo{}, err
	}
	return c.Encode(ctx, X, Y, lambda, opts)
}

// pathRatio is the median λ/‖Dᵀy_j‖_∞ below which AlgoAuto takes the
// homotopy path for an overcomplete dictionary (k > d): the support then
// saturates near d atoms, where coordinate descent meets singular G_AA.
const pathRatio = 0.02

// chooseAlgorithm is AlgoAuto's choice (see EncodeGram) for a dictionary
// with d rows (0: unknown).
func chooseAlgorithm(B *mat.Dense, lambda float64, d int) SparseAlgorithm {
	k, n := B.Dims()
	if n == 0 || k == 0 || d <= 0 || k <= d {
		return AlgoCD
	}
	if mostBelow(B, lambda, pathRatio) {
		return AlgoPath
	}
	return AlgoCD
}

// denseRatio is the median λ/‖Dᵀy_j‖_∞ below which AlgoAuto starts
// coordinate descent from the full-support solution (see signStart) when
// k ≤ d/2: most atoms are then expected in the support.
const denseRatio = 0.1

// denseRegime reports whether AlgoAuto starts from signStart: a
// well-conditioned dictionary (k ≤ d/2) and dense codes expected.
func denseRegime(B *mat.Dense, lambda float64, d int) bool {
	k, n := B.Dims()
	if n == 0 || d <= 0 || 2*k > d {
		return false
	}
	return mostBelow(B, lambda, denseRatio)
}

// mostBelow reports whether λ < ratio·‖b_j‖_∞ for more than half of the
// columns b_j of B.
func mostBelow(B *mat.Dense, lambda, ratio float64) bool {
	k, n := B.Dims()
	b := B.RawMatrix()
	r := make([]float64, n)
	for i := 0; i < k; i++ {
		for j, v := range b.Data[i*b.Stride : i*b.Stride+n] {
			r[j] = max(r[j], math.Abs(v))
		}
	}
	below := 0
	for _, m := range r {
		if lambda < ratio*m {
			below++
		}
	}
	return 2*below > n
}

// signStart sets X to the minimiser of the objective on the orthant of
// the least-squares codes' signs S, X = G⁻¹(B − λS), for all columns at
// once by one Cholesky factor of G, with the entries whose signs then
// disagree with S set to zero: the exact codes of every column whose
// support is full and signs agree, a warm start for the others. It
// reports false (X untouched) when G is not numerically positive
// definite.
func (c *SparseCoder) signStart(X, B *mat.Dense, lambda float64) bool {
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(c.k, c.gram.RawMatrix().Data)) {
		return false
	}
	var X0 mat.Dense
	if err := ch.SolveTo(&X0, B); err != nil {
		return false
	}
	k, n := B.Dims()
	R := mat.NewDense(k, n, nil)
	for i := 0; i < k; i++ {
		for j := 0; j < n; j++ {
			R.Set(i, j, B.At(i, j)-math.Copysign(lambda, X0.At(i, j)))
		}
	}
	if err := ch.SolveTo(R, R); err != nil {
		return false
	}
	for i := 0; i < k; i++ {
		for j := 0; j < n; j++ {
			v := R.At(i, j)
			if v*X0.At(i, j) <= 0 || math.IsNaN(v) {
				v = 0
			}
			X.Set(i, j, v)
		}
	}
	return true
}

func (o EncodeOptions) defaults() EncodeOptions {
	if o.Tol <= 0 {
		o.Tol = DefaultEncodeTol
	}
	if o.MaxSweeps <= 0 {
		o.MaxSweeps = 20000
	}
	if o.MaxOuter <= 0 {
		o.MaxOuter = 200
	}
	return o
}

// encodeChunk is the number of columns coded between two checks of the
// context.
const encodeChunk = 16

// colStat is the outcome of one column.
type colStat struct {
	primal, gap      float64
	sweeps, outer    int
	newton           int
	screened         int
	capped, fallback bool
}
