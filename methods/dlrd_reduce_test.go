package methods

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
)

// TestDLRDReducedMatchesFull checks that DLRD trained in the coordinates
// of dlrdBasis (d ≥ 2N) learns the dictionary and the costs of training in
// the data space, on samples with gross errors, so that W grows with E's
// support, with W from either route of thinQR.
func TestDLRDReducedMatchesFull(t *testing.T) {
	Ys, sp, _, _ := dlsiToyProblem(1, 3, 120, 15, 3)
	rng := rand.New(rand.NewPCG(3, 3))
	for i, v := range Ys.RawMatrix().Data {
		Ys.RawMatrix().Data[i] = v + 0.05*rng.NormFloat64()
	}
	for n := 0; n < 40; n++ {
		i, j := rng.IntN(120), rng.IntN(45)
		Ys.Set(i, j, Ys.At(i, j)+3*rng.NormFloat64())
	}
	o := DLRDOptions{K: 3, Lambda1: 0.05, Alpha: 0.1, Beta: 0.5, Iters: 6, Tol: Off, Seed: 2}
	labels := make([]int, 45)
	for c := 0; c < 3; c++ {
		s0, s1 := sp.Block(c)
		for j := s0; j < s1; j++ {
			labels[j] = c
		}
	}

	// Both routes of thinQR: dense, and sparse (forced on these dense
	// samples), where the E step's residuals go through its factors.
	density := spanSparseDensity
	defer func() { spanSparseDensity = density }()
	for _, route := range []float64{0, 1} {
		spanSparseDensity = route
		// The reduced run does reduce, and W grows with E's support.
		oo := o
		if err := oo.spec().resolve(nil); err != nil {
			t.Fatal(err)
		}
		tr, err := newTrainSpan(context.Background(), dlrdParams(oo), mat.DenseCopyOf(Ys), sp)
		if err != nil {
			t.Fatal(err)
		}
		s := &dlrdTrain{t: tr, Y0: Ys, beta: oo.Beta, E: mat.NewDense(120, 45, nil)}
		if !s.reduce() || (s.b.q != nil) != (route > 0) {
			t.Fatalf("route %v: reduce declined or took the other route", route)
		}
		_, r0 := s.b.W.Dims()
		for it := 0; it < 2; it++ {
			if err := s.stepX(context.Background()); err != nil {
				t.Fatal(err)
			}
			s.stepE()
		}
		if _, r := s.b.W.Dims(); r <= r0 || len(s.b.nz) == 0 {
			t.Fatalf("W has %d columns after the E steps, %d before, E %d non-zeros: the test checks little", r, r0, len(s.b.nz))
		}

		fit := func(off bool) (*mat.Dense, []float64) {
			dlrdReduceOff = off
			defer func() { dlrdReduceOff = false }()
			var costs []float64
			oc := o
			oc.Progress = func(p lrsdl.Progress) { costs = append(costs, p.Cost.Total) }
			m := &DLRD{Options: oc}
			if err := m.Fit(context.Background(), Ys, labels); err != nil {
				t.Fatal(err)
			}
			return m.D, costs
		}
		D1, c1 := fit(false)
		D0, c0 := fit(true)
		if len(c0) != len(c1) {
			t.Fatalf("%d iterations reduced, %d in the data space", len(c1), len(c0))
		}
		for i := range c0 {
			if math.Abs(c0[i]-c1[i]) > 1e-9*c0[i] {
				t.Errorf("route %v, iteration %d: cost %.12g reduced, %.12g in the data space", route, i+1, c1[i], c0[i])
			}
		}
		if !mat.EqualApprox(D0, D1, 1e-8) {
			t.Errorf("route %v: dictionaries differ by %g", route, maxAbsDiff(D0, D1))
		}
	}
}

// TestDLRDReduceKeepsDictionary checks that reduce represents a D with a
// direction thinQR leaves out of the samples' basis: an atom along the
// difference of two nearly equal samples (as newTrainSpan's class bases
// can give) is added to W, so that W·(WᵀD) = D.
func TestDLRDReduceKeepsDictionary(t *testing.T) {
	Ys, sp, _, _ := dlsiToyProblem(1, 3, 120, 15, 3)
	rng := rand.New(rand.NewPCG(4, 4))
	for i, v := range Ys.RawMatrix().Data {
		Ys.RawMatrix().Data[i] = v + 0.05*rng.NormFloat64()
	}
	diff := make([]float64, 120)
	for i := range diff {
		diff[i] = 1e-9 * rng.NormFloat64()
		Ys.Set(i, 1, Ys.At(i, 0)+diff[i])
	}
	o := DLRDOptions{K: 3, Lambda1: 0.05, Alpha: 0.1, Beta: 0.5, Seed: 2}
	if err := o.spec().resolve(nil); err != nil {
		t.Fatal(err)
	}
	tr, err := newTrainSpan(context.Background(), dlrdParams(o), mat.DenseCopyOf(Ys), sp)
	if err != nil {
		t.Fatal(err)
	}
	a := mat.NewVecDense(120, diff)
	a.ScaleVec(1/mat.Norm(a, 2), a)
	tr.Db.ColView(0).(*mat.VecDense).CopyVec(a)
	D := mat.DenseCopyOf(tr.Db)
	if Q, _ := thinQR(Ys); Q == nil {
		t.Fatal("thinQR failed")
	} else if _, r := Q.Dims(); r != 44 {
		t.Fatalf("thinQR kept %d of 45 samples, want 44: the test checks little", r)
	}
	s := &dlrdTrain{t: tr, Y0: Ys, beta: o.Beta, E: mat.NewDense(120, 45, nil)}
	if !s.reduce() {
		t.Fatal("reduce declined")
	}
	var got mat.Dense
	got.Mul(s.b.W, tr.Db)
	if !mat.EqualApprox(&got, D, 1e-12) {
		t.Errorf("W·Dr differs from D by %g", maxAbsDiff(&got, D))
	}
}
