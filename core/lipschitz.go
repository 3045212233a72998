package core

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/parallel"
)

// PowerIter estimates the largest eigenvalue of symmetric positive
// semidefinite matrices by warm-started power iteration. The zero value is
// ready to use; it keeps its vectors between calls, so that calls on
// matrices of the same size allocate nothing and start from the last
// eigenvector estimate.
type PowerIter struct {
	MaxIter int     // iteration limit; zero means 100
	Tol     float64 // relative change of ρ that stops the run; zero means 1e-6

	v, w []float64
	job  gemvJob
}

// MaxEig returns the Rayleigh quotient ρ = vᵀAv (a lower bound of λmax(A))
// and an upper bound
//
//	ub = min(max(ρ + ‖Av − ρv‖₂, maxᵢ aᵢᵢ), ‖A‖_∞).
//
// ‖A‖_∞ (largest absolute row sum) bounds every eigenvalue. ρ + ‖Av − ρv‖₂
// bounds the eigenvalue that v approximates (Weinstein), which is λmax
// unless the start vector is orthogonal to the top eigenvector; it exceeds
// λmax by about ‖Av − ρv‖₂, so ub is a safe and tight Lipschitz constant.
// A cold start is the all-ones vector, or a generic one when all-ones is an
// eigenvector (A has constant row sums, as [a −c; −c a]). Should the start
// still miss the top eigenvector, ρ + ‖Av − ρv‖₂ is raised to the largest
// diagonal entry (at most λmax), and LassoGram, seeing FISTA diverge,
// retries with ‖A‖_∞.
func (p *PowerIter) MaxEig(a *mat.Dense) (rho, ub float64) {
	rho, ub, _ = p.maxEig(context.Background(), a)
	return rho, ub
}

// maxEig is MaxEig returning ctx.Err() when ctx is cancelled, checked
// before every product.
func (p *PowerIter) maxEig(ctx context.Context, a *mat.Dense) (rho, ub float64, err error) {
	n, c := a.Dims()
	if n != c {
		panic("core: PowerIter needs a square matrix")
	}
	if len(p.v) != n {
		p.v = make([]float64, n)
		p.w = make([]float64, n)
	}
	maxIter := p.MaxIter
	if maxIter <= 0 {
		maxIter = 100
	}
	tol := p.Tol
	if tol == 0 {
		tol = 1e-6
	}
	rho, res, err := powerIter(ctx, a, p.v, p.w, maxIter, tol, &p.job)
	if err != nil {
		return 0, 0, err
	}
	inf, diag := p.job.normInf(a)
	return rho, math.Min(math.Max(rho+res, diag), inf), nil
}

// Vector returns the current estimate of the top eigenvector (unit norm)
// that MaxEig leaves, or nil before the first call. It is p's storage:
// copy it to keep it across calls.
func (p *PowerIter) Vector() []float64 { return p.v }

// powerIter runs the power iteration from v with workspace w and returns
// the last Rayleigh quotient and the residual norm ‖Av − ρv‖₂ of the vector
// it was computed from. The products w = Av run through j; ctx is checked
// before each.
func powerIter(ctx context.Context, a *mat.Dense, v, w []float64, maxIter int, tol float64, j *gemvJob) (rho, res float64, err error) {
	n, _ := a.Dims()
	if len(v) != n || len(w) != n {
		panic("core: power iteration vector length mismatch")
	}
	if n == 0 {
		return 0, 0, nil
	}
	var nv float64
	for _, x := range v {
		nv += x * x
	}
	fresh := nv == 0 || math.IsNaN(nv) || math.IsInf(nv, 0)
	if fresh {
		for i := range v {
			v[i] = 1
		}
		nv = float64(n)
	}
	s := 1 / math.Sqrt(nv)
	for i := range v {
		v[i] *= s
	}
	ar := a.RawMatrix()
	vv := blas64.Vector{N: n, Data: v, Inc: 1}
	wv := blas64.Vector{N: n, Data: w, Inc: 1}
	defer j.reset()
	if maxIter < 1 {
		maxIter = 1
	}
	for it := 0; it < maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		j.gemv(ar, v, w)
		nr := blas64.Dot(vv, wv)
		var r2, w2 float64
		for i, x := range w {
			d := x - nr*v[i]
			r2 += d * d
			w2 += x * x
		}
		if fresh && it == 0 && n > 1 && r2 <= 1e-24*w2 {
			// The all-ones start is an eigenvector (A has constant row
			// sums), maybe not the top one: start again from a generic
			// vector, vᵢ = 1 + frac(φ·(i+1)).
			fresh = false
			var nv float64
			for i := range v {
				_, f := math.Modf(math.Phi * float64(i+1))
				v[i] = 1 + f
				nv += v[i] * v[i]
			}
			s := 1 / math.Sqrt(nv)
			for i := range v {
				v[i] *= s
			}
			it--
			continue
		}
		if w2 == 0 {
			return 0, 0, nil
		}
		done := it > 0 && math.Abs(nr-rho) <= tol*math.Abs(nr)
		rho, res = nr, math.Sqrt(r2)
		s := 1 / math.Sqrt(w2)
		for i, x := range w {
			v[i] = x * s
		}
		if done {
			break
		}
	}
	return rho, res, nil
}

