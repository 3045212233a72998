package core

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/internal/testutil"
)

// TestADMMDictWorkspaceReuse checks that a workspace left by problems of
// other shapes gives exactly the result of a fresh one.
func TestADMMDictWorkspaceReuse(t *testing.T) {
	opts := ADMMOptions{MaxIter: 8, Tol: -1, Update: UpdateDictOptions{MaxIter: 3, Tol: -1}}
	var w ADMMDictWorkspace
	for _, s := range []struct{ d, k int }{{30, 20}, {12, 7}, {40, 60}, {12, 7}} {
		_, E, F := svDictProblem(uint64(s.d+s.k), s.d, s.k, 2)
		D0 := testutil.RandUnitCols(rand.New(rand.NewPCG(uint64(s.k), 1)), s.d, s.k)
		want, got := mat.DenseCopyOf(D0), mat.DenseCopyOf(D0)
		if err := ADMMDict(context.Background(), want, E, F, SVTProx(0.5), opts); err != nil {
			t.Fatal(err)
		}
		if err := w.Update(context.Background(), got, E, F, SVTProx(0.5), opts); err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(want, got) {
			t.Errorf("d=%d k=%d: reused workspace differs from a fresh one by %g", s.d, s.k, svRelDiff(want, got))
		}
	}
}

func TestADMMDictWorkspaceAllocs(t *testing.T) {
	_, E, F := svDictProblem(121, 30, 20, 2)
	D := testutil.RandUnitCols(rand.New(rand.NewPCG(122, 0)), 30, 20)
	id := func(z, v *mat.Dense, _ float64) { z.Copy(v) }
	opts := ADMMOptions{MaxIter: 5, Tol: -1, Update: UpdateDictOptions{MaxIter: 2, Tol: -1}}
	var w ADMMDictWorkspace
	ctx := context.Background()
	w.Update(ctx, D, E, F, id, opts)
	if n := testing.AllocsPerRun(5, func() { w.Update(ctx, D, E, F, id, opts) }); n != 0 {
		t.Errorf("ADMMDict with a warm workspace and an allocation-free prox allocates %v times", n)
	}
}

// TestADMMDictDualWarmStart checks ADMMOptions.Dual: it holds the
// unscaled multiplier ρU, so the converged multiplier of a run at ρ = 1
// makes its minimiser a fixed point of ADMM at ρ = 3, and a warm run from
// the initial D reaches the same minimiser as the cold run.
func TestADMMDictDualWarmStart(t *testing.T) {
	_, E, F := svDictProblem(7, 12, 6, 2)
	D0 := testutil.RandUnitCols(rand.New(rand.NewPCG(8, 0)), 12, 6)
	const mu = 0.8 // r(Z) = μ‖Z‖²_F
	prox := func(z, v *mat.Dense, rho float64) { z.Scale(rho/(2*mu+rho), v) }
	long := ADMMOptions{Rho: 1, MaxIter: 5000, Tol: 1e-13, Update: UpdateDictOptions{MaxIter: 200, Tol: 1e-14}}
	ctx := context.Background()
	var dual mat.Dense
	want := mat.DenseCopyOf(D0)
	long.Dual = &dual
	if err := ADMMDict(ctx, want, E, F, prox, long); err != nil {
		t.Fatal(err)
	}
	if dual.IsEmpty() {
		t.Fatal("Dual not set")
	}
	fixed := mat.DenseCopyOf(want)
	d1 := mat.DenseCopyOf(&dual)
	if err := ADMMDict(ctx, fixed, E, F, prox, ADMMOptions{Rho: 3, MaxIter: 1, Tol: -1,
		Update: UpdateDictOptions{MaxIter: 200, Tol: 1e-14}, Dual: d1}); err != nil {
		t.Fatal(err)
	}
	if e := svRelDiff(want, fixed); e > 1e-7 {
		t.Errorf("minimiser moved by %g under one ADMM step at ρ = 3 with the converged dual", e)
	}
	if e := svRelDiff(&dual, d1); e > 1e-6 {
		t.Errorf("converged dual moved by %g at ρ = 3", e)
	}
	warm := mat.DenseCopyOf(D0)
	long.Rho, long.Dual = 2, mat.DenseCopyOf(&dual)
	if err := ADMMDict(ctx, warm, E, F, prox, long); err != nil {
		t.Fatal(err)
	}
	if e := svRelDiff(want, warm); e > 1e-7 {
		t.Errorf("warm-started run differs from the cold one by %g", e)
	}
}

