package fisher

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// TestDLRDReducedMatchesFull checks that DLRD trained in the coordinates
// of dlrdBasis (d ≥ 2N) learns the dictionary and the costs of training in
// the data space, on samples with gross errors, so that W grows with E's
// support, with W from either route of dl.ThinQR.
func TestDLRDReducedMatchesFull(t *testing.T) {
	Ys, sp, _, _ := toy.Classes(1, 3, 120, 15, 3)
	rng := rand.New(rand.NewPCG(3, 3))
	for i, v := range Ys.RawMatrix().Data {
		Ys.RawMatrix().Data[i] = v + 0.05*rng.NormFloat64()
	}
	for n := 0; n < 40; n++ {
		i, j := rng.IntN(120), rng.IntN(45)
		Ys.Set(i, j, Ys.At(i, j)+3*rng.NormFloat64())
	}
	p, beta := dlrdParams(3, 0.05, 0.1, 6, 2), 0.5

	// Both routes of dl.ThinQR: dense, and sparse (forced on these dense
	// samples), where the E step's residuals go through its factors.
	for _, route := range []dl.SpanRoute{dl.SpanDense, dl.SpanSparse} {
		// The reduced run does reduce, and W grows with E's support.
		set := dl.Settings{SpanRoute: route}
		tr, err := newTrainSpan(context.Background(), p, set, mat.DenseCopyOf(Ys), sp)
		if err != nil {
			t.Fatal(err)
		}
		s := &dlrdTrain{t: tr, Y0: Ys, beta: beta, E: mat.NewDense(120, 45, nil)}
		if !s.reduce() || (s.b.q != nil) != (route == dl.SpanSparse) {
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
			var costs []float64
			l := dl.Loop{Iters: p.Iters, Progress: func(p lrsdl.Progress) { costs = append(costs, p.Cost.Total) }}
			D, _, _, err := FitDLRD(context.Background(), p, dl.Settings{SpanRoute: route, NoDLRDReduce: off}, Ys, sp, beta, l)
			if err != nil {
				t.Fatal(err)
			}
			return D, costs
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
			t.Errorf("route %v: dictionaries differ by %g", route, toy.MaxAbsDiff(D0, D1))
		}
	}
}

// TestDLRDReduceKeepsDictionary checks that reduce represents a D with a
// direction dl.ThinQR leaves out of the samples' basis: an atom along the
// difference of two nearly equal samples (as newTrainSpan's class bases
// can give) is added to W, so that W·(WᵀD) = D.
func TestDLRDReduceKeepsDictionary(t *testing.T) {
	Ys, sp, _, _ := toy.Classes(1, 3, 120, 15, 3)
	rng := rand.New(rand.NewPCG(4, 4))
	for i, v := range Ys.RawMatrix().Data {
		Ys.RawMatrix().Data[i] = v + 0.05*rng.NormFloat64()
	}
	diff := make([]float64, 120)
	for i := range diff {
		diff[i] = 1e-9 * rng.NormFloat64()
		Ys.Set(i, 1, Ys.At(i, 0)+diff[i])
	}
	p, beta := dlrdParams(3, 0.05, 0.1, 15, 2), 0.5
	tr, err := newTrainSpan(context.Background(), p, dl.Settings{}, mat.DenseCopyOf(Ys), sp)
	if err != nil {
		t.Fatal(err)
	}
	a := mat.NewVecDense(120, diff)
	a.ScaleVec(1/mat.Norm(a, 2), a)
	tr.Db.ColView(0).(*mat.VecDense).CopyVec(a)
	D := mat.DenseCopyOf(tr.Db)
	if Q, _ := dl.ThinQR(Ys, dl.Settings{}); Q == nil {
		t.Fatal("dl.ThinQR failed")
	} else if _, r := Q.Dims(); r != 44 {
		t.Fatalf("dl.ThinQR kept %d of 45 samples, want 44: the test checks little", r)
	}
	s := &dlrdTrain{t: tr, Y0: Ys, beta: beta, E: mat.NewDense(120, 45, nil)}
	if !s.reduce() {
		t.Fatal("reduce declined")
	}
	var got mat.Dense
	got.Mul(s.b.W, tr.Db)
	if !mat.EqualApprox(&got, D, 1e-12) {
		t.Errorf("W·Dr differs from D by %g", toy.MaxAbsDiff(&got, D))
	}
}

