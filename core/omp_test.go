package core

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/internal/testutil"
)

// plantedCodes returns k×n codes with exactly T non-zeros per column of
// magnitude in [1, 2) and random signs.
func plantedCodes(rng *rand.Rand, k, n, T int) *mat.Dense {
	X := mat.NewDense(k, n, nil)
	for j := 0; j < n; j++ {
		for _, i := range rng.Perm(k)[:T] {
			v := 1 + rng.Float64()
			if rng.IntN(2) == 0 {
				v = -v
			}
			X.Set(i, j, v)
		}
	}
	return X
}

func TestOMPExactRecovery(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		const d, k, n, T = 64, 128, 100, 4
		D := testutil.RandUnitCols(rng, d, k)
		X := plantedCodes(rng, k, n, T)
		var Y mat.Dense
		Y.Mul(D, X)
		got := mat.NewDense(k, n, nil)
		if err := OMP(context.Background(), got, D, &Y, T, 0); err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(got, X, 1e-9) {
			var diff mat.Dense
			diff.Sub(got, X)
			t.Errorf("planted %d-sparse codes not recovered: max error %g", T, mat.Norm(&diff, math.Inf(1)))
		}
	})
}

// naiveOMP is OMP with an explicit residual and a QR least-squares refit.
func naiveOMP(D *mat.Dense, y []float64, T int) []float64 {
	d, k := D.Dims()
	r := append([]float64(nil), y...)
	var sel []int
	x := make([]float64, k)
	col := make([]float64, d)
	for len(sel) < T {
		best, bv := -1, 0.0
		for j := 0; j < k; j++ {
			if contains(sel, j) {
				continue
			}
			mat.Col(col, j, D)
			if v := math.Abs(floats.Dot(col, r)) / floats.Norm(col, 2); v > bv {
				best, bv = j, v
			}
		}
		sel = append(sel, best)
		Ds := mat.NewDense(d, len(sel), nil)
		for p, j := range sel {
			mat.Col(col, j, D)
			Ds.SetCol(p, col)
		}
		var xs mat.VecDense
		if err := xs.SolveVec(Ds, mat.NewVecDense(d, y)); err != nil {
			panic(err)
		}
		for i := range x {
			x[i] = 0
		}
		copy(r, y)
		for p, j := range sel {
			x[j] = xs.AtVec(p)
			mat.Col(col, j, D)
			floats.AddScaled(r, -x[j], col)
		}
	}
	return x
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestOMPMatchesNaiveAndResidualOrthogonal(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		const d, k, n, T = 30, 60, 20, 8
		D := testutil.RandUnitCols(rng, d, k)
		// Unequal atom norms check the |dᵀr|/‖d‖ selection rule.
		for j := 0; j < k; j += 3 {
			col := D.ColView(j).(*mat.VecDense)
			col.ScaleVec(0.5+float64(j)/float64(k), col)
		}
		Y := testutil.RandDense(rng, d, n)
		X := mat.NewDense(k, n, nil)
		if err := OMP(context.Background(), X, D, Y, T, 0); err != nil {
			t.Fatal(err)
		}
		y := make([]float64, d)
		x := make([]float64, k)
		for j := 0; j < n; j++ {
			mat.Col(y, j, Y)
			mat.Col(x, j, X)
			want := naiveOMP(D, y, T)
			if !floats.EqualApprox(x, want, 1e-9) {
				t.Fatalf("sample %d: batch OMP differs from naive OMP", j)
			}
			nnz := 0
			r := mat.NewVecDense(d, append([]float64(nil), y...))
			r.MulVec(D, mat.NewVecDense(k, x))
			r.SubVec(mat.NewVecDense(d, y), r)
			for i, v := range x {
				if v == 0 {
					continue
				}
				nnz++
				if c := mat.Dot(D.ColView(i), r); math.Abs(c) > 1e-10 {
					t.Errorf("sample %d: residual not orthogonal to selected atom %d: %g", j, i, c)
				}
			}
			if nnz != T {
				t.Errorf("sample %d: %d non-zeros, want %d", j, nnz, T)
			}
		}
	})
}