// TestNuclearNormTall checks NuclearNorm on tall matrices, where it goes
// through tallR, against the sum of the singular values of gonum's SVD of
// the matrix itself: well conditioned, ill conditioned (κ about 10⁵), and
// rank deficient (tallR refuses; the SVD of A is used).
func TestNuclearNormTall(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	randn := func(r, c int) *mat.Dense { return testutil.RandDense(rng, r, c) }
	// Singular values spread over 10⁻⁵..1, the columns mixed (column
	// scaling alone would leave the Gram matrix well conditioned).
	graded := randn(200, 8)
	for j := 0; j < 8; j++ {
		v := graded.ColView(j).(*mat.VecDense)
		v.ScaleVec(math.Pow(10, -5*float64(j)/7), v)
	}
	graded.Mul(graded, randn(8, 8))
	low := mat.NewDense(200, 8, nil)
	low.Mul(randn(200, 3), randn(3, 8))
	for _, tc := range []struct {
		name  string
		a     *mat.Dense
		tallR bool
	}{{"gaussian", randn(200, 8), true}, {"graded", graded, true}, {"rank 3", low, false}} {
		var w SVTWorkspace
		rg, ok := w.tallR(tc.a)
		var R mat.Dense
		if ok {
			R.SetRawMatrix(rg)
		}
		if ok != tc.tallR {
			t.Errorf("%s: tallR ok = %v, want %v", tc.name, ok, tc.tallR)
		}
		if ok {
			var rtr, ata mat.Dense
			rtr.Mul(R.T(), &R)
			ata.Mul(tc.a.T(), tc.a)
			if !mat.EqualApprox(&rtr, &ata, 1e-12*mat.Norm(&ata, 2)) {
				t.Errorf("%s: RᵀR ≠ AᵀA", tc.name)
			}
			for i := 1; i < 8; i++ {
				for j := 0; j < i; j++ {
					if R.At(i, j) != 0 {
						t.Fatalf("%s: R(%d,%d) = %v below the diagonal", tc.name, i, j, R.At(i, j))
					}
				}
			}
		}
		var svd mat.SVD
		svd.Factorize(tc.a, mat.SVDNone)
		want := floats.Sum(svd.Values(nil))
		if got := NuclearNorm(tc.a); math.Abs(got-want) > 1e-13*want {
			t.Errorf("%s: NuclearNorm %v, want %v", tc.name, got, want)
		}
	}
}

// TestSVTTall checks SVT on tall matrices (svtTall, or the SVD of A when
// tallR refuses) against U·diag(max(σᵢ − τ, 0))·Vᵀ from gonum's SVD of A,
// for thresholds between the singular values, into a new matrix and in
// place.
func TestSVTTall(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	randn := func(r, c int) *mat.Dense { return testutil.RandDense(rng, r, c) }
	graded := randn(60, 6)
	for j := 0; j < 6; j++ {
		v := graded.ColView(j).(*mat.VecDense)
		v.ScaleVec(math.Pow(10, -float64(j)), v)
	}
	graded.Mul(graded, randn(6, 6))
	low := mat.NewDense(60, 6, nil)
	low.Mul(randn(60, 2), randn(2, 6))
	for name, a := range map[string]*mat.Dense{"gaussian": randn(60, 6), "graded": graded, "rank 2": low} {
		var svd mat.SVD
		svd.Factorize(a, mat.SVDThin)
		sv := svd.Values(nil)
		var u, v mat.Dense
		svd.UTo(&u)
		svd.VTo(&v)
		for k := 0; k <= 2; k++ {
			tau := sv[k] * 0.999
			if k == 2 {
				tau = sv[0] * 1.01 // everything thresholded
			}
			want := mat.NewDense(60, 6, nil)
			rank := 0
			for i, x := range sv {
				if x > tau {
					rank++
					var o mat.Dense
					o.Outer(x-tau, u.ColView(i), v.ColView(i))
					want.Add(want, &o)
				}
			}
			var got mat.Dense
			r, err := SVT(&got, a, tau)
			if err != nil || r != rank || !mat.EqualApprox(&got, want, 1e-12*sv[0]) {
				t.Errorf("%s, τ=%g: rank %d (%v), want %d; equal %v", name, tau, r, err, rank, mat.EqualApprox(&got, want, 1e-12*sv[0]))
			}
			in := mat.DenseCopyOf(a)
			if _, err := SVT(in, in, tau); err != nil || !mat.EqualApprox(in, want, 1e-12*sv[0]) {
				t.Errorf("%s, τ=%g: in place differs", name, tau)
			}
		}
	}
}

