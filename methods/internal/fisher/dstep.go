package fisher

import (
	"context"
	"math"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"gonum.org/v1/gonum/mat"
)

// stepD updates D by E-FDDL-D: D = argmin −2tr(EDᵀ) + tr(F·DᵀD) with
// E = Ȳ·M(X)ᵀ, F = M(XXᵀ), by ODL; with α > 0 (D2L2R2, DLRD) it minimises
// J's D part φ(D) of phiD, that is −2tr(EDᵀ) + tr(F·DᵀD) + 2αΣ_c‖D_c‖_*,
// by ADMM + SVT per class dictionary at threshold 2α/ρ (in span([D E]) by
// spanStepD when that is well below the data dimension); or, with origD,
// by O-FDDL-D class by class.
func (t *train) stepD(ctx context.Context) error {
	D, X := t.D(), t.X()
	uo := t.p.updateOpts()
	if t.p.OrigD {
		Yb := t.ybar()
		d, N := Yb.Dims()
		for c := 0; c < t.ap.Blocks(); c++ {
			a0, a1 := t.ap.Block(c)
			s0, s1 := t.sp.Block(c)
			Xc := X.Slice(a0, a1, 0, N)
			// Ŷ = Ȳ − Σ_{i≠c} D_iX^i
			Yh := mat.DenseCopyOf(Yb)
			var p mat.Dense
			p.Mul(D, X)
			Yh.Sub(Yh, &p)
			p.Reset()
			p.Mul(D.Slice(0, d, a0, a1), Xc)
			Yh.Add(Yh, &p)
			E := mat.NewDense(d, a1-a0, nil)
			E.Mul(Yh, Xc.T())
			p.Reset()
			p.Mul(Yb.Slice(0, d, s0, s1), X.Slice(a0, a1, s0, s1).T())
			E.Add(E, &p)
			F := mat.NewDense(a1-a0, a1-a0, nil)
			F.Mul(Xc, Xc.T())
			F.Scale(2, F)
			Dc := mat.DenseCopyOf(D.Slice(0, d, a0, a1))
			t.du.Update(Dc, E, F, uo)
			D.Slice(0, d, a0, a1).(*mat.Dense).Copy(Dc)
		}
		t.curOK = false
		return nil
	}
	E, F := t.dProblem()
	if done, _, err := t.spanStepD(ctx, E, F); done || err != nil {
		return err
	}
	Dn := dl.Reuse(&t.db.dn, D.RawMatrix().Rows, t.K)
	Dn.Copy(D)
	if t.p.Alpha > 0 {
		d, _ := t.Y.Dims()
		rho := rhoFor(F) * nuclearRhoScale
		sj := &svtJob{ap: t.ap, w: t.classSVT()}
		prox := func(z, v *mat.Dense, rho float64) {
			sj.z, sj.v, sj.tau = z, v, 2*t.p.Alpha/rho
			parallel.For(t.ap.Blocks(), sj, d*t.K*t.K/t.ap.Blocks())
			sj.z, sj.v = nil, nil
		}
		if err := t.admm.Update(ctx, Dn, E, F, prox, t.p.admmOpts(rho, uo)); err != nil {
			return err
		}
		t.keepIfLowerIn(D, Dn, func(D *mat.Dense) float64 { return t.phiD(D, E, F) })
		return nil
	}
	if err := t.du.UpdateContext(ctx, Dn, E, F, uo); err != nil {
		return err
	}
	D.Copy(Dn)
	t.curOK = false
	return nil
}

func (p *Params) updateOpts() core.UpdateDictOptions {
	o := core.UpdateDictOptions{MaxIter: p.DIters}
	if p.Plain {
		o.Tol = -1
	}
	return o
}

// admmSweeps caps the ODL sweeps of the D update inside one ADMM
// iteration (inexact ADMM): each starts from the previous iteration's D,
// so a couple of sweeps reach what d_iters would. On COIL-100 (D2L2R2,
// k=10, λ1=0.001, 4 iterations) 2 sweeps give the same costs to 5 digits
// and the same accuracy as 20 in 0.37 of the time.
const admmSweeps = 2

// admmOpts returns the ADMM options of a nuclear-norm dictionary update;
// the reference algorithm (plain) keeps d_iters sweeps per iteration.
func (p *Params) admmOpts(rho float64, uo core.UpdateDictOptions) core.ADMMOptions {
	o := core.ADMMOptions{Rho: rho, MaxIter: p.ADMMIters, Update: uo}
	if p.Plain {
		o.Tol = -1
	} else {
		o.Update.MaxIter = min(uo.MaxIter, admmSweeps)
	}
	return o
}

