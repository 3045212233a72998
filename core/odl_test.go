package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/internal/testutil"
)

// odlReference is the column-by-column ODL sweep written directly from
// u = (eᵢ − D·fᵢ)/F_ii + dᵢ, dᵢ = u/max(1,‖u‖), with UpdateDict's stopping
// rule. It returns the number of sweeps run.
func odlReference(D, E, F *mat.Dense, maxIter int, tol float64) int {
	d, k := D.Dims()
	df := mat.NewVecDense(d, nil)
	u := make([]float64, d)
	for it := 1; it <= maxIter; it++ {
		var change, norm float64
		for i := 0; i < k; i++ {
			fii := F.At(i, i)
			if !(fii > 0) || math.IsInf(fii, 1) {
				continue
			}
			df.MulVec(D, F.ColView(i))
			for r := range u {
				u[r] = (E.At(r, i)-df.AtVec(r))/fii + D.At(r, i)
			}
			n := floats.Norm(u, 2)
			if math.IsNaN(n) || math.IsInf(n, 0) {
				continue
			}
			floats.Scale(1/math.Max(1, n), u)
			for r, v := range u {
				change += (v - D.At(r, i)) * (v - D.At(r, i))
				norm += v * v
				D.Set(r, i, v)
			}
		}
		if math.Sqrt(change) <= tol*math.Sqrt(norm) {
			return it
		}
	}
	return maxIter
}

// odlProblem returns a random problem with F = XXᵀ (X k×n with about half
// its entries zero), E = Y·Xᵀ and unit-column D; the atoms in unused get a
// zero row and column of F.
func odlProblem(seed uint64, d, k, n int, unused ...int) (D, E, F *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := testutil.RandDense(rng, k, n)
	for i, v := range X.RawMatrix().Data {
		if rng.IntN(2) == 0 {
			X.RawMatrix().Data[i] = 0 * v
		}
	}
	for _, j := range unused {
		for c := 0; c < n; c++ {
			X.Set(j, c, 0)
		}
	}
	F = mat.NewDense(k, k, nil)
	F.Mul(X, X.T())
	E = mat.NewDense(d, k, nil)
	E.Mul(testutil.RandDense(rng, d, n), X.T())
	E.Scale(0.3, E)
	return testutil.RandUnitCols(rng, d, k), E, F
}

// svOdlPaths runs fn with the plan of each sweep: on each backend with
// dense F in blocks, on each backend atom by atom over F's non-zeros
// (sparseMax 1), and in pure Go in blocks (resident 0).
func svOdlPaths(t *testing.T, fn func(t *testing.T, plan odlPlan)) {
	orig := blas64.Implementation()
	defer blas64.Use(orig)
	blocked := odlPlan{resident: odlResident, sparseMax: -1}
	testutil.Backends(t, func(t *testing.T) { fn(t, blocked) })
	t.Run("sparse-F", func(t *testing.T) {
		testutil.Backends(t, func(t *testing.T) { fn(t, odlPlan{resident: odlResident, sparseMax: 1}) })
	})
	blas64.Use(blas.Implementations()["gonum"])
	t.Run("gonum-blocked", func(t *testing.T) { fn(t, odlPlan{sparseMax: -1}) })
}

