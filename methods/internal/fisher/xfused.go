package fisher

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// xfused runs the X step's FISTA (core.FISTA.Solve with xstep.grad, the
// same iterates up to rounding) fused over chunks of columns: each chunk's
// product H·W̄, per-class terms, step and class sums of the new W̄ run while
// its columns are in cache (blas.ProxRangeShift takes −B and the mean
// terms inside the step). Two halves of the chunks, one goroutine each when
// two cores are free, meet once per iteration; the class sums are
// double-buffered so that a half reads the last iteration's while the
// other writes the next. On one core the halves run in turn, with the same
// operations, so results do not depend on GOMAXPROCS.
//
// It runs where it pays (useFused; BenchmarkLRSDLXSolveARGender).
type xfused struct {
	s          *xstep
	kb, n      int
	size, half int // columns per chunk; chunks of half 0
	w, g       []float64
	z, b       []float64 // the solve's Xb and s.B
	sw         []*blas.SparseWorkspace
	// Piece p is class pc[p]'s columns [plo[p], phi[p]); chunk q holds
	// pieces first[q] to first[q+1]−1.
	pc, plo, phi, first []int
	sums                [2][]float64 // [k&1][p·kb + i]: Σ of W̄'s row i over piece p
	cs, off             [2][]float64 // by half: class sums (C·kb), mean terms
	mean                [2][]float64
	part                [2][][3]float64 // [k&1][chunk]: the step's sums
	_                   [64]byte
	phase               [2]atomic.Int64
	_                   [64]byte
}

// fusedChunkElems is the target size of a chunk of W̄ in elements (128 KB):
// a chunk's W̄, G, Z and B then stay in a core's L2.
const fusedChunkElems = 16384

// fusedMaxK, fusedMaxElems and fusedMinClass bound the problems whose X
// step runs fused: K̄ ≤ fusedMaxK, since every chunk's product reads all of
// H; K̄·N ≤ fusedMaxElems; and N ≥ fusedMinClass·C, since the step runs per
// row and class within a chunk (BenchmarkLRSDLXSolve100,
// BenchmarkLRSDLXSolveShapes).
const (
	fusedMaxK     = 128
	fusedMaxElems = 400 << 10
	fusedMinClass = 48
)

// useFused reports whether the X step of s runs fused: where it can (the
// product by H over all N columns) and, unless s.set.XStep says
// otherwise, where it pays.
func useFused(s *xstep) bool {
	if s.T != nil || s.col0 != 0 || s.set.XStep == dl.XStepShared {
		return false
	}
	kb, C := s.K+s.k0, s.sp.Blocks()
	return s.set.XStep == dl.XStepFused || C >= 2 && kb <= fusedMaxK && kb*s.N <= fusedMaxElems && s.N >= fusedMinClass*C
}

func (x *xfused) setup(s *xstep) {
	x.s = s
	x.kb, x.n = s.K+s.k0, s.N
	kb, N := x.kb, x.n
	target := min(max(fusedChunkElems/kb, 32), 512)
	nch := 2 * ((N + 2*target - 1) / (2 * target))
	x.size = ((N+nch-1)/nch + 7) &^ 7
	nch = (N + x.size - 1) / x.size
	x.half = (nch + 1) / 2
	x.w, x.g = resize(x.w, kb*N), resize(x.g, kb*N)
	if len(x.sw) != nch {
		x.sw = make([]*blas.SparseWorkspace, nch)
	}
	x.pc, x.plo, x.phi, x.first = x.pc[:0], x.plo[:0], x.phi[:0], x.first[:0]
	c := 0
	for q := 0; q < nch; q++ {
		lo, hi := q*x.size, min((q+1)*x.size, N)
		if w := x.sw[q]; w == nil || !sameDims(w, kb, hi-lo) {
			x.sw[q] = blas.NewSparseWorkspace(kb, hi-lo)
		}
		x.first = append(x.first, len(x.pc))
		for r := lo; r < hi; {
			for s.sp[c+1] <= r {
				c++
			}
			e := min(hi, s.sp[c+1])
			x.pc, x.plo, x.phi = append(x.pc, c), append(x.plo, r), append(x.phi, e)
			r = e
		}
	}
	x.first = append(x.first, len(x.pc))
	C := s.sp.Blocks()
	for h := range 2 {
		x.sums[h] = resize(x.sums[h], len(x.pc)*kb)
		x.cs[h], x.off[h], x.mean[h] = resize(x.cs[h], C*kb), resize(x.off[h], C*kb), resize(x.mean[h], kb)
		if len(x.part[h]) != nch {
			x.part[h] = make([][3]float64, nch)
		}
	}
}

