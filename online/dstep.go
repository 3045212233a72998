package online

import (
	"context"
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
)

// accumulate multiplies the class statistics by beta and adds those of the
// batch w.Yb with codes w.Xb:
//
//	A ← βA + XXᵀ,  B ← βB + Ȳ·M(X)ᵀ,  Ȳ = Y − D0X0,
//
// and the class sums of the codes, their counts, Σx0 and the sample count.
func (w *work) accumulate(s *state, beta float64) {
	d, K, k0 := s.d, s.K(), s.k0()
	_, b := w.Yb.Dims()
	X := w.Xb.Slice(0, K, 0, b)
	gemm(gblas.NoTrans, gblas.Trans, 1, X, X, beta, &s.A)
	Ybar := reuse(&w.V, d, b)
	Ybar.Copy(&w.Yb)
	if k0 > 0 {
		gemm(gblas.NoTrans, gblas.NoTrans, -1, &s.D0, w.Xb.Slice(K, K+k0, 0, b), 1, Ybar)
	}
	MX := reuse(&w.MX, K, b)
	MX.Copy(X)
	blas.DoubleDiagBlocks(MX.RawMatrix(), s.part, w.sp)
	gemm(gblas.NoTrans, gblas.Trans, 1, Ybar, MX, beta, &s.B)
	xr := w.Xb.RawMatrix()
	C := len(s.labels)
	for c := 0; c < C; c++ {
		lo, hi := w.sp[c], w.sp[c+1]
		for i := 0; i < K; i++ {
			v := beta * s.S.At(i, c)
			for _, x := range xr.Data[i*xr.Stride+lo : i*xr.Stride+hi] {
				v += x
			}
			s.S.Set(i, c, v)
		}
		s.n[c] = beta*s.n[c] + float64(hi-lo)
	}
	for i := 0; i < k0; i++ {
		v := beta * s.s0[i]
		for _, x := range xr.Data[(K+i)*xr.Stride : (K+i)*xr.Stride+b] {
			v += x
		}
		s.s0[i] = v
	}
	s.n0 = beta*s.n0 + float64(b)
}

// k0 returns the number of shared atoms.
func (s *state) k0() int {
	if s.D0.IsEmpty() {
		return 0
	}
	return s.D0.RawMatrix().Cols
}

// dStep updates D by LRSDL-D on the accumulated statistics:
//
//	D = argmin −2tr(B·Dᵀ) + tr(M(A)·DᵀD),  ‖d_i‖₂ ≤ 1,
//
// by ODL column updates from the current D.
func (w *work) dStep(ctx context.Context, s *state, p *params) error {
	K := s.K()
	F := reuse(&w.F, K, K)
	F.Copy(&s.A)
	blas.DoubleDiagBlocks(F.RawMatrix(), s.part, s.part)
	return w.odl.UpdateContext(ctx, &s.D, &s.B, F, core.UpdateDictOptions{MaxIter: p.dIters})
}

// accumulate0 multiplies the shared statistics by beta and adds the
// batch's, with the class atoms just updated:
//
//	A0 ← βA0 + X0X0ᵀ,  B0 ← βB0 + V·X0ᵀ,  V = Y − ½D·M(X).
//
// w.MX must hold M(X) (accumulate leaves it there).
func (w *work) accumulate0(s *state, beta float64) {
	d, K, k0 := s.d, s.K(), s.k0()
	_, b := w.Yb.Dims()
	X0 := w.Xb.Slice(K, K+k0, 0, b)
	gemm(gblas.NoTrans, gblas.Trans, 1, X0, X0, beta, &s.A0)
	V := reuse(&w.V, d, b)
	V.Copy(&w.Yb)
	gemm(gblas.NoTrans, gblas.NoTrans, -0.5, &s.D, &w.MX, 1, V)
	gemm(gblas.NoTrans, gblas.Trans, 1, V, X0, beta, &s.B0)
}

// d0Step updates D0 by LRSDL-D0 on the accumulated statistics:
//
//	D0 = argmin −2tr(B0·D0ᵀ) + tr(A0·D0ᵀD0) + η‖D0‖_*,  ‖d_i‖₂ ≤ 1,
//
// by ADMM with singular value thresholding (eqs. lrsdl_d0_1..4) from the
// current D0, keeping the result only if it lowers the objective; by ODL
// when η = 0.
func (w *work) d0Step(ctx context.Context, s *state, p *params) error {
	k0 := s.k0()
	uo := core.UpdateDictOptions{MaxIter: p.dIters}
	if p.eta == 0 {
		return w.odl.UpdateContext(ctx, &s.D0, &s.B0, &s.A0, uo)
	}
	Dn := reuse(&w.Dn, s.d, k0)
	Dn.Copy(&s.D0)
	var tr float64
	for i := 0; i < k0; i++ {
		tr += s.A0.At(i, i)
	}
	// The penalty is on the scale of the quadratic term, as in batch LRSDL.
	rho := math.Max(2*tr/float64(k0), 1e-3) / 8
	eta := p.eta
	prox := func(z, v *mat.Dense, rho float64) {
		if _, err := w.svt.SVT(z, v, eta/rho); err != nil {
			z.Scale(math.NaN(), v)
		}
	}
	uo.MaxIter = min(uo.MaxIter, 2)
	if err := w.admm.Update(ctx, Dn, &s.B0, &s.A0, prox, core.ADMMOptions{Rho: rho, MaxIter: p.admmIts, Update: uo}); err != nil {
		return err
	}
	if w.phi0(Dn, s, eta) < w.phi0(&s.D0, s, eta) {
		s.D0.Copy(Dn)
	}
	return nil
}

// phi0 returns the D0 step's objective at D0.
func (w *work) phi0(D0 *mat.Dense, s *state, eta float64) float64 {
	return core.DictObjective(D0, &s.B0, &s.A0) + eta*w.svt.NuclearNorm(D0)
}
