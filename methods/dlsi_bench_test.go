package methods

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/testutil"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// The paper's efficiency setting (section "Validation of efficient
// algorithms"): C = 100 classes, d = 300, n = 7 samples and k = 7 atoms
// per class (and k0 = 7 shared atoms for COPAR), on random unit-norm data
// with codes from one X step (random codes for COPAR). One op is one full D step (all sub-dictionaries).
const benchC, benchD, benchN, benchK = 100, 300, 7, 7

func benchProblem(k0 int) (Ys *mat.Dense, sp, part core.Partition, D *mat.Dense) {
	rng := rand.New(rand.NewPCG(11, 12))
	Ys = testutil.RandUnitCols(rng, benchD, benchC*benchN)
	sizes := make([]int, benchC)
	ks := make([]int, benchC)
	for c := range sizes {
		sizes[c], ks[c] = benchN, benchK
	}
	if k0 > 0 {
		ks = append(ks, k0)
	}
	sp, part = core.NewPartition(sizes...), core.NewPartition(ks...)
	D = testutil.RandUnitCols(rng, benchD, part.Len())
	return Ys, sp, part, D
}

func benchDLSIUpdateD(b *testing.B, original bool) {
	Ys, sp, part, D0 := benchProblem(0)
	o := resolvedOpts(DLSIOptions{K: benchK, Lambda: 0.01, Eta: 0.05})
	X := make([]*mat.Dense, benchC)
	for c := range X {
		X[c] = mat.NewDense(benchK, benchN, nil)
	}
	if err := dlsiUpdateX(context.Background(), X, D0, part, Ys, sp, o.Lambda); err != nil {
		b.Fatal(err)
	}
	D := mat.NewDense(benchD, part.Len(), nil)
	for b.Loop() {
		D.Copy(D0)
		if err := dlsiUpdateD(context.Background(), D, part, X, Ys, sp, nil, o.Eta, original, dl.Settings{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(dlsiCost(D, part, X, Ys, sp, o).Total, "J")
}

// BenchmarkDLSIUpdateD_Original is O-DLSI-D, column by column.
func BenchmarkDLSIUpdateD_Original(b *testing.B) { benchDLSIUpdateD(b, true) }

// BenchmarkDLSIUpdateD_Efficient is E-DLSI-D, ADMM with one inversion per class.
func BenchmarkDLSIUpdateD_Efficient(b *testing.B) { benchDLSIUpdateD(b, false) }

func benchCOPARUpdateD(b *testing.B, original bool) {
	Ys, sp, part, D0 := benchProblem(benchK)
	o := resolvedOpts(COPAROptions{K: benchK, K0: benchK, Lambda: 0.01, Eta: 0.01})
	// Random codes on the own and the shared atoms (COPAR-X at this size
	// takes minutes).
	rng := rand.New(rand.NewPCG(13, 14))
	X := make([]*mat.Dense, benchC)
	for c := range X {
		X[c] = mat.NewDense(part.Len(), benchN, nil)
		for _, i := range dl.Rows(part, c) {
			for j := 0; j < benchN; j++ {
				X[c].Set(i, j, 0.3*rng.NormFloat64())
			}
		}
	}
	D := mat.NewDense(benchD, part.Len(), nil)
	for b.Loop() {
		D.Copy(D0)
		if err := coparUpdateD(context.Background(), D, part, X, Ys, sp, nil, o.Eta, original, dl.Settings{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(coparCost(D, part, X, Ys, sp, o).Total, "J")
}

// BenchmarkCOPARUpdateD_Original is O-COPAR-D, column by column.
func BenchmarkCOPARUpdateD_Original(b *testing.B) { benchCOPARUpdateD(b, true) }

// BenchmarkCOPARUpdateD_Efficient is E-COPAR-D, ADMM with one inversion per block.
func BenchmarkCOPARUpdateD_Efficient(b *testing.B) { benchCOPARUpdateD(b, false) }

// BenchmarkDLSIFit_d1000_C3_n20_k5_iters2 is a whole DLSI Fit with d ≫ N
// (N = 60) trained in span(Y) (dl.ReduceSpan) and on the full data.
func BenchmarkDLSIFit_d1000_C3_n20_k5_iters2(b *testing.B) {
	Y, sp, _, _ := toy.Classes(5, 3, 1000, 20, 5)
	labels := make([]int, sp.Len())
	for j := range labels {
		labels[j] = j / 20
	}
	for _, bc := range []struct {
		name string
		off  bool
	}{{"span", false}, {"full", true}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				m := &DLSI{Options: DLSIOptions{K: 5, Lambda: 0.01, Iters: 2}}
				m.set.NoSpan = bc.off
				if err := m.Fit(context.Background(), Y, labels); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
