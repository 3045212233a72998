package core

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/testutil"
)

func frob2(Y, D, X *mat.Dense) float64 {
	var R mat.Dense
	R.Mul(D, X)
	R.Sub(Y, &R)
	n := mat.Norm(&R, 2)
	return n * n
}

func TestKSVDRecoversPlantedDictionary(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(11, 12))
		const d, k, n, T = 20, 50, 1500, 3
		Dtrue := testutil.RandUnitCols(rng, d, k)
		X := plantedCodes(rng, k, n, T)
		var Y mat.Dense
		Y.Mul(Dtrue, X)
		for i := 0; i < d; i++ {
			for j := 0; j < n; j++ {
				Y.Set(i, j, Y.At(i, j)+0.01*rng.NormFloat64())
			}
		}
		D := mat.DenseCopyOf(Y.Slice(0, d, 0, k))
		if _, err := KSVD(context.Background(), D, &Y, T, 80, KSVDOptions{}); err != nil {
			t.Fatal(err)
		}
		found := 0
		for j := 0; j < k; j++ {
			best := 0.0
			for i := 0; i < k; i++ {
				best = math.Max(best, math.Abs(mat.Dot(Dtrue.ColView(j), D.ColView(i))))
			}
			if best > 0.95 {
				found++
			}
		}
		if found < 40 {
			t.Errorf("K-SVD recovered %d of %d planted atoms (|cos| > 0.95), want at least 40", found, k)
		}
		t.Logf("recovered %d/%d atoms", found, k)
	})
}

func TestKSVDSweepNeverIncreases(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(13, 14))
		const d, k, n = 15, 25, 120
		D := testutil.RandUnitCols(rng, d, k)
		X := plantedCodes(rng, k, n, 4)
		Y := testutil.RandUnitCols(rng, d, n)
		Xs := mat.DenseCopyOf(X)
		var R mat.Dense
		R.Mul(D, X)
		R.Sub(Y, &R)
		Rt, Yt := mat.DenseCopyOf(R.T()), mat.DenseCopyOf(Y.T())
		var w ksvdWork
		prev := frob2(Y, D, X)
		for it := 0; it < 5; it++ {
			_ = w.sweep(context.Background(), D, X, Rt, Yt, 3)
			cur := frob2(Y, D, X)
			if cur > prev*(1+1e-12) {
				t.Errorf("sweep %d: ‖Y−DX‖² rose from %.12g to %.12g", it, prev, cur)
			}
			prev = cur
			var want mat.Dense
			want.Mul(D, X)
			want.Sub(Y, &want)
			if !mat.EqualApprox(Rt, want.T(), 1e-10) {
				t.Fatalf("sweep %d: tracked residual differs from Y − DX", it)
			}
		}
		for i := 0; i < k; i++ {
			for j := 0; j < n; j++ {
				if (X.At(i, j) != 0) != (Xs.At(i, j) != 0) {
					t.Fatalf("support changed at (%d, %d)", i, j)
				}
			}
			if nrm := mat.Norm(D.ColView(i), 2); math.Abs(nrm-1) > 1e-12 {
				t.Errorf("atom %d has norm %g", i, nrm)
			}
		}
	})
}

func TestKSVDCostNonIncreasing(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const d, k, n, T = 12, 20, 200, 3
	Y := testutil.RandUnitCols(rng, d, n)
	D := testutil.RandUnitCols(rng, d, k)
	prev := math.Inf(1)
	var iters int
	X, err := KSVD(context.Background(), D, Y, T, 15, KSVDOptions{Progress: func(it int, D, X *mat.Dense) {
		iters = it
		cur := frob2(Y, D, X)
		if cur > prev*(1+1e-12) {
			t.Errorf("iteration %d: ‖Y−DX‖² rose from %.12g to %.12g", it, prev, cur)
		}
		prev = cur
	}})
	if err != nil {
		t.Fatal(err)
	}
	if iters != 15 {
		t.Errorf("progress called up to iteration %d, want 15", iters)
	}
	if got := frob2(Y, D, X); math.Abs(got-prev) > 1e-12*prev {
		t.Errorf("returned codes give %g, last progress %g", got, prev)
	}
	for j := 0; j < n; j++ {
		nnz := 0
		for i := 0; i < k; i++ {
			if X.At(i, j) != 0 {
				nnz++
			}
		}
		if nnz > T {
			t.Errorf("sample %d has %d > T=%d non-zeros", j, nnz, T)
		}
	}
}

