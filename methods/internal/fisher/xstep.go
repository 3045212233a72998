package fisher

import (
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// xstep holds the precomputed matrices of LRSDL-X (Algorithm 1). With
// P = DᵀD, Q = DᵀD0, R = D0ᵀD0 its gradient is
//
//	upper: (M(P) + 2λ2I)X + M(Q X0) − M(DᵀY) + λ2(M − 2M̂)
//	lower: (2R + λ2I)X0 + Qᵀ M(X) − 2D0ᵀY − λ2M0
//
// which is ∇[½f̄ + λ2/2·ḡ] with Ȳ = Y − D0X0 and V = Y − ½D·M(X).
type xstep struct {
	set      dl.Settings
	K, k0, N int
	lambda2  float64
	sp, ap   core.Partition
	gram     *mat.Dense // D̄ᵀD̄
	H        *mat.Dense // [M(P)+2λ2I, Q; Qᵀ, 2R+λ2I]
	B        *mat.Dense // [M(DᵀY); 2D0ᵀY]
	mc       *mat.Dense // K×C means workspace
	cs       []float64  // class sums of a row of W̄
	off      []float64  // kb×C mean terms of grad (meanOffsets)
	groups   []int      // first class of each group of grad's per-class pass, then c1
	gj       gradJob
	// Columns [col0, col0+n) of the full problem are solved; other holds
	// the column sums of X̄ outside them (for the global means).
	col0  int
	other []float64
	c0    int                   // first class of the block
	sw    *blas.SparseWorkspace // H·W̄ for sparse W̄ over all N columns
	// With d < K/2, H·W̄ is computed through T = D̄W̄ (d×N).
	D blas64.General
	T *mat.Dense
	// ht = Hᵀ (H itself when symmetric) and dt = D̄ᵀ for the sparse
	// products, made at their first use (transposeOnce) in hbuf and dbuf.
	ht, dt     blas64.General
	hbuf, dbuf []float64
}

// setup precomputes the Gram matrices and B for D̄ and Y.
func (s *xstep) setup(Db *mat.Dense, Y *mat.Dense, sp, ap core.Partition, lambda2 float64) {
	s.setupFrom(Db, Y, sp, ap, lambda2, nil, nil)
}

// setupFrom is setup with G = D̄ᵀD̄ and DtY = D̄ᵀY given (not modified), or
// computed when nil.
func (s *xstep) setupFrom(Db *mat.Dense, Y *mat.Dense, sp, ap core.Partition, lambda2 float64, G, DtY *mat.Dense) {
	_, kb := Db.Dims()
	_, N := Y.Dims()
	K := ap.Len()
	k0 := kb - K
	sw, off, groups, H, B, hbuf, dbuf := s.sw, s.off, s.groups, s.H, s.B, s.hbuf, s.dbuf
	if sw == nil || s.K != K || s.k0 != k0 || s.N != N {
		sw = blas.NewSparseWorkspace(kb, N)
		H, B = nil, nil
	}
	*s = xstep{set: s.set, K: K, k0: k0, N: N, lambda2: lambda2, sp: sp, ap: ap, sw: sw, off: off, groups: groups, hbuf: hbuf, dbuf: dbuf}
	if G == nil {
		G = mat.NewDense(kb, kb, nil)
		G.Mul(Db.T(), Db)
	}
	s.gram = G
	// H and B are rebuilt in the previous run's matrices (same shapes).
	s.H = copyInto(H, s.gram)
	blas.DoubleDiagBlocks(s.H.RawMatrix(), ap, ap)
	for i := 0; i < kb; i++ {
		if i >= K {
			s.H.Set(i, i, 2*s.H.At(i, i)+lambda2)
			for j := K; j < kb; j++ {
				if j != i {
					s.H.Set(i, j, 2*s.H.At(i, j))
				}
			}
			continue
		}
		s.H.Set(i, i, s.H.At(i, i)+2*lambda2)
	}
	if DtY != nil {
		s.B = copyInto(B, DtY)
	} else {
		s.B = mat.NewDense(kb, N, nil)
		s.B.Mul(Db.T(), Y)
	}
	blas.DoubleDiagBlocks(s.B.Slice(0, K, 0, N).(*mat.Dense).RawMatrix(), ap, sp)
	if k0 > 0 {
		b0 := s.B.Slice(K, kb, 0, N).(*mat.Dense)
		b0.Scale(2, b0)
	}
	s.mc = mat.NewDense(K, sp.Blocks(), nil)
	s.cs = make([]float64, sp.Blocks())
	s.other = make([]float64, kb)
	if d, _ := Db.Dims(); 2*d < K {
		s.D = Db.RawMatrix()
		s.T = mat.NewDense(d, N, nil)
	}
}

// useBlockGemm reports whether a per-class block product of work
// multiply-adds goes to Gemm rather than addMul: on OpenBLAS from
// blockGemmMin on (or always with Settings.BlockGemm), never on gonum,
// whose Gemm is slower than the axpys at these shapes
// (BenchmarkLRSDLX_C2n350k20k0_10d300).
func (s *xstep) useBlockGemm(work int) bool {
	return !blas.PureGo() && (work >= blockGemmMin || s.set.BlockGemm)
}

const blockGemmMin = 8192

// factoredMul sets g = H·w as D̄ᵀ(D̄·w) + diag(D_cᵀD_c)·X + 2λ2·X on the
// upper rows and + R·X0 + λ2·X0 on the lower ones, which costs about
// 2dK̄n instead of K̄²n multiply-adds: fewer when d < K/2 and w is dense
// (see factorPays).
func (s *xstep) factoredMul(g, w blas64.General, full bool) {
	t := s.T.RawMatrix()
	t.Cols = w.Cols
	if full {
		s.sw.MulAT(t, s.D, transposeOnce(&s.dt, &s.dbuf, s.D), w)
	} else {
		blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, s.D, w, 0, t)
	}
	blas64.Gemm(gblas.Trans, gblas.NoTrans, 1, s.D, t, 0, g)
	gr := s.gram.RawMatrix()
	K, kb, n := s.K, s.K+s.k0, w.Cols
	for c := 0; c < s.ap.Blocks(); c++ {
		a0, a1 := s.ap.Block(c)
		addMul(sub(g, a0, a1, 0, n), sub(gr, a0, a1, a0, a1), sub(w, a0, a1, 0, n), false)
	}
	if s.k0 > 0 {
		addMul(sub(g, K, kb, 0, n), sub(gr, K, kb, K, kb), sub(w, K, kb, 0, n), false)
	}
	for i := 0; i < kb; i++ {
		l := 2 * s.lambda2
		if i >= K {
			l = s.lambda2
		}
		row, wr := g.Data[i*g.Stride:i*g.Stride+n], w.Data[i*w.Stride:i*w.Stride+n]
		for j, v := range wr {
			row[j] += l * v
		}
	}
}

