package fisher

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// benchTrain returns a training state of C classes with n samples, k atoms
// each, k0 shared atoms, dimension d, random unit-norm data and atoms and
// codes of the given density.
func benchTrain(C, n, k, k0, d int, density float64) *train {
	rng := rand.New(rand.NewPCG(1, 2))
	N := C * n
	unit := func(r, c int) *mat.Dense {
		m := mat.NewDense(r, c, nil)
		for j := 0; j < c; j++ {
			var s float64
			for i := 0; i < r; i++ {
				v := rng.NormFloat64()
				m.Set(i, j, v)
				s += v * v
			}
			for i := 0; i < r; i++ {
				m.Set(i, j, m.At(i, j)/math.Sqrt(s))
			}
		}
		return m
	}
	sizes, asz := make([]int, C), make([]int, C)
	for c := range sizes {
		sizes[c], asz[c] = n, k
	}
	p := testParams()
	p.K, p.K0 = k, k0
	t := &train{p: p, Y: unit(d, N), sp: core.NewPartition(sizes...), ap: core.NewPartition(asz...),
		Db: unit(d, C*k+k0), Xb: mat.NewDense(C*k+k0, N, nil), K: C * k, k0: k0}
	raw := t.Xb.RawMatrix().Data
	for i := range raw {
		if rng.Float64() < density {
			raw[i] = rng.NormFloat64()
		}
	}
	return t
}

// gradFlops is the multiply-add count of one LRSDL-X gradient (×2 flops).
func gradFlops(t *train) float64 {
	_, N := t.Xb.Dims()
	K, k0 := float64(t.K), float64(t.k0)
	n := float64(N)
	return 2 * n * (K*K + 2*K*k0 + k0*k0)
}

// BenchmarkLRSDLX_C100n20k10k0_10d500 times the gradient of one FISTA
// iteration of LRSDL-X on the paper's complexity example, with codes of
// density 100 %, 20 %, 10 % and 3 %. GFLOP/s counts the dense flops, so a
// sparse run above the dense one is faster than the dense floor.
func BenchmarkLRSDLX_C100n20k10k0_10d500(b *testing.B) {
	for _, dens := range []float64{1, 0.2, 0.1, 0.05, 0.03} {
		b.Run(fmt.Sprintf("density%g", dens*100), func(b *testing.B) {
			benchX(b, benchTrain(100, 20, 10, 10, 500, dens))
		})
	}
}

// BenchmarkLRSDLX_C100n7k7d300 is the paper's efficiency comparison size
// (k0 = 7 shared atoms added).
func BenchmarkLRSDLX_C100n7k7k0_7d300(b *testing.B) {
	benchX(b, benchTrain(100, 7, 7, 7, 300, 1))
}

// BenchmarkLRSDLX_C2n350k20k0_10d300 is the gradient at the size of AR
// gender training (codes 30 % dense); -cpu 1,2 shows what the second core
// gains on it.
func BenchmarkLRSDLX_C2n350k20k0_10d300(b *testing.B) {
	benchX(b, benchTrain(2, 350, 20, 10, 300, 0.3))
}