func TestUpdateDictMatchesReference(t *testing.T) {
	for _, s := range []struct {
		d, k, n int
		unused  []int
	}{
		{1, 1, 3, nil},
		{7, 130, 60, []int{0, 47, 48, 129}}, // d < k, k not a multiple of the block
		{60, 20, 40, nil},                   // d > k, few atoms
		{25, 2 * odlBlock, 300, []int{5}},   // whole blocks
		{70, 2*odlBlock + 1, 300, nil},      // a last block of one atom
		{40, 100, 15, nil},                  // rank-deficient F
		{300, 60, 80, nil},                  // d longer than odlChunk
	} {
		t.Run(fmt.Sprintf("d%dk%d", s.d, s.k), func(t *testing.T) {
			svOdlPaths(t, func(t *testing.T, plan odlPlan) {
				D, E, F := odlProblem(uint64(s.d*1000+s.k), s.d, s.k, s.n, s.unused...)
				if s.k > 1 {
					F.Set(1, 1, math.NaN()) // skipped, like an unused atom
				}
				want := mat.DenseCopyOf(D)
				sweeps := odlReference(want, E, F, 200, 1e-8)
				if s.k > 1 && sweeps < 3 {
					t.Fatalf("test setup: reference stopped after %d sweeps", sweeps)
				}
				var w DictUpdater
				for rep := 0; rep < 2; rep++ { // the second call reuses w
					got := mat.DenseCopyOf(D)
					_ = w.update(context.Background(), got, E, F, UpdateDictOptions{MaxIter: 200, Tol: 1e-8}, plan)
					if dist := svRelDiff(want, got); dist > 1e-10 {
						t.Errorf("call %d: blocked sweeps differ from the reference by %g", rep, dist)
					}
				}
				// Exactly one sweep, and the unused atoms are unchanged.
				want.Copy(D)
				got := mat.DenseCopyOf(D)
				odlReference(want, E, F, 1, -1)
				_ = w.update(context.Background(), got, E, F, UpdateDictOptions{MaxIter: 1, Tol: -1}, plan)
				if dist := svRelDiff(want, got); dist > 1e-12 {
					t.Errorf("one sweep differs from the reference by %g", dist)
				}
				skipped := s.unused
				if s.k > 1 {
					skipped = append(skipped, 1)
				}
				for _, j := range skipped {
					if !floats.Equal(mat.Col(nil, j, D), mat.Col(nil, j, got)) {
						t.Errorf("skipped atom %d changed", j)
					}
				}
			})
		})
	}
}

func TestUpdateDictBlockedDecreases(t *testing.T) {
	svOdlPaths(t, func(t *testing.T, plan odlPlan) {
		D, E, F := odlProblem(81, 30, 2*odlBlock+11, 150, 3)
		var w DictUpdater
		prev := DictObjective(D, E, F)
		for sweep := 0; sweep < 20; sweep++ {
			_ = w.update(context.Background(), D, E, F, UpdateDictOptions{MaxIter: 1, Tol: -1}, plan)
			obj := DictObjective(D, E, F)
			if obj > prev+1e-12*math.Abs(prev) {
				t.Fatalf("sweep %d: objective rose from %v to %v", sweep, prev, obj)
			}
			prev = obj
		}
		for j := 0; j < D.RawMatrix().Cols; j++ {
			if n := floats.Norm(mat.Col(nil, j, D), 2); n > 1+1e-12 {
				t.Fatalf("atom %d has norm %v", j, n)
			}
		}
	})
}

func TestUpdateDictBlockedParity(t *testing.T) {
	impls := blas.Implementations()
	if len(impls) < 2 {
		t.Skip("one backend linked; build with -tags openblas")
	}
	orig := blas64.Implementation()
	defer blas64.Use(orig)
	res := map[string]*mat.Dense{}
	for name, impl := range impls {
		blas64.Use(impl)
		D, E, F := odlProblem(91, 50, 3*odlBlock-5, 200)
		UpdateDict(D, E, F, UpdateDictOptions{MaxIter: 10, Tol: -1})
		res[name] = D
	}
	if d := svRelDiff(res["gonum"], res["openblas"]); d > 1e-10 {
		t.Errorf("backends differ by %g", d)
	}
}

func TestDictUpdaterAllocs(t *testing.T) {
	D, E, F := odlProblem(95, 20, odlBlock+3, 80)
	var w DictUpdater
	w.Update(D, E, F, UpdateDictOptions{MaxIter: 1})
	if n := testing.AllocsPerRun(5, func() { w.Update(D, E, F, UpdateDictOptions{MaxIter: 2, Tol: -1}) }); n != 0 {
		t.Errorf("Update with a warm DictUpdater allocates %v times", n)
	}
}

// TestDictObjective checks DictObjective against −2tr(EDᵀ) + tr(F·DᵀD)
// formed by mat, for an F that is not symmetric, a wide D and a tall one.
func TestDictObjective(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sh := range [][2]int{{7, 12}, {30, 5}, {4, 1}} {
		d, k := sh[0], sh[1]
		D, E, F := testutil.RandDense(rng, d, k), testutil.RandDense(rng, d, k), testutil.RandDense(rng, k, k)
		var dtd, fg mat.Dense
		dtd.Mul(D.T(), D)
		fg.Mul(F, &dtd)
		var ed mat.Dense
		ed.Mul(E, D.T())
		want := -2*mat.Trace(&ed) + mat.Trace(&fg)
		if got := DictObjective(D, E, F); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%v: DictObjective = %v, want %v", sh, got, want)
		}
	}
}