// factorPays reports whether H·W̄ costs less as factoredMul than through
// the sparse kernel. With r = blas.DensityCrossover(), the cost of a
// sparse product per multiply-add relative to Gemm's, and ρ the density of
// W̄, in Gemm multiply-adds per column: factoredMul costs d·K̄·(ρ/r + 1)
// (the sparse D̄·W̄, then the dense D̄ᵀT) and the sparse H·W̄ K̄²ρ/r, so
// factoring pays when d·(ρ + r) < K̄ρ; above r both are dense and it pays
// (2d < K̄ when s.T is set).
func (s *xstep) factorPays(w blas64.General) bool {
	r := blas.DensityCrossover()
	rho := float64(blas.NonZeros(w)) / float64(w.Rows*w.Cols)
	return rho > r || float64(s.D.Rows)*(rho+r) < float64(s.K+s.k0)*rho
}

// lipWork holds the warm-started power iterations of xstep.lipschitz and
// xstep.metric.
type lipWork struct {
	all  core.PowerIter   // D̄ᵀD̄
	cls  []core.PowerIter // [D_c D0]ᵀ[D_c D0] of each class c
	sub  mat.Dense
	rest float64        // the bound of lipschitz without D̄ᵀD̄'s
	defl core.PowerIter // (I − uuᵀ)D̄ᵀD̄(I − uuᵀ)
	dg   mat.Dense
	u    []float64
	gu   []float64
}

// warmStarts returns the power iterations of w without its workspaces.
func (w *lipWork) warmStarts() lipWork { return lipWork{all: w.all, cls: w.cls, defl: w.defl} }

// lipschitz returns an upper bound of the Lipschitz constant of the
// gradient, ‖D̄‖² + max_c ‖[D_c D0]‖² + 2λ2, each squared norm bounded above
// by warm-started power iteration (core.PowerIter.MaxEig).
func (s *xstep) lipschitz(w *lipWork) float64 {
	C := s.ap.Blocks()
	if len(w.cls) != C {
		w.cls = make([]core.PowerIter, C)
	}
	w.all.MaxIter, w.all.Tol = 300, 1e-10
	_, l := w.all.MaxEig(s.gram)
	g := s.gram.RawMatrix()
	var mx float64
	for c := 0; c < C; c++ {
		a0, a1 := s.ap.Block(c)
		kc := a1 - a0
		m := kc + s.k0
		// row or column i of the block: atom a0+i of D_c, then D0's
		at := func(i int) int {
			if i < kc {
				return a0 + i
			}
			return s.K + i - kc
		}
		w.sub.Reset()
		w.sub.ReuseAs(m, m)
		sr := w.sub.RawMatrix()
		for i := 0; i < m; i++ {
			gi := g.Data[at(i)*g.Stride:]
			for j := 0; j < m; j++ {
				sr.Data[i*sr.Stride+j] = gi[at(j)]
			}
		}
		w.cls[c].MaxIter, w.cls[c].Tol = 300, 1e-10
		_, u := w.cls[c].MaxEig(&w.sub)
		mx = math.Max(mx, u)
	}
	w.rest = mx + 2*s.lambda2
	return l + w.rest
}

