package methods

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
)

// lassoMinimum returns, for every column y of Y, ½‖y − Da‖² and ‖a‖₁ at
// the lasso code a = argmin ½‖y − Da‖² + λ‖a‖₁ found by FISTA run far past
// the tolerance the methods use, the residual formed from D explicitly: an
// independent check of the Gram-matrix path and residual of prediction.
func lassoMinimum(t *testing.T, D *mat.Dense, Y mat.Matrix, lambda float64) (half, l1 []float64) {
	t.Helper()
	_, k := D.Dims()
	_, n := Y.Dims()
	A := mat.NewDense(k, n, nil)
	if err := core.Lasso(context.Background(), A, D, Y, lambda, core.LassoOptions{MaxIter: 100000, Tol: 1e-15}); err != nil {
		t.Fatal(err)
	}
	var R mat.Dense
	R.Mul(D, A)
	R.Sub(Y, &R)
	half, l1 = make([]float64, n), make([]float64, n)
	for j := 0; j < n; j++ {
		half[j] = 0.5 * mat.Dot(R.ColView(j), R.ColView(j))
		for i := 0; i < k; i++ {
			l1[j] += math.Abs(A.At(i, j))
		}
	}
	return half, l1
}

// lcModel is a trained LRSDL or FDDL.
type lcModel interface {
	Name() string
	fisher() *fisherDL
}

func (m *LRSDL) fisher() *fisherDL { return &m.dl }
func (m *FDDL) fisher() *fisherDL  { return &m.dl }

// lcModels returns LRSDL (k0 = 3) and FDDL, 4 atoms per class, trained on
// lrsdlSynth(C, n, d, seed).
func lcModels(t *testing.T, C, n, d int, seed uint64) []lcModel {
	t.Helper()
	Y, labels, _ := lrsdlSynth(C, n, d, seed)
	fddl := &FDDL{Options: FDDLOptions{K: 4, Lambda1: 0.01, Iters: 5, Seed: 2}}
	lr := &LRSDL{Options: LRSDLOptions{K0: 3, FDDLOptions: fddl.Options}}
	for _, m := range []lrsdl.Classifier{lr, fddl} {
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
	}
	return []lcModel{lr, fddl}
}

// columns returns the columns idx of a.
func columns(a *mat.Dense, idx []int) *mat.Dense {
	d, _ := a.Dims()
	out := mat.NewDense(d, len(idx), nil)
	for j, c := range idx {
		out.SetCol(j, mat.Col(nil, c, a))
	}
	return out
}

// TestLCScoresAreLassoMinima checks that the LC score of a sample and class
// is the minimum of its lasso on [D_c D0] (on D_c alone for FDDL).
func TestLCScoresAreLassoMinima(t *testing.T) {
	Yt, _, _ := lrsdlSynth(3, 10, 30, 6)
	for _, m := range lcModels(t, 3, 20, 30, 5) {
		f := m.fisher()
		K, k0 := f.dims()
		for _, lambda := range []float64{0.001, 0.01, 0.05} {
			e, err := f.lcScores(context.Background(), lambda, Yt)
			if err != nil {
				t.Fatal(err)
			}
			C := f.part.Blocks()
			for c := 0; c < C; c++ {
				a0, a1 := f.part.Block(c)
				var idx []int
				for i := a0; i < a1; i++ {
					idx = append(idx, i)
				}
				for i := K; i < K+k0; i++ {
					idx = append(idx, i)
				}
				half, l1 := lassoMinimum(t, columns(f.Db, idx), Yt, lambda)
				for j := range half {
					want := half[j] + lambda*l1[j]
					if got := e[j*C+c]; math.Abs(got-want) > 1e-9*(1+want) {
						t.Fatalf("%s λ=%v class %d sample %d: LC score %.15g, lasso minimum %.15g", m.Name(), lambda, c, j, got, want)
					}
				}
			}
		}
	}
}

