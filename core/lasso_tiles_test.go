package core

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/testutil"
)

// tiles returns a context under which the products split into tiles of
// w multiply-adds.
func tiles(w int) context.Context { return context.WithValue(context.Background(), tileWorkKey{}, w) }

// TestGemmTiles checks the tiled product against a triple loop, for every
// transposition, and that symmetric products are exactly symmetric. (A
// tiled product may differ from one Gemm in the last bits: both backends
// sum in an order that depends on the shape.)
func TestGemmTiles(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		const m, n, p = 37, 53, 71
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				a, b := testutil.RandDense(rng, m, p), testutil.RandDense(rng, p, n)
				c0 := testutil.RandDense(rng, m, n)
				want := mat.NewDense(m, n, nil)
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						var s float64
						for l := 0; l < p; l++ {
							s += a.At(i, l) * b.At(l, j)
						}
						want.Set(i, j, 0.5*s-c0.At(i, j))
					}
				}
				if ta {
					a = mat.DenseCopyOf(a.T())
				}
				if tb {
					b = mat.DenseCopyOf(b.T())
				}
				got := mat.DenseCopyOf(c0)
				ctx := tiles(700)
				if !tiled(ctx, m, n, p) {
					t.Fatal("the test product fits one tile")
				}
				if err := gemmTiles(ctx, ta, tb, 0.5, a.RawMatrix(), b.RawMatrix(), -1, got.RawMatrix(), false); err != nil {
					t.Fatal(err)
				}
				if !mat.EqualApprox(got, want, 1e-12) {
					t.Errorf("ta=%v tb=%v: tiled product differs from the triple loop", ta, tb)
				}
			}
		}
		x := testutil.RandDense(rng, m, p)
		var outer, gram, wantOuter, wantGram mat.Dense
		outer.ReuseAs(m, m)
		gram.ReuseAs(p, p)
		if err := outerContext(tiles(500), &outer, x); err != nil {
			t.Fatal(err)
		}
		if err := gramContext(tiles(500), &gram, x); err != nil {
			t.Fatal(err)
		}
		wantOuter.Mul(x, x.T())
		wantGram.Mul(x.T(), x)
		if !mat.EqualApprox(&outer, &wantOuter, 1e-12) || !mat.Equal(&outer, outer.T()) {
			t.Error("tiled XXᵀ is not the symmetric outer product")
		}
		if !mat.EqualApprox(&gram, &wantGram, 1e-12) || !mat.Equal(&gram, gram.T()) {
			t.Error("tiled XᵀX is not the symmetric Gram matrix")
		}
	})
}

// everyCheck runs f once with a context that is never cancelled, to count
// its checks, and then cancelled at each check (at most 150, spread over
// them): every run must return context.Canceled.
func everyCheck(t *testing.T, base context.Context, what string, f func(ctx context.Context) error) {
	t.Helper()
	probe := &testutil.CancelAt{Context: base, At: 1 << 62}
	if err := f(probe); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	total := probe.N.Load()
	if total < 10 {
		t.Fatalf("%s checks its context %d times, want many (between tiles)", what, total)
	}
	step := max(1, total/150)
	for at := int64(1); at <= total; at += step {
		if err := f(&testutil.CancelAt{Context: base, At: at}); !errors.Is(err, context.Canceled) {
			t.Fatalf("%s cancelled at check %d of %d: %v", what, at, total, err)
		}
	}
}

// TestLassoCancelEveryCheck cancels Lasso (FISTA and the path/ADMM
// option), LassoADMM and LearnDictFrom at every check of their context,
// with tiles small enough that the products check it many times.
func TestLassoCancelEveryCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	const d, k, n = 30, 40, 50
	D, Y := testutil.RandUnitCols(rng, d, k), testutil.RandUnitCols(rng, d, n)
	want, got := mat.NewDense(k, n, nil), mat.NewDense(k, n, nil)
	if err := Lasso(context.Background(), want, D, Y, 0.05, LassoOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Lasso(tiles(2000), got, D, Y, 0.05, LassoOptions{}); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(got, want, 1e-9) {
		t.Error("Lasso by tiles differs from Lasso in one piece")
	}
	base := tiles(2000)
	for _, admm := range []bool{false, true} {
		everyCheck(t, base, "Lasso", func(ctx context.Context) error {
			return Lasso(ctx, mat.NewDense(k, n, nil), D, Y, 0.05, LassoOptions{ADMM: admm, MaxIter: 20})
		})
	}
	G := mat.NewDense(k, k, nil)
	G.Mul(D.T(), D)
	B := mat.NewDense(k, n, nil)
	B.Mul(D.T(), Y)
	everyCheck(t, base, "LassoADMM", func(ctx context.Context) error {
		return LassoADMM(ctx, mat.NewDense(k, n, nil), G, B, 0.05, LassoOptions{MaxIter: 20})
	})
	everyCheck(t, base, "LearnDictFrom", func(ctx context.Context) error {
		_, err := LearnDictFrom(ctx, Y, mat.DenseCopyOf(D), 0.05, LearnDictOptions{Iter: 3, Lasso: LassoOptions{MaxIter: 10}})
		return err
	})
}

// TestPowerIterCancel checks that the power iteration of the lasso's step
// size returns ctx.Err() when ctx is cancelled before a product.
func TestPowerIterCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	D := testutil.RandUnitCols(rng, 20, 30)
	G := mat.NewDense(30, 30, nil)
	G.Mul(D.T(), D)
	var p PowerIter
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := p.maxEig(ctx, G); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled power iteration: %v, want context.Canceled", err)
	}
	var p1, p2 PowerIter
	rho, ub, err := p1.maxEig(context.Background(), G)
	if r2, u2 := p2.MaxEig(G); err != nil || rho != r2 || ub != u2 {
		t.Errorf("maxEig = %v, %v, %v; MaxEig = %v, %v", rho, ub, err, r2, u2)
	}
}