// metric returns the rank-one metric of the X step, M = αI + βuuᵀ
// (core.RankOneMajorizer) with u the top eigenvector estimate of D̄ᵀD̄ that
// lipschitz (called first) left, σ bounded by power iteration on
// (I − uuᵀ)D̄ᵀD̄(I − uuᵀ), and r the rest of lipschitz's bound; ok is false
// without a gap. When the atoms share a large mean direction (COIL-100:
// eigenvalues 768, 57, 23, … at the start of FDDL) the step off u grows by
// λmax/(σ + r).
func (s *xstep) metric(w *lipWork) (m core.RankOneMetric, ok bool) {
	v := w.all.Vector()
	n := len(v)
	if n < 2 {
		return m, false
	}
	w.u = append(w.u[:0], v...)
	w.gu = append(w.gu[:0], v...) // scratch of the same length
	core.Deflate(&w.dg, s.gram, w.u, w.gu)
	w.defl.MaxIter, w.defl.Tol = 300, 1e-10
	_, sigma := w.defl.MaxEig(&w.dg)
	return core.RankOneMajorizer(s.gram, w.u, sigma, w.rest)
}

// opNorm returns the largest eigenvalue of the Hessian of h̄ over all of
// X̄ (the linear map W ↦ ∇h̄(W) − ∇h̄(0)) by power iteration to a relative
// change of 1e-6. It is the reference's L, not used by the default solver.
func (s *xstep) opNorm() float64 {
	kb, N := s.K+s.k0, s.N
	G0, V, G := mat.NewDense(kb, N, nil), mat.NewDense(kb, N, nil), mat.NewDense(kb, N, nil)
	s.grad(G0, V)
	v := V.RawMatrix().Data
	for i := range v {
		v[i] = 1 + float64(i%7)/7
	}
	var rho float64
	for it := 0; it < 300; it++ {
		s.grad(G, V)
		G.Sub(G, G0)
		var r, nv float64
		for i, x := range v {
			r += x * G.RawMatrix().Data[i]
			nv += x * x
		}
		r /= nv
		V.Scale(1/mat.Norm(G, 2), G)
		if math.Abs(r-rho) <= 1e-6*r {
			return r
		}
		rho = r
	}
	return rho
}

// grad writes ∇h̄(W) into G for the column block [s.col0, s.col0+n) of the
// problem, n the columns of W. It allocates nothing once warm.
func (s *xstep) grad(G, W *mat.Dense) {
	k0 := s.k0
	kb, n := W.Dims()
	g, w := G.RawMatrix(), W.RawMatrix()
	b := sub(s.B.RawMatrix(), 0, kb, s.col0, s.col0+n)
	// G = H·W − B with H = [M(P)+2λ2I, Q; Qᵀ, 2R+λ2I] except for the
	// diagonal blocks of M(Q·X0) and Qᵀ·M(X), added per class below. The
	// product takes the sparse kernel when W is sparse enough.
	full := s.sw != nil && n == s.N
	if s.T != nil && (!full || s.factorPays(w)) {
		s.factoredMul(g, w, full)
	} else if full {
		h := s.H.RawMatrix()
		s.sw.MulAT(g, h, transposeOnce(&s.ht, &s.hbuf, h), w)
	} else {
		blas.Gemm(gblas.NoTrans, gblas.NoTrans, 1, s.H.RawMatrix(), w, 0, g)
	}
	// classes c0..c1−1 are in the block; class c has columns
	// [sp[c]−col0, sp[c+1]−col0) of W.
	sp, col0 := s.sp, s.col0
	c1 := s.c0
	for c1 < sp.Blocks() && sp[c1]-col0 < n {
		c1++
	}
	s.meanOffsets(w, c1)
	// The diagonal blocks of M(Q·X0) and Qᵀ·M(X), −B and the mean terms,
	// class by class, in fixed groups of classes shared between the cores.
	j := &s.gj
	*j = gradJob{s: s, g: g, w: w, b: b, c1: c1}
	s.groups = classGroups(s.groups[:0], sp, s.c0, c1)
	parallel.For(len(s.groups)-1, j, kb*n*(parallel.ElemWork+k0))
	*j = gradJob{}
}

