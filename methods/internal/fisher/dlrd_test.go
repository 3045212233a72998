package fisher

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/testutil"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"gonum.org/v1/gonum/mat"
)

// dlrdToy returns a DLRD training run on toy.Classes (3 classes of 15
// samples in dimension 12, 3 atoms per class) with a few large entries
// added to the samples (the sparse errors DLRD models).
func dlrdToy(t *testing.T, p Params, beta float64) *dlrdTrain {
	Ys, sp, _, _ := toy.Classes(1, 3, 12, 15, 3)
	rng := rand.New(rand.NewPCG(3, 3))
	for n := 0; n < 20; n++ {
		i, j := rng.IntN(12), rng.IntN(45)
		Ys.Set(i, j, Ys.At(i, j)+3*rng.NormFloat64())
	}
	tr, err := newTrain(context.Background(), p, dl.Settings{}, mat.DenseCopyOf(Ys), sp)
	if err != nil {
		t.Fatal(err)
	}
	d, N := Ys.Dims()
	return &dlrdTrain{t: tr, Y0: Ys, beta: beta, E: mat.NewDense(d, N, nil)}
}

// dlrdFresh returns J at the current point of s evaluated from scratch,
// without the terms s keeps between steps.
func dlrdFresh(s *dlrdTrain) lrsdl.Cost {
	s.t.gc, s.t.curOK, s.fitOK, s.nucOK = gramCache{}, false, false, false
	return s.mustCost()
}

// TestDLRDInitSpan checks newTrainSpan, each class dictionary learned in
// span(Y_c), against newTrain in the data space: same D and X up to
// rounding, also with a class of mostly zero samples (learned in the data
// space, where ODL draws a random atom of length d).
func TestDLRDInitSpan(t *testing.T) {
	Ys, sp, _, _ := toy.Classes(1, 3, 60, 15, 3)
	p := dlrdParams(3, 0.05, 0.005, 15, 0)
	ctx := context.Background()
	for _, zero := range []bool{false, true} {
		Y := mat.DenseCopyOf(Ys)
		if zero { // most of class 1: some starting atom is zero
			for i := 0; i < 60; i++ {
				for j := 15; j < 27; j++ {
					Y.Set(i, j, 0)
				}
			}
		}
		full, err := newTrain(ctx, p, dl.Settings{}, mat.DenseCopyOf(Y), sp)
		if err != nil {
			t.Fatal(err)
		}
		red, err := newTrainSpan(ctx, p, dl.Settings{}, mat.DenseCopyOf(Y), sp)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(full.Db, red.Db, 1e-9) || !mat.EqualApprox(full.Xb, red.Xb, 1e-9) {
			var dd, dx mat.Dense
			dd.Sub(full.Db, red.Db)
			dx.Sub(full.Xb, red.Xb)
			t.Errorf("zero sample %v: D differs by %g, X by %g (Frobenius)", zero, mat.Norm(&dd, 2), mat.Norm(&dx, 2))
		}
		if core.L1(full.Xb) == 0 {
			t.Error("the codes are zero; the test checks little")
		}
	}
}

// TestDLRDStepsLowerCost checks that the X, D and E steps never raise J,
// and that the cost from the terms kept between steps (the nuclear term
// from the reduced D step) is J evaluated from scratch.
func TestDLRDStepsLowerCost(t *testing.T) {
	s := dlrdToy(t, dlrdParams(3, 0.05, 0.1, 15, 0), 0.5)
	J := func() float64 {
		c, f := s.mustCost().Total, dlrdFresh(s).Total
		if math.Abs(c-f) > 1e-12*f {
			t.Errorf("cost %v from kept terms, %v from scratch", c, f)
		}
		return f
	}
	ctx := context.Background()
	toy.CheckDescent(t, "DLRD", s.t.D(), 0.99, J,
		func() error {
			if err := s.stepX(ctx); err != nil {
				return err
			}
			before := J()
			s.stepE()
			if after := J(); after > before*(1+1e-12) {
				t.Errorf("E step raised J from %v to %v", before, after)
			}
			return nil
		},
		func() error { return s.stepD(ctx) })
	if core.L1(s.E) == 0 {
		t.Error("the error E stayed zero; the test checks little")
	}
}

// TestDLRDErrorStep checks the E step against the optimality conditions
// of J in E, with the gradient of the smooth part by central differences:
// ∂ = −β·sgn(e) where e ≠ 0 and |∂| ≤ β where e = 0.
func TestDLRDErrorStep(t *testing.T) {
	s := dlrdToy(t, dlrdParams(3, 0.05, 0.1, 15, 0), 0.5)
	if err := s.stepX(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.stepE()
	smooth := func() float64 {
		s.t.Y.Sub(s.Y0, s.E)
		c := dlrdFresh(s)
		return c.Total - c.Term("error") - c.Term("l1") - c.Term("nuclear")
	}
	d, N := s.E.Dims()
	nz := 0
	for i := 0; i < d; i++ {
		for j := 0; j < N; j++ {
			e := s.E.At(i, j)
			g := testutil.CentralDiff(smooth, s.E, i, j, 1e-6)
			switch {
			case e != 0:
				nz++
				if want := -s.beta * math.Copysign(1, e); math.Abs(g-want) > 1e-6 {
					t.Errorf("e[%d,%d]=%v: ∂J = %v, want %v", i, j, e, g, want)
				}
			case math.Abs(g) > s.beta+1e-6:
				t.Errorf("e[%d,%d]=0: |∂J| = %v > β", i, j, math.Abs(g))
			}
		}
	}
	if nz == 0 || nz == d*N {
		t.Fatalf("%d of %d error entries non-zero; the test checks little", nz, d*N)
	}
}
