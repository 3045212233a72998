package fisher

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestD2L2R2ReducedStepD checks that D2L2R2's D step in span([D E])
// (train.spanStepD) gives the D step in the data space up to rounding, with
// the same costs, and lowers J.
func TestD2L2R2ReducedStepD(t *testing.T) {
	Ys, sp, _, _ := toy.Classes(1, 3, 60, 15, 3)
	p := d2l2r2Params(3, 0.05, 0.05)
	p.InitIters = 2
	ctx := context.Background()
	run := func(off bool) (*mat.Dense, []float64) {
		tr, err := newTrain(ctx, p, dl.Settings{NoDictSpan: off}, mat.DenseCopyOf(Ys), sp)
		if err != nil {
			t.Fatal(err)
		}
		var costs []float64
		for it := 0; it < 3; it++ {
			if err := tr.stepX(ctx); err != nil {
				t.Fatal(err)
			}
			if !off {
				E, _ := tr.dProblem()
				if _, _, _, ok := dictSpan(tr.D(), E); !ok {
					t.Fatal("D step not reduced")
				}
			}
			before := tr.mustCost().Total
			if err := tr.stepD(ctx); err != nil {
				t.Fatal(err)
			}
			after := tr.mustCost().Total
			if after > before*(1+1e-12) {
				t.Errorf("off=%v iteration %d: D step raised J from %v to %v", off, it, before, after)
			}
			costs = append(costs, before, after)
		}
		return mat.DenseCopyOf(tr.D()), costs
	}
	sameReducedStep(t, run)
}

