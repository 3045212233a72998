package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/testutil"
)

// Sizes: K atoms, N samples, d features. "AR" is the paper's AR face setup
// (C=100 classes, k=15 atoms and 20 training samples per class, d=300).
var svBenchSizes = []struct {
	name    string
	d, K, N int
}{
	{"d100K200N400", 100, 200, 400},
	{"AR_d300K1500N2000", 300, 1500, 2000},
}

// BenchmarkFISTAIterLasso measures one FISTA iteration of the lasso: the
// gradient G·W − B (2K²N flops) and the fused prox step.
func BenchmarkFISTAIterLasso(b *testing.B) {
	for _, s := range svBenchSizes {
		b.Run(s.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			D, Y := testutil.RandUnitCols(rng, s.d, s.K), testutil.RandDense(rng, s.d, s.N)
			var G, B mat.Dense
			G.Mul(D.T(), D)
			B.Mul(D.T(), Y)
			X := mat.NewDense(s.K, s.N, nil)
			var p PowerIter
			_, L := p.MaxEig(&G)
			grad := func(g, w *mat.Dense) { lassoGrad(g, &G, &B, w) }
			f := FISTA{MaxIter: 1, Tol: -1}
			f.Solve(context.Background(), X, grad, L, 0.01, nil)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				f.Solve(context.Background(), X, grad, L, 0.01, nil)
			}
			flops := 2 * float64(s.K) * float64(s.K) * float64(s.N)
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkUpdateDictSweep measures one ODL sweep over all K atoms
// (2K²d flops for the products D·fᵢ).
func BenchmarkUpdateDictSweep(b *testing.B) {
	for _, s := range svBenchSizes {
		b.Run(s.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(2, 2))
			X := testutil.RandDense(rng, s.K, s.N)
			var E, F mat.Dense
			F.Mul(X, X.T())
			E.Mul(testutil.RandDense(rng, s.d, s.N), X.T())
			D := testutil.RandUnitCols(rng, s.d, s.K)
			var u DictUpdater // as the methods keep one
			u.Update(D, &E, &F, UpdateDictOptions{MaxIter: 1, Tol: -1})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				u.Update(D, &E, &F, UpdateDictOptions{MaxIter: 1, Tol: -1})
			}
			flops := 2 * float64(s.K) * float64(s.K) * float64(s.d)
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkPowerIterWarm measures a warm-started Lipschitz estimate of a
// K×K Gram matrix after a small change.
func BenchmarkPowerIterWarm(b *testing.B) {
	for _, K := range []int{200, 1500} {
		b.Run(fmt.Sprintf("K%d", K), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 3))
			D := testutil.RandUnitCols(rng, 300, K)
			var G mat.Dense
			G.Mul(D.T(), D)
			var p PowerIter
			p.MaxEig(&G)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				G.Set(0, 0, G.At(0, 0)*(1+1e-9))
				p.MaxEig(&G)
			}
		})
	}
}

// BenchmarkSVT measures the singular value thresholding of a d×k0 shared
// dictionary with a warm SVTWorkspace, as LRSDL's D0 step runs it.
func BenchmarkSVT_d300k10(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	A := testutil.RandDense(rng, 300, 10)
	var Z mat.Dense
	var w SVTWorkspace
	for i := 0; i < b.N; i++ {
		w.SVT(&Z, A, 1)
	}
}

// odlBench runs one ODL sweep (DictUpdater.Update with MaxIter 1, or the
// former unblocked UpdateDict) on a d×k dictionary with a
// dense F = XXᵀ, X k×k random.
func odlBench(b *testing.B, d, k int, unblocked bool) {
	D, E, F := odlBenchProblem(d, k)
	var u DictUpdater
	u.Update(D, E, F, UpdateDictOptions{MaxIter: 1, Tol: -1})
	dt, et := mat.DenseCopyOf(D.T()), mat.DenseCopyOf(E.T())
	df := make([]float64, d)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if unblocked {
			// The transposes in and out, as the former UpdateDict did.
			dt.Copy(D.T())
			et.Copy(E.T())
			odlUnblocked(dt.RawMatrix().Data, et.RawMatrix().Data, df, F.RawMatrix(), d, k)
			D.Copy(dt.T())
		} else {
			u.Update(D, E, F, UpdateDictOptions{MaxIter: 1, Tol: -1})
		}
	}
	flops := 2 * float64(k) * float64(k) * float64(d)
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// Oxford Flower (LRSDL in the data space; FDDL and D2L2R2, k=40, in the
// span of its 1020 samples), the efficiency experiment and AR gender shapes.
func BenchmarkUpdateDict_d10000k690(b *testing.B) { odlBench(b, 10000, 690, false) }
func BenchmarkUpdateDict_d1020k680(b *testing.B)  { odlBench(b, 1020, 680, false) }
func BenchmarkUpdateDict_d300k700(b *testing.B)   { odlBench(b, 300, 700, false) }
func BenchmarkUpdateDict_d300k50(b *testing.B)    { odlBench(b, 300, 50, false) }

