package core

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/testutil"
)

// countCtx is a context whose Err reports cancellation from its (after+1)-th
// call on, counting the calls: a solver that returns context.Canceled with
// calls == after+1 stopped at its first check after the cancellation.
type countCtx struct {
	context.Context
	after, calls int
}

func newCountCtx(after int) *countCtx {
	return &countCtx{Context: context.Background(), after: after}
}

func (c *countCtx) Err() error {
	c.calls++
	if c.calls > c.after {
		return context.Canceled
	}
	return nil
}

// checkCancelled runs f with contexts cancelled after 0, 1, … checks up to
// the number of checks a full run makes, and requires each run to return
// context.Canceled at the first check after the cancellation.
func checkCancelled(t *testing.T, name string, f func(ctx context.Context) error) {
	t.Helper()
	full := newCountCtx(math.MaxInt)
	if err := f(full); err != nil {
		t.Fatalf("%s: uncancelled run: %v", name, err)
	}
	for after := 0; after < full.calls; after += max(1, full.calls/7) {
		ctx := newCountCtx(after)
		err := f(ctx)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s cancelled after %d checks: err %v, want context.Canceled", name, after, err)
		}
		if ctx.calls != after+1 {
			t.Errorf("%s cancelled after %d checks: %d checks, want %d (it went on after the cancellation)", name, after, ctx.calls, after+1)
		}
	}
}

func randUnitDict(rng *rand.Rand, d, k int) *mat.Dense {
	D := testutil.RandDense(rng, d, k)
	for j := 0; j < k; j++ {
		c := D.ColView(j).(*mat.VecDense)
		c.ScaleVec(1/mat.Norm(c, 2), c)
	}
	return D
}

func TestCancellation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	D := randUnitDict(rng, 12, 20)
	Y := testutil.RandDense(rng, 12, 150)

	// FISTA checks before and after every gradient: count gradient calls.
	var grads int
	checkCancelled(t, "Lasso", func(ctx context.Context) error {
		X := mat.NewDense(20, 150, nil)
		return Lasso(ctx, X, D, Y, 0.01, LassoOptions{Tol: -1, MaxIter: 30})
	})
	f := FISTA{MaxIter: 40, Tol: -1}
	G := mat.NewDense(20, 20, nil)
	G.Mul(D.T(), D)
	ctx := newCountCtx(5)
	x := mat.NewDense(20, 1, nil)
	n, err := f.Solve(ctx, x, func(g, w *mat.Dense) { grads++; g.Mul(G, w); g.Set(0, 0, g.At(0, 0)-1) }, 30, 0.01, nil)
	if !errors.Is(err, context.Canceled) || n != 2 || grads != 3 {
		t.Errorf("FISTA cancelled after 5 checks: %d iterations, %d gradients, %v; want 2, 3, context.Canceled", n, grads, err)
	}

	// OMP checks every ompCtxEvery samples.
	checkCancelled(t, "OMP", func(ctx context.Context) error {
		return OMP(ctx, mat.NewDense(20, 150, nil), D, Y, 4, 0)
	})
	if c := newCountCtx(math.MaxInt); OMP(c, mat.NewDense(20, 150, nil), D, Y, 4, 0) != nil || c.calls < 150/ompCtxEvery {
		t.Errorf("OMP of 150 samples checked its context %d times", c.calls)
	}

	// K-SVD checks before every atom of a sweep.
	checkCancelled(t, "KSVD", func(ctx context.Context) error {
		_, err := KSVD(ctx, mat.DenseCopyOf(D), Y, 3, 2, KSVDOptions{})
		return err
	})
	if c := newCountCtx(math.MaxInt); func() error { _, err := KSVD(c, mat.DenseCopyOf(D), Y, 3, 2, KSVDOptions{}); return err }() != nil || c.calls < 2*20 {
		t.Errorf("2 K-SVD iterations over 20 atoms checked the context %d times", c.calls)
	}
	// Cancelled from Progress: no further iteration.
	cctx, cancel := context.WithCancel(context.Background())
	iters := 0
	_, err = KSVD(cctx, mat.DenseCopyOf(D), Y, 3, 10, KSVDOptions{Progress: func(it int, _, _ *mat.Dense) {
		iters++
		if it == 2 {
			cancel()
		}
	}})
	cancel()
	if !errors.Is(err, context.Canceled) || iters != 2 {
		t.Errorf("K-SVD cancelled at iteration 2: %d iterations, %v", iters, err)
	}

	// The dictionary update checks before every sweep and stays feasible.
	E := testutil.RandDense(rng, 12, 20)
	F := mat.NewDense(20, 20, nil)
	X := testutil.RandDense(rng, 20, 40)
	F.Mul(X, X.T())
	checkCancelled(t, "UpdateContext", func(ctx context.Context) error {
		Dn := mat.DenseCopyOf(D)
		var w DictUpdater
		err := w.UpdateContext(ctx, Dn, E, F, UpdateDictOptions{MaxIter: 10, Tol: -1})
		for j := 0; j < 20; j++ {
			if nrm := mat.Norm(Dn.ColView(j), 2); !(nrm <= 1+1e-12) {
				t.Fatalf("atom %d has norm %v after cancellation", j, nrm)
			}
		}
		return err
	})
	checkCancelled(t, "ADMMDict", func(ctx context.Context) error {
		return ADMMDict(ctx, mat.DenseCopyOf(D), E, F, SVTProx(0.1), ADMMOptions{MaxIter: 5, Tol: -1, Update: UpdateDictOptions{MaxIter: 3}})
	})
	checkCancelled(t, "LearnDict", func(ctx context.Context) error {
		_, _, err := LearnDict(ctx, Y, 6, 0.01, rand.New(rand.NewPCG(1, 1)), LearnDictOptions{Iter: 3, Lasso: LassoOptions{MaxIter: 20}})
		return err
	})
}

func TestNonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	D := randUnitDict(rng, 8, 10)
	Y := testutil.RandDense(rng, 8, 30)
	poison := func(m *mat.Dense, v float64) *mat.Dense {
		p := mat.DenseCopyOf(m)
		p.Set(1, 2, v)
		return p
	}
	bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e300}
	for _, v := range bad {
		if err := Lasso(ctx, mat.NewDense(10, 30, nil), poison(D, v), Y, 0.01, LassoOptions{}); !errors.Is(err, ErrNotFinite) {
			t.Errorf("lasso with a %v atom entry: %v, want ErrNotFinite", v, err)
		}
		if err := Lasso(ctx, mat.NewDense(10, 30, nil), D, poison(Y, v), 0.01, LassoOptions{}); !errors.Is(err, ErrNotFinite) {
			t.Errorf("lasso with a %v sample entry: %v, want ErrNotFinite", v, err)
		}
		if err := OMP(ctx, mat.NewDense(10, 30, nil), poison(D, v), Y, 3, 0); !errors.Is(err, ErrNotFinite) {
			t.Errorf("OMP with a %v atom entry: %v, want ErrNotFinite", v, err)
		}
		if err := OMP(ctx, mat.NewDense(10, 30, nil), D, poison(Y, v), 3, 1e-3); !errors.Is(err, ErrNotFinite) {
			t.Errorf("OMP with a %v sample entry: %v, want ErrNotFinite", v, err)
		}
		if _, err := KSVD(ctx, mat.DenseCopyOf(D), poison(Y, v), 3, 2, KSVDOptions{}); !errors.Is(err, ErrNotFinite) {
			t.Errorf("K-SVD with a %v sample entry: %v, want ErrNotFinite", v, err)
		}
		if _, _, err := LearnDict(ctx, poison(Y, v), 4, 0.01, rand.New(rand.NewPCG(1, 1)), LearnDictOptions{Iter: 2}); !errors.Is(err, ErrNotFinite) {
			t.Errorf("LearnDict with a %v sample entry: %v, want ErrNotFinite", v, err)
		}
		if v == 1e300 {
			continue // finite: SVT and ADMM handle it
		}
		if _, err := SVT(&mat.Dense{}, poison(Y, v), 0.1); !errors.Is(err, ErrNotFinite) {
			t.Errorf("SVT of a matrix with %v: %v, want ErrNotFinite", v, err)
		}
		if nn := NuclearNorm(poison(Y, v)); !math.IsNaN(nn) && !math.IsInf(nn, 0) {
			t.Errorf("nuclear norm of a matrix with %v = %v", v, nn)
		}
		F := mat.NewDense(10, 10, nil)
		F.Mul(D.T(), D)
		if err := ADMMDict(ctx, poison(D, v), D, F, SVTProx(0.1), ADMMOptions{}); !errors.Is(err, ErrNotFinite) {
			t.Errorf("ADMM from a dictionary with %v: %v, want ErrNotFinite", v, err)
		}
	}
	var f FISTA
	for _, L := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := f.Solve(ctx, mat.NewDense(2, 2, nil), func(g, w *mat.Dense) { g.Copy(w) }, L, 0.1, nil); err == nil {
			t.Errorf("FISTA with L = %v: no error", L)
		}
	}
	for _, l := range []float64{-1, math.NaN()} {
		if _, err := f.Solve(ctx, mat.NewDense(2, 2, nil), func(g, w *mat.Dense) { g.Copy(w) }, 1, l, nil); err == nil {
			t.Errorf("FISTA with λ = %v: no error", l)
		}
		if _, err := f.Solve(ctx, mat.NewDense(2, 2, nil), func(g, w *mat.Dense) { g.Copy(w) }, 1, 0, []float64{0, l}); err == nil {
			t.Errorf("FISTA with a row weight %v: no error", l)
		}
	}
	x := mat.NewDense(2, 2, []float64{0, math.NaN(), 0, 0})
	if _, err := f.Solve(ctx, x, func(g, w *mat.Dense) { g.Copy(w) }, 1, 0, nil); !errors.Is(err, ErrNotFinite) {
		t.Errorf("FISTA from a NaN start: %v, want ErrNotFinite", err)
	}
}