// gemvJob computes w = Av and ‖A‖_∞ over fixed chunks of A's rows
// (parallel.Chunks), which parallel.For shares between the cores by their
// n² multiply-adds: a pass over a 1500×1500 Gram matrix streams 18 MB.
// blas64.Gemv computes each row from blocks of four rows counted from the
// first, and the chunks start at multiples of 8, so every wᵢ is the one
// the whole call computes.
type gemvJob struct {
	a    blas64.General
	v, w []float64
	size int
	inf  bool         // Do computes ‖A‖_∞'s part instead of Av
	part [][2]float64 // each chunk's largest row sum and diagonal entry
}

// gemv sets w = Av.
func (j *gemvJob) gemv(a blas64.General, v, w []float64) {
	j.a, j.v, j.w, j.inf = a, v, w, false
	size, count := parallel.Chunks(a.Rows)
	j.size = size
	parallel.For(count, j, a.Rows*a.Cols)
}

// normInf returns ‖A‖_∞ = maxᵢ Σⱼ |aᵢⱼ| and the largest diagonal entry of
// the square matrix A.
func normInf(a *mat.Dense) (norm, diag float64) {
	var j gemvJob
	return j.normInf(a)
}

// normInf is the function normInf with j's workspace.
func (j *gemvJob) normInf(a *mat.Dense) (norm, diag float64) {
	defer j.reset()
	j.a, j.inf = a.RawMatrix(), true
	size, count := parallel.Chunks(j.a.Rows)
	j.size = size
	if cap(j.part) < count {
		j.part = make([][2]float64, count)
	}
	j.part = j.part[:count]
	parallel.For(count, j, j.a.Rows*j.a.Cols)
	for _, p := range j.part {
		norm, diag = math.Max(norm, p[0]), math.Max(diag, p[1])
	}
	return norm, diag
}

// reset drops j's references to the caller's data.
func (j *gemvJob) reset() { j.a, j.v, j.w = blas64.General{}, nil, nil }

// Do computes rows [ch·size, …) of Av, or their part of ‖A‖_∞.
func (j *gemvJob) Do(ch int) {
	a := j.a
	r0, r1 := ch*j.size, min((ch+1)*j.size, a.Rows)
	if !j.inf {
		blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: r1 - r0, Cols: a.Cols, Stride: a.Stride, Data: a.Data[r0*a.Stride:]},
			blas64.Vector{N: a.Cols, Data: j.v, Inc: 1}, 0, blas64.Vector{N: r1 - r0, Data: j.w[r0:r1], Inc: 1})
		return
	}
	var norm, diag float64
	for i := r0; i < r1; i++ {
		var s float64
		row := a.Data[i*a.Stride : i*a.Stride+a.Cols]
		for _, x := range row {
			s += math.Abs(x)
		}
		norm = math.Max(norm, s)
		diag = math.Max(diag, row[i])
	}
	j.part[ch] = [2]float64{norm, diag}
}