// TestDLRDReducedErrorStep checks the E step in coordinates against its
// definition on samples of several chunks of rows (dlrdRows), on both
// routes of dl.ThinQR: E = S_{β/2}(Y0 − ½W·Dr·M(X)) entry by entry, kept by
// its non-zeros in order, Yr = Wᵀ(Y0 − E), and ‖E‖₁ (errorL1) as core.L1
// sums it.
func TestDLRDReducedErrorStep(t *testing.T) {
	const d, n = 5*dlrdRows + 7, 12
	Ys, sp, _, _ := toy.Classes(2, 3, d, n, 3)
	rng := rand.New(rand.NewPCG(5, 5))
	for k := 0; k < 400; k++ {
		i, j := rng.IntN(d), rng.IntN(3*n)
		Ys.Set(i, j, Ys.At(i, j)+3*rng.NormFloat64())
	}
	p, beta := dlrdParams(3, 0.05, 0.1, 15, 2), 0.5
	for _, route := range []dl.SpanRoute{dl.SpanDense, dl.SpanSparse} {
		tr, err := newTrainSpan(context.Background(), p, dl.Settings{SpanRoute: route}, mat.DenseCopyOf(Ys), sp)
		if err != nil {
			t.Fatal(err)
		}
		s := &dlrdTrain{t: tr, Y0: Ys, beta: beta}
		if !s.reduce() || (s.b.q != nil) != (route == dl.SpanSparse) {
			t.Fatalf("route %v: reduce declined or took the other route", route)
		}
		_, r0 := s.b.W.Dims()
		for it := 0; it < 3; it++ {
			if err := s.stepX(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := s.stepD(context.Background()); err != nil {
				t.Fatal(err)
			}
			// E from its definition, at the W of this step (grown by
			// the step, which leaves W·Dr as it is).
			var DM, R mat.Dense
			DM.Mul(s.b.W, tr.D())
			R.Mul(&DM, tr.mx())
			R.Scale(-0.5, &R)
			R.Add(&R, Ys)
			h := s.beta / 2
			var want []dlrdEntry
			for i := 0; i < d; i++ {
				for j := 0; j < 3*n; j++ {
					if v := R.At(i, j); math.Abs(v) > h {
						want = append(want, dlrdEntry{i, j, math.Copysign(math.Abs(v)-h, v)})
					}
				}
			}
			s.stepE()
			got := s.b.nz
			if len(got) != len(want) {
				t.Fatalf("route %v step %d: %d non-zeros, want %d", route, it, len(got), len(want))
			}
			E := mat.NewDense(d, 3*n, nil)
			for q, z := range got {
				w := want[q]
				if z.i != w.i || z.j != w.j || math.Abs(z.v-w.v) > 1e-12 {
					t.Fatalf("route %v step %d: non-zero %d is %v, want %v", route, it, q, z, w)
				}
				if !s.b.in[z.i] {
					t.Errorf("route %v step %d: row %d of E's support is not in W", route, it, z.i)
				}
				E.Set(z.i, z.j, z.v)
			}
			if l1 := core.L1(E); s.errorL1() != l1 {
				t.Errorf("route %v step %d: errorL1 %v, core.L1 %v", route, it, s.errorL1(), l1)
			}
			var Yc, Yr mat.Dense
			Yc.Sub(Ys, E)
			Yr.Mul(s.b.W.T(), &Yc)
			if !mat.EqualApprox(&Yr, tr.Y, 1e-12) {
				t.Errorf("route %v step %d: Yr differs from Wᵀ(Y0 − E) by %g", route, it, toy.MaxAbsDiff(&Yr, tr.Y))
			}
		}
		if _, r := s.b.W.Dims(); r <= r0 {
			t.Errorf("route %v: W did not grow with E's support: the test checks little", route)
		}
	}
}
