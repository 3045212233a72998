package core

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/parallel"
)

// RankOneMetric is the metric M = αI + βuuᵀ (α > 0, β ≥ 0, ‖u‖₂ = 1) of
// FISTA.SolveMetric on each column of X. When the Hessian of h is at most
// I⊗M (M on every column), FISTA in M converges as FISTA with L = 1 on
// M^{1/2}X: with one eigenvalue far above the others, as when the atoms
// share a large mean direction, α can be the bound of the rest of the
// spectrum instead of the top eigenvalue.
type RankOneMetric struct {
	Alpha, Beta float64
	U           []float64
}

// RankOneMajorizer returns a RankOneMetric M with G ≼ M − r·I, for the
// symmetric positive semidefinite matrix G, u of unit norm (an estimate of
// G's top eigenvector) and sigma an upper bound of the largest eigenvalue
// of (I − uuᵀ)G(I − uuᵀ): with ρ = uᵀGu and e = ‖Gu − ρu‖₂,
//
//	M = (σ + e + r)·I + (ρ − σ)·uuᵀ,
//
// since xᵀGx ≤ (ρ + e)a² + (σ + e)‖y‖² for x = au + y, y ⊥ u. It returns
// ok = false when that M is not below the scalar bound (ρ + e + r)·I on
// every direction by at least a factor 2 (no gap worth the metric).
func RankOneMajorizer(G *mat.Dense, u []float64, sigma, r float64) (m RankOneMetric, ok bool) {
	n, _ := G.Dims()
	if len(u) != n {
		panic("core: RankOneMajorizer vector length mismatch")
	}
	gu := make([]float64, n)
	rho := mulVec(gu, G, u)
	var e2 float64
	for i, x := range gu {
		d := x - rho*u[i]
		e2 += d * d
	}
	e := math.Sqrt(e2)
	m = RankOneMetric{Alpha: sigma + e + r, Beta: rho - sigma, U: u}
	if !(m.Alpha > 0) || !(m.Beta >= m.Alpha) || math.IsInf(m.Alpha+m.Beta, 0) {
		return RankOneMetric{}, false
	}
	return m, true
}

// Deflate sets dst to (I − uuᵀ)G(I − uuᵀ) = G − u·gᵀ − g·uᵀ + ρ·uuᵀ, with
// g = Gu and ρ = uᵀg, for a symmetric n×n G and u of unit norm: the matrix
// whose top eigenvalue is RankOneMajorizer's σ. gu (length n) is scratch.
func Deflate(dst, G *mat.Dense, u, gu []float64) {
	n, _ := G.Dims()
	if len(u) != n || len(gu) != n {
		panic("core: Deflate vector length mismatch")
	}
	rho := mulVec(gu, G, u)
	dst.Reset()
	dst.ReuseAs(n, n)
	d, g := dst.RawMatrix(), G.RawMatrix()
	for i := 0; i < n; i++ {
		row, gr := d.Data[i*d.Stride:i*d.Stride+n], g.Data[i*g.Stride:i*g.Stride+n]
		for j := range row {
			row[j] = gr[j] - u[i]*gu[j] - gu[i]*u[j] + rho*u[i]*u[j]
		}
	}
}

// mulVec sets gu = G·u for the n×n G and returns uᵀGu.
func mulVec(gu []float64, G *mat.Dense, u []float64) (rho float64) {
	g := G.RawMatrix()
	for i := range gu {
		gu[i] = floats.Dot(g.Data[i*g.Stride:i*g.Stride+len(u)], u)
		rho += u[i] * gu[i]
	}
	return rho
}