// TestLassoMissedTopEigenvector codes over two nearly opposite atoms, whose
// Gram matrix [1 −c; −c 1] has the all-ones start of the power iteration as
// an eigenvector of the small eigenvalue 1 − c: the lasso must still reach
// the optimum (checked against FISTA with the exact λmax = 1 + c).
func TestLassoMissedTopEigenvector(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range []float64{0.5, 0.99, 0.999} {
		G := mat.NewDense(2, 2, []float64{1, -c, -c, 1})
		B := testutil.RandDense(rng, 2, 5)
		B.Scale(10, B)
		lambda := 0.01
		var p PowerIter
		if _, ub := p.MaxEig(G); ub < (1+c)*(1-1e-9) {
			t.Errorf("c=%v: bound %v below λmax = %v", c, ub, 1+c)
		}
		X := mat.NewDense(2, 5, nil)
		if err := LassoGram(context.Background(), X, G, B, lambda, LassoOptions{MaxIter: 5000, Tol: 1e-13}); err != nil {
			t.Fatalf("c=%v: %v", c, err)
		}
		want := mat.NewDense(2, 5, nil)
		f := FISTA{MaxIter: 20000, Tol: 1e-14}
		if _, err := f.Solve(context.Background(), want, func(g, w *mat.Dense) { lassoGrad(g, G, B, w) }, 1+c, lambda, nil); err != nil {
			t.Fatal(err)
		}
		obj := func(X *mat.Dense) float64 {
			var gx mat.Dense
			gx.Mul(G, X)
			return Dot(X, &gx)/2 - Dot(B, X) + lambda*L1(X)
		}
		if got, ref := obj(X), obj(want); !(got <= ref+1e-6*math.Abs(ref)) {
			t.Errorf("c=%v: lasso objective %v, optimum %v", c, got, ref)
		}
	}
}
