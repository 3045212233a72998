package core

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/testutil"
)

// TestLassoADMMAgrees checks that LassoADMM and FISTA, both run to tight
// tolerances, find the same minimiser, with many columns (explicit
// inverse) and few (triangular solves).
func TestLassoADMMAgrees(t *testing.T) {
	for _, sz := range [][3]int{{20, 12, 40}, {30, 40, 2}} {
		lassoADMMAgrees(t, sz[0], sz[1], sz[2])
	}
}

func lassoADMMAgrees(t *testing.T, d, k, n int) {
	D, Y := svLassoProblem(31, d, k, n)
	const lambda = 0.3
	testutil.Backends(t, func(t *testing.T) {
		X, F := mat.NewDense(k, n, nil), mat.NewDense(k, n, nil)
		G, B := mat.NewDense(k, k, nil), mat.NewDense(k, n, nil)
		G.Mul(D.T(), D)
		B.Mul(D.T(), Y)
		if err := LassoADMM(context.Background(), X, G, B, lambda, LassoOptions{MaxIter: 20000, Tol: 1e-12}); err != nil {
			t.Fatal(err)
		}
		if err := Lasso(context.Background(), F, D, Y, lambda, LassoOptions{MaxIter: 50000, Tol: 1e-14, Restart: true}); err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(X, F, 1e-7) {
			t.Error("ADMM and FISTA solutions differ")
		}
	})
}

// TestLassoADMMLeastSquares checks λ = 0 against the closed form G⁻¹B.
func TestLassoADMMLeastSquares(t *testing.T) {
	D, Y := svLassoProblem(32, 15, 6, 9)
	G, B := mat.NewDense(6, 6, nil), mat.NewDense(6, 9, nil)
	G.Mul(D.T(), D)
	B.Mul(D.T(), Y)
	var want mat.Dense
	if err := want.Solve(G, B); err != nil {
		t.Fatal(err)
	}
	X := mat.NewDense(6, 9, nil)
	if err := LassoADMM(context.Background(), X, G, B, 0, LassoOptions{MaxIter: 5000, Tol: 1e-13}); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(X, &want, 1e-8) {
		t.Errorf("λ=0: %v, want %v", mat.Formatted(X), mat.Formatted(&want))
	}
}

// TestLassoADMMErrors: non-finite input and cancellation are errors.
func TestLassoADMMErrors(t *testing.T) {
	G := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	B := mat.NewDense(2, 1, []float64{math.NaN(), 1})
	if err := LassoADMM(context.Background(), mat.NewDense(2, 1, nil), G, B, 0.1, LassoOptions{}); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN in B: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	B.Set(0, 0, 1)
	if err := LassoADMM(ctx, mat.NewDense(2, 1, nil), G, B, 0.1, LassoOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