func TestOMPTolerance(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const d, k, n = 40, 80, 30
	D := testutil.RandUnitCols(rng, d, k)
	X := plantedCodes(rng, k, n, 3)
	var Y mat.Dense
	Y.Mul(D, X)
	got := mat.NewDense(k, n, nil)
	const tol = 1e-6
	if err := OMP(context.Background(), got, D, &Y, 10, tol); err != nil {
		t.Fatal(err)
	}
	var R mat.Dense
	R.Mul(D, got)
	R.Sub(&Y, &R)
	for j := 0; j < n; j++ {
		if nr := mat.Norm(R.ColView(j), 2); nr > tol {
			t.Errorf("sample %d: residual %g > tol %g", j, nr, tol)
		}
		nnz := 0
		for i := 0; i < k; i++ {
			if got.At(i, j) != 0 {
				nnz++
			}
		}
		if nnz != 3 {
			t.Errorf("sample %d: %d atoms used, want the planted 3", j, nnz)
		}
	}
}

func TestOMPDependentAtoms(t *testing.T) {
	// Atom 2 = atom 0: OMP must stop instead of dividing by zero.
	D := mat.NewDense(3, 3, []float64{1, 0, 1, 0, 1, 0, 0, 0, 0})
	Y := mat.NewDense(3, 1, []float64{1, 2, 0})
	X := mat.NewDense(3, 1, nil)
	if err := OMP(context.Background(), X, D, Y, 3, 0); err != nil {
		t.Fatal(err)
	}
	got := mat.Col(nil, 0, X)
	for _, v := range got {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("non-finite code %v", got)
		}
	}
	var r mat.VecDense
	r.MulVec(D, X.ColView(0))
	r.SubVec(Y.ColView(0), &r)
	if mat.Norm(&r, 2) > 1e-12 {
		t.Errorf("residual %g, codes %v", mat.Norm(&r, 2), got)
	}
}

func TestOMPErrors(t *testing.T) {
	D := mat.NewDense(4, 3, nil)
	for _, c := range []struct {
		name string
		dst  *mat.Dense
		Y    *mat.Dense
		T    int
	}{
		{"rows", mat.NewDense(3, 2, nil), mat.NewDense(5, 2, nil), 1},
		{"dst", mat.NewDense(2, 2, nil), mat.NewDense(4, 2, nil), 1},
		{"T", mat.NewDense(3, 2, nil), mat.NewDense(4, 2, nil), 0},
	} {
		if err := OMP(context.Background(), c.dst, D, c.Y, c.T, 0); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	G := mat.NewDense(3, 3, nil)
	B := mat.NewDense(3, 2, nil)
	if err := BatchOMP(context.Background(), mat.NewDense(3, 2, nil), G, B, []float64{1}, 1, 0.1, nil); err == nil {
		t.Error("BatchOMP with too few norms: no error")
	}
}

func TestBatchOMPNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const d, k, n, T = 20, 40, 10, 5
	D := testutil.RandUnitCols(rng, d, k)
	X0 := plantedCodes(rng, k, n, T)
	var Y, G, B mat.Dense
	Y.Mul(D, X0)
	G.Mul(D.T(), D)
	B.Mul(D.T(), &Y)
	yy := colNorms2(&Y)
	X := mat.NewDense(k, n, nil)
	var w OMPWork
	if err := BatchOMP(context.Background(), X, &G, &B, yy, T, 1e-9, &w); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(10, func() { _ = BatchOMP(context.Background(), X, &G, &B, yy, T, 1e-9, &w) }); a != 0 {
		t.Errorf("BatchOMP with a reused workspace allocates %v times", a)
	}
}

func TestOMPBackendParity(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const d, k, n, T = 50, 100, 40, 10
	D := testutil.RandUnitCols(rng, d, k)
	Y := testutil.RandDense(rng, d, n)
	var ref *mat.Dense
	testutil.Backends(t, func(t *testing.T) {
		X := mat.NewDense(k, n, nil)
		if err := OMP(context.Background(), X, D, Y, T, 0); err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = X
		} else if !mat.EqualApprox(X, ref, 1e-9) {
			t.Error("OMP codes differ between backends")
		}
	})
}

