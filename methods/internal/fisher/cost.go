package fisher

import (
	"context"
	"fmt"
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// cost evaluates J̄ at the current D̄, X̄, or returns ctx's error if it is
// cancelled first.
func (t *train) cost(ctx context.Context) (lrsdl.Cost, error) {
	if err := t.gc.update(ctx, t.Db, t.Y, t.sp, t.K); err != nil {
		return lrsdl.Cost{}, err
	}
	return totalCost(t.p, t.sp, t.ap, t.Db, t.Xb, &t.gc), nil
}

// gramCache holds the products of D̄ the cost needs: G = D̄ᵀD̄, B = D̄ᵀY and
// ‖Y_c‖² per class, recomputed only when D̄ (compared by value) or Y
// changes (‖Y_c‖² only when Y does). For D̄ = [D D0] they come in two
// parts, those of D (updateD) and then those involving D0, so that an
// outer iteration can compute the first beside its D0 step; update always
// computes them so, whether updateD ran first or not, with the same result.
// Both return ctx's error if it is cancelled during their products, and
// leave the cache marked out of date.
type gramCache struct {
	Db *mat.Dense // the D̄ they were computed for
	y  *float64   // first element of the Y they were computed for
	// partial: only G's and B's rows of D are for Db's first columns and
	// the Y whose first element yD points to (updateD); the rest is out of
	// date.
	partial bool
	yD      *float64
	G, B    *mat.Dense
	ysq     []float64
	W       *mat.Dense            // kb×N workspace
	sw      *blas.SparseWorkspace // G·X̄ for sparse X̄
	// workspaces of totalCost
	mc     *mat.Dense // K×C class means
	m      []float64  // mean of each row of X
	groups []int
	part   [][3]float64
	cj     costJob
	svt    core.SVTWorkspace // the class blocks' nuclear norms
	nuc0   nuclearCache      // D0's, shared with phiD0
}

// nuclearCache returns the nuclear norm of the last two matrices it was
// asked without computing them again: per LRSDL iteration the D0 step's
// keep-if-lower test asks for the new and the old D0 and the cost for the
// one kept, one SVD instead of three.
type nuclearCache struct {
	svt  core.SVTWorkspace
	a    [2]mat.Dense
	v    [2]float64
	last int // the entry written last
}

func (c *nuclearCache) norm(a *mat.Dense) float64 {
	for i := range c.a {
		if mat.Equal(&c.a[i], a) { // false for an empty entry
			return c.v[i]
		}
	}
	c.last = 1 - c.last
	c.v[c.last] = c.svt.NuclearNorm(a)
	c.a[c.last].CloneFrom(a)
	return c.v[c.last]
}

// update makes G, B and ‖Y_c‖² those of Db, whose first K columns are D,
// and Y.
func (g *gramCache) update(ctx context.Context, Db, Y *mat.Dense, sp core.Partition, K int) error {
	y := &Y.RawMatrix().Data[0]
	if !g.partial && g.Db != nil && g.y == y && mat.Equal(g.Db, Db) {
		return nil
	}
	d, kb := Db.Dims()
	if !g.partial || g.yD != y || !mat.Equal(g.Db.Slice(0, d, 0, K), Db.Slice(0, d, 0, K)) {
		if err := g.updateD(ctx, Db, Y, K); err != nil {
			return err
		}
	}
	// G's columns of D0, D̄ᵀD0, and B's rows of D0, D0ᵀY.
	db, gr := Db.RawMatrix(), g.G.RawMatrix()
	if kb > K {
		D0 := sub(db, 0, d, K, kb)
		if err := gemmPieces(ctx, db, D0, sub(gr, 0, kb, K, kb)); err != nil {
			return err
		}
		if err := gemmPieces(ctx, D0, Y.RawMatrix(), sub(g.B.RawMatrix(), K, kb, 0, g.B.RawMatrix().Cols)); err != nil {
			return err
		}
	}
	g.partial = false
	g.Db.Copy(Db)
	symmetrize(g.G)
	if g.y == y && len(g.ysq) == sp.Blocks() {
		return nil
	}
	g.y = y
	g.ysq = dl.ClassSquares(g.ysq[:0], Y, sp)
	return nil
}

// updateD sets G's and B's rows of D, Db's first K columns: the upper
// triangle of DᵀD (by Syrk, half Gemm's flops) and DᵀY. The rest waits for
// update.
func (g *gramCache) updateD(ctx context.Context, Db, Y *mat.Dense, K int) error {
	d, N := Y.Dims()
	_, kb := Db.Dims()
	if g.Db == nil || g.G.RawMatrix().Rows != kb || g.B.RawMatrix().Cols != N || g.Db.RawMatrix().Rows != d {
		*g = gramCache{Db: mat.NewDense(d, kb, nil), G: mat.NewDense(kb, kb, nil),
			B: mat.NewDense(kb, N, nil), W: mat.NewDense(kb, N, nil), sw: blas.NewSparseWorkspace(kb, N)}
	}
	g.partial, g.yD = true, nil // out of date until both products end
	D, gr := sub(Db.RawMatrix(), 0, d, 0, K), g.G.RawMatrix()
	if err := syrkPieces(ctx, D, sub(gr, 0, K, 0, K)); err != nil {
		return err
	}
	if err := gemmPieces(ctx, D, Y.RawMatrix(), sub(g.B.RawMatrix(), 0, K, 0, N)); err != nil {
		return err
	}
	g.yD = &Y.RawMatrix().Data[0]
	g.Db.Slice(0, d, 0, K).(*mat.Dense).Copy(Db.Slice(0, d, 0, K))
	return nil
}

// totalCost returns the terms of J̄_Y(D̄, X̄):
//
//	fidelity ½Σ_c ‖Y_c − D̄X̄_c‖² + ‖Y_c − D_cX_c^c − D0X0_c‖² + Σ_{j≠c}‖D_jX_c^j‖²
//	l1       λ1‖X̄‖₁
//	fisher   λ2/2·(Σ_c ‖X_c − M_c‖² − ‖M_c − M‖² + ‖X‖²)
//	shared   λ2/2·‖X0 − M0‖²
//	nuclear  η‖D0‖_* + α Σ_c ‖D_c‖_*
//
// The fidelity comes from G = D̄ᵀD̄ and B = D̄ᵀY without forming residuals:
// ‖Y − D̄X̄‖² = ‖Y‖² − 2⟨B, X̄⟩ + ⟨GX̄, X̄⟩, and likewise on the rows of
// D_c, D0 and the columns of class c for the other two terms. Its rounding
// error is about 1e-16·‖Y‖².
func totalCost(p Params, sp, ap core.Partition, Db, Xb *mat.Dense, gc *gramCache) lrsdl.Cost {
	d, _ := Db.Dims()
	K := ap.Len()
	kb, N := Xb.Dims()
	C := sp.Blocks()
	var ysq float64
	for _, v := range gc.ysq {
		ysq += v
	}
	x := Xb.RawMatrix()
	gc.sw.Mul(gc.W.RawMatrix(), gc.G.RawMatrix(), x)
	// Class means of X and the global mean.
	X := Xb.Slice(0, K, 0, N).(*mat.Dense)
	if gc.mc == nil || gc.mc.RawMatrix().Rows != K || gc.mc.RawMatrix().Cols != C {
		gc.mc = mat.NewDense(K, C, nil)
		gc.m = make([]float64, K)
	}
	blas.BlockMeans(gc.mc.RawMatrix(), X.RawMatrix(), sp)
	mc := gc.mc.RawMatrix()
	for i := 0; i < K; i++ {
		var m float64
		for c := 0; c < C; c++ {
			m += float64(sp.Size(c)) * mc.Data[i*mc.Stride+c]
		}
		gc.m[i] = m / float64(N)
	}
	// The fidelity, ℓ1 and Fisher terms over fixed groups of classes,
	// shared between the cores and added in group order.
	gc.groups = classGroups(gc.groups[:0], sp, 0, C)
	ng := len(gc.groups) - 1
	if cap(gc.part) < ng {
		gc.part = make([][3]float64, ng)
	}
	gc.part = gc.part[:ng]
	j := &gc.cj
	*j = costJob{sp: sp, ap: ap, K: K, x: x, G: gc.G.RawMatrix(), B: gc.B.RawMatrix(), W: gc.W.RawMatrix(),
		mc: mc, m: gc.m, groups: gc.groups, part: gc.part}
	parallel.For(ng, j, kb*N*(1+kb/C))
	*j = costJob{}
	fid, l1, g := 2*ysq, 0.0, 0.0
	for _, pt := range gc.part {
		fid += pt[0]
		l1 += pt[1]
		g += pt[2]
	}
	fid *= 0.5
	var sh float64
	for i := K; i < kb; i++ {
		row := Xb.RawRowView(i)
		var mu float64
		for _, v := range row {
			mu += v
		}
		mu /= float64(N)
		for _, v := range row {
			sh += (v - mu) * (v - mu)
		}
	}
	var nuc float64
	if kb > K && p.Eta > 0 {
		nuc = p.Eta * gc.nuc0.norm(Db.Slice(0, d, K, kb).(*mat.Dense))
	}
	if p.Alpha > 0 {
		for c := 0; c < C; c++ {
			a0, a1 := ap.Block(c)
			nuc += p.Alpha * gc.svt.NuclearNorm(Db.Slice(0, d, a0, a1))
		}
	}
	terms := []lrsdl.Term{
		{Name: "fidelity", Value: fid},
		{Name: "l1", Value: p.Lambda1 * l1},
		{Name: "fisher", Value: p.Lambda2 / 2 * g},
		{Name: "shared", Value: p.Lambda2 / 2 * sh},
		{Name: "nuclear", Value: nuc},
	}
	var tot float64
	for _, tm := range terms {
		tot += tm.Value
	}
	return lrsdl.Cost{Total: tot, Terms: terms}
}

// costJob computes the terms of totalCost over the columns of groups of
// classes: group q has classes groups[q] to groups[q+1]−1, and part[q]
// receives its fidelity (times 2, without ‖Y‖²), ℓ1 and Fisher sums. W
// holds G·X̄ on entry; each group overwrites its columns with
// blockdiag(G_jj, G_00)·X̄.
type costJob struct {
	sp, ap     core.Partition
	K          int
	x, G, B, W blas64.General
	mc         blas64.General
	m          []float64
	groups     []int
	part       [][3]float64
}

// dot returns ⟨a, b⟩ over rows [r0, r1) and columns [c0, c1).
func dot(a, b blas64.General, r0, r1, c0, c1 int) float64 {
	var s float64
	for i := r0; i < r1; i++ {
		ar, br := a.Data[i*a.Stride+c0:i*a.Stride+c1], b.Data[i*b.Stride+c0:i*b.Stride+c1]
		for j, v := range ar {
			s += v * br[j]
		}
	}
	return s
}

func (j *costJob) Do(q int) {
	sp, ap, K, x, G, B, W := j.sp, j.ap, j.K, j.x, j.G, j.B, j.W
	kb := x.Rows
	c0, c1 := j.groups[q], j.groups[q+1]
	S0, S1 := sp[c0], sp[c1]
	n := S1 - S0
	fid := dot(W, x, 0, kb, S0, S1) - 2*dot(B, x, 0, kb, S0, S1)
	// W = blockdiag(G_jj, G_00)·X̄; its diagonal blocks give ‖D_jX_c^j‖²
	// and part of ‖D_cX_c^c + D0X0_c‖².
	for b := 0; b < ap.Blocks(); b++ {
		a0, a1 := ap.Block(b)
		if a1 > a0 {
			blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, sub(G, a0, a1, a0, a1), sub(x, a0, a1, S0, S1), 0, sub(W, a0, a1, S0, S1))
		}
	}
	if kb > K {
		blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, sub(G, K, kb, K, kb), sub(x, K, kb, S0, S1), 0, sub(W, K, kb, S0, S1))
		fid += dot(W, x, K, kb, S0, S1) - 2*dot(B, x, K, kb, S0, S1)
	}
	fid += dot(W, x, 0, K, S0, S1)
	for c := c0; c < c1; c++ {
		a0, a1 := ap.Block(c)
		s0, s1 := sp.Block(c)
		fid -= 2 * dot(B, x, a0, a1, s0, s1)
		if kb > K {
			// 2⟨D_cX_c^c, D0X0_c⟩ = 2⟨X_c^c, G_c0·X0_c⟩
			fid += 2 * crossDot(sub(G, a0, a1, K, kb), sub(x, K, kb, s0, s1), sub(x, a0, a1, s0, s1))
		}
	}
	var l1 float64
	for i := 0; i < kb; i++ {
		for _, v := range x.Data[i*x.Stride+S0 : i*x.Stride+S0+n] {
			l1 += math.Abs(v)
		}
	}
	var g float64
	for i := 0; i < K; i++ {
		row := x.Data[i*x.Stride : i*x.Stride+x.Cols]
		for c := c0; c < c1; c++ {
			s0, s1 := sp.Block(c)
			mic := j.mc.Data[i*j.mc.Stride+c]
			for _, v := range row[s0:s1] {
				g += (v-mic)*(v-mic) + v*v
			}
			g -= float64(sp.Size(c)) * (mic - j.m[i]) * (mic - j.m[i])
		}
	}
	j.part[q] = [3]float64{fid, l1, g}
}