func benchX(b *testing.B, t *train) {
	var s xstep
	s.setup(t.Db, t.Y, t.sp, t.ap, t.p.Lambda2)
	G := mat.NewDense(t.K+t.k0, t.Xb.RawMatrix().Cols, nil)
	s.grad(G, t.Xb) // workspaces are allocated on first use
	defer toy.CPUMetric(b)()
	for i := 0; i < b.N; i++ {
		s.grad(G, t.Xb)
	}
	b.ReportMetric(gradFlops(t)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkDgemm_1000x1000x2000 is the dominant product of the LRSDL-X
// gradient at C=100, n=20, k=10: (K×K)(K×N).
func BenchmarkDgemm_1000x1000x2000(b *testing.B) {
	A, B, C := mat.NewDense(1000, 1000, nil), mat.NewDense(1000, 2000, nil), mat.NewDense(1000, 2000, nil)
	for i := range A.RawMatrix().Data {
		A.RawMatrix().Data[i] = float64(i%7) - 3
	}
	for i := range B.RawMatrix().Data {
		B.RawMatrix().Data[i] = float64(i%5) - 2
	}
	blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, A.RawMatrix(), B.RawMatrix(), 0, C.RawMatrix()) // warm-up
	defer toy.CPUMetric(b)()
	for i := 0; i < b.N; i++ {
		blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, A.RawMatrix(), B.RawMatrix(), 0, C.RawMatrix())
	}
	b.ReportMetric(2*1000*1000*2000*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkLRSDLOuter_C100n7k7k0_7d300 times one outer iteration (X, D and
// D0 steps) of LRSDL.
func BenchmarkLRSDLOuter_C100n7k7k0_7d300(b *testing.B) {
	t := benchTrain(100, 7, 7, 7, 300, 0.1)
	ctx := context.Background()
	defer toy.CPUMetric(b)()
	for i := 0; i < b.N; i++ {
		if err := t.stepX(ctx); err != nil {
			b.Fatal(err)
		}
		if err := t.stepD(ctx); err != nil {
			b.Fatal(err)
		}
		if err := t.stepD0(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// xSolveTrain returns the problem of BenchmarkLRSDLXSolve100: C=100, n=20,
// k=10, k0=10, d=500, Y = D̄X̄ + noise with 5 random atoms per sample.
func xSolveTrain() *train {
	t := benchTrain(100, 20, 10, 10, 500, 0)
	rng := rand.New(rand.NewPCG(7, 7))
	d, N := t.Y.Dims()
	_, kb := t.Db.Dims()
	Xt := mat.NewDense(kb, N, nil)
	for j := 0; j < N; j++ {
		for _, i := range rng.Perm(kb)[:5] {
			Xt.Set(i, j, rng.NormFloat64())
		}
	}
	t.Y.Mul(t.Db, Xt)
	for i := 0; i < d; i++ {
		for j := 0; j < N; j++ {
			t.Y.Set(i, j, t.Y.At(i, j)+0.01*rng.NormFloat64())
		}
	}
	return t
}

// BenchmarkLRSDLXRef100_C100n20k10k0_10d500 runs the reference X step on
// the problem of BenchmarkLRSDLXSolve100: 100 iterations of plain FISTA
// (constant step 1/L, L the largest eigenvalue of the Hessian, no restart),
// the algorithm of the numpy timing. The time includes computing L.
func BenchmarkLRSDLXRef100_C100n20k10k0_10d500(b *testing.B) {
	t := xSolveTrain()
	t.p.Plain, t.p.XIters = true, 100
	done := toy.CPUMetric(b)
	for i := 0; i < b.N; i++ {
		t.Xb.Zero()
		if err := t.solveX(context.Background(), t.Xb); err != nil {
			b.Fatal(err)
		}
	}
	done()
	b.ReportMetric(t.mustCost().Total, "cost")
}

// BenchmarkLRSDLXToRef_C100n20k10k0_10d500 times the default X step from
// X̄ = 0 run for the fewest iterations that reach the cost of
// BenchmarkLRSDLXRef100 ("iters"; found before the timer starts).
func BenchmarkLRSDLXToRef_C100n20k10k0_10d500(b *testing.B) {
	t := xSolveTrain()
	ctx := context.Background()
	t.p.Plain, t.p.XIters = true, 100
	if err := t.solveX(ctx, t.Xb); err != nil {
		b.Fatal(err)
	}
	ref := t.mustCost().Total
	t.p.Plain, t.p.XIters, t.p.XTol = false, 1000, -1
	iters := itersToCost(b, t, ref)
	t.p.XIters = iters
	done := toy.CPUMetric(b)
	for i := 0; i < b.N; i++ {
		t.Xb.Zero()
		t.lip = lipWork{}
		if err := t.solveX(ctx, t.Xb); err != nil {
			b.Fatal(err)
		}
	}
	done()
	b.ReportMetric(ref, "ref-cost")
	b.ReportMetric(t.mustCost().Total, "cost")
	b.ReportMetric(float64(iters), "iters")
}

// itersToCost returns the number of iterations after which the X step of t,
// started from X̄ = 0, reaches a cost at most ref, by following its iterates
// Z = prox(W − ∇h̄(W)/L) (cancelling the run once reached).
func itersToCost(b *testing.B, t *train, ref float64) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	Xb := mat.NewDense(t.Xb.RawMatrix().Rows, t.Xb.RawMatrix().Cols, nil)
	t.lip = lipWork{}
	probe := &train{p: t.p, Y: t.Y, sp: t.sp, ap: t.ap, Db: t.Db, Xb: mat.NewDense(t.Xb.RawMatrix().Rows, t.Xb.RawMatrix().Cols, nil), K: t.K, k0: t.k0}
	n, found := 0, 0
	t.hook = func(G, W *mat.Dense, L float64) {
		n++
		z, w, g := probe.Xb.RawMatrix().Data, W.RawMatrix().Data, G.RawMatrix().Data
		thr := t.p.Lambda1 / L
		for i := range z {
			v := w[i] - g[i]/L
			z[i] = math.Copysign(math.Max(math.Abs(v)-thr, 0), v)
		}
		if found == 0 && probe.mustCost().Total <= ref {
			found = n
			cancel()
		}
	}
	defer func() { t.hook = nil }()
	if err := t.solveX(ctx, Xb); err != nil && found == 0 {
		b.Fatal(err)
	}
	if found == 0 {
		b.Fatalf("reference cost %v not reached in %d iterations", ref, n)
	}
	return found
}

// BenchmarkLRSDLXSolve100_C100n20k10k0_10d500 runs one LRSDL-X call of 100
// FISTA iterations (no early stop) from X̄ = 0 on data generated from the
// dictionary with 5 random atoms per sample, as the codes of a trained model
// would be: the codes turn sparse and the sparse kernel takes over.
func BenchmarkLRSDLXSolve100_C100n20k10k0_10d500(b *testing.B) {
	t := xSolveTrain()
	t.p.XIters, t.p.XTol = 100, -1
	done := toy.CPUMetric(b)
	for i := 0; i < b.N; i++ {
		t.Xb.Zero()
		t.lip = lipWork{}
		if err := t.solveX(context.Background(), t.Xb); err != nil {
			b.Fatal(err)
		}
	}
	done()
	nz := 0
	for _, v := range t.Xb.RawMatrix().Data {
		if v != 0 {
			nz++
		}
	}
	b.ReportMetric(float64(nz)/float64(len(t.Xb.RawMatrix().Data)), "density")
}

// BenchmarkFDDLUpdateD_Original and _Efficient time one FDDL dictionary
// step, O-FDDL-D (sub-dictionary by sub-dictionary) against E-FDDL-D (one
// ODL problem on E = Y·M(X)ᵀ, F = M(XXᵀ)), at the paper's efficiency
// setting C=100, d=300, n=k=7; "cost" is J after the step.
func BenchmarkFDDLUpdateD_Original(b *testing.B)  { benchFDDLUpdateD(b, true) }
func BenchmarkFDDLUpdateD_Efficient(b *testing.B) { benchFDDLUpdateD(b, false) }

func benchFDDLUpdateD(b *testing.B, original bool) {
	t := benchTrain(100, 7, 7, 0, 300, 0.1)
	t.p.OrigD = original
	D0 := mat.DenseCopyOf(t.Db)
	ctx := context.Background()
	done := toy.CPUMetric(b)
	for i := 0; i < b.N; i++ {
		t.Db.Copy(D0)
		if err := t.stepD(ctx); err != nil {
			b.Fatal(err)
		}
	}
	done()
	b.ReportMetric(t.mustCost().Total, "cost")
}

// TestLRSDLCostTerms checks the fidelity, ℓ1, Fisher and shared terms of
// totalCost, whose sums run over groups of classes shared between the
// cores, against their definitions computed by plain loops (the fidelity
// from the residuals, directFidelity), with and without shared atoms, on
// classes that form several groups, at GOMAXPROCS 1 and 2 (same bits).
func TestLRSDLCostTerms(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, k0 := range []int{0, 3} {
		tr := benchTrain(6, 30, 4, k0, 20, 0.5)
		K := tr.K
		kb, N := tr.Xb.Dims()
		x := func(i, j int) float64 { return tr.Xb.At(i, j) }
		var l1, fisher, shared float64
		for i := 0; i < kb; i++ {
			for j := 0; j < N; j++ {
				l1 += math.Abs(x(i, j))
			}
		}
		for i := 0; i < K; i++ {
			var m float64
			for j := 0; j < N; j++ {
				m += x(i, j) / float64(N)
			}
			for c := 0; c < tr.sp.Blocks(); c++ {
				s0, s1 := tr.sp.Block(c)
				var mc float64
				for j := s0; j < s1; j++ {
					mc += x(i, j) / float64(s1-s0)
				}
				for j := s0; j < s1; j++ {
					// ‖X_c − M_c‖² − ‖M_c − M‖² + ‖X_c‖², column by column
					fisher += (x(i, j)-mc)*(x(i, j)-mc) - (mc-m)*(mc-m) + x(i, j)*x(i, j)
				}
			}
		}
		for i := K; i < kb; i++ {
			var m float64
			for j := 0; j < N; j++ {
				m += x(i, j) / float64(N)
			}
			for j := 0; j < N; j++ {
				shared += (x(i, j) - m) * (x(i, j) - m)
			}
		}
		want := map[string]float64{
			"fidelity": directFidelity(tr.Y, tr.sp, tr.ap, tr.Db, tr.Xb),
			"l1":       tr.p.Lambda1 * l1,
			"fisher":   tr.p.Lambda2 / 2 * fisher,
			"shared":   tr.p.Lambda2 / 2 * shared,
		}
		var costs []lrsdl.Cost
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			tr.gc = gramCache{}
			costs = append(costs, tr.mustCost())
		}
		for name, w := range want {
			if got := costs[0].Term(name); math.Abs(got-w) > 1e-12*math.Max(1, math.Abs(w)) {
				t.Errorf("k0=%d: %s = %v, want %v", k0, name, got, w)
			}
		}
		if costs[0].Total != costs[1].Total {
			t.Errorf("k0=%d: cost %v at GOMAXPROCS 1, %v at 2", k0, costs[0].Total, costs[1].Total)
		}
	}
}

// arGenderTrain returns the training state of LRSDL on the 700 AR gender
// training samples (k=20, k0=10, λ1=λ2=0.01, η=0.1) before its first outer
// iteration.
func arGenderTrain(b *testing.B) *train {
	ds, err := data.Load(toy.ARGender(b), data.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return trainOn(b, lrsdlParams(20, 10, 0.01, 0.1), ds.Train.Y, ds.Train.Labels)
}

// BenchmarkLRSDLXSolveARGender times the X step's FISTA (solveXJoint) of
// arGenderTrain after 5 outer iterations, from the same start each time:
// fused over chunks of columns (xfused, the default at K̄ = 50) and as
// core.FISTA with xstep.grad (shared). Run with -cpu 1,2.
func BenchmarkLRSDLXSolveARGender(b *testing.B) {
	benchXSolveModes(b, "", arGenderWarm(b))
}

// BenchmarkLRSDLXSolveShapes is BenchmarkLRSDLXSolveARGender on the
// synthetic problems behind useFused's bounds (benchTrain, 20 % non-zero
// codes), named C_n_k_k0_d, fused and shared whatever the bounds say.
// bench/benchresults leaves it out (seconds per shape).
func BenchmarkLRSDLXSolveShapes(b *testing.B) {
	for _, c := range [][5]int{
		{10, 500, 7, 10, 200}, {10, 500, 9, 6, 200}, {10, 500, 12, 8, 200}, {10, 800, 9, 6, 200}, // N ≥ 5000
		{10, 70, 9, 6, 200}, {17, 60, 6, 10, 300}, // K̄ ≈ 100, N ≈ 1000
		{10, 7, 7, 7, 300}, {10, 32, 7, 7, 300}, {10, 64, 7, 7, 300}, // samples per class
	} {
		benchXSolveModes(b, fmt.Sprintf("%d_%d_%d_%d_%d/", c[0], c[1], c[2], c[3], c[4]), benchTrain(c[0], c[1], c[2], c[3], c[4], 0.2))
	}
}

// benchXSolveModes times t's X step from its current codes, fused and
// shared, as sub-benchmarks prefix+"fused" and prefix+"shared".
func benchXSolveModes(b *testing.B, prefix string, t *train) {
	ctx := context.Background()
	X0, Xb := mat.DenseCopyOf(t.Xb), mat.DenseCopyOf(t.Xb)
	for _, m := range []struct {
		name string
		mode dl.XStep
	}{{"fused", dl.XStepFused}, {"shared", dl.XStepShared}} {
		b.Run(prefix+m.name, func(b *testing.B) {
			t.set.XStep = m.mode
			defer func() { t.set.XStep = dl.XStepAuto }()
			for range b.N {
				Xb.Copy(X0)
				if err := t.solveXJoint(ctx, Xb); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// arGenderWarm returns arGenderTrain after 5 outer iterations.
func arGenderWarm(b *testing.B) *train {
	t := arGenderTrain(b)
	for range 5 {
		if _, err := t.outerStep(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	return t
}

// BenchmarkLRSDLStepD0_ARGender times the D0 step (LRSDL-D0) of
// arGenderTrain after 5 outer iterations, repeated at that point.
func BenchmarkLRSDLStepD0_ARGender(b *testing.B) {
	t := arGenderWarm(b)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		if err := t.stepD0(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLRSDLInit_ARGender times the initialisation of arGenderTrain
// (newTrain: ODL on each class and D0 on all samples), whose three
// dictionaries learn concurrently (dl.LearnDicts).
func BenchmarkLRSDLInit_ARGender(b *testing.B) {
	t := arGenderTrain(b)
	b.ResetTimer()
	for range b.N {
		if _, err := newTrain(context.Background(), t.p, t.set, t.Y, t.sp); err != nil {
			b.Fatal(err)
		}
	}
}