func sameDims(sw *blas.SparseWorkspace, r, c int) bool {
	rr, cc := sw.Dims()
	return rr == r && cc == c
}

func resize(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// solve is f.Solve(ctx, Xb, s.grad, L, lambda, nil) for the xstep of the
// last setup (f's MaxIter, Tol and Restart apply).
func (x *xfused) solve(ctx context.Context, f *core.FISTA, Xb *mat.Dense, L, lambda float64) error {
	if err := core.CheckStep(L, lambda); err != nil {
		return err
	}
	s, kb, N := x.s, x.kb, x.n
	x.z, x.b = Xb.RawMatrix().Data[:kb*N], s.B.RawMatrix().Data[:kb*N]
	defer func() { x.z, x.b = nil, nil }()
	copy(x.w, x.z)
	transposeOnce(&s.ht, &s.hbuf, s.H.RawMatrix())
	for p := range x.pc {
		x.pieceSums(x.sums[0], p)
	}
	if parallel.Procs() < 2 || x.half == len(x.first)-1 || kb*kb*N < parallel.MinWork {
		return x.run(ctx, f, L, lambda, 0, 2, false)
	}
	x.phase[0].Store(0)
	x.phase[1].Store(0)
	done := make(chan error, 1)
	go parallel.Job(func() { done <- x.run(ctx, f, L, lambda, 1, 2, true) })
	var err error
	parallel.Job(func() { err = x.run(ctx, f, L, lambda, 0, 1, true) })
	if e := <-done; err == nil {
		err = e
	}
	return err
}

// pieceSums sets sums[p·kb + i] to the sum of W̄'s row i over piece p.
func (x *xfused) pieceSums(sums []float64, p int) {
	lo, hi := x.plo[p], x.phi[p]
	for i := 0; i < x.kb; i++ {
		sums[p*x.kb+i] = floats.Sum(x.w[i*x.n+lo : i*x.n+hi])
	}
}

// chunks returns the chunks of half h.
func (x *xfused) chunks(h int) (q0, q1 int) {
	if h == 0 {
		return 0, x.half
	}
	return x.half, len(x.first) - 1
}

// run is core.FISTA's loop over halves h0 to h1−1; with sync, the other
// halves run on another goroutine and the two meet at every iteration.
// Both take every decision from the same sums, so they stop together.
func (x *xfused) run(ctx context.Context, f *core.FISTA, L, lambda float64, h0, h1 int, sync bool) error {
	maxIter, tol := f.Limits()
	step, thr := 1/L, lambda/L
	t, prev := 1.0, math.Inf(1)
	cur := x.sums[0]
	nch := len(x.first) - 1
	for k := 1; k <= maxIter; k++ {
		if h0 == 0 {
			if err := ctx.Err(); err != nil {
				if sync {
					x.phase[0].Store(math.MaxInt64)
				}
				return err
			}
		}
		tn := (1 + math.Sqrt(1+4*t*t)) / 2
		beta := (t - 1) / tn
		b := k & 1
		for h := h0; h < h1; h++ {
			x.iterate(h, cur, b, step, thr, beta)
		}
		if sync && !x.meet(h0, 2*int64(k)) {
			return ctx.Err()
		}
		var dz2, z2, rs float64
		for q := 0; q < nch; q++ {
			p := &x.part[b][q]
			dz2 += p[0]
			z2 += p[1]
			rs += p[2]
		}
		if !(dz2 <= math.MaxFloat64 && z2 <= math.MaxFloat64) {
			return fmt.Errorf("core: FISTA iterate %d: %w", k, core.ErrNotFinite)
		}
		t = tn
		cur = x.sums[b]
		if f.Restart && rs > 0 {
			t = 1
			for h := h0; h < h1; h++ {
				q0, q1 := x.chunks(h)
				lo, hi := q0*x.size, min(q1*x.size, x.n)
				for i := 0; i < x.kb; i++ {
					copy(x.w[i*x.n+lo:i*x.n+hi], x.z[i*x.n+lo:i*x.n+hi])
				}
				for p := x.first[q0]; p < x.first[q1]; p++ {
					x.pieceSums(cur, p)
				}
			}
			if sync && !x.meet(h0, 2*int64(k)+1) {
				return ctx.Err()
			}
		}
		if core.StepConverged(k, dz2, prev, z2, tol) {
			return nil
		}
		prev = dz2
	}
	return nil
}

// meet marks half h at phase ph and waits for the other half to reach it;
// false if the other half stopped (context cancelled).
func (x *xfused) meet(h int, ph int64) bool {
	x.phase[h].Store(ph)
	o := &x.phase[1-h]
	for n := 0; ; n++ {
		switch v := o.Load(); {
		case v == math.MaxInt64:
			return false
		case v >= ph:
			return true
		}
		if n >= 1<<12 {
			runtime.Gosched()
		}
	}
}

// iterate runs one FISTA iteration on the chunks of half h from the class
// sums cur of W̄, writing the new W̄'s piece sums into sums[b] and the
// step's sums into part[b].
func (x *xfused) iterate(h int, cur []float64, b int, step, thr, beta float64) {
	s, kb, K, N := x.s, x.kb, x.s.K, x.n
	q0, q1 := x.chunks(h)
	if q0 == q1 {
		return
	}
	x.meanTerms(h, cur, x.pc[x.first[q0]], x.pc[x.first[q1]-1]+1)
	off := x.off[h]
	hm, gr := s.H.RawMatrix(), s.gram.RawMatrix()
	G := blas64.General{Rows: kb, Cols: N, Stride: N, Data: x.g}
	W := blas64.General{Rows: kb, Cols: N, Stride: N, Data: x.w}
	next := x.sums[b]
	for q := q0; q < q1; q++ {
		lo, hi := q*x.size, min((q+1)*x.size, N)
		x.sw[q].MulAT(sub(G, 0, kb, lo, hi), hm, s.ht, sub(W, 0, kb, lo, hi))
		for p := x.first[q]; p < x.first[q+1] && s.k0 > 0; p++ {
			// The diagonal blocks of M(Q·X0) and Qᵀ·M(X).
			c, plo, phi := x.pc[p], x.plo[p], x.phi[p]
			a0, a1 := s.ap.Block(c)
			Qc := sub(gr, a0, a1, K, kb)
			if !s.useBlockGemm((a1 - a0) * s.k0 * (phi - plo)) {
				addMul(sub(G, a0, a1, plo, phi), Qc, sub(W, K, kb, plo, phi), false)
				addMul(sub(G, K, kb, plo, phi), Qc, sub(W, a0, a1, plo, phi), true)
			} else {
				blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, Qc, sub(W, K, kb, plo, phi), 1, sub(G, a0, a1, plo, phi))
				blas64.Gemm(gblas.Trans, gblas.NoTrans, 1, Qc, sub(W, a0, a1, plo, phi), 1, sub(G, K, kb, plo, phi))
			}
		}
		// The step on G − B + mean terms, row by row over each piece.
		var ps blas.ProxSums
		for i := 0; i < kb; i++ {
			for p := x.first[q]; p < x.first[q+1]; p++ {
				r0, r1 := i*N+x.plo[p], i*N+x.phi[p]
				next[p*kb+i] = blas.ProxRangeShift(x.z[r0:r1], x.w[r0:r1], x.g[r0:r1], x.b[r0:r1], off[x.pc[p]*kb+i], step, thr, beta, &ps)
			}
		}
		dz2, z2, rs := ps.Sums()
		x.part[b][q] = [3]float64{dz2, z2, rs}
	}
}

