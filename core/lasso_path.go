package core

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/internal/parallel"
)

// lassoPathCodes sets X (k×n) to the lasso codes of LassoGram,
//
//	x_j = argmin_x ½xᵀGx − b_jᵀx + λ‖x‖₁,
//
// column by column by the homotopy (LARS-lasso) path of lassoPath.solve.
// The first lassoPathProbe chunks of lassoPathChunk columns always take
// the path; when their paths cost more than ADMM would (lassoPath.work ·
// lassoPathRatio > MaxIter·k² per column: codes too dense), the other
// columns go to LassoADMM with opts, as do the columns whose path needs
// more than lassoPathActive(k) atoms or lassoPathSteps(k) steps or ends off
// the optimality conditions (rounding on a nearly singular G_AA). The
// contents of X are not used. Chunks run on up to GOMAXPROCS goroutines; a
// column's code does not depend on the goroutine that computed it.
func lassoPathCodes(ctx context.Context, X, G, B *mat.Dense, lambda float64, opts LassoOptions) error {
	k, _ := G.Dims()
	_, n := B.Dims()
	if !finiteDense(G) || !squaresFinite(B) {
		return fmt.Errorf("core: lasso Gram matrix or DᵀY: %w", ErrNotFinite)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	g := G.RawMatrix()
	if g.Stride != k { // the path reads rows of G as one slice
		g = mat.DenseCopyOf(G).RawMatrix()
	}
	amax, steps := lassoPathActive(k), lassoPathSteps(k)
	maxIter := opts.MaxIter
	if maxIter <= 0 {
		maxIter = 100
	}
	chunks := (n + lassoPathChunk - 1) / lassoPathChunk
	procs := min(parallel.Procs(), chunks)
	work := make([]*lassoPath, procs)
	failed := make([]bool, n)
	cost := make([]float64, n) // the paths' multiply-adds (lassoPath.work)
	xr, br := X.RawMatrix(), B.RawMatrix()
	code := func(from, to int) error {
		return ForEach(to-from, procs, func(w, ch int) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			p := work[w]
			if p == nil {
				p = newLassoPath(k, amax)
				work[w] = p
			}
			ch += from
			for j := ch * lassoPathChunk; j < min((ch+1)*lassoPathChunk, n); j++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				for i := 0; i < k; i++ {
					p.b[i] = br.Data[i*br.Stride+j]
					xr.Data[i*xr.Stride+j] = 0
				}
				ok := p.solve(g.Data, lambda, steps)
				cost[j] = p.work
				if !ok {
					failed[j] = true
					continue
				}
				for q, a := range p.act[:p.na] {
					xr.Data[a*xr.Stride+j] = p.x[q]
				}
			}
			return nil
		})
	}
	// The first lassoPathProbe chunks decide: when their paths cost more
	// than ADMM would (lassoPathRatio), the other columns go to ADMM.
	probe := min(chunks, lassoPathProbe)
	if err := code(0, probe); err != nil {
		return err
	}
	m := min(n, probe*lassoPathChunk)
	var sum float64
	for _, c := range cost[:m] {
		sum += c
	}
	if sum*lassoPathRatio > float64(m)*float64(maxIter)*float64(k)*float64(k) {
		for j := m; j < n; j++ {
			failed[j] = true
		}
	} else if err := code(probe, chunks); err != nil {
		return err
	}
	var cols []int
	for j, f := range failed {
		if f {
			cols = append(cols, j)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	Bf, Xf := mat.NewDense(k, len(cols), nil), mat.NewDense(k, len(cols), nil)
	for q, j := range cols {
		for i := 0; i < k; i++ {
			Bf.Set(i, q, br.Data[i*br.Stride+j])
		}
	}
	if err := LassoADMM(ctx, Xf, G, Bf, lambda, opts); err != nil {
		return err
	}
	for q, j := range cols {
		for i := 0; i < k; i++ {
			xr.Data[i*xr.Stride+j] = Xf.At(i, q)
		}
	}
	return nil
}

// squaresFinite reports whether the square of every entry of a is finite,
// as FISTA and LassoADMM require of their iterates: codes of data beyond
// the square root of the largest float overflow the residuals they score.
func squaresFinite(a *mat.Dense) bool {
	ar := a.RawMatrix()
	for i := 0; i < ar.Rows; i++ {
		for _, v := range ar.Data[i*ar.Stride : i*ar.Stride+ar.Cols] {
			if !(v*v <= math.MaxFloat64) {
				return false
			}
		}
	}
	return true
}

// lassoPathChunk is the number of columns of one of lassoPathCodes' chunks
// of work; the context is checked before every column.
const lassoPathChunk = 32

// lassoPathProbe is the number of chunks whose paths decide between the
// path and ADMM for the others.
const lassoPathProbe = 2

// lassoPathRatio is the cost of one multiply-add of the path
// (lassoPath.work: G_{:,A}·d and the passes over the k correlations) over
// one of ADMM's Gemm (k² per column and iteration), as measured on
// COIL-100 (bench/NOTES.md, "From the code").
const lassoPathRatio = 8

// lassoPathActive is the largest active set the path of a lasso with k
// atoms may reach before its column goes to ADMM.
func lassoPathActive(k int) int { return min(k, 256) }

// lassoPathSteps is the number of steps after which the path of a lasso
// with k atoms gives its column to ADMM.
func lassoPathSteps(k int) int { return 2*lassoPathActive(k) + 16 }

// lassoPathResync is the number of steps between two recomputations of the
// correlations b − Gx from their definition.
const lassoPathResync = 32

// lassoPathPivot is the smallest squared Cholesky pivot, relative to the
// diagonal of G, of an atom joining the active set; an atom below it is
// (numerically) in the span of the active ones and skipped until the
// active set next changes.
const lassoPathPivot = 1e-10

// lassoPathKKT is the relative tolerance of the final check |c_i| ≤ λ
// of the inactive atoms.
const lassoPathKKT = 1e-9

// lassoPath is the workspace of one homotopy solve on k atoms with at most
// amax active.
type lassoPath struct {
	k, amax int
	vec     bool      // triangular solves by the vector kernels (floats.Dot, AddScaled)
	na      int       // active atoms
	work    float64   // multiply-adds of the last solve, Σ_steps k·(|A| + 4) + |A|²
	leaves  int       // atoms that left the active set in the last solve
	b       []float64 // the right-hand side b = Dᵀy (k)
	c       []float64 // correlations b − Gx (k)
	a       []float64 // G_{:,A}·d (k)
	rows    []float64 // G's rows of the active atoms in order (amax×k)
	l       []float64 // lower Cholesky factor of G_AA (amax×amax)
	act     []int     // the active atoms in order
	pos     []int     // position of each atom in act, −1 if inactive (k)
	skip    []int     // an atom may not enter while skip[i] == epoch (k)
	epoch   int       // number of active-set changes
	s       []float64 // signs of the active atoms (amax)
	x       []float64 // coefficients of the active atoms (amax)
	d       []float64 // direction G_AA⁻¹s (amax)
	t       []float64 // scratch (amax)
}

func newLassoPath(k, amax int) *lassoPath {
	p := &lassoPath{
		k: k, amax: amax,
		b: make([]float64, k), c: make([]float64, k), a: make([]float64, k),
		rows: make([]float64, amax*k), l: make([]float64, amax*amax),
		act: make([]int, amax), pos: make([]int, k), skip: make([]int, k),
		s: make([]float64, amax), x: make([]float64, amax),
		d: make([]float64, amax), t: make([]float64, amax),
	}
	for i := range p.pos {
		p.pos[i] = -1
	}
	return p
}

// solve sets act[:na] and x[:na] to the support and non-zeros of
//
//	argmin_x ½xᵀGx − bᵀx + λ‖x‖₁
//
// for b = p.b and G (k×k, row-major, stride k), following the minimiser
// x(μ) from μ = ‖b‖_∞ (x = 0) down to μ = λ. On the path the correlations
// c = b − Gx(μ) satisfy c_A = μs_A on the active set A and |c_i| ≤ μ off it,
// and x_A(μ) = G_AA⁻¹(b_A − μs_A) moves along d = G_AA⁻¹s_A as μ falls; a
// step ends where an inactive |c_i| reaches μ (i joins A, with the sign of
// c_i), an active x_i reaches zero (i leaves A) or μ = λ. G_AA is kept as
// its Cholesky factor, extended by a row when an atom joins and restored by
// Givens rotations when one leaves. At μ = λ, x_A is recomputed from
// G_AA x_A = b_A − λs_A and the conditions |c_i| ≤ λ(1 + lassoPathKKT) off
// the support and sign(x_A) = s_A are checked. It returns false when they
// fail or the path exceeds amax active atoms or maxSteps steps.
func (p *lassoPath) solve(g []float64, lambda float64, maxSteps int) bool {
	k := p.k
	p.na, p.work, p.leaves = 0, 0, 0
	defer p.clear()
	copy(p.c, p.b)
	mu, j := 0.0, -1
	for i, v := range p.c {
		if math.Abs(v) > mu {
			mu, j = math.Abs(v), i
		}
	}
	if mu <= lambda {
		return true
	}
	if !p.add(g, j, math.Copysign(1, p.c[j])) {
		return false
	}
	const (
		end = iota
		enter
		leave
	)
	left, leftSign := -1, 0.0 // the atom that left at the last step, its sign
	for step := 1; ; step++ {
		if step > maxSteps {
			return false
		}
		na := p.na
		p.work += float64(k*(na+4) + na*na)
		p.direction()
		a := p.a
		clear(a)
		blas.AddCombination(a, na, p.d, 1, p.rows, k)
		gamma, ev, at := mu-lambda, end, -1
		for i, ci := range p.c {
			if p.pos[i] >= 0 || p.skip[i] == p.epoch {
				continue
			}
			// γ_i = (μ ∓ c_i)/(1 ∓ a_i) for positive denominators, where
			// c_i reaches ±μ, compared by products, divided only when
			// smaller. The atom that just left sits at s·μ and moves
			// inwards; it may only reach −s·μ.
			ai := a[i]
			if den := 1 - ai; den > 0 && mu-ci < gamma*den && !(i == left && leftSign > 0) {
				gamma, ev, at = (mu-ci)/den, enter, i
			}
			if den := 1 + ai; den > 0 && mu+ci < gamma*den && !(i == left && leftSign < 0) {
				gamma, ev, at = (mu+ci)/den, enter, i
			}
		}
		for q := 0; q < na; q++ {
			if p.x[q]*p.d[q] < 0 {
				if v := -p.x[q] / p.d[q]; v < gamma {
					gamma, ev, at = v, leave, q
				}
			}
		}
		gamma = max(gamma, 0)
		for q := 0; q < na; q++ {
			p.x[q] += gamma * p.d[q]
		}
		for i, ai := range a {
			p.c[i] -= gamma * ai
		}
		mu -= gamma
		left = -1
		switch ev {
		case end:
			return p.finish(g, lambda)
		case leave:
			left, leftSign = p.act[at], p.s[at]
			p.remove(at)
		case enter:
			if p.na == p.amax {
				return false
			}
			if !p.add(g, at, math.Copysign(1, p.c[at])) {
				p.skip[at] = p.epoch
			}
		}
		if step%lassoPathResync == 0 {
			p.correlations()
		}
	}
}

// add appends atom j with sign s to the active set and a row to the
// Cholesky factor, and reports whether its pivot was large enough
// (lassoPathPivot); if not, nothing changes.
func (p *lassoPath) add(g []float64, j int, s float64) bool {
	k, m, na := p.k, p.amax, p.na
	row := p.l[na*m : na*m+na+1]
	// Solve L·row = G_{A,j}.
	var ss float64
	for q := 0; q < na; q++ {
		v := p.rows[q*k+j]
		lq := p.l[q*m : q*m+q]
		if p.vec {
			v -= floats.Dot(lq, row[:q])
		} else {
			for r, lv := range lq {
				v -= lv * row[r]
			}
		}
		v /= p.l[q*m+q]
		row[q] = v
		ss += v * v
	}
	gjj := g[j*k+j]
	piv := gjj - ss
	if !(gjj > 0) || piv <= lassoPathPivot*gjj {
		return false
	}
	row[na] = math.Sqrt(piv)
	copy(p.rows[na*k:(na+1)*k], g[j*k:(j+1)*k])
	p.act[na], p.s[na], p.x[na] = j, s, 0
	p.pos[j] = na
	p.na++
	p.epoch++
	return true
}

// remove deletes the atom at position q of the active set: its row and
// column leave the Cholesky factor, whose rows below q, shifted up, are
// made lower triangular again by Givens rotations of columns (r, r+1).
func (p *lassoPath) remove(q int) {
	k, m, na := p.k, p.amax, p.na
	p.pos[p.act[q]] = -1
	for r := q; r < na-1; r++ {
		p.act[r], p.s[r], p.x[r] = p.act[r+1], p.s[r+1], p.x[r+1]
		p.pos[p.act[r]] = r
		copy(p.rows[r*k:(r+1)*k], p.rows[(r+1)*k:(r+2)*k])
		copy(p.l[r*m:r*m+r+2], p.l[(r+1)*m:(r+1)*m+r+2])
	}
	for r := q; r < na-1; r++ {
		a, b := p.l[r*m+r], p.l[r*m+r+1]
		h := math.Hypot(a, b)
		cs, sn := a/h, b/h
		for i := r; i < na-1; i++ {
			u, v := p.l[i*m+r], p.l[i*m+r+1]
			p.l[i*m+r] = cs*u + sn*v
			p.l[i*m+r+1] = cs*v - sn*u
		}
		p.l[r*m+r+1] = 0
	}
	p.na--
	p.epoch++
	p.leaves++
}

// direction sets d = G_AA⁻¹s by the Cholesky factor.
func (p *lassoPath) direction() { p.cholSolve(p.d, p.s) }

// cholSolve sets dst = (L·Lᵀ)⁻¹·rhs on the active set.
func (p *lassoPath) cholSolve(dst, rhs []float64) {
	m, na := p.amax, p.na
	t := p.t[:na]
	if p.vec {
		for q := 0; q < na; q++ {
			t[q] = (rhs[q] - floats.Dot(p.l[q*m:q*m+q], t[:q])) / p.l[q*m+q]
		}
		for q := na - 1; q >= 0; q-- {
			v := t[q] / p.l[q*m+q]
			dst[q] = v
			floats.AddScaled(t[:q], -v, p.l[q*m:q*m+q])
		}
		return
	}
	for q := 0; q < na; q++ { // L·t = rhs
		v := rhs[q]
		for r, lv := range p.l[q*m : q*m+q] {
			v -= lv * t[r]
		}
		t[q] = v / p.l[q*m+q]
	}
	for q := na - 1; q >= 0; q-- { // Lᵀ·dst = t, by columns of Lᵀ (rows of L)
		v := t[q] / p.l[q*m+q]
		dst[q] = v
		for r, lv := range p.l[q*m : q*m+q] {
			t[r] -= lv * v
		}
	}
}

// correlations sets c = b − G_{:,A}x_A.
func (p *lassoPath) correlations() {
	copy(p.c, p.b)
	for q := 0; q < p.na; q++ {
		p.t[q] = -p.x[q]
	}
	blas.AddCombination(p.c, p.na, p.t, 1, p.rows, p.k)
}

// finish sets x_A = G_AA⁻¹(b_A − λs_A) and checks the optimality
// conditions: sign(x_A) = s_A and |c_i| ≤ λ(1 + lassoPathKKT) off A.
func (p *lassoPath) finish(g []float64, lambda float64) bool {
	na := p.na
	rhs := p.d[:na]
	for q := 0; q < na; q++ {
		rhs[q] = p.b[p.act[q]] - lambda*p.s[q]
	}
	p.cholSolve(p.x, rhs)
	for q := 0; q < na; q++ {
		if p.x[q]*p.s[q] <= 0 {
			return false
		}
	}
	p.correlations()
	lim := lambda * (1 + lassoPathKKT)
	for i, ci := range p.c {
		if p.pos[i] < 0 && math.Abs(ci) > lim {
			return false
		}
	}
	return true
}

// clear marks every atom inactive for the next solve (act and x keep the
// last support for the caller).
func (p *lassoPath) clear() {
	for _, j := range p.act[:p.na] {
		p.pos[j] = -1
	}
	p.epoch++
}
