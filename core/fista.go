package core

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
)

// GradFunc writes ∇h(W) into G. It must not retain or resize either matrix.
type GradFunc func(G, W *mat.Dense)

// FISTA minimises h(X) + Σᵢ λᵢ‖X_{i,:}‖₁ by the fast iterative
// shrinkage-thresholding algorithm of Beck and Teboulle:
//
//	Z_k     = S_{λ/L}(W_k − ∇h(W_k)/L)
//	t_{k+1} = (1 + √(1 + 4t_k²))/2
//	W_{k+1} = Z_k + (t_k − 1)/t_{k+1}·(Z_k − Z_{k−1})
//
// where L is a Lipschitz constant of ∇h (see PowerIter.MaxEig). The zero
// value is ready to use; a FISTA keeps its workspace between calls, so that
// after the first call of a given size Solve allocates nothing (given a
// non-allocating GradFunc).
type FISTA struct {
	// MaxIter is the iteration limit; zero means 200.
	MaxIter int
	// Tol stops the run when ‖Z_k − Z_{k−1}‖_F ≤ Tol·max(1, ‖Z_k‖_F)
	// at an iteration k ≥ 3 whose step is no longer than the one before;
	// zero means 1e-6, negative disables the test. The first steps (plain
	// gradient steps) and steps that momentum is still lengthening are
	// short on ill-conditioned problems, where 1/L is tiny along most
	// directions, without the iterates being near a minimiser.
	Tol float64
	// Restart enables O'Donoghue–Candès gradient restart: t_{k+1} = 1 and
	// W_{k+1} = Z_k whenever ⟨W_k − Z_k, Z_k − Z_{k−1}⟩ > 0.
	Restart bool

	w, g mat.Dense
	thr  [1]float64
	rthr []float64
	ms   metricStep
}

// Solve runs FISTA from the starting point held in x and leaves the
// solution in x. lambda is used for every row unless rowLambda (one per
// row of x) is given. It returns the number of iterations and ctx.Err() if
// ctx is cancelled (checked before and after every gradient). A Lipschitz constant
// that is not finite and positive, a negative or NaN weight, or an iterate
// whose squared norm is not finite (non-finite data, or values beyond
// about 1e150) is an error, wrapping ErrNotFinite for the last.
func (f *FISTA) Solve(ctx context.Context, x *mat.Dense, grad GradFunc, L, lambda float64, rowLambda []float64) (int, error) {
	r, _ := x.Dims()
	if err := CheckStep(L, lambda); err != nil {
		return 0, err
	}
	if rowLambda != nil && len(rowLambda) != r {
		panic("core: FISTA rowLambda length mismatch")
	}
	for _, l := range rowLambda {
		if !(l >= 0) {
			return 0, fmt.Errorf("core: FISTA row weight %v must be non-negative", l)
		}
	}
	thr := f.thr[:]
	thr[0] = lambda / L
	if rowLambda != nil {
		if cap(f.rthr) < r {
			f.rthr = make([]float64, r)
		}
		thr = f.rthr[:r]
		for i, l := range rowLambda {
			thr[i] = l / L
		}
	}
	return f.run(ctx, x, grad, 1/L, thr, nil)
}

// CheckStep returns Solve's error for a Lipschitz constant L that is not
// finite and positive, or a weight λ that is negative or NaN.
func CheckStep(L, lambda float64) error {
	if !(L > 0) || math.IsInf(L, 0) {
		return fmt.Errorf("core: FISTA needs a finite positive Lipschitz constant, have %v (non-finite or zero data?)", L)
	}
	if !(lambda >= 0) {
		return fmt.Errorf("core: FISTA weight λ = %v must be non-negative", lambda)
	}
	return nil
}

// run is the FISTA loop of Solve (step and thresholds thr) and of
// SolveMetric (metric m, thresholds thr[0]).
func (f *FISTA) run(ctx context.Context, x *mat.Dense, grad GradFunc, step float64, thr []float64, m *RankOneMetric) (int, error) {
	r, c := x.Dims()
	maxIter, tol := f.Limits()
	f.w.Reset()
	f.w.ReuseAs(r, c)
	f.g.Reset()
	f.g.ReuseAs(r, c)
	f.w.Copy(x)
	zr := x.RawMatrix()
	wr := f.w.RawMatrix()
	gr := f.g.RawMatrix()
	if zr.Stride != c {
		panic("core: FISTA needs a contiguous x")
	}
	t, prev := 1.0, math.Inf(1) // prev: the last step's ‖Z_k − Z_{k−1}‖²
	for k := 1; k <= maxIter; k++ {
		if err := ctx.Err(); err != nil {
			return k - 1, err
		}
		grad(&f.g, &f.w)
		if err := ctx.Err(); err != nil { // a gradient cut short (lassoGradContext)
			return k - 1, err
		}
		tn := (1 + math.Sqrt(1+4*t*t)) / 2
		beta := (t - 1) / tn
		var dz2, z2, rs float64
		if m != nil {
			dz2, z2, rs = f.ms.step(zr.Data, wr.Data, gr.Data, r, c, *m, thr[0], beta)
		} else {
			dz2, z2, rs = blas.ProxStep(zr.Data, wr.Data, gr.Data, r, c, step, thr, beta)
		}
		if !(dz2 <= math.MaxFloat64 && z2 <= math.MaxFloat64) { // NaN, or ‖Z‖² overflowed
			return k, fmt.Errorf("core: FISTA iterate %d: %w", k, ErrNotFinite)
		}
		t = tn
		if f.Restart && rs > 0 {
			t = 1
			copy(wr.Data[:r*c], zr.Data[:r*c])
		}
		if StepConverged(k, dz2, prev, z2, tol) {
			return k, nil
		}
		prev = dz2
	}
	return maxIter, nil
}

// Limits returns MaxIter and Tol with their defaults (200 and 1e-6) for
// zero values.
func (f *FISTA) Limits() (maxIter int, tol float64) {
	maxIter, tol = f.MaxIter, f.Tol
	if maxIter <= 0 {
		maxIter = 200
	}
	if tol == 0 {
		tol = 1e-6
	}
	return maxIter, tol
}

// StepConverged is FISTA's tolerance test (FISTA.Tol) at iteration k:
//
//	k ≥ 3,  dz2 ≤ prev,  √dz2 ≤ tol·max(1, √z2),
//
// with dz2 = ‖Z_k − Z_{k−1}‖², prev the same at k − 1 and z2 = ‖Z_k‖². It
// is false for tol ≤ 0.
func StepConverged(k int, dz2, prev, z2, tol float64) bool {
	return tol > 0 && k >= 3 && dz2 <= prev && math.Sqrt(dz2) <= tol*math.Max(1, math.Sqrt(z2))
}

// ErrNotFinite is wrapped by the errors of solvers whose iterates or inputs
// are NaN or infinite, as non-finite or extremely scaled data make them.
var ErrNotFinite = errors.New("core: values are not finite (NaN or infinite data, or data too large in scale)")
