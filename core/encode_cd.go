package core

import (
	"math"
	"slices"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// andersonM is the number of differences of iterates Anderson
// extrapolation combines.
const andersonM = 5

// encodeMinWorking is the smallest number of atoms a working set grows by.
const encodeMinWorking = 64

// cdWork is the workspace of the coordinate-descent solve of one column on
// k atoms.
type cdWork struct {
	k       int
	b, x, c []float64 // Dᵀy, the code and the correlations b − Gx (k)
	kept    []bool    // atoms not screened out (k)
	inW     []bool    // atoms in the working set (k)
	W       []int     // the working set
	cand    []int     // candidates to enter the working set
	gw      []float64 // G restricted to W (m×m)
	bw, cw  []float64 // b and c restricted to W (m)
	xw      []float64 // the code restricted to W (m)
	hist    [andersonM + 1][]float64
	xe, ce  []float64 // extrapolated code and its correlations (m)
	ue      []float64 // b − G_{:,F}x_F of a Newton step with fixed atoms F (m)
	lp      *lassoPath
	wpos    []int      // position of each atom in W, −1 if absent (k)
	nf      *lassoPath // Cholesky factor of G_AA on the support (Newton steps)
}

func newCDWork(k int) *cdWork {
	w := &cdWork{
		k: k,
		b: make([]float64, k), x: make([]float64, k), c: make([]float64, k),
		kept: make([]bool, k), inW: make([]bool, k),
		W: make([]int, 0, k), cand: make([]int, 0, k),
		wpos: make([]int, k),
	}
	for i := range w.wpos {
		w.wpos[i] = -1
	}
	return w
}

// soft is the soft-thresholding S_t(v) = sign(v)·max(|v| − t, 0).
func soft(v, t float64) float64 {
	if v > t {
		return v - t
	}
	if v < -t {
		return v + t
	}
	return 0
}

// gapParts returns the primal objective P = ½‖y − Dx‖² + λ‖x‖₁, the
// duality gap at the dual point θ = s·(y − Dx) with s = min(1, λ/cmax),
// and s, from bx = bᵀx, cx = cᵀx, l1 = ‖x‖₁ and cmax = ‖c‖_∞ (c = b − Gx):
// ‖y − Dx‖² = yy − bᵀx − cᵀx and the dual objective is
// s·(yy − bᵀx) − ½s²‖y − Dx‖².
func gapParts(yy, bx, cx, l1, cmax, lambda float64) (P, gap, s float64) {
	rr := max(yy-bx-cx, 0)
	P = 0.5*rr + lambda*l1
	s = 1
	if cmax > lambda {
		s = lambda / cmax
	}
	dual := s*(yy-bx) - 0.5*s*s*rr
	return P, max(P-dual, 0), s
}

// gradient sets c = b − Gx from the non-zeros of x.
func (w *cdWork) gradient(g []float64) {
	k := w.k
	copy(w.c, w.b)
	for j, v := range w.x {
		if v != 0 {
			floats.AddScaled(w.c, -v, g[j*k:(j+1)*k])
		}
	}
}

// fullGap is gapParts over the atoms not screened out.
func (w *cdWork) fullGap(yy, lambda float64) (P, gap, s float64) {
	var bx, cx, l1, cmax float64
	for i, keep := range w.kept {
		if !keep {
			continue
		}
		ci := w.c[i]
		cmax = max(cmax, math.Abs(ci))
		if xi := w.x[i]; xi != 0 {
			bx += w.b[i] * xi
			cx += ci * xi
			l1 += math.Abs(xi)
		}
	}
	return gapParts(yy, bx, cx, l1, cmax, lambda)
}

// workGap is gapParts of the problem restricted to the working set.
func workGap(bw, cw, xw []float64, yy, lambda float64) (P, gap float64) {
	var bx, cx, l1, cmax float64
	for p, xi := range xw {
		ci := cw[p]
		cmax = max(cmax, math.Abs(ci))
		if xi != 0 {
			bx += bw[p] * xi
			cx += ci * xi
			l1 += math.Abs(xi)
		}
	}
	P, gap, _ = gapParts(yy, bx, cx, l1, cmax, lambda)
	return P, gap
}

// solve codes one column (b in w.b, the start in w.x) by coordinate descent
// over working sets: at each outer iteration it computes c = b − Gx, the
// duality gap (stopping when gap ≤ Tol·P), screens out the atoms the
// gap-safe sphere test proves zero at the optimum (Fercoq, Gramfort and
// Salmon 2015; Ndiaye et al. 2017: |d_iᵀθ*| < λ ⇒ x_i* = 0, and
// ‖θ* − θ‖ ≤ √(2·gap) by the 1-strong concavity of the dual), and grows the
// working set by the atoms that violate |c_i| ≤ λ most (at least
// encodeMinWorking, at most the size of the set). Cyclic coordinate descent
// on the working set, with Anderson extrapolation every andersonM sweeps
// (accepted when it lowers the objective), runs until the restricted gap is
// below max(0.3·gap, 0.5·Tol·P). The result is left in w.x.
func (w *cdWork) solve(g, norm []float64, yy, lambda float64, o *EncodeOptions) colStat {
	k := w.k
	var st colStat
	for i := range w.kept {
		w.kept[i] = norm[i] > 0
		if !w.kept[i] {
			w.x[i] = 0
		}
		w.inW[i] = false
	}
	w.W = w.W[:0]
	if w.nf == nil {
		w.nf = newLassoPath(k, k)
		w.nf.vec = true
	}
	w.nf.clear()
	w.nf.na = 0
	w.gradient(g)
	for outer := 0; ; outer++ {
		P, gap, s := w.fullGap(yy, lambda)
		st.primal, st.gap = P, gap
		if gap <= o.Tol*P {
			return st
		}
		if outer >= o.MaxOuter || st.sweeps >= o.MaxSweeps {
			st.capped = true
			return st
		}
		st.outer++
		if !o.NoScreening {
			r := math.Sqrt(2 * gap)
			for i, keep := range w.kept {
				if keep && w.x[i] == 0 && s*math.Abs(w.c[i])+norm[i]*r < lambda {
					w.kept[i] = false
					st.screened++
				}
			}
		}
		// The new working set: the old one less the screened atoms, the
		// support, and the worst violators.
		W := w.W[:0]
		for _, i := range w.W {
			if w.kept[i] {
				W = append(W, i)
			} else {
				w.inW[i] = false
			}
		}
		for i, v := range w.x {
			if v != 0 && !w.inW[i] {
				w.inW[i] = true
				W = append(W, i)
			}
		}
		cand := w.cand[:0]
		for i, keep := range w.kept {
			if keep && !w.inW[i] && math.Abs(w.c[i]) > lambda {
				cand = append(cand, i)
			}
		}
		all := true
		if p := max(encodeMinWorking, len(W)); len(cand) > p {
			all = false
			c := w.c
			slices.SortFunc(cand, func(a, b int) int {
				ca, cb := math.Abs(c[a]), math.Abs(c[b])
				switch {
				case ca > cb:
					return -1
				case ca < cb:
					return 1
				}
				return a - b
			})
			cand = cand[:p]
		}
		for _, i := range cand {
			w.inW[i] = true
			W = append(W, i)
		}
		w.W, w.cand = W, cand
		// With every violator in the working set, solve it to the final
		// tolerance; otherwise only far enough to grow it again.
		target := 0.5 * o.Tol * P
		if !all {
			target = max(0.3*gap, target)
		}
		w.inner(g, yy, lambda, target, o, &st)
		w.gradient(g)
	}
}

// inner runs coordinate descent on the working set w.W from w.x until the
// restricted gap is at most target or the sweep cap, and writes the code
// back into w.x.
func (w *cdWork) inner(g []float64, yy, lambda, target float64, o *EncodeOptions, st *colStat) {
	k, m := w.k, len(w.W)
	w.gw = grow(w.gw, m*m)
	w.bw, w.cw, w.xw = grow(w.bw, m), grow(w.cw, m), grow(w.xw, m)
	gw, bw, cw, xw := w.gw[:m*m], w.bw[:m], w.cw[:m], w.xw[:m]
	for p, i := range w.W {
		w.wpos[i] = p
		row := g[i*k : (i+1)*k]
		dst := gw[p*m : (p+1)*m]
		for q, j := range w.W {
			dst[q] = row[j]
		}
		bw[p], cw[p], xw[p] = w.b[i], w.c[i], w.x[i]
	}
	nh := 0
	w.xe, w.ce, w.ue = grow(w.xe, m), grow(w.ce, m), grow(w.ue, m)
	if !o.NoAnderson {
		for h := range w.hist {
			w.hist[h] = grow(w.hist[h], m)
		}
		copy(w.hist[0][:m], xw)
		nh = 1
	}
	since, prevGap := 0, math.Inf(1)
	for st.sweeps < o.MaxSweeps {
		changed := 0
		for p := range xw {
			gpp := gw[p*m+p]
			old := xw[p]
			nw := soft(cw[p]+gpp*old, lambda) / gpp
			if nw != old {
				if nw == 0 || old == 0 {
					changed++
				}
				xw[p] = nw
				floats.AddScaled(cw, old-nw, gw[p*m:(p+1)*m])
			}
		}
		st.sweeps++
		since++
		P, gap := workGap(bw, cw, xw, yy, lambda)
		if gap <= target {
			break
		}
		rate := gap / prevGap
		prevGap = gap
		if changed <= encodeNewtonChanged && since >= encodeNewtonWait && !o.NoNewton && w.newtonPays(xw, rate, gap, target) {
			// A stable support: solve for it directly.
			since = 0
			if w.newton(g, gw, bw, cw, xw, yy, lambda, P) {
				st.newton++
				if P, gap = workGap(bw, cw, xw, yy, lambda); gap <= target {
					break
				}
			}
			nh = min(nh, 1)
			if nh == 1 {
				copy(w.hist[0][:m], xw)
			}
			continue
		}
		if o.NoAnderson {
			continue
		}
		copy(w.hist[nh][:m], xw)
		nh++
		if nh == andersonM+1 {
			w.extrapolate(gw, bw, cw, xw, yy, lambda, P)
			copy(w.hist[0][:m], xw)
			nh = 1
		}
	}
	for p, i := range w.W {
		w.x[i] = xw[p]
		w.wpos[i] = -1
	}
}

// extrapolate tries the Anderson extrapolation of the last andersonM+1
// iterates in w.hist, x_e = Σ_i a_i x_{i+1} with Σa_i = 1 minimising
// ‖Σ_i a_i (x_{i+1} − x_i)‖, and keeps it in xw (and its correlations in
// cw) when its objective is below P, that of xw.
func (w *cdWork) extrapolate(gw, bw, cw, xw []float64, yy, lambda, P float64) {
	m := len(xw)
	const M = andersonM
	var A [M][M]float64
	for i := 0; i < M; i++ {
		hi0, hi1 := w.hist[i][:m], w.hist[i+1][:m]
		for j := i; j < M; j++ {
			hj0, hj1 := w.hist[j][:m], w.hist[j+1][:m]
			var s float64
			for p := range hi0 {
				s += (hi1[p] - hi0[p]) * (hj1[p] - hj0[p])
			}
			A[i][j], A[j][i] = s, s
		}
	}
	var tr float64
	for i := 0; i < M; i++ {
		tr += A[i][i]
	}
	if tr == 0 {
		return
	}
	for i := 0; i < M; i++ {
		A[i][i] += 1e-10 * tr
	}
	var z [M]float64
	for i := range z {
		z[i] = 1
	}
	// Gaussian elimination with partial pivoting on the small system.
	for c := 0; c < M; c++ {
		piv := c
		for r := c + 1; r < M; r++ {
			if math.Abs(A[r][c]) > math.Abs(A[piv][c]) {
				piv = r
			}
		}
		if A[piv][c] == 0 {
			return
		}
		A[c], A[piv] = A[piv], A[c]
		z[c], z[piv] = z[piv], z[c]
		for r := c + 1; r < M; r++ {
			f := A[r][c] / A[c][c]
			for q := c; q < M; q++ {
				A[r][q] -= f * A[c][q]
			}
			z[r] -= f * z[c]
		}
	}
	for c := M - 1; c >= 0; c-- {
		s := z[c]
		for q := c + 1; q < M; q++ {
			s -= A[c][q] * z[q]
		}
		z[c] = s / A[c][c]
	}
	var sum float64
	for _, v := range z {
		sum += v
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return
	}
	xe, ce := w.xe[:m], w.ce[:m]
	clear(xe)
	for i := 0; i < M; i++ {
		floats.AddScaled(xe, z[i]/sum, w.hist[i+1][:m])
	}
	copy(ce, bw)
	for q, v := range xe {
		if v != 0 {
			floats.AddScaled(ce, -v, gw[q*m:(q+1)*m])
		}
	}
	Pe, _ := workGap(bw, ce, xe, yy, lambda)
	if Pe < P {
		copy(xw, xe)
		copy(cw, ce)
	}
}

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

// encodePathSteps·k + 16 is the number of steps after which the path of a
// column on k atoms gives up (for AlgoCD to finish).
const encodePathSteps = 4

// path codes one column by the homotopy path of lassoPath.solve and
// certifies the result with solve, which also finishes (from zero) a
// column whose path fails.
func (w *cdWork) path(g, norm []float64, yy, lambda float64, o *EncodeOptions) colStat {
	if w.lp == nil {
		w.lp = newLassoPath(w.k, w.k)
		w.lp.vec = true
	}
	copy(w.lp.b, w.b)
	ok := w.lp.solve(g, lambda, encodePathSteps*w.k+16)
	clear(w.x)
	if ok {
		for q, a := range w.lp.act[:w.lp.na] {
			w.x[a] = w.lp.x[q]
		}
	}
	st := w.solve(g, norm, yy, lambda, o)
	st.fallback = !ok
	return st
}
