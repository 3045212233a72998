package core

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
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
			D, Y := svUnitCols(rng, s.d, s.K), svRand(rng, s.d, s.N)
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
			X := svRand(rng, s.K, s.N)
			var E, F mat.Dense
			F.Mul(X, X.T())
			E.Mul(svRand(rng, s.d, s.N), X.T())
			D := svUnitCols(rng, s.d, s.K)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				UpdateDict(D, &E, &F, UpdateDictOptions{MaxIter: 1, Tol: -1})
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
			D := svUnitCols(rng, 300, K)
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
// dictionary.
func BenchmarkSVT_d300k10(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	A := svRand(rng, 300, 10)
	var Z mat.Dense
	for i := 0; i < b.N; i++ {
		SVT(&Z, A, 1)
	}
}
