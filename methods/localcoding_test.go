package methods

import (
	"context"
	"fmt"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

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
			func(c int) []int { return dl.Rows(copar.part, c) }, func() float64 { return copar.Options.Lambda }},
		{jdl, func() (*mat.Dense, []int) { return jdl.D, jdl.classes.Labels },
			func(c int) []int { return dl.Rows(jdl.part, c) }, func() float64 { return jdl.Options.Lambda }},
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
				half, _ := toy.LassoMinimum(t, toy.Columns(D, m.rows(c)), ds.Test.Y, m.lambda())
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
