package core

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
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