// nuclearRhoScale scales rhoFor's penalty in the nuclear-norm dictionary
// updates: the D step of D2L2R2 and DLRD (class-wise SVT), where on Oxford
// Flower (K = 340) the ADMM meets its tolerance after 12–14 iterations at
// rhoFor(F), 8–9 at ½, 6–7 at ¼ and 5–6 at ⅛, each ending at a lower J;
// and LRSDL-D0, where on AR gender (k0 = 10, 30 outer iterations) it takes
// 17–20 iterations at rhoFor(F) (6 of 30 updates at the cap of 20) and 8–12
// at ⅛, ending at a lower J (18.56061 against 18.56072).
const nuclearRhoScale = 0.125

// rhoFor returns an ADMM penalty on the scale of the quadratic term tr(F·DᵀD).
func rhoFor(F *mat.Dense) float64 {
	k, _ := F.Dims()
	var tr float64
	for i := 0; i < k; i++ {
		tr += F.At(i, i)
	}
	return math.Max(2*tr/float64(k), 1e-3)
}

// stepD0 updates D0 by LRSDL-D0: argmin −2tr(E·D0ᵀ) + tr(F·D0ᵀD0) + η‖D0‖_*
// with E = V·X0ᵀ, F = X0X0ᵀ, V = Y − ½D·M(X), by ADMM with SVT. A result
// that does not lower the cost (ADMM stopped early) is discarded; the cost
// is compared through its D0-dependent part (keepIfLowerIn).
func (t *train) stepD0(ctx context.Context) error {
	if t.k0 == 0 {
		return nil
	}
	D0 := t.D0()
	var E, F *mat.Dense
	if t.d0X {
		E, F = t.d0ProblemD()
		t.d0X = false
	} else {
		E, F = t.d0Problem()
	}
	Dn := dl.Reuse(&t.db.dn0, D0.RawMatrix().Rows, t.k0)
	Dn.Copy(D0)
	uo := t.p.updateOpts()
	if t.p.Eta == 0 {
		t.du0.Update(Dn, E, F, uo)
		D0.Copy(Dn)
		t.curOK = false
		return nil
	}
	eta := t.p.Eta
	prox := func(z, v *mat.Dense, rho float64) { t.svt0.SVT(z, v, eta/rho) }
	if err := t.admm0.Update(ctx, Dn, E, F, prox, t.p.admmOpts(rhoFor(F)*nuclearRhoScale, uo)); err != nil {
		return err
	}
	t.keepIfLowerIn(D0, Dn, func(D *mat.Dense) float64 { return t.phiD0(D, E, F) })
	return nil
}

// dProblem returns E = Ȳ·M(X)ᵀ and F = M(XXᵀ) of the D update, in
// t.db until the next call. Both products go through the sparse kernel
// when X is sparse enough (dWork.mulT): d·nnz(X) and K·nnz(X)
// multiply-adds instead of d·K·N and K²·N.
func (t *train) dProblem() (E, F *mat.Dense) {
	E, F = t.dProblemX()
	t.dProblemX0(E)
	return E, F
}

// dProblemX sets M(X), F and the part Y·M(X)ᵀ of E, which do not depend
// on X0 (dProblem).
func (t *train) dProblemX() (E, F *mat.Dense) {
	X, MX := t.X(), t.mx()
	d, _ := t.Y.Dims()
	E = dl.Reuse(&t.db.e, d, t.K)
	t.dw.mulT(E, t.Y, MX)
	F = dl.Reuse(&t.db.f, t.K, t.K)
	t.dw.mulT(F, X, X)
	symmetrize(F)
	blas.DoubleDiagBlocks(F.RawMatrix(), t.ap, t.ap)
	return E, F
}

// dProblemX0 completes E of dProblemX: Ȳ·M(X)ᵀ = Y·M(X)ᵀ − D0·(X0·M(X)ᵀ),
// no d×N product.
func (t *train) dProblemX0(E *mat.Dense) {
	if t.k0 == 0 {
		return
	}
	d, _ := t.Y.Dims()
	XM := dl.Reuse(&t.db.xm, t.k0, t.K)
	t.dw.mulT(XM, t.X0(), &t.db.mx)
	p := dl.Reuse(&t.db.p, d, t.K)
	p.Mul(t.D0(), XM)
	E.Sub(E, p)
}

