package methods

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/core"
)

// dSpanOff disables the reduced D step train.stepDSpan of D2L2R2 and DLRD
// (tests compare the two).
var dSpanOff bool

// dictSpan returns an orthonormal basis Q (d×r) of span([D E]) for the d×k
// matrices D and E (gramSpan), with the coordinates Dr = QᵀD and Er = QᵀE
// (r×k), or ok false when 2k is not below d/spanRatio (no gain) or the
// factorisation fails.
func dictSpan(D, E *mat.Dense) (Q, Dr, Er *mat.Dense, ok bool) {
	d, k := D.Dims()
	if float64(d) <= spanRatio*float64(2*k) {
		return nil, nil, nil, false
	}
	B := mat.NewDense(d, 2*k, nil)
	B.Slice(0, d, 0, k).(*mat.Dense).Copy(D)
	B.Slice(0, d, k, 2*k).(*mat.Dense).Copy(E)
	Q, C, ok := gramSpan(B)
	if !ok {
		return nil, nil, nil, false
	}
	r, _ := C.Dims()
	return Q, mat.DenseCopyOf(C.Slice(0, r, 0, k)), mat.DenseCopyOf(C.Slice(0, r, k, 2*k)), true
}

// stepDSpan is the nuclear-norm D step of train.stepD (D2L2R2, DLRD),
//
//	D = argmin −2tr(EDᵀ) + tr(F·DᵀD) + α Σ_c ‖D_c‖_*  s.t. ‖dᵢ‖ ≤ 1,
//
// by ADMM + SVT run in span([D E]), and reports whether it ran; it does
// not (false, nil) when that span is not well below the data dimension
// (dictSpan). Every iterate of the ADMM (D, its split Z and the scaled
// dual U, which starts at 0) stays in span([D E]): the ODL sweeps combine
// columns of E and of the iterates, and the thresholding of a block keeps
// its column space. With Q the orthonormal basis of dictSpan (QᵀQ = I)
// and D = Q·Dr, E = Q·Er: tr(EDᵀ) = tr(Er·Drᵀ), DᵀD = DrᵀDr, ‖dᵢ‖ = ‖Qᵀdᵢ‖,
// and ‖Q·A‖_* = ‖A‖_* since Q·A = Q·UΣVᵀ is an SVD with the same singular
// values; so SVT_τ(Q·A) = Q·SVT_τ(A) and the ADMM on Dr = QᵀD, Er = QᵀE,
// r ≤ 2K rows instead of d, gives D = Q·Dr up to rounding. The
// keep-if-lower test compares the reduced objective.
func (t *train) stepDSpan(ctx context.Context, E, F *mat.Dense) (bool, error) {
	done, _, err := t.spanStepD(ctx, E, F)
	return done, err
}

// spanStepD is stepDSpan, also returning the nuclear term αΣ_c‖D_c‖_* of
// the new D (from its coordinates, ‖Q·A‖_* = ‖A‖_*), or −1 when D was
// kept.
func (t *train) spanStepD(ctx context.Context, E, F *mat.Dense) (done bool, nuc float64, err error) {
	if dSpanOff || t.p.alpha <= 0 || t.p.origD || t.k0 > 0 {
		return false, -1, nil
	}
	D := t.D()
	Q, Dr, Er, ok := dictSpan(D, E)
	if !ok {
		return false, -1, nil
	}
	r, _ := Dr.Dims()
	rho := rhoFor(F)
	prox := func(z, v *mat.Dense, rho float64) {
		for c := 0; c < t.ap.Blocks(); c++ {
			a0, a1 := t.ap.Block(c)
			zc := z.Slice(0, r, a0, a1).(*mat.Dense)
			core.SVT(zc, v.Slice(0, r, a0, a1).(*mat.Dense), t.p.alpha/rho)
		}
	}
	Dn := mat.DenseCopyOf(Dr)
	if err := t.admm.Update(ctx, Dn, Er, F, prox, t.p.admmOpts(rho, t.p.updateOpts())); err != nil {
		return true, -1, err
	}
	nuc = t.nuclear(Dn)
	if !(core.DictObjective(Dn, Er, F)/2+nuc <= t.phiD(Dr, Er, F)) {
		return true, -1, nil
	}
	D.Mul(Q, Dn)
	// Q is orthonormal to rounding: keep ‖dᵢ‖ ≤ 1 exact.
	for j := 0; j < t.K; j++ {
		col := D.ColView(j).(*mat.VecDense)
		if nrm := mat.Norm(col, 2); nrm > 1 {
			col.ScaleVec(1/nrm, col)
		}
	}
	t.curOK = false
	return true, nuc, nil
}

// nuclear returns αΣ_c‖D_c‖_* for the class blocks D_c of D.
func (t *train) nuclear(D *mat.Dense) float64 {
	d, _ := D.Dims()
	var v float64
	for c := 0; c < t.ap.Blocks(); c++ {
		a0, a1 := t.ap.Block(c)
		v += t.p.alpha * core.NuclearNorm(D.Slice(0, d, a0, a1))
	}
	return v
}