// gradGroupCols is the fewest columns of a group of classes of the
// per-class passes of xstep.grad and the cost (the last group may have
// fewer).
const gradGroupCols = 64

// classGroups appends to dst the first class of each group of consecutive
// classes c0..c1−1 holding at least gradGroupCols samples, then c1: group g
// is classes dst[g] to dst[g+1]−1. Groups depend on the partition alone.
func classGroups(dst []int, sp core.Partition, c0, c1 int) []int {
	for c := c0; c < c1; {
		e := c + 1
		for e < c1 && sp[e]-sp[c] < gradGroupCols {
			e++
		}
		dst = append(dst, c)
		c = e
	}
	return append(dst, c1)
}

// meanOffsets sets s.off[i·C+c] to the mean term of row i on class c
// (c0 ≤ c < c1) for the columns of W: λ2(m_i − 2m_ic) on the rows of X,
// with m the mean over all N columns and m_c class c's, and λ2·m_i on the
// rows of X0 (zero when λ2 = 0).
func (s *xstep) meanOffsets(w blas64.General, c1 int) {
	K, kb, n, C := s.K, w.Rows, w.Cols, s.sp.Blocks()
	sp, col0 := s.sp, s.col0
	if cap(s.off) < kb*C {
		s.off = make([]float64, kb*C)
	}
	s.off = s.off[:kb*C]
	l2, fN := s.lambda2, float64(s.N)
	for i := 0; i < kb; i++ {
		wr, off := w.Data[i*w.Stride:i*w.Stride+n], s.off[i*C:(i+1)*C]
		if i >= K || l2 == 0 {
			var a float64
			if l2 != 0 {
				a = l2 * (floats.Sum(wr) + s.other[i]) / fN
			}
			for c := s.c0; c < c1; c++ {
				off[c] = a
			}
			continue
		}
		tot := s.other[i]
		for c := s.c0; c < c1; c++ {
			s.cs[c] = floats.Sum(wr[sp[c]-col0 : sp[c+1]-col0])
			tot += s.cs[c]
		}
		m := tot / fN
		for c := s.c0; c < c1; c++ {
			off[c] = l2 * (m - 2*s.cs[c]/float64(sp.Size(c)))
		}
	}
}

// gradJob is the per-class pass of xstep.grad over groups of classes:
// group q has classes s.groups[q] to s.groups[q+1]−1.
type gradJob struct {
	s       *xstep
	g, w, b blas64.General
	c1      int
}

func (j *gradJob) Do(q int) {
	s, g, w, b := j.s, j.g, j.w, j.b
	K, k0, kb, C := s.K, s.k0, s.K+s.k0, s.sp.Blocks()
	sp, col0 := s.sp, s.col0
	gr := s.gram.RawMatrix()
	g0, g1 := s.groups[q], s.groups[q+1]
	if k0 > 0 {
		for c := g0; c < g1; c++ {
			lo, hi := sp[c]-col0, sp[c+1]-col0
			a0, a1 := s.ap.Block(c)
			Qc := sub(gr, a0, a1, K, kb)
			if !s.useBlockGemm((a1 - a0) * k0 * (hi - lo)) {
				addMul(sub(g, a0, a1, lo, hi), Qc, sub(w, K, kb, lo, hi), false)
				addMul(sub(g, K, kb, lo, hi), Qc, sub(w, a0, a1, lo, hi), true)
			} else {
				blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, Qc, sub(w, K, kb, lo, hi), 1, sub(g, a0, a1, lo, hi))
				blas64.Gemm(gblas.Trans, gblas.NoTrans, 1, Qc, sub(w, a0, a1, lo, hi), 1, sub(g, K, kb, lo, hi))
			}
		}
	}
	// Row by row over the group's columns: each element gets its one
	// update after the products above, as class by class.
	lo, hi := sp[g0]-col0, sp[g1]-col0
	for i := 0; i < kb; i++ {
		gi, bi := g.Data[i*g.Stride:i*g.Stride+hi], b.Data[i*b.Stride:i*b.Stride+hi]
		off := s.off[i*C : (i+1)*C]
		if i >= K || s.lambda2 == 0 {
			a := off[g0] // the same for every class
			for t := lo; t < hi; t++ {
				gi[t] -= bi[t] + a
			}
			continue
		}
		for c := g0; c < g1; c++ {
			a := off[c]
			e := sp[c+1] - col0
			gc, bc := gi[sp[c]-col0:e], bi[sp[c]-col0:e]
			for t, v := range bc {
				gc[t] += a - v
			}
		}
	}
}