func TestKSVDReplacesUnusedAtom(t *testing.T) {
	// Atom 1 is zero, so OMP never uses it; it must become the normalised
	// worst-represented sample.
	D := mat.NewDense(3, 2, []float64{1, 0, 0, 0, 0, 0})
	Y := mat.NewDense(3, 3, []float64{
		1, 2, 0,
		0, 0, 3,
		0, 0, 4,
	})
	if _, err := KSVD(context.Background(), D, Y, 1, 1, KSVDOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 0.6, 0.8}
	for i, v := range want {
		if math.Abs(D.At(i, 1)-v) > 1e-12 {
			t.Fatalf("replaced atom %v, want %v", mat.Col(nil, 1, D), want)
		}
	}
}

func TestKSVDErrorsAndCancel(t *testing.T) {
	D := mat.NewDense(3, 2, []float64{1, 0, 0, 1, 0, 0})
	Y := mat.NewDense(3, 4, nil)
	if _, err := KSVD(context.Background(), D, mat.NewDense(2, 4, nil), 1, 1, KSVDOptions{}); err == nil {
		t.Error("row mismatch: no error")
	}
	if _, err := KSVD(context.Background(), D, Y, 3, 1, KSVDOptions{}); err == nil {
		t.Error("T > atoms: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := KSVD(ctx, D, Y, 1, 5, KSVDOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
}

// BenchmarkKSVDIter_d352_k50_n500_T20 times K-SVD iterations (KSVDRun.Step:
// OMP codes, then the atom sweep) after the first, the setup of the run
// left out: it copies Y and allocates the workspaces once per fit.
func BenchmarkKSVDIter_d352_k50_n500_T20(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	Y := testutil.RandUnitCols(rng, 352, 500)
	D := mat.DenseCopyOf(Y.Slice(0, 352, 0, 50))
	r, err := NewKSVDRun(D, Y, 20, KSVDOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := r.Step(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := r.Step(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLeadingPairMatchesSVD checks leadingPair against the SVD of E (with a
// planted leading direction, so that power iteration converges): σ, ‖u‖ = 1
// and x = Eᵀu, and that a pair started from a poor x still beats it.
func TestLeadingPairMatchesSVD(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		for _, sz := range [][2]int{{30, 1}, {30, 2}, {40, 7}, {200, 48}, {50, 80}} {
			d, m := sz[0], sz[1]
			a, b := testutil.RandUnitCols(rng, d, 1), testutil.RandUnitCols(rng, m, 1)
			Et := mat.NewDense(m, d, nil) // Eᵀ: row q is column q of E
			for q := 0; q < m; q++ {
				for p := 0; p < d; p++ {
					Et.Set(q, p, 5*b.At(q, 0)*a.At(p, 0)+0.1*rng.NormFloat64())
				}
			}
			var svd mat.SVD
			if !svd.Factorize(Et, mat.SVDNone) {
				t.Fatal("SVD failed")
			}
			want := svd.Values(nil)[0]
			x := make([]float64, m)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			u := make([]float64, d)
			u0 := testutil.RandUnitCols(rng, d, 1).RawMatrix().Data
			var w lanczosWork
			s := leadingPair(u, x, u0, Et.RawMatrix().Data, 200, &w)
			if math.Abs(s-want) > 1e-8*want {
				t.Errorf("d=%d m=%d: σ = %.15g, SVD %.15g", d, m, s, want)
			}
			if n := floats.Norm(u, 2); math.Abs(n-1) > 1e-12 {
				t.Errorf("d=%d m=%d: ‖u‖ = %g", d, m, n)
			}
			etu := mat.NewVecDense(m, nil)
			etu.MulVec(Et, mat.NewVecDense(d, u))
			for q := range x {
				if math.Abs(etu.AtVec(q)-x[q]) > 1e-12*want {
					t.Fatalf("d=%d m=%d: x[%d] = %g, (Eᵀu)[%d] = %g", d, m, q, x[q], q, etu.AtVec(q))
				}
			}
		}
	})
}

// TestLeadingPairFromAtom checks leadingPair on matrices without a planted
// direction (small spectral gaps): from any start u₀, σ is at least
// ‖Eᵀu₀‖ (the atom update never raises the cost) even after one step, and
// with enough steps it is the largest singular value of the SVD to within
// ritzTol.
func TestLeadingPairFromAtom(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for _, sz := range [][2]int{{40, 30}, {25, 60}, {100, 48}} {
			d, m := sz[0], sz[1]
			Et := testutil.RandDense(rng, m, d)
			var svd mat.SVD
			if !svd.Factorize(Et, mat.SVDNone) {
				t.Fatal("SVD failed")
			}
			want := svd.Values(nil)[0]
			u0 := testutil.RandUnitCols(rng, d, 1).RawMatrix().Data
			etu0 := mat.NewVecDense(m, nil)
			etu0.MulVec(Et, mat.NewVecDense(d, u0))
			start := mat.Norm(etu0, 2)
			u, x := make([]float64, d), make([]float64, m)
			var w lanczosWork
			prev := start
			for _, steps := range []int{1, 2, 5, 200} {
				s := leadingPair(u, x, u0, Et.RawMatrix().Data, steps, &w)
				if s < prev*(1-1e-14) {
					t.Errorf("d=%d m=%d steps=%d: σ = %.15g below %.15g (start %.15g)", d, m, steps, s, prev, start)
				}
				if s > want*(1+1e-12) {
					t.Errorf("d=%d m=%d steps=%d: σ = %.15g above the SVD's %.15g", d, m, steps, s, want)
				}
				prev = s
			}
			if math.Abs(prev-want) > ritzTol*want {
				t.Errorf("d=%d m=%d: σ = %.15g, SVD %.15g", d, m, prev, want)
			}
			if floats.Dot(u, u0) < 0 {
				t.Errorf("d=%d m=%d: u turned against u₀", d, m)
			}
		}
	})
}

// TestLeadingPairOrthogonalStart checks leadingPair when the current atom
// u₀ is orthogonal to E's columns (Eᵀu₀ = 0): it starts from Ex for the
// codes x given and still finds the SVD's σ, with x = Eᵀu; and E = 0
// gives 0.
func TestLeadingPairOrthogonalStart(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		const d, m = 20, 5
		Et := mat.NewDense(m, d, nil) // columns of E in the first 10 coordinates
		for q := 0; q < m; q++ {
			for p := 0; p < 10; p++ {
				Et.Set(q, p, rng.NormFloat64())
			}
		}
		var svd mat.SVD
		if !svd.Factorize(Et, mat.SVDNone) {
			t.Fatal("SVD failed")
		}
		want := svd.Values(nil)[0]
		u0 := make([]float64, d)
		u0[15] = 1
		u, x := make([]float64, d), []float64{1, 2, 3, 4, 5}
		var w lanczosWork
		s := leadingPair(u, x, u0, Et.RawMatrix().Data, 50, &w)
		if math.Abs(s-want) > 1e-10*want {
			t.Errorf("σ = %.15g, SVD %.15g", s, want)
		}
		etu := mat.NewVecDense(m, nil)
		etu.MulVec(Et, mat.NewVecDense(d, u))
		if !mat.EqualApprox(etu, mat.NewVecDense(m, x), 1e-12*want) {
			t.Errorf("x = %v, Eᵀu = %v", x, etu.RawVector().Data)
		}
		if s := leadingPair(u, x, u0, make([]float64, m*d), 50, &w); s != 0 {
			t.Errorf("σ = %g for E = 0", s)
		}
	})
}
