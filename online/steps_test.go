package online

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/internal/testutil"
)

// stepModel returns a model trained on one pass of a small face-like set
// whose next batch (the first 60 samples) is loaded and prepared, with the
// X step's Lipschitz constant.
func stepModel(t *testing.T, k0 int) (*Model, float64) {
	t.Helper()
	Y, l := data.FaceLike(5, 30, 40, 3)
	o := Options{K: 4, K0: k0, Batch: 50, Lambda1: 0.02, Lambda2: 0.05, Eta: 0.05, Epochs: 1}
	if k0 == 0 {
		o.K0 = Off
	}
	m, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := m.PartialFit(ctx, Y, l); err != nil {
		t.Fatal(err)
	}
	idx := rand.New(rand.NewPCG(1, 2)).Perm(len(l))[:60]
	n, err := m.load(ctx, Y, l, idx)
	if err != nil || n != 60 {
		t.Fatalf("load: %d samples, %v", n, err)
	}
	return m, m.prepareX()
}

// xObjective evaluates the X step's objective at the codes Xb of the
// loaded batch from its definition, sample by sample: the smooth part h
// and the ℓ1 term.
func xObjective(m *Model, Xb *mat.Dense) (h, l1 float64) {
	s, w, p := &m.st, &m.w, &m.p
	d, K, k0 := s.d, s.K(), s.k0()
	for c := 0; c+1 < len(w.sp); c++ {
		lo, hi := s.part.Block(c)
		for j := w.sp[c]; j < w.sp[c+1]; j++ {
			y := mat.Col(nil, j, &w.Yb)
			x := mat.Col(nil, j, Xb)
			r1 := make([]float64, d)
			r2 := make([]float64, d)
			copy(r1, y)
			copy(r2, y)
			for i := 0; i < d; i++ {
				for a := 0; a < K; a++ {
					r1[i] -= s.D.At(i, a) * x[a]
					if a >= lo && a < hi {
						r2[i] -= s.D.At(i, a) * x[a]
					}
				}
				for a := 0; a < k0; a++ {
					r1[i] -= s.D0.At(i, a) * x[K+a]
					r2[i] -= s.D0.At(i, a) * x[K+a]
				}
			}
			h += 0.5*dot(r1, r1) + 0.5*dot(r2, r2)
			for cj := 0; cj+1 < len(s.part); cj++ {
				if cj == c {
					continue
				}
				jl, jh := s.part.Block(cj)
				for i := 0; i < d; i++ {
					var v float64
					for a := jl; a < jh; a++ {
						v += s.D.At(i, a) * x[a]
					}
					h += 0.5 * v * v
				}
			}
			for a := 0; a < K; a++ {
				e := x[a] - w.Mc.At(a, c)
				h += p.lambda2 * (e*e + w.m[a]*x[a])
			}
			for a := 0; a < k0; a++ {
				e := x[K+a] - w.m0[a]
				h += p.lambda2 / 2 * e * e
			}
			for _, v := range x {
				l1 += p.lambda1 * math.Abs(v)
			}
		}
	}
	return h, l1
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestXGradient checks the X step's gradient against central differences
// of its objective, and its Lipschitz constant on random pairs of codes.
func TestXGradient(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		for _, k0 := range []int{0, 3} {
			m, L := stepModel(t, k0)
			w := &m.w
			r, b := m.st.K()+m.st.k0(), 60
			rng := rand.New(rand.NewPCG(5, 6))
			X := testutil.RandDense(rng, r, b)
			G := mat.NewDense(r, b, nil)
			grad := w.gradient(&m.st, &m.p)
			grad(G, X)
			f := func() float64 { h, _ := xObjective(m, X); return h }
			for n := 0; n < 25; n++ {
				i, j := rng.IntN(r), rng.IntN(b)
				fd := testutil.CentralDiff(f, X, i, j, 1e-5)
				if g := G.At(i, j); math.Abs(g-fd) > 1e-5*math.Max(1, math.Abs(g)) {
					t.Errorf("k0=%d: gradient at (%d,%d) = %.8g, central difference %.8g", k0, i, j, g, fd)
				}
			}
			// ‖∇h(X1) − ∇h(X2)‖ ≤ L‖X1 − X2‖.
			G2 := mat.NewDense(r, b, nil)
			for n := 0; n < 5; n++ {
				X2 := testutil.RandDense(rng, r, b)
				grad(G2, X2)
				var dG, dX mat.Dense
				dG.Sub(G, G2)
				dX.Sub(X, X2)
				if mat.Norm(&dG, 2) > L*mat.Norm(&dX, 2)*(1+1e-9) {
					t.Errorf("k0=%d: gradient changes by %g, more than L=%g times the codes' %g", k0, mat.Norm(&dG, 2), L, mat.Norm(&dX, 2))
				}
			}
		}
	})
}