// meanTerms sets off[c·kb + i] of half h, for its classes c0 to c1−1, to
// the shift of row i of the gradient on class c, from W̄'s piece sums cur:
// λ2(m_i − 2m_ic) on the rows of X, −λ2·m_i on the rows of X0, with m
// the mean over all N columns and m_c class c's (xstep.meanOffsets).
func (x *xfused) meanTerms(h int, cur []float64, c0, c1 int) {
	s, kb, K := x.s, x.kb, x.s.K
	cs, mean, off, l2 := x.cs[h], x.mean[h], x.off[h], s.lambda2
	if l2 == 0 {
		clear(off)
		return
	}
	clear(cs)
	for p, c := range x.pc {
		floats.Add(cs[c*kb:(c+1)*kb], cur[p*kb:(p+1)*kb])
	}
	clear(mean)
	for c := 0; c < s.sp.Blocks(); c++ {
		floats.Add(mean, cs[c*kb:(c+1)*kb])
	}
	for i := range mean {
		mean[i] /= float64(x.n)
	}
	for c := c0; c < c1; c++ {
		o := off[c*kb : (c+1)*kb]
		nc := float64(s.sp.Size(c))
		for i, mi := range mean {
			if i >= K {
				o[i] = -l2 * mi
			} else {
				o[i] = l2 * (mi - 2*cs[c*kb+i]/nc)
			}
		}
	}
}
