package core

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/testutil"
)

// TestMetricStepKKT checks one step of SolveMetric (no momentum) against
// the optimality conditions of argmin_z ⟨g, z − w⟩ + ½‖z − w‖²_M + λ‖z‖₁
// on every column: M(z − w) + g + λs = 0 with s ∈ ∂‖z‖₁. Columns cover
// all-zero solutions, λ = 0 (z = w − M⁻¹g, Sherman–Morrison) and more
// columns than one chunk.
func TestMetricStepKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		rows, cols     int
		alpha, beta, l float64
	}{
		{12, 7, 2, 50, 0.3},
		{12, 7, 2, 0, 0.3},
		{30, metricChunk + 9, 0.5, 400, 0.05},
		{9, 5, 1, 10, 0},
		{9, 5, 1, 10, 100}, // every z is zero
	} {
		u := make([]float64, tc.rows)
		for i := range u {
			u[i] = 1 + 0.3*rng.NormFloat64() // a mean-like direction
		}
		floats.Scale(1/floats.Norm(u, 2), u)
		m := RankOneMetric{Alpha: tc.alpha, Beta: tc.beta, U: u}
		n := tc.rows * tc.cols
		w, g, z := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range w {
			w[i] = rng.NormFloat64()
			g[i] = 5 * rng.NormFloat64()
		}
		w0, g0 := append([]float64(nil), w...), append([]float64(nil), g...)
		var s metricStep
		s.step(z, w, g, tc.rows, tc.cols, m, tc.l/tc.alpha, 0)
		for q := 0; q < tc.cols; q++ {
			var ud float64 // uᵀ(z − w)
			for i := 0; i < tc.rows; i++ {
				ud += u[i] * (z[i*tc.cols+q] - w0[i*tc.cols+q])
			}
			for i := 0; i < tc.rows; i++ {
				k := i*tc.cols + q
				v := -(tc.alpha*(z[k]-w0[k]) + tc.beta*ud*u[i] + g0[k]) // = λs
				switch {
				case z[k] != 0 && math.Abs(v-tc.l*math.Copysign(1, z[k])) > 1e-9:
					t.Errorf("%+v column %d row %d: z = %v but λs = %v", tc, q, i, z[k], v)
				case z[k] == 0 && math.Abs(v) > tc.l+1e-9:
					t.Errorf("%+v column %d row %d: z = 0 but |λs| = %v > λ", tc, q, i, math.Abs(v))
				}
			}
			if w[q] != z[q] {
				t.Errorf("momentum 0: W = %v, Z = %v", w[q], z[q])
			}
		}
		if tc.l == 100 && floats.Norm(z, 2) != 0 {
			t.Errorf("huge λ: z ≠ 0")
		}
	}
}

// TestRankOneMajorizer checks M − r·I − G ⪰ 0 by its eigenvalues for a
// PSD G with one large eigenvalue and u an inexact top eigenvector, Deflate
// against the product (I − uuᵀ)G(I − uuᵀ), and that a G without a gap gets
// no metric.
func TestRankOneMajorizer(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 15
	A := testutil.RandDense(rng, 20, n)
	for i := 0; i < 20; i++ {
		for j := 0; j < n; j++ {
			A.Set(i, j, A.At(i, j)+3) // a shared mean direction
		}
	}
	var G mat.Dense
	G.Mul(A.T(), A)
	var es mat.EigenSym
	es.Factorize(symOf(&G), true)
	var V mat.Dense
	es.VectorsTo(&V)
	u := mat.Col(nil, n-1, &V)
	for i := range u {
		u[i] += 0.01 * rng.NormFloat64()
	}
	floats.Scale(1/floats.Norm(u, 2), u)
	// σ: the top eigenvalue of (I − uuᵀ)G(I − uuᵀ), exactly.
	P := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := -u[i] * u[j]
			if i == j {
				v++
			}
			P.Set(i, j, v)
		}
	}
	var PG mat.Dense
	PG.Product(P, &G, P)
	var defl mat.Dense
	Deflate(&defl, &G, u, make([]float64, n))
	if !mat.EqualApprox(&defl, &PG, 1e-9*mat.Norm(&G, 2)) {
		t.Error("Deflate differs from (I − uuᵀ)G(I − uuᵀ)")
	}
	es.Factorize(symOf(&PG), false)
	sigma := es.Values(nil)[n-1]
	r := 0.5
	m, ok := RankOneMajorizer(&G, u, sigma, r)
	if !ok {
		t.Fatal("no metric for a G with a large gap")
	}
	Mg := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := m.Beta*u[i]*u[j] - G.At(i, j)
			if i == j {
				v += m.Alpha - r
			}
			Mg.Set(i, j, v)
		}
	}
	es.Factorize(symOf(Mg), false)
	if lo := es.Values(nil)[0]; lo < -1e-9*m.Beta {
		t.Errorf("M − rI − G has eigenvalue %v < 0", lo)
	}
	// The identity has no gap: no metric.
	I := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		I.Set(i, i, 1)
	}
	if _, ok := RankOneMajorizer(I, u, 1, 0); ok {
		t.Error("metric for the identity")
	}
}

