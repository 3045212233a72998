package methods

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/core"
)

// coparXObjective returns ½tr(XᵀHX) − tr(BᵀX) + λ‖X‖₁.
func coparXObjective(X, H, B *mat.Dense, lambda float64) float64 {
	var HX mat.Dense
	HX.Mul(H, X)
	return 0.5*core.Dot(X, &HX) - core.Dot(B, X) + lambda*core.L1(X)
}

// TestCOPARUpdateXExact checks the exact COPAR-X (coparUpdateX on a problem
// where coparUseExact holds, 2K > d) against each class's lasso solved by
// FISTA to convergence (LassoGram, 10⁵ iterations, tolerance 1e-13): the
// objective within 1e-7 relative and the codes within 1e-3 (H_c is
// positive definite, so the minimiser is unique), from a zero and from a
// warm start, one class's codes a view into a wider matrix.
func TestCOPARUpdateXExact(t *testing.T) {
	Ys, sp, part, D, _ := coparToyProblem(3, 4, 48, 10, 16, 8)
	d, K := D.Dims()
	N := sp.Len()
	if !coparUseExact(d, K, N) {
		t.Fatalf("d=%d K=%d N=%d: coparUpdateX would not solve exactly", d, K, N)
	}
	const lambda = 0.01
	var G, DtY mat.Dense
	G.Mul(D.T(), D)
	core.MulTrans(&DtY, D, Ys)
	C := sp.Blocks()
	H := make([]*mat.Dense, C)
	B := make([]*mat.Dense, C)
	want := make([]*mat.Dense, C)
	for c := 0; c < C; c++ {
		lo, hi := sp.Block(c)
		H[c] = mat.NewDense(K, K, nil)
		B[c] = mat.NewDense(K, hi-lo, nil)
		coparSystem(H[c], B[c], &G, DtY.Slice(0, K, lo, hi).(*mat.Dense), part, c)
		want[c] = mat.NewDense(K, hi-lo, nil)
		if err := core.LassoGram(context.Background(), want[c], H[c], B[c], lambda, core.LassoOptions{MaxIter: 100000, Tol: 1e-13}); err != nil {
			t.Fatal(err)
		}
	}
	wide := mat.NewDense(K, sp.Size(2)+2, nil)
	for i := 0; i < K; i++ {
		wide.Set(i, 0, 7)
		wide.Set(i, sp.Size(2)+1, 9)
	}
	for _, warm := range []bool{false, true} {
		X := make([]*mat.Dense, C)
		for c := range X {
			X[c] = mat.NewDense(K, sp.Size(c), nil)
		}
		X[2] = wide.Slice(0, K, 1, 1+sp.Size(2)).(*mat.Dense)
		X[2].Zero()
		if warm { // the minimiser perturbed
			for c := range X {
				X[c].Scale(0.9, want[c])
				X[c].Set(c, 0, X[c].At(c, 0)+0.1)
			}
		}
		if err := coparUpdateX(context.Background(), X, D, part, Ys, sp, lambda, coparXIters, true); err != nil {
			t.Fatal(err)
		}
		for c := range X {
			got, ref := coparXObjective(X[c], H[c], B[c], lambda), coparXObjective(want[c], H[c], B[c], lambda)
			if got-ref > 1e-7*max(1, -ref) {
				t.Errorf("warm=%v, class %d: objective %.12g, FISTA's minimum %.12g", warm, c, got, ref)
			}
			if !mat.EqualApprox(X[c], want[c], 1e-3) {
				t.Errorf("warm=%v, class %d: codes far from the minimiser", warm, c)
			}
			if core.L1(want[c]) == 0 {
				t.Errorf("class %d: minimiser is zero; the check is vacuous", c)
			}
		}
		for i := 0; i < K; i++ {
			if wide.At(i, 0) != 7 || wide.At(i, sp.Size(2)+1) != 9 {
				t.Fatalf("row %d: columns outside the view changed", i)
			}
		}
	}
}

// TestCOPARUpdateXSolversAgree checks coparUpdateXADMM and
// coparUpdateXExact against each other from a zero start: both reach the
// minimiser of every class's problem (H_c is positive definite).
func TestCOPARUpdateXSolversAgree(t *testing.T) {
	Ys, sp, part, D, _ := coparToyProblem(5, 4, 48, 10, 16, 8)
	const lambda = 0.01
	var G, DtY mat.Dense
	G.Mul(D.T(), D)
	core.MulTrans(&DtY, D, Ys)
	_, K := D.Dims()
	C := sp.Blocks()
	Xa, Xp := make([]*mat.Dense, C), make([]*mat.Dense, C)
	for c := range Xa {
		Xa[c], Xp[c] = mat.NewDense(K, sp.Size(c), nil), mat.NewDense(K, sp.Size(c), nil)
	}
	if ok, err := coparUpdateXADMM(context.Background(), Xa, &G, &DtY, part, sp, lambda); !ok || err != nil {
		t.Fatalf("ADMM: ok %v, err %v", ok, err)
	}
	if err := coparUpdateXExact(context.Background(), Xp, &G, &DtY, part, sp, lambda); err != nil {
		t.Fatal(err)
	}
	for c := range Xa {
		if !mat.EqualApprox(Xa[c], Xp[c], 1e-3) {
			t.Errorf("class %d: ADMM and path codes differ", c)
		}
		if core.L1(Xp[c]) == 0 {
			t.Errorf("class %d: zero codes; the check is vacuous", c)
		}
	}
	if d := coparDensity(Xp); d <= 0 || d > 1 {
		t.Errorf("coparDensity = %v", d)
	}
}