func BenchmarkBatchOMP_k50_T20_n500(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const d, k, n, T = 300, 50, 500, 20
	D := testutil.RandUnitCols(rng, d, k)
	Y := testutil.RandUnitCols(rng, d, n)
	var G, B mat.Dense
	G.Mul(D.T(), D)
	B.Mul(D.T(), Y)
	X := mat.NewDense(k, n, nil)
	var w OMPWork
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = BatchOMP(context.Background(), X, &G, &B, nil, T, 0, &w)
	}
	// Per sample and step s: k·s for the correlations, ~s² for the solves.
	flops := float64(n) * float64(2*k*T*(T+1)/2+2*T*T*T/3)
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// TestBatchOMPSameWhateverGOMAXPROCS checks that the chunks coded on
// several goroutines give the bits of one goroutine.
func TestBatchOMPSameWhateverGOMAXPROCS(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const d, k, n, T = 60, 120, 700, 15 // n·T·k above ompParallelWork
	if n*T*k < ompParallelWork {
		t.Fatal("problem too small to run in parallel")
	}
	D := testutil.RandUnitCols(rng, d, k)
	Y := testutil.RandDense(rng, d, n)
	var G, B mat.Dense
	G.Mul(D.T(), D)
	B.Mul(D.T(), Y)
	yy := colNorms2(Y)
	var want *mat.Dense
	for _, procs := range []int{1, 2, 3} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			X := mat.NewDense(k, n, nil)
			var w OMPWork
			for range 2 { // the second call reuses the workspaces
				if err := BatchOMP(context.Background(), X, &G, &B, yy, T, 1e-3, &w); err != nil {
					t.Fatal(err)
				}
			}
			if want == nil {
				want = X
			} else if !mat.Equal(X, want) {
				t.Errorf("GOMAXPROCS=%d: codes differ from GOMAXPROCS=1", procs)
			}
		}()
	}
	// A non-finite sample is reported as on one goroutine: the first one.
	B.Set(3, 650, math.NaN())
	B.Set(5, 200, math.Inf(1))
	err := BatchOMP(context.Background(), mat.NewDense(k, n, nil), &G, &B, yy, T, 0, nil)
	if !errors.Is(err, ErrNotFinite) || !strings.Contains(err.Error(), "sample 200") {
		t.Errorf("got %v, want sample 200 wrapping ErrNotFinite", err)
	}
}

// TestOMPCorrelationUpdateExact checks the identity behind code's update
// of the correlations: AddCombination over m rows rounds as AddCombination
// over the first m&^3 and floats.AddScaled for the rest (zero coefficients
// skipped), bit for bit.
func TestOMPCorrelationUpdateExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for _, k := range []int{1, 3, 8, 13, 425} {
		for m := 0; m <= 11; m++ {
			gi := testutil.RandDense(rng, max(m, 1), k).RawMatrix().Data
			nx := make([]float64, m)
			for p := range nx {
				if rng.IntN(5) > 0 {
					nx[p] = rng.NormFloat64()
				}
			}
			a0 := testutil.RandDense(rng, 1, k).RawMatrix().Data
			want := append([]float64(nil), a0...)
			blas.AddCombination(want, m, nx, 1, gi, k)
			got := append([]float64(nil), a0...)
			m4 := m &^ 3
			blas.AddCombination(got, m4, nx, 1, gi, k)
			for p := m4; p < m; p++ {
				if nx[p] != 0 {
					floats.AddScaled(got, nx[p], gi[p*k:(p+1)*k])
				}
			}
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("k=%d m=%d: entry %d is %v, AddCombination %v", k, m, i, got[i], want[i])
				}
			}
		}
	}
}

// TestFinite checks finite on every length up to 9 and every position of
// a NaN or an infinity, among the largest and smallest finite values.
func TestFinite(t *testing.T) {
	edge := []float64{math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0}
	for n := range 10 {
		x := make([]float64, n)
		for i := range x {
			x[i] = edge[i%len(edge)]
		}
		if !finite(x) {
			t.Fatalf("finite(%v) = false", x)
		}
		for p := range n {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				y := slices.Clone(x)
				y[p] = bad
				if finite(y) {
					t.Errorf("finite(%v) = true", y)
				}
			}
		}
	}
}