// BenchmarkUpdateDict_d1024k10 is a class block of D2L2R2 on COIL-100 (d =
// 1024, 10 atoms), whose D step sweeps each class in every ADMM iteration.
func BenchmarkUpdateDict_d1024k10(b *testing.B) { odlBench(b, 1024, 10, false) }

func BenchmarkUpdateDictUnblocked_d10000k690(b *testing.B) { odlBench(b, 10000, 690, true) }
func BenchmarkUpdateDictUnblocked_d300k700(b *testing.B)   { odlBench(b, 300, 700, true) }
func BenchmarkUpdateDictUnblocked_d300k50(b *testing.B)    { odlBench(b, 300, 50, true) }

// odlBenchProblem returns a d×k dictionary D of unit columns, E d×k and
// the dense F = XXᵀ, X k×k, all random.
func odlBenchProblem(d, k int) (D, E, F *mat.Dense) {
	rng := rand.New(rand.NewPCG(5, 5))
	X := testutil.RandDense(rng, k, k)
	F = new(mat.Dense)
	F.Mul(X, X.T())
	E = testutil.RandDense(rng, d, k)
	return testutil.RandUnitCols(rng, d, k), E, F
}

// BenchmarkUpdateDictTwoCores times single ODL sweeps (dense F, as
// odlBench) alternating between GOMAXPROCS 1 and 2, 20 of each per op, and
// reports the median of each and their ratio: on a shared machine the
// alternation sees the same load on both sides, where -cpu 1,2 runs them
// seconds apart.
func BenchmarkUpdateDictTwoCores(b *testing.B) {
	for _, sz := range [][2]int{{1020, 680}, {300, 700}} {
		d, k := sz[0], sz[1]
		b.Run(fmt.Sprintf("d%dk%d", d, k), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
			D, E, F := odlBenchProblem(d, k)
			var u DictUpdater
			var one, two []float64
			b.ResetTimer()
			for range b.N {
				for r := range 40 {
					runtime.GOMAXPROCS(1 + r%2)
					t0 := time.Now()
					u.Update(D, E, F, UpdateDictOptions{MaxIter: 1, Tol: -1})
					if r%2 == 0 {
						one = append(one, time.Since(t0).Seconds())
					} else {
						two = append(two, time.Since(t0).Seconds())
					}
				}
			}
			slices.Sort(one)
			slices.Sort(two)
			m1, m2 := one[len(one)/2], two[len(two)/2]
			b.ReportMetric(m1*1e3, "one-ms")
			b.ReportMetric(m2*1e3, "two-ms")
			b.ReportMetric(m2/m1, "two/one")
		})
	}
}

// odlUnblocked is the former UpdateDict sweep, kept to measure the blocked
// one against in the same run: D·fᵢ as k unit-stride axpys per atom.
func odlUnblocked(dt, et, df []float64, f blas64.General, d, k int) {
	for i := 0; i < k; i++ {
		fii := f.Data[i*f.Stride+i]
		clear(df)
		for j := 0; j < k; j++ {
			if a := f.Data[j*f.Stride+i]; a != 0 {
				floats.AddScaled(df, a, dt[j*d:(j+1)*d])
			}
		}
		di, ei := dt[i*d:(i+1)*d], et[i*d:(i+1)*d]
		var u2 float64
		for r, x := range di {
			u := (ei[r]-df[r])/fii + x
			df[r] = u
			u2 += u * u
		}
		floats.Scale(1/math.Max(1, math.Sqrt(u2)), df)
		copy(di, df)
	}
}

// BenchmarkKSVDStep times one K-SVD iteration (OMP and an atom sweep) at the
// sizes of LC-KSVD's stacked problem on Oxford Flower after the span
// reduction: d = N + K + C = 1462 rows, K = 425 atoms, N = 1020 samples,
// sparsity 20.
func BenchmarkKSVDStep(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const d, k, n, T = 1462, 425, 1020, 20
	Y := testutil.RandDense(rng, d, n)
	D := mat.NewDense(d, k, nil)
	for j := 0; j < k; j++ {
		D.SetCol(j, mat.Col(nil, j, Y))
	}
	r, err := NewKSVDRun(D, Y, T, KSVDOptions{})
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