// TestXStepKeptNuclear checks that the cost the X step keeps (keepIfLower,
// with the nuclear term carried over since D̄ did not change) is the cost
// evaluated anew, to the last bit, for D2L2R2 (α‖D_c‖_*) and LRSDL
// (η‖D0‖_*).
func TestXStepKeptNuclear(t *testing.T) {
	Ys, sp, _, _ := toy.Classes(1, 3, 60, 15, 3)
	ctx := context.Background()
	for _, p := range []Params{d2l2r2Params(3, 0.05, 0.5), lrsdlParams(3, 2, 0.05, 0.5)} {
		p.InitIters = 2
		tr, err := newTrain(ctx, p, dl.Settings{}, mat.DenseCopyOf(Ys), sp)
		if err != nil {
			t.Fatal(err)
		}
		for it := 0; it < 3; it++ {
			if err := tr.stepX(ctx); err != nil {
				t.Fatal(err)
			}
			kept, fresh := tr.mustCurrent(), tr.mustCost()
			if kept.Total != fresh.Total || kept.Term("nuclear") != fresh.Term("nuclear") {
				t.Errorf("α=%v η=%v iteration %d: kept cost %v (nuclear %v), anew %v (nuclear %v)", p.Alpha, p.Eta, it, kept.Total, kept.Term("nuclear"), fresh.Total, fresh.Term("nuclear"))
			}
			if !(fresh.Term("nuclear") > 0) {
				t.Errorf("α=%v η=%v: nuclear term %v, the test checks little", p.Alpha, p.Eta, fresh.Term("nuclear"))
			}
			if err := tr.stepD(ctx); err != nil {
				t.Fatal(err)
			}
			if err := tr.stepD0(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkStepDMinimisesPhi runs the D step step of tr at many ADMM iterations
// and checks that it reaches the minimum of J's D part φ (phiRef) found by
// nuclearDictRef, for the E and F of the D step at tr's current point. A
// D step that minimises −2tr(EDᵀ) + tr(F·DᵀD) + αΣ‖D_c‖_* instead
// (threshold α/ρ: α/2 relative to J) stops well above it.
func checkStepDMinimisesPhi(t *testing.T, name string, tr *train, step func() error) {
	t.Helper()
	tr.p.ADMMIters, tr.p.DIters = 3000, 200
	E, F := tr.dProblem()
	D0 := mat.DenseCopyOf(tr.D())
	ref := nuclearDictRef(D0, E, F, tr.ap, tr.p.Alpha, 300)
	if err := step(); err != nil {
		t.Fatal(err)
	}
	pr, ps, p0 := phiRef(ref, E, F, tr.ap, tr.p.Alpha), phiRef(tr.D(), E, F, tr.ap, tr.p.Alpha), phiRef(D0, E, F, tr.ap, tr.p.Alpha)
	if !(pr < p0-1e-4*math.Abs(p0)) {
		t.Fatalf("%s: reference φ %v not below the start's %v, the test checks little", name, pr, p0)
	}
	if ps > pr+1e-7*math.Abs(pr) {
		t.Errorf("%s: D step reaches φ = %.10g, the reference %.10g (start %.10g)", name, ps, pr, p0)
	}
	var diff mat.Dense
	diff.Sub(tr.D(), ref)
	if n := mat.Norm(&diff, 2); n > 1e-3*mat.Norm(ref, 2) {
		t.Errorf("%s: D step's D differs from the reference by %g (Frobenius)", name, n)
	}
}

// TestD2L2R2StepDMinimisesJ checks that D2L2R2's D step, in the data space
// and in span([D E]), minimises J's own D part ½(tr(F·DᵀD) − 2tr(EDᵀ)) +
// αΣ_c‖D_c‖_* (checkStepDMinimisesPhi).
func TestD2L2R2StepDMinimisesJ(t *testing.T) {
	Ys, sp, _, _ := toy.Classes(1, 3, 60, 15, 3)
	p := d2l2r2Params(3, 0.05, 0.5)
	p.InitIters = 2
	ctx := context.Background()
	for _, off := range []bool{true, false} {
		tr, err := newTrain(ctx, p, dl.Settings{NoDictSpan: off}, mat.DenseCopyOf(Ys), sp)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.stepX(ctx); err != nil {
			t.Fatal(err)
		}
		checkStepDMinimisesPhi(t, fmt.Sprintf("span off=%v", off), tr, func() error {
			return tr.stepD(ctx)
		})
	}
}

// TestADMMSweepsCap checks the inexact ADMM of the nuclear-norm D update:
// with admmSweeps ODL sweeps per ADMM iteration it reaches the objective
// of d_iters sweeps per iteration, and a single sweep would not, given 20
// ADMM iterations (D2L2R2's default of 5 stops earlier either way).
func TestADMMSweepsCap(t *testing.T) {
	// x_iters 50: the codes the problem was set up with (20 is the default
	// at this λ1).
	p := d2l2r2Params(6, 0.05, 0.05)
	p.Lambda1, p.Lambda, p.InitIters, p.DIters, p.ADMMIters = 0.001, 0.001, 2, 20, 20
	tr := smallTrain(t, p, 4, 12, 40, 5)
	ctx := context.Background()
	if err := tr.stepX(ctx); err != nil {
		t.Fatal(err)
	}
	E, F := tr.dProblem()
	rho := rhoFor(F) * nuclearRhoScale
	d, _ := tr.Y.Dims()
	prox := func(z, v *mat.Dense, rho float64) {
		for c := 0; c < tr.ap.Blocks(); c++ {
			a0, a1 := tr.ap.Block(c)
			core.SVT(z.Slice(0, d, a0, a1).(*mat.Dense), v.Slice(0, d, a0, a1).(*mat.Dense), 2*p.Alpha/rho)
		}
	}
	phi := func(sweeps int) float64 {
		o := p.admmOpts(rho, p.updateOpts())
		if sweeps > 0 {
			o.Update.MaxIter = sweeps
		}
		D := mat.DenseCopyOf(tr.D())
		var w core.ADMMDictWorkspace
		if err := w.Update(ctx, D, E, F, prox, o); err != nil {
			t.Fatal(err)
		}
		return tr.phiD(D, E, F)
	}
	start := tr.phiD(tr.D(), E, F)
	capped, full, one := phi(0), phi(p.DIters), phi(1)
	if o := p.admmOpts(rho, p.updateOpts()); o.Update.MaxIter != admmSweeps || p.DIters <= admmSweeps {
		t.Fatalf("ADMM sweeps %d, d_iters %d", o.Update.MaxIter, p.DIters)
	}
	if gap := (capped - full) / (start - full); gap > 1e-6 {
		t.Errorf("%d sweeps per ADMM iteration: objective %v, %d sweeps: %v (start %v, %.2g of the decrease missed)", admmSweeps, capped, p.DIters, full, start, gap)
	}
	if gap := (one - full) / (start - full); gap <= 1e-6 {
		t.Errorf("one sweep per ADMM iteration is as good (%.2g of the decrease missed): the problem cannot tell the cap", gap)
	}
}

// nuclearDictRef minimises J's D part
//
//	φ(D) = ½tr(F·DᵀD) − tr(EDᵀ) + α Σ_c ‖D_c‖_*,  ‖dᵢ‖₂ ≤ 1,
//
// independently of the ADMM of the D step, by FISTA from D with step 1/L,
// L = λmax(F), whose prox (of the nuclear terms plus the constraint) is
// the Dykstra-like splitting of Bauschke and Combettes: SVT of each class
// block by an SVD and the projection of each column on the unit ball, in
// turn.
func nuclearDictRef(D, E, F *mat.Dense, ap core.Partition, alpha float64, iters int) *mat.Dense {
	d, k := D.Dims()
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(k, mat.DenseCopyOf(F).RawMatrix().Data), false) {
		panic("eigen")
	}
	L := floats.Max(es.Values(nil))
	svt := func(dst, a *mat.Dense, tau float64) {
		for c := 0; c < ap.Blocks(); c++ {
			a0, a1 := ap.Block(c)
			var svd mat.SVD
			if !svd.Factorize(a.Slice(0, d, a0, a1), mat.SVDThin) {
				panic("svd")
			}
			var U, V mat.Dense
			svd.UTo(&U)
			svd.VTo(&V)
			s := svd.Values(nil)
			for i := range s {
				s[i] = math.Max(s[i]-tau, 0)
			}
			var US mat.Dense
			US.Mul(&U, mat.NewDiagDense(len(s), s))
			dst.Slice(0, d, a0, a1).(*mat.Dense).Mul(&US, V.T())
		}
	}
	ball := func(dst, a *mat.Dense) {
		dst.Copy(a)
		for j := 0; j < k; j++ {
			col := dst.ColView(j).(*mat.VecDense)
			if n := mat.Norm(col, 2); n > 1 {
				col.ScaleVec(1/n, col)
			}
		}
	}
	x, y, prev := mat.DenseCopyOf(D), mat.DenseCopyOf(D), mat.DenseCopyOf(D)
	var g, v, p, q, u, w mat.Dense
	tk := 1.0
	for it := 0; it < iters; it++ {
		g.Mul(y, F) // ∇ = YF − E
		g.Sub(&g, E)
		v.Scale(-1/L, &g)
		v.Add(&v, y)
		// x = prox(v) by the Dykstra-like iteration.
		prev.Copy(x)
		x.Copy(&v)
		p.Reset()
		p.ReuseAs(d, k)
		q.Reset()
		q.ReuseAs(d, k)
		for in := 0; in < 30; in++ {
			w.Add(x, &p)
			u.Reset()
			u.ReuseAs(d, k)
			svt(&u, &w, alpha/L)
			p.Sub(&w, &u)
			w.Add(&u, &q)
			ball(x, &w)
			q.Sub(&w, x)
		}
		tn := (1 + math.Sqrt(1+4*tk*tk)) / 2
		y.Sub(x, prev)
		y.Scale((tk-1)/tn, y)
		y.Add(y, x)
		tk = tn
	}
	return x
}

// phiRef returns ½tr(F·DᵀD) − tr(EDᵀ) + α Σ_c ‖D_c‖_* from its definition.
func phiRef(D, E, F *mat.Dense, ap core.Partition, alpha float64) float64 {
	d, _ := D.Dims()
	var dtd, fd mat.Dense
	dtd.Mul(D.T(), D)
	fd.MulElem(F, &dtd)
	v := mat.Sum(&fd)/2 - mat.Sum(elem(E, D))
	for c := 0; c < ap.Blocks(); c++ {
		a0, a1 := ap.Block(c)
		var svd mat.SVD
		svd.Factorize(D.Slice(0, d, a0, a1), mat.SVDNone)
		v += alpha * floats.Sum(svd.Values(nil))
	}
	return v
}

func elem(a, b *mat.Dense) *mat.Dense {
	var m mat.Dense
	m.MulElem(a, b)
	return &m
}

// TestD2L2R2StepsLowerCost checks that the X and D steps of D2L2R2 do not
// increase its cost and that D changes.
func TestD2L2R2StepsLowerCost(t *testing.T) {
	p := d2l2r2Params(4, 0.05, 0.05)
	p.InitIters = 2
	tr := smallTrain(t, p, 3, 8, 20, 9)
	ctx := context.Background()
	for it := 0; it < 3; it++ {
		for _, st := range []struct {
			name string
			fn   func(context.Context) error
			v    *mat.Dense
		}{{"X", tr.stepX, tr.Xb}, {"D", tr.stepD, tr.D()}} {
			before := tr.mustCost()
			old := mat.DenseCopyOf(st.v)
			if err := st.fn(ctx); err != nil {
				t.Fatal(err)
			}
			after := tr.mustCost()
			if after.Total > before.Total*(1+1e-12) {
				t.Errorf("iter %d: step %s raised the cost from %v to %v", it, st.name, before.Total, after.Total)
			}
			if mat.EqualApprox(old, st.v, 1e-12) {
				t.Errorf("iter %d: step %s left its variable unchanged", it, st.name)
			}
			if after.Term("nuclear") <= 0 {
				t.Errorf("nuclear term %v", after.Term("nuclear"))
			}
		}
	}
}