func symOf(a *mat.Dense) *mat.SymDense {
	n, _ := a.Dims()
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	return s
}

// TestFISTAMetricLasso solves a lasso whose dictionary shares a large mean
// direction by SolveMetric and by Solve run to convergence: the same
// solution, in fewer iterations with the metric. Both backends.
func TestFISTAMetricLasso(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	d, k, n := 40, 25, 12
	D := testutil.RandDense(rng, d, k)
	for i := 0; i < d; i++ {
		for j := 0; j < k; j++ {
			D.Set(i, j, D.At(i, j)+4)
		}
	}
	D = testutil.UnitCols(D)
	Y := testutil.RandDense(rng, d, n)
	var G, B mat.Dense
	G.Mul(D.T(), D)
	B.Mul(D.T(), Y)
	grad := func(g, w *mat.Dense) { lassoGrad(g, &G, &B, w) }
	var es mat.EigenSym
	es.Factorize(symOf(&G), true)
	vals := es.Values(nil)
	var V mat.Dense
	es.VectorsTo(&V)
	u := mat.Col(nil, k-1, &V)
	m, ok := RankOneMajorizer(&G, u, vals[k-2]*(1+1e-9), 0)
	if !ok {
		t.Fatalf("no metric: eigenvalues %v", vals[k-3:])
	}
	testutil.Backends(t, func(t *testing.T) {
		want := mat.NewDense(k, n, nil)
		f := FISTA{MaxIter: 100000, Tol: 1e-13, Restart: true}
		nScalar, err := f.Solve(context.Background(), want, grad, vals[k-1]*(1+1e-9), 0.01, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := mat.NewDense(k, n, nil)
		nMetric, err := f.SolveMetric(context.Background(), got, grad, m, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		var diff mat.Dense
		diff.Sub(got, want)
		if e := mat.Norm(&diff, 2) / mat.Norm(want, 2); e > 1e-8 {
			t.Errorf("metric solution differs by %v (relative)", e)
		}
		if nMetric*2 > nScalar {
			t.Errorf("metric took %d iterations, scalar %d", nMetric, nScalar)
		}
		t.Logf("iterations: metric %d, scalar %d (λ %v, %v, %v)", nMetric, nScalar, vals[k-1], vals[k-2], vals[0])
	})
}

// BenchmarkMetricStep_K1000N1000 times one SolveMetric step (the
// Newton-bisection for τ and the thresholding) at COIL-100's FDDL size.
func BenchmarkMetricStep_K1000N1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 9))
	rows, cols := 1000, 1000
	u := make([]float64, rows)
	for i := range u {
		u[i] = 1 + 0.3*rng.NormFloat64()
	}
	floats.Scale(1/floats.Norm(u, 2), u)
	m := RankOneMetric{Alpha: 60, Beta: 700, U: u}
	n := rows * cols
	z, w, g, g0 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range w {
		w[i] = 0.01 * rng.NormFloat64()
		g0[i] = rng.NormFloat64()
	}
	var s metricStep
	b.ResetTimer()
	for range b.N {
		copy(g, g0)
		s.step(z, w, g, rows, cols, m, 0.001/60, 0.5)
	}
}

// TestFISTAMetricAllocs checks that SolveMetric allocates nothing once warm.
func TestFISTAMetricAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	D, Y := svLassoProblem(31, 30, 20, metricChunk+10)
	var G, B mat.Dense
	G.Mul(D.T(), D)
	B.Mul(D.T(), Y)
	X := testutil.RandDense(rng, 20, metricChunk+10)
	grad := func(g, w *mat.Dense) { lassoGrad(g, &G, &B, w) }
	u := make([]float64, 20)
	for i := range u {
		u[i] = 1 / math.Sqrt(20)
	}
	m := RankOneMetric{Alpha: 10, Beta: 40, U: u}
	f := FISTA{MaxIter: 3, Tol: -1, Restart: true}
	ctx := context.Background()
	f.SolveMetric(ctx, X, grad, m, 0.1)
	if n := testing.AllocsPerRun(20, func() { f.SolveMetric(ctx, X, grad, m, 0.1) }); n != 0 {
		t.Errorf("three metric FISTA iterations allocate %v times", n)
	}
}