// TestStepsLowerObjectives checks that the X step lowers its objective
// from its starting point and reaches below a perturbation of its result,
// and that the D and D0 steps lower theirs, on both backends.
func TestStepsLowerObjectives(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		for _, k0 := range []int{0, 3} {
			m, L := stepModel(t, k0)
			s, w, p := &m.st, &m.w, &m.p
			ctx := context.Background()
			r, b := s.K()+s.k0(), 60
			h0, l0 := xObjective(m, mat.NewDense(r, b, nil))
			if err := w.xStep(ctx, s, p, L); err != nil {
				t.Fatal(err)
			}
			h1, l1 := xObjective(m, &w.Xb)
			if !(h1+l1 < h0+l0-1e-3*math.Abs(h0)) {
				t.Errorf("k0=%d: X step: objective %g, from %g at zero codes", k0, h1+l1, h0+l0)
			}
			// The result is near a minimiser: a small random move raises the objective.
			rng := rand.New(rand.NewPCG(7, 8))
			var Xp mat.Dense
			Xp.CloneFrom(&w.Xb)
			for i := 0; i < r; i++ {
				for j := 0; j < b; j++ {
					Xp.Set(i, j, Xp.At(i, j)+0.01*rng.NormFloat64())
				}
			}
			if hp, lp := xObjective(m, &Xp); hp+lp < h1+l1 {
				t.Errorf("k0=%d: a perturbation of the X step's codes has a lower objective %g < %g", k0, hp+lp, h1+l1)
			}
			s.t++
			beta := p.beta(s.t)
			w.accumulate(s, beta)
			F := mat.DenseCopyOf(&s.A)
			core.MOp(F, F, s.part, s.part)
			before := core.DictObjective(&s.D, &s.B, F)
			if err := w.dStep(ctx, s, p); err != nil {
				t.Fatal(err)
			}
			if after := core.DictObjective(&s.D, &s.B, F); !(after < before) {
				t.Errorf("k0=%d: D step: objective %g, before %g", k0, after, before)
			}
			if k0 == 0 {
				continue
			}
			w.accumulate0(s, beta)
			before = w.phi0(&s.D0, s, p.eta)
			if err := w.d0Step(ctx, s, p); err != nil {
				t.Fatal(err)
			}
			if after := w.phi0(&s.D0, s, p.eta); !(after < before) {
				t.Errorf("D0 step: objective %g, before %g", after, before)
			}
		}
	})
}