// SolveMetric is Solve with the scalar step 1/L replaced by the metric m:
// each step solves, column by column,
//
//	Z = argmin_Z ⟨∇h(W), Z − W⟩ + ½‖Z − W‖²_M + λ‖Z‖₁
//
// (no per-row weights). With τ = uᵀ(z − w) for a column z, w, g of Z, W,
// ∇h(W), the solution is z = S_{λ/α}(w − g/α − (β/α)τu), where τ is the
// root of the increasing piecewise-linear τ − uᵀ(z(τ) − w), found by
// Newton's method safeguarded by bisection.
func (f *FISTA) SolveMetric(ctx context.Context, x *mat.Dense, grad GradFunc, m RankOneMetric, lambda float64) (int, error) {
	r, _ := x.Dims()
	if !(m.Alpha > 0) || math.IsInf(m.Alpha, 0) || !(m.Beta >= 0) || math.IsInf(m.Beta, 0) {
		return 0, fmt.Errorf("core: FISTA metric needs finite α > 0 and β ≥ 0, have %v and %v", m.Alpha, m.Beta)
	}
	if len(m.U) != r {
		panic("core: FISTA metric vector length mismatch")
	}
	if !(lambda >= 0) {
		return 0, fmt.Errorf("core: FISTA weight λ = %v must be non-negative", lambda)
	}
	f.thr[0] = lambda / m.Alpha
	f.ms.warm = false
	return f.run(ctx, x, grad, 0, f.thr[:], &m)
}

// metricStep holds the per-column workspace of SolveMetric's steps.
type metricStep struct {
	tau, lo, hi, uw, s1, s2 []float64
	done                    []bool
	warm                    bool // tau holds the last step's roots
	job                     metricJob
}

// metricChunk is the number of columns of one chunk of a metric step: the
// chunks depend on the shape alone.
const metricChunk = 64

// metricNewtonMax bounds the Newton-bisection iterations of a column.
const metricNewtonMax = 100

// step performs one fused FISTA step in the metric m on the rows×cols
// buffers, as blas.ProxStep does for a scalar step: g is overwritten.
func (s *metricStep) step(z, w, g []float64, rows, cols int, m RankOneMetric, thr, beta float64) (dz2, z2, rs float64) {
	if len(s.tau) != cols {
		s.warm = false
	}
	if cap(s.tau) < cols {
		s.tau, s.lo, s.hi = make([]float64, cols), make([]float64, cols), make([]float64, cols)
		s.uw, s.s1, s.s2 = make([]float64, cols), make([]float64, cols), make([]float64, cols)
		s.done = make([]bool, cols)
	}
	s.tau, s.lo, s.hi = s.tau[:cols], s.lo[:cols], s.hi[:cols]
	s.uw, s.s1, s.s2, s.done = s.uw[:cols], s.s1[:cols], s.s2[:cols], s.done[:cols]
	j := &s.job
	*j = metricJob{s: s, z: z, w: w, g: g, rows: rows, cols: cols, m: m, thr: thr, beta: beta, part: j.part}
	nc := (cols + metricChunk - 1) / metricChunk
	if cap(j.part) < nc {
		j.part = make([][3]float64, nc)
	}
	j.part = j.part[:nc]
	parallel.For(nc, j, rows*cols*8)
	for _, p := range j.part {
		dz2 += p[0]
		z2 += p[1]
		rs += p[2]
	}
	part := j.part
	*j = metricJob{part: part}
	s.warm = true
	return dz2, z2, rs
}

type metricJob struct {
	s          *metricStep
	z, w, g    []float64
	rows, cols int
	m          RankOneMetric
	thr, beta  float64
	part       [][3]float64
}