// dWork holds the workspace of the D update's products.
type dWork struct {
	sw *blas.SparseWorkspace
}

// mulT sets dst = A·Bᵀ for A m×N and B K×N (dst m×K) through
// blas.SparseWorkspace.MulT, which takes the sparse path when B is
// sparse enough and Gemm otherwise.
func (w *dWork) mulT(dst, a, b *mat.Dense) {
	K, N := b.Dims()
	if w.sw != nil {
		if r, c := w.sw.Dims(); r != N || c != K {
			w.sw = nil
		}
	}
	if w.sw == nil {
		w.sw = blas.NewSparseWorkspace(N, K)
	}
	w.sw.MulT(dst.RawMatrix(), a.RawMatrix(), b.RawMatrix())
}

// d0Problem returns E = V·X0ᵀ, V = Y − ½D·M(X), and F = X0X0ᵀ of the D0
// update, in t.db until the next call. The products with X0ᵀ go through
// the sparse kernel when X0 is sparse enough, as dProblem's.
func (t *train) d0Problem() (E, F *mat.Dense) {
	t.d0ProblemX()
	return t.d0ProblemD()
}

// d0ProblemX computes the parts of d0Problem that do not depend on D:
// Y·X0ᵀ, M(X)·X0ᵀ and F.
func (t *train) d0ProblemX() {
	X0 := t.X0()
	d, _ := t.Y.Dims()
	t.dw0.mulT(dl.Reuse(&t.db.e0, d, t.k0), t.Y, X0)
	t.dw0.mulT(dl.Reuse(&t.db.mx0, t.K, t.k0), t.mx(), X0)
	F := dl.Reuse(&t.db.f0, t.k0, t.k0)
	t.dw0.mulT(F, X0, X0)
	symmetrize(F)
}

// d0ProblemD completes d0Problem from d0ProblemX's products: E = Y·X0ᵀ −
// ½D·(M(X)·X0ᵀ), no d×N product.
func (t *train) d0ProblemD() (E, F *mat.Dense) {
	E, F = &t.db.e0, &t.db.f0
	d, _ := t.Y.Dims()
	p := dl.Reuse(&t.db.p0, d, t.k0)
	p.Mul(t.D(), &t.db.mx0)
	p.Scale(0.5, p)
	E.Sub(E, p)
	return E, F
}

// symmetrize copies the upper triangle of the square f into its lower one:
// a product X·Xᵀ need not round symmetrically (OpenBLAS's AVX-512 kernels
// do not), and the ODL sweeps over F's rows take it as symmetric.
func symmetrize(F *mat.Dense) {
	f := F.RawMatrix()
	for i := 0; i < f.Rows; i++ {
		for j := i + 1; j < f.Cols; j++ {
			f.Data[j*f.Stride+i] = f.Data[i*f.Stride+j]
		}
	}
}

// phiD0 returns the part of J̄ that depends on D0,
//
//	φ(D0) = −2tr(E·D0ᵀ) + tr(F·D0ᵀD0) + η‖D0‖_*,
//
// for E and F of d0Problem at the current X̄ and D.
func (t *train) phiD0(D0, E, F *mat.Dense) float64 {
	return core.DictObjective(D0, E, F) + t.p.Eta*t.gc.nuc0.norm(D0)
}

// phiD returns the part of J̄ that depends on D,
//
//	φ(D) = ½(−2tr(EDᵀ) + tr(F·DᵀD)) + αΣ_c‖D_c‖_*,
//
// for E = Ȳ·M(X)ᵀ and F = M(XXᵀ) of stepD at the current X̄ and D0.
func (t *train) phiD(D, E, F *mat.Dense) float64 {
	return core.DictObjective(D, E, F)/2 + t.nuclear(D)
}

// keepIfLowerIn copies the update Dn into D if phi, which equals J̄ up to a
// term that does not depend on D, is not higher at Dn than at D. Comparing
// phi instead of J̄ spares the two evaluations of the full cost (one before
// and one after the update) that keepIfLower needs.
func (t *train) keepIfLowerIn(D, Dn *mat.Dense, phi func(*mat.Dense) float64) {
	if phi(Dn) <= phi(D) {
		D.Copy(Dn)
		t.curOK = false
	}
}