// TestADMMDictMatchesDenseSteps checks ADMMDictWorkspace.Update, whose
// element-wise steps are fused passes, bit for bit against the iteration
// written with Dense operations, on a dictionary that is a view (stride
// above k), at tolerances that stop it before MaxIter.
func TestADMMDictMatchesDenseSteps(t *testing.T) {
	const d, k = 30, 7
	_, E, F := svDictProblem(61, d, k, 2)
	start := testutil.RandUnitCols(rand.New(rand.NewPCG(62, 0)), d, k)
	prox := SVTProx(0.3)
	for _, tol := range []float64{1e-3, 1e-6} {
		opts := ADMMOptions{Rho: 1.5, MaxIter: 200, Tol: tol, Update: UpdateDictOptions{MaxIter: 3, Tol: -1}}
		big := mat.NewDense(d, k+3, nil)
		got := big.Slice(0, d, 1, k+1).(*mat.Dense)
		got.Copy(start)
		var w ADMMDictWorkspace
		if err := w.Update(context.Background(), got, E, F, prox, opts); err != nil {
			t.Fatal(err)
		}
		// The reference iteration, as documented at ADMMDict.
		want := mat.DenseCopyOf(start)
		Z, U := mat.DenseCopyOf(start), mat.NewDense(d, k, nil)
		Fb := mat.DenseCopyOf(F)
		for i := 0; i < k; i++ {
			Fb.Set(i, i, Fb.At(i, i)+opts.Rho/2)
		}
		var odl DictUpdater
		iters := 0
		for iters < opts.MaxIter {
			iters++
			var Eb, V, Zp, R mat.Dense
			Eb.Sub(Z, U)
			Eb.Scale(opts.Rho/2, &Eb)
			Eb.Add(&Eb, E)
			odl.Update(want, &Eb, Fb, opts.Update)
			V.Add(want, U)
			Zp.CloneFrom(Z)
			prox(Z, &V, opts.Rho)
			U.Add(U, want)
			U.Sub(U, Z)
			R.Sub(want, Z)
			Zp.Sub(Z, &Zp)
			lim := tol * math.Max(1, math.Sqrt(Dot(want, want)))
			if math.Sqrt(Dot(&R, &R)) <= lim && math.Sqrt(Dot(&Zp, &Zp)) <= lim {
				break
			}
		}
		if iters == opts.MaxIter {
			t.Fatalf("tol %g: the reference ran to MaxIter; the test needs an early stop", tol)
		}
		if !mat.Equal(got, want) {
			t.Errorf("tol %g: D differs from the Dense iteration (stopped at %d)", tol, iters)
		}
	}
}

// TestSVTWorkspace checks that one SVTWorkspace, reused over shapes that
// grow and shrink (tall and not, in place and not, views), gives the
// results of the functions bit for bit, and that a warm SVT on a tall
// matrix allocates nothing with OpenBLAS (gonum's own Dgemm allocates) and
// NuclearNorm no more than gonum's Dlasrt (2: it sorts through
// sort.Reverse).
func TestSVTWorkspace(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var w SVTWorkspace
	for _, sz := range [][2]int{{300, 10}, {40, 12}, {60, 3}, {12, 9}, {500, 20}, {300, 10}} {
		m, n := sz[0], sz[1]
		big := testutil.RandDense(rng, m, n+2)
		a := big.Slice(0, m, 1, n+1).(*mat.Dense)
		for _, tau := range []float64{0.5, 3} {
			var want, got mat.Dense
			kw, _ := SVT(&want, a, tau)
			kg, _ := w.SVT(&got, a, tau)
			if kw != kg || !mat.Equal(&want, &got) {
				t.Errorf("%d×%d τ=%v: workspace SVT differs from SVT (rank %d, %d)", m, n, tau, kg, kw)
			}
			in := mat.DenseCopyOf(a)
			w.SVT(in, in, tau)
			if !mat.Equal(in, &want) {
				t.Errorf("%d×%d τ=%v: in-place workspace SVT differs", m, n, tau)
			}
		}
		if got, want := w.NuclearNorm(a), NuclearNorm(a); got != want {
			t.Errorf("%d×%d: workspace NuclearNorm %v, want %v", m, n, got, want)
		}
	}
	a := testutil.RandDense(rng, 300, 10)
	var z mat.Dense
	w.SVT(&z, a, 1)
	if n := testing.AllocsPerRun(20, func() { w.SVT(&z, a, 1) }); n != 0 && !blas.PureGo() {
		t.Errorf("warm SVT allocates %v times", n)
	}
	if n := testing.AllocsPerRun(20, func() { w.NuclearNorm(a) }); n > 2 {
		t.Errorf("warm NuclearNorm allocates %v times", n)
	}
}
