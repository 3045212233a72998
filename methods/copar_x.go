package methods

import (
	"context"
	"fmt"
	"math"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// coparSystem sets H = G + P_cGP_c + I − P_c (coparHessian) and
// B = (I + P_c)·DtY, so that COPAR-X for class c minimises
// ½tr(XᵀHX) − tr(BᵀX) + λ‖X‖₁.
func coparSystem(H, B, G, DtY *mat.Dense, part core.Partition, c int) {
	coparHessian(H, G, part, c)
	_, n := DtY.Dims()
	B.Copy(DtY)
	for _, i := range dl.Rows(part, c) {
		for j := 0; j < n; j++ {
			B.Set(i, j, 2*B.At(i, j))
		}
	}
}

// coparUseExact reports whether COPAR-X runs coparUpdateXExact: when the
// K atoms outnumber d/2 (G ill-conditioned, FISTA at its iteration cap, as
// on COIL-100), K ≥ 64 and 4N ≥ K.
func coparUseExact(d, K, N int) bool { return 2*K > d && K >= 64 && 4*N >= K }

// coparFISTAOuter is the number of first outer iterations whose COPAR-X
// keeps FISTA where coparUseExact holds: from the initial dictionary the
// exact minimiser (J 6215.9 after the first X step against FISTA's 6222.5)
// led the alternation to a worse model (final J 6.53 against 3.35 on
// COIL-100), FISTA's early-stopped codes to a better one.
const coparFISTAOuter = 3

// coparPathDensity is the largest fraction of non-zero codes from which
// COPAR-X takes the lasso path (coparUpdateXExact) rather than ADMM. The
// path's work grows with the square of the active atoms per sample, ADMM's
// does not (COPAR's COIL-100 and Oxford Flower fits, bench/NOTES.md,
// coparPathDensity).
const coparPathDensity = 0.1

// coparDensity returns the fraction of non-zero entries of the codes X.
func coparDensity(X []*mat.Dense) float64 {
	var nz, n int
	for _, x := range X {
		r, c := x.Dims()
		n += r * c
		nz += blas.NonZeros(x.RawMatrix())
	}
	return float64(nz) / float64(max(n, 1))
}

// coparUpdateXExact solves COPAR-X, min ½tr(XᵀH_cX) − tr(B_cᵀX) + λ‖X‖₁
// for every class c (coparSystem), exactly: each sample's code by the
// lasso path on H_c (core.LassoGram's ADMM option), the classes on up to
// parallel.Procs() goroutines. Where the codes are sparse it is far
// cheaper than coparUpdateXADMM's K×K×N product per iteration (COPAR's
// COIL-100 fit, bench/NOTES.md, coparUpdateXExact).
func coparUpdateXExact(ctx context.Context, X []*mat.Dense, G, DtY *mat.Dense, part core.Partition, sp core.Partition, lambda float64) error {
	K := part.Len()
	C := len(X)
	workers := dl.ClassProcs(C * K * K)
	Hs := make([]*mat.Dense, workers)
	return core.ForEach(C, workers, func(wk, c int) error {
		if Hs[wk] == nil {
			Hs[wk] = mat.NewDense(K, K, nil)
		}
		lo, hi := sp.Block(c)
		B := mat.NewDense(K, hi-lo, nil)
		coparSystem(Hs[wk], B, G, DtY.Slice(0, K, lo, hi).(*mat.Dense), part, c)
		return core.LassoGram(ctx, X[c], Hs[wk], B, lambda, core.LassoOptions{ADMM: true})
	})
}

// coparHessian sets H = G + P_cGP_c + I − P_c, the Hessian of COPAR-X for
// class c (coparSystem).
func coparHessian(H, G *mat.Dense, part core.Partition, c int) {
	K, _ := G.Dims()
	C := part.Blocks() - 1
	lo, hi := part.Block(c)
	in := func(i int) bool { return i >= lo && i < hi || i >= part[C] }
	H.Copy(G)
	for i := 0; i < K; i++ {
		if !in(i) {
			H.Set(i, i, H.At(i, i)+1)
			continue
		}
		for j := 0; j < K; j++ {
			if in(j) {
				H.Set(i, j, H.At(i, j)+G.At(i, j))
			}
		}
	}
}

// coparUpdateX solves COPAR-X for every class, warm-started from X, by
// FISTA on ½tr(XᵀH_cX) − tr(B_cᵀX) + λ‖X‖₁ (coparSystem) for all classes
// at once: H_cW = GW + P_cGP_cW + (I − P_c)W, so the K×K products GW_c of
// the classes still iterating are one product G·[W_c …] per iteration
// instead of one K×K×n_c product per class (bound by reading G), plus a
// correction on the rows of P_c; once the iterates are sparse the product
// runs over their non-zeros (blas.SparseRowsMul). The iterates are kept
// transposed, one row per sample (N×K), so that each class's rows are
// contiguous in the product's operand and result: the product is
// [W_c …]ᵀ·G (G is symmetric), the gradient is formed in place in its
// result and the operand is repacked only when a class stops. Each class
// keeps its own step 1/L_c (PowerIter.MaxEig(H_c), as LassoGram), and
// core.FISTA's stopping test, so the iterates are LassoGram's class by
// class up to rounding; a class whose FISTA diverges is solved again by
// LassoGram, which retries with the safe bound ‖H_c‖_∞. When the atoms
// number at most d/2, G is well conditioned and each class restarts its
// momentum (LassoOptions.Restart): on Oxford Flower (K = 350, d = 1020)
// that halves the iterations to a lower cost. On COIL-100 (K = 1010,
// d = 1024) every class stops at the iteration cap either way and restarts
// raised the cost, so there, if exact and coparUseExact hold, COPAR-X runs
// coparUpdateXExact where the codes it starts from are sparse, and
// coparUpdateXADMM (FISTA only if that fails) where they are not. Fit sets
// exact after its first coparFISTAOuter outer iterations; Cost never.
func coparUpdateX(ctx context.Context, X []*mat.Dense, D *mat.Dense, part core.Partition, Ys *mat.Dense, sp core.Partition, lambda float64, maxIter int, exact bool) error {
	K := part.Len()
	C := len(X)
	if lambda < 0 || math.IsNaN(lambda) || math.IsInf(lambda, 0) {
		return fmt.Errorf("methods: COPAR λ = %v must be finite and non-negative", lambda)
	}
	var G, DtY mat.Dense
	if err := dl.MulDenseContext(ctx, &G, D.T(), D); err != nil {
		return err
	}
	if err := dl.MulDenseContext(ctx, &DtY, D.T(), Ys); err != nil {
		return err
	}
	d, _ := D.Dims()
	_, N := DtY.Dims()
	if exact && coparUseExact(d, K, N) {
		if coparDensity(X) <= coparPathDensity {
			return coparUpdateXExact(ctx, X, &G, &DtY, part, sp, lambda)
		}
		if ok, err := coparUpdateXADMM(ctx, X, &G, &DtY, part, sp, lambda); ok || err != nil {
			return err
		}
	}
	restart := 2*K <= d
	// Row j of Wt, GWt, Zt and Bt is sample j; a class's rows start at its
	// off in Wt and GWt (packed, classes still iterating first) and at its
	// sp.Block in Zt and Bt.
	Wt := mat.NewDense(max(N, 1), max(K, 1), nil)
	GWt := mat.NewDense(max(N, 1), max(K, 1), nil)
	Zt := mat.NewDense(max(N, 1), max(K, 1), nil)
	Bt := mat.NewDense(max(N, 1), max(K, 1), nil)
	cl := make([]coparXClass, C)
	// Each class forms H_c (K²) and runs PowerIter.MaxEig on it.
	workers := dl.ClassProcs(C * K * K * (1 + dl.PowerIterGuess))
	Hs := make([]*mat.Dense, min(workers, C))
	err := core.ForEach(C, workers, func(wk, c int) error {
		lo, hi := sp.Block(c)
		if Hs[wk] == nil {
			Hs[wk] = mat.NewDense(K, K, nil)
		}
		H := Hs[wk]
		coparHessian(H, &G, part, c)
		var p core.PowerIter
		_, L := p.MaxEig(H)
		if math.IsNaN(L) || math.IsInf(L, 0) {
			return fmt.Errorf("methods: COPAR-X Gram matrix (λmax estimate %v): %w", L, core.ErrNotFinite)
		}
		q := &cl[c]
		q.L, q.t, q.off, q.prev = L, 1, lo, math.Inf(1)
		if L == 0 {
			q.done = true
			return nil
		}
		// Bt's rows of class c = ((I + P_c)·DtY_c)ᵀ.
		for j := lo; j < hi; j++ {
			for i := 0; i < K; i++ {
				Bt.Set(j, i, DtY.At(i, j))
				Zt.Set(j, i, X[c].At(i, j-lo))
				Wt.Set(j, i, X[c].At(i, j-lo))
			}
		}
		q.in = make([]bool, K)
		rows := dl.Rows(part, c)
		q.np = len(rows)
		for _, i := range rows {
			q.in[i] = true
			for j := lo; j < hi; j++ {
				Bt.Set(j, i, 2*Bt.At(j, i))
			}
		}
		for _, b := range []int{c, part.Blocks() - 1} {
			if a, e := part.Block(b); e > a {
				q.pr = append(q.pr, [2]int{a, e})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	st := coparXStep{cl: cl, sp: sp, G: &G, Wt: Wt, GWt: GWt, Zt: Zt, Bt: Bt, K: K, lambda: lambda, restart: restart}
	gd := G.RawMatrix()
	packed := false
	n := 0
	for k := 1; k <= maxIter; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !packed {
			// Move the rows of the classes still iterating to the top of
			// Wt, in class order (each moves up, so copy is safe), and
			// list those classes.
			wr := Wt.RawMatrix()
			n = 0
			st.act = st.act[:0]
			st.work = 0
			for c := range cl {
				if q := &cl[c]; !q.done {
					lo, hi := sp.Block(c)
					nc := hi - lo
					copy(wr.Data[n*wr.Stride:(n+nc)*wr.Stride], wr.Data[q.off*wr.Stride:(q.off+nc)*wr.Stride])
					q.off = n
					n += nc
					st.act = append(st.act, c)
					st.work += nc * (q.np*q.np + 4*K)
				}
			}
			packed = true
		}
		if n == 0 {
			break
		}
		// GWt = Wtᵀ·G for the rows still iterating, one product, over
		// Wt's non-zeros once the codes are sparse.
		if err := coparRowsMul(ctx, GWt.Slice(0, n, 0, K).(*mat.Dense).RawMatrix(), Wt.Slice(0, n, 0, K).(*mat.Dense).RawMatrix(), gd, coparRowsTile); err != nil {
			return err
		}
		st.k = k
		parallel.For(len(st.act), &st, st.work)
		for _, c := range st.act {
			if cl[c].done {
				packed = false
			}
		}
	}
	for c := range cl {
		lo, hi := sp.Block(c)
		switch {
		case cl[c].retry:
			H := mat.NewDense(K, K, nil)
			B := mat.NewDense(K, hi-lo, nil)
			coparSystem(H, B, &G, DtY.Slice(0, K, lo, hi).(*mat.Dense), part, c)
			if err := core.LassoGram(ctx, X[c], H, B, lambda, core.LassoOptions{Restart: restart}); err != nil {
				return err
			}
		case cl[c].L == 0:
			X[c].Zero()
		case hi == lo:
		default:
			X[c].Copy(Zt.Slice(lo, hi, 0, K).T())
		}
	}
	return nil
}

// coparXIters is the default of x_iters, core.FISTA's default as LassoGram's.
const coparXIters = 200

// coparXTol is coparUpdateX's tolerance, core.FISTA's default as LassoGram's.
const coparXTol = 1e-6

// coparXClass is the state of one class in coparUpdateX's FISTA.
type coparXClass struct {
	in   []bool   // in[i]: row i is in P_c
	pr   [][2]int // the atom ranges of P_c: class c's block, D_0's
	np   int      // the atoms in P_c
	off  int      // first row in Wt
	L, t float64
	prev float64 // the last ‖Z_k − Z_{k−1}‖²
	thr  [1]float64
	done bool
	// retry: FISTA diverged; LassoGram solves the class again
	retry bool
}

// coparXStep finishes FISTA iteration k of coparUpdateX for the classes
// act, given GWt = Wtᵀ·G on their rows: Do(i) forms the gradient of class
// act[i] in place in GWt, takes its proximal step and tests it, touching
// only that class's rows and state, so the classes run in any order on any
// number of cores with the same result.
type coparXStep struct {
	cl                 []coparXClass
	sp                 core.Partition
	G, Wt, GWt, Zt, Bt *mat.Dense
	K, k               int
	lambda             float64
	restart            bool
	act                []int
	work               int // multiply-adds and element updates of one iteration, for parallel.For
}

func (s *coparXStep) Do(i int) {
	c := s.act[i]
	q := &s.cl[c]
	K := s.K
	lo, hi := s.sp.Block(c)
	nc := hi - lo
	if nc == 0 {
		q.done = true
		return
	}
	wr, gr, zr, br := s.Wt.RawMatrix(), s.GWt.RawMatrix(), s.Zt.RawMatrix(), s.Bt.RawMatrix()
	gd := s.G.RawMatrix()
	// g = GW_c + P_cGP_cW_c + (I − P_c)W_c − B_c, one sample a
	// row: g[:,T] += W_c[:,S]·G[S,T] over the ranges S, T of P_c.
	gc := blas.View(gr, q.off, q.off+nc, 0, K)
	wc := blas.View(wr, q.off, q.off+nc, 0, K)
	for _, T := range q.pr {
		for _, S := range q.pr {
			blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, blas.View(wc, 0, nc, S[0], S[1]),
				blas.View(gd, S[0], S[1], T[0], T[1]), 1, blas.View(gc, 0, nc, T[0], T[1]))
		}
	}
	for j := 0; j < nc; j++ {
		g := gr.Data[(q.off+j)*gr.Stride : (q.off+j)*gr.Stride+K]
		w := wr.Data[(q.off+j)*wr.Stride : (q.off+j)*wr.Stride+K]
		b := br.Data[(lo+j)*br.Stride : (lo+j)*br.Stride+K]
		for i := range g {
			if q.in[i] {
				g[i] -= b[i]
			} else {
				g[i] = g[i] + w[i] - b[i]
			}
		}
	}
	tn := (1 + math.Sqrt(1+4*q.t*q.t)) / 2
	q.thr[0] = s.lambda / q.L
	w := wr.Data[q.off*wr.Stride : (q.off+nc)*wr.Stride]
	z := zr.Data[lo*zr.Stride : hi*zr.Stride]
	dz2, z2, rs := blas.ProxStep(z, w, gr.Data[q.off*gr.Stride:(q.off+nc)*gr.Stride], nc, K, 1/q.L, q.thr[:], (q.t-1)/tn)
	q.t = tn
	if s.restart && rs > 0 { // gradient restart, as core.FISTA's Restart
		q.t = 1
		copy(w, z)
	}
	if !(dz2 <= math.MaxFloat64 && z2 <= math.MaxFloat64) { // NaN, or ‖Z‖² overflowed
		q.done, q.retry = true, true
		return
	}
	if core.StepConverged(s.k, dz2, q.prev, z2, coparXTol) {
		q.done = true
	}
	q.prev = dz2
}