// TestLocalCodingPredictsSmallestResidual checks the local-coding
// predictions of DLSI, COPAR and JDL against labels formed independently:
// each class codes y on its atoms (and the shared ones) by FISTA run to
// convergence, and the class of the smallest ‖y − D_I·a‖² wins.
func TestLocalCodingPredictsSmallestResidual(t *testing.T) {
	ds := dlsiSynthetic(t, 10, 60, 30)
	type model struct {
		c      lrsdl.Classifier
		D      func() (*mat.Dense, []int)
		rows   func(c int) []int
		lambda func() float64
	}
	dlsi := &DLSI{Options: DLSIOptions{K: 4, Lambda: 0.01, Eta: 0.01, Iters: 3, Seed: 1}}
	copar := &COPAR{Options: COPAROptions{K: 4, K0: 2, Lambda: 0.01, Eta: 0.01, Iters: 3, Seed: 1}}
	jdl := &JDL{Options: JDLOptions{K: 4, K0: 2, Lambda1: 0.01, Iters: 3, Seed: 1}}
	span := func(lo, hi int) []int {
		var idx []int
		for i := lo; i < hi; i++ {
			idx = append(idx, i)
		}
		return idx
	}
	for _, m := range []model{
		{dlsi, func() (*mat.Dense, []int) { return dlsi.D, dlsi.classes.Labels },
			func(c int) []int { return span(dlsi.part.Block(c)) }, func() float64 { return dlsi.Options.Lambda / 2 }},
		{copar, func() (*mat.Dense, []int) { return copar.D, copar.classes.Labels },
			func(c int) []int { return coparRows(copar.part, c) }, func() float64 { return copar.Options.Lambda }},
		{jdl, func() (*mat.Dense, []int) { return jdl.D, jdl.classes.Labels },
			func(c int) []int { return coparRows(jdl.part, c) }, func() float64 { return jdl.Options.Lambda }},
	} {
		t.Run(m.c.Name(), func(t *testing.T) {
			if err := m.c.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
				t.Fatal(err)
			}
			got, err := m.c.Predict(ds.Test.Y)
			if err != nil {
				t.Fatal(err)
			}
			D, classes := m.D()
			_, n := ds.Test.Y.Dims()
			best := make([]float64, n)
			want := make([]int, n)
			for c, l := range classes {
				half, _ := lassoMinimum(t, columns(D, m.rows(c)), ds.Test.Y, m.lambda())
				for j, h := range half {
					if c == 0 || h < best[j] {
						best[j], want[j] = h, l
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("predictions\n%v\nwant the smallest residuals'\n%v", got, want)
			}
		})
	}
}

// TestLCPredictIsArgminOfScores checks lcPredict, which skips classes by a
// least-squares bound, against the argmin of lcScores, which codes every
// sample on every class, for FDDL and LRSDL with 12 classes, and that at
// λ = 0.001, where the ℓ1 term adds little to the bound, it skipped most
// pairs.
func TestLCPredictIsArgminOfScores(t *testing.T) {
	Yt, _, _ := lrsdlSynth(12, 20, 40, 8)
	for _, m := range lcModels(t, 12, 15, 40, 7) {
		f := m.fisher()
		_, n := Yt.Dims()
		C := f.part.Blocks()
		for _, lambda := range []float64{0.001, 0.01, 0.1} {
			e, err := f.lcScores(context.Background(), lambda, Yt)
			if err != nil {
				t.Fatal(err)
			}
			want := f.argmin(e)
			got, coded, err := f.lcPredict(context.Background(), lambda, Yt)
			if err != nil {
				t.Fatal(err)
			}
			for j := range want {
				if got[j] != want[j] {
					t.Fatalf("%s λ=%v sample %d: lcPredict says class %d, the least LC score is class %d's", m.Name(), lambda, j, got[j], want[j])
				}
			}
			t.Logf("%s λ=%v: coded %d of %d (sample, class) pairs", m.Name(), lambda, coded, n*C)
			if coded < n || lambda == 0.001 && coded > n*C/2 {
				t.Errorf("%s λ=%v: coded %d of %d pairs, want from %d to half", m.Name(), lambda, coded, n*C, n)
			}
		}
	}
}