// TestDStepKnownAnswer checks that with the whole batch as the statistics
// (β = 0 on the first batch) A and B are XXᵀ and Ȳ·M(X)ᵀ, that the D step
// gives the batch LRSDL-D update with E = Ȳ·M(X)ᵀ and F = M(XXᵀ) built
// from the full matrices, that this D problem's objective differs from the
// fidelity f_Ȳ(D, X) by a constant, and the same for D0 with
// ‖V − D0X0‖²_F.
func TestDStepKnownAnswer(t *testing.T) {
	m, L := stepModel(t, 3)
	s, w, p := &m.st, &m.w, &m.p
	ctx := context.Background()
	if err := w.xStep(ctx, s, p, L); err != nil {
		t.Fatal(err)
	}
	d, K, k0 := s.d, s.K(), s.k0()
	_, b := w.Yb.Dims()
	X := mat.DenseCopyOf(w.Xb.Slice(0, K, 0, b))
	X0 := mat.DenseCopyOf(w.Xb.Slice(K, K+k0, 0, b))
	var Ybar, MX, E, XXt, F mat.Dense
	Ybar.Mul(&s.D0, X0)
	Ybar.Sub(&w.Yb, &Ybar)
	core.MOp(&MX, X, s.part, w.sp)
	E.Mul(&Ybar, MX.T())
	XXt.Mul(X, X.T())
	core.MOp(&F, &XXt, s.part, s.part)
	w.accumulate(s, 0)
	if !mat.EqualApprox(&s.A, &XXt, 1e-12) || !mat.EqualApprox(&s.B, &E, 1e-12) {
		t.Fatalf("statistics of one batch differ from XXᵀ and Ȳ·M(X)ᵀ")
	}
	Dref := mat.DenseCopyOf(&s.D)
	core.UpdateDict(Dref, &E, &F, core.UpdateDictOptions{MaxIter: p.dIters})
	// The D problem's objective equals the fidelity up to a constant.
	fid := func(D *mat.Dense) float64 {
		var f float64
		for c := 0; c+1 < len(w.sp); c++ {
			lo, hi := s.part.Block(c)
			for j := w.sp[c]; j < w.sp[c+1]; j++ {
				for i := 0; i < d; i++ {
					r1, r2 := Ybar.At(i, j), Ybar.At(i, j)
					other := make([]float64, len(s.part)-1)
					for a := 0; a < K; a++ {
						v := D.At(i, a) * X.At(a, j)
						r1 -= v
						if a >= lo && a < hi {
							r2 -= v
						} else {
							other[s.part.Of(a)] += v
						}
					}
					f += r1*r1 + r2*r2
					for _, v := range other {
						f += v * v
					}
				}
			}
		}
		return f
	}
	D1 := mat.DenseCopyOf(&s.D)
	if got, want := core.DictObjective(D1, &E, &F)-core.DictObjective(Dref, &E, &F), fid(D1)-fid(Dref); math.Abs(got-want) > 1e-8*math.Max(1, math.Abs(want)) {
		t.Errorf("D problem objective changes by %g between two dictionaries, the fidelity by %g", got, want)
	}
	if err := w.dStep(ctx, s, p); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(&s.D, Dref, 1e-10) {
		t.Errorf("D step on one batch's statistics differs from the batch LRSDL-D update")
	}
	// D0: A0 = X0X0ᵀ, B0 = V·X0ᵀ with V = Y − ½D·M(X) (D just updated).
	var V, DMX, A0, B0 mat.Dense
	DMX.Mul(&s.D, &MX)
	V.Scale(-0.5, &DMX)
	V.Add(&w.Yb, &V)
	A0.Mul(X0, X0.T())
	B0.Mul(&V, X0.T())
	w.accumulate0(s, 0)
	if !mat.EqualApprox(&s.A0, &A0, 1e-12) || !mat.EqualApprox(&s.B0, &B0, 1e-12) {
		t.Fatalf("shared statistics of one batch differ from X0X0ᵀ and V·X0ᵀ")
	}
	res := func(D0 *mat.Dense) float64 {
		var R mat.Dense
		R.Mul(D0, X0)
		R.Sub(&V, &R)
		return mat.Norm(&R, 2) * mat.Norm(&R, 2)
	}
	Da := mat.DenseCopyOf(&s.D0)
	Db := testutil.RandUnitCols(rand.New(rand.NewPCG(9, 9)), d, k0)
	if got, want := core.DictObjective(Da, &B0, &A0)-core.DictObjective(Db, &B0, &A0), res(Da)-res(Db); math.Abs(got-want) > 1e-8*math.Max(1, math.Abs(want)) {
		t.Errorf("D0 problem objective changes by %g, ‖V − D0X0‖² by %g", got, want)
	}
}
