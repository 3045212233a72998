package core

import (
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// encodeNewtonWait is the least number of sweeps between two Newton steps
// (taken after a sweep that changed no atom's zero pattern, when
// newtonPays).
const encodeNewtonWait = 2

// encodeNewtonChanged is the most atoms that may join or leave the support
// in the sweep before a Newton step.
const encodeNewtonChanged = 0

// encodeNewtonCost weighs the estimated cost of a Newton step against the
// sweeps it saves.
const encodeNewtonCost = 1.0

// newtonPays reports whether a Newton step on the support of xw is
// expected to cost less than the sweeps it saves: the sweeps left at the
// gap's last rate of decrease (each about m·|A| multiply-adds) against the
// factor's updates (|A|² per atom joining or leaving, at most a
// refactorisation's |A|³/3) and a few solves.
func (w *cdWork) newtonPays(xw []float64, rate, gap, target float64) bool {
	nf, m := w.nf, len(xw)
	a, change := 0, 0
	for p, v := range xw {
		if v != 0 {
			a++
			if nf.pos[w.W[p]] < 0 {
				change++
			}
		}
	}
	for _, i := range nf.act[:nf.na] {
		if p := w.wpos[i]; p < 0 || xw[p] == 0 {
			change++
		}
	}
	fa := float64(a)
	cost := encodeNewtonCost * (min(fa*fa*fa/3, float64(change)*fa*fa) + 4*fa*fa + float64(m)*fa)
	if !(rate < 1) {
		return true
	}
	left := math.Log(target/gap) / math.Log(rate)
	return cost < left*float64(m)*fa
}

// newton moves xw towards the minimiser x_N of the objective on the
// orthant of xw's signs s,
//
//	x_N,A = G_AA⁻¹(b_A − λ s_A) on the support A, zero elsewhere,
//
// with G_AA kept as a Cholesky factor (w.nf) that is updated, not
// refactored, as the support changes. It steps to the point of the segment
// from xw to x_N nearest to x_N before a coefficient changes sign, sets
// that coefficient to zero, drops it from the factor and repeats (at most
// encodeNewtonDrops times); the objective decreases along each segment. It
// updates cw, keeps the old point if the objective (P at xw) did not
// decrease, and reports whether it moved. An atom whose Cholesky pivot is
// too small (in the numerical span of the others: G_AA singular, as when
// the support has more atoms than D has rows) stays out of the factor with
// its coefficient fixed, and the step minimises over the others.
func (w *cdWork) newton(g, gw, bw, cw, xw []float64, yy, lambda, P float64) bool {
	m, nf := len(xw), w.nf
	xe, ce := w.xe[:m], w.ce[:m]
	copy(xe, xw)
	for q := nf.na - 1; q >= 0; q-- {
		if p := w.wpos[nf.act[q]]; p < 0 || xe[p] == 0 {
			nf.remove(q)
		}
	}
	add, fixed := 0, false
	for p, v := range xe {
		if v != 0 && nf.pos[w.W[p]] < 0 {
			add++
		}
	}
	if !(add > encodeRefactor && 2*add > nf.na && w.refactor(g, xe)) {
		// Atoms whose pivot is too small (in the span of the others) stay
		// out of the factor, fixed at their values.
		for p, v := range xe {
			if v != 0 && nf.pos[w.W[p]] < 0 {
				if nf.add(g, w.W[p], math.Copysign(1, v)) {
					continue
				}
				fixed = true
			}
		}
	}
	ue := w.ue[:m]
	if fixed {
		// b_A − G_AF·x_F = c_A + G_AA·x_A at the start (cw), for the atoms
		// F outside the factor, whose coefficients do not change.
		for _, i := range nf.act[:nf.na] {
			p := w.wpos[i]
			row := gw[p*m : (p+1)*m]
			v := cw[p]
			for _, j := range nf.act[:nf.na] {
				r := w.wpos[j]
				v += row[r] * xw[r]
			}
			ue[p] = v
		}
	}
	for drop := 0; drop < encodeNewtonDrops && nf.na > 0; drop++ {
		na := nf.na
		rhs := nf.d[:na]
		for q, i := range nf.act[:na] {
			rhs[q] = w.b[i] - math.Copysign(lambda, xe[w.wpos[i]])
		}
		if fixed {
			for q, i := range nf.act[:na] {
				rhs[q] = ue[w.wpos[i]] - math.Copysign(lambda, xe[w.wpos[i]])
			}
		}
		xn := nf.x[:na]
		nf.cholSolve(xn, rhs)
		t := 1.0
		for q, i := range nf.act[:na] {
			x, v := xe[w.wpos[i]], xn[q]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
			if (x > 0 && v < 0) || (x < 0 && v > 0) {
				t = min(t, x/(x-v))
			}
		}
		for q, i := range nf.act[:na] {
			p := w.wpos[i]
			x := xe[p]
			nx := x + t*(xn[q]-x)
			if (x > 0 && nx <= 0) || (x < 0 && nx >= 0) || (t < 1 && xn[q]*x < 0 && t == x/(x-xn[q])) {
				nx = 0
			}
			xe[p] = nx
		}
		if t == 1 {
			break
		}
		for q := nf.na - 1; q >= 0; q-- {
			if xe[w.wpos[nf.act[q]]] == 0 {
				nf.remove(q)
			}
		}
	}
	copy(ce, bw)
	for q, v := range xe {
		if v != 0 {
			floats.AddScaled(ce, -v, gw[q*m:(q+1)*m])
		}
	}
	if Pe, _ := workGap(bw, ce, xe, yy, lambda); !(Pe <= P) {
		return false
	}
	copy(xw, xe)
	copy(cw, ce)
	return true
}

// encodeRefactor is the number of atoms joining the support from which
// newton refactors G_AA (when they are also more than half of the atoms
// already in the factor) instead of adding them one at a time.
const encodeRefactor = 32

// refactor sets w.nf to the Cholesky factor of G_AA on the support of xe
// (positions in W) by one blocked factorisation, and reports whether G_AA
// is numerically positive definite (lassoPathPivot).
func (w *cdWork) refactor(g, xe []float64) bool {
	nf, k := w.nf, w.k
	for _, i := range nf.act[:nf.na] {
		nf.pos[i] = -1
	}
	nf.na = 0
	nf.epoch++
	m := nf.amax
	for p, v := range xe {
		if v == 0 {
			continue
		}
		i, q := w.W[p], nf.na
		nf.act[q], nf.s[q], nf.x[q] = i, math.Copysign(1, v), 0
		nf.pos[i] = q
		copy(nf.rows[q*k:(q+1)*k], g[i*k:(i+1)*k])
		nf.na++
	}
	a := nf.na
	for q, i := range nf.act[:a] {
		row := g[i*k : (i+1)*k]
		dst := nf.l[q*m : q*m+q+1]
		for r, j := range nf.act[:q+1] {
			dst[r] = row[j]
		}
	}
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: gblas.Lower, N: a, Stride: m, Data: nf.l})
	if ok {
		for q := 0; q < a; q++ {
			if d := nf.l[q*m+q]; !(d*d > lassoPathPivot*g[nf.act[q]*(k+1)]) {
				ok = false
				break
			}
		}
	}
	if !ok {
		for _, i := range nf.act[:a] {
			nf.pos[i] = -1
		}
		nf.na = 0
	}
	return ok
}

// encodeNewtonDrops is the number of sign changes one Newton step may
// resolve by dropping atoms.
const encodeNewtonDrops = 8