// crossDot returns ⟨c, a·b⟩ for a small a (k×k0), b (k0×n), c (k×n).
func crossDot(a, b, c blas64.General) float64 {
	var s float64
	for i := 0; i < a.Rows; i++ {
		cr := c.Data[i*c.Stride : i*c.Stride+c.Cols]
		for p := 0; p < a.Cols; p++ {
			v := a.Data[i*a.Stride+p]
			if v == 0 {
				continue
			}
			var t float64
			for j, bv := range b.Data[p*b.Stride : p*b.Stride+b.Cols] {
				t += bv * cr[j]
			}
			s += v * t
		}
	}
	return s
}

// Cost codes Y by the training X step at the learned D̄ and returns J̄
// with the parameters p.
func (f *Model) Cost(ctx context.Context, p Params, Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	if err := f.Trained(); err != nil {
		return lrsdl.Cost{}, err
	}
	if err := dl.TestSet(Y, f.Dim); err != nil {
		return lrsdl.Cost{}, err
	}
	_, n := Y.Dims()
	if len(labels) != n {
		return lrsdl.Cost{}, fmt.Errorf("methods: %d labels for %d samples", len(labels), n)
	}
	g, err := core.GroupWith(f.Classes, labels)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	Ys := dl.PermuteColumns(Y, g.Perm)
	_, kb := f.Db.Dims()
	t := &train{p: p, set: f.Set, Y: Ys, sp: g.Part, ap: f.Part, K: f.Part.Len(), k0: kb - f.Part.Len(), Db: f.Db,
		Xb: mat.NewDense(kb, n, nil)}
	if err := t.solveX(ctx, t.Xb); err != nil {
		return lrsdl.Cost{}, err
	}
	return t.cost(ctx)
}