// Do runs the step on columns [ch·metricChunk, …) of the buffers.
func (j *metricJob) Do(ch int) {
	s, rows, cols := j.s, j.rows, j.cols
	c0, c1 := ch*metricChunk, min((ch+1)*metricChunk, cols)
	u, thr := j.m.U, j.thr
	k := j.m.Beta / j.m.Alpha
	ia := 1 / j.m.Alpha
	tau, lo, hi, uw, s1, s2, done := s.tau[c0:c1], s.lo[c0:c1], s.hi[c0:c1], s.uw[c0:c1], s.s1[c0:c1], s.s2[c0:c1], s.done[c0:c1]
	// g ← c = w − g/α; uw = uᵀw per column.
	clear(uw)
	for i := 0; i < rows; i++ {
		wr, gr := j.w[i*cols+c0:i*cols+c1], j.g[i*cols+c0:i*cols+c1]
		ui := u[i]
		for q, v := range wr {
			gr[q] = v - gr[q]*ia
			uw[q] += ui * v
		}
	}
	// f(τ) = τ − uᵀz(τ) + uᵀw, increasing with slope 1 + k·Σ_active uᵢ²,
	// from τ₀, the previous step's root (or 0): f(τ₀) brackets the root in
	// [τ₀, τ₀ − f(τ₀)] or [τ₀ − f(τ₀), τ₀].
	if !s.warm {
		clear(tau)
	}
	for q := range done {
		done[q] = false
	}
	for it := 0; ; it++ {
		s.sums(j, c0, c1, k, thr)
		left := 0
		for q := range tau {
			if done[q] {
				continue
			}
			fv := tau[q] - s1[q] + uw[q]
			scale := math.Abs(tau[q]) + math.Abs(s1[q]) + math.Abs(uw[q])
			if it == 0 {
				lo[q], hi[q] = math.Min(tau[q], tau[q]-fv), math.Max(tau[q], tau[q]-fv)
			}
			if fv == 0 || math.Abs(fv) <= 1e-14*scale || it == metricNewtonMax || math.IsNaN(fv) {
				done[q] = true
				continue
			}
			if fv < 0 {
				lo[q] = tau[q]
			} else {
				hi[q] = tau[q]
			}
			next := tau[q] - fv/(1+k*s2[q])
			if !(next >= lo[q] && next <= hi[q]) {
				next = lo[q] + (hi[q]-lo[q])/2
			}
			if next == tau[q] {
				done[q] = true
				continue
			}
			tau[q] = next
			left++
		}
		if left == 0 {
			break
		}
	}
	// z = S_thr(c − kτu), then the momentum step, as blas.ProxStep.
	var a [3]float64
	for i := 0; i < rows; i++ {
		zr, wr, cr := j.z[i*cols+c0:i*cols+c1], j.w[i*cols+c0:i*cols+c1], j.g[i*cols+c0:i*cols+c1]
		ku := k * u[i]
		for q, v := range cr {
			zn := shrink(v-ku*tau[q], thr)
			zo := zr[q]
			d := zn - zo
			a[0] += d * d
			a[1] += zn * zn
			a[2] += (wr[q] - zn) * d
			zr[q] = zn
			wr[q] = zn + j.beta*d
		}
	}
	j.part[ch] = a
}

// sums sets s1 = uᵀz(τ) and s2 = Σ_{zᵢ≠0} uᵢ² for the columns c0..c1−1
// with z(τ) = S_thr(c − kτu), c held in j.g.
func (s *metricStep) sums(j *metricJob, c0, c1 int, k, thr float64) {
	cols, u := j.cols, j.m.U
	tau, s1, s2 := s.tau[c0:c1], s.s1[c0:c1], s.s2[c0:c1]
	clear(s1)
	clear(s2)
	for i := 0; i < j.rows; i++ {
		cr := j.g[i*cols+c0 : i*cols+c1]
		ui := u[i]
		ku := k * ui
		uu := ui * ui
		tau, s1, s2 := tau[:len(cr)], s1[:len(cr)], s2[:len(cr)]
		for q, v := range cr {
			p := shrink(v-ku*tau[q], thr)
			s1[q] += ui * p
			var act float64
			if p != 0 {
				act = uu
			}
			s2[q] += act
		}
	}
}

// shrink returns S_t(v) = sgn(v)·max(|v| − t, 0); NaN stays NaN.
func shrink(v, t float64) float64 { return v - min(max(v, -t), t) }
