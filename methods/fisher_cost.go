package methods

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/kernels"
)

// cost evaluates J̄ at the current D̄, X̄.
func (t *train) cost() lrsdl.Cost {
	t.gc.update(t.Db, t.Y, t.sp)
	return lrsdlCost(t.p, t.sp, t.ap, t.Db, t.Xb, &t.gc)
}

// gramCache holds the products of D̄ the cost needs: G = D̄ᵀD̄, B = D̄ᵀY and
// ‖Y_c‖² per class, recomputed only when D̄ (compared by value) or Y changes.
type gramCache struct {
	Db   *mat.Dense // the D̄ they were computed for
	y    *float64   // first element of the Y they were computed for
	G, B *mat.Dense
	ysq  []float64
	W    *mat.Dense               // kb×N workspace
	sw   *kernels.SparseWorkspace // G·X̄ for sparse X̄
}

func (g *gramCache) update(Db, Y *mat.Dense, sp core.Partition) {
	d, N := Y.Dims()
	_, kb := Db.Dims()
	y := &Y.RawMatrix().Data[0]
	if g.Db != nil && g.y == y && mat.Equal(g.Db, Db) {
		return
	}
	if g.Db == nil || g.G.RawMatrix().Rows != kb || g.B.RawMatrix().Cols != N || g.Db.RawMatrix().Rows != d {
		*g = gramCache{Db: mat.NewDense(d, kb, nil), G: mat.NewDense(kb, kb, nil),
			B: mat.NewDense(kb, N, nil), W: mat.NewDense(kb, N, nil), sw: kernels.NewSparseWorkspace(kb, N)}
	}
	g.Db.Copy(Db)
	g.y = y
	db := Db.RawMatrix()
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, db, db, 0, g.G.RawMatrix())
	kernels.Gemm(blas.Trans, blas.NoTrans, 1, db, Y.RawMatrix(), 0, g.B.RawMatrix())
	g.ysq = g.ysq[:0]
	yr := Y.RawMatrix()
	for c := 0; c < sp.Blocks(); c++ {
		s0, s1 := sp.Block(c)
		var s float64
		for i := 0; i < d; i++ {
			for _, v := range yr.Data[i*yr.Stride+s0 : i*yr.Stride+s1] {
				s += v * v
			}
		}
		g.ysq = append(g.ysq, s)
	}
}

// lrsdlCost returns the terms of J̄_Y(D̄, X̄):
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
func lrsdlCost(p dlParams, sp, ap core.Partition, Db, Xb *mat.Dense, gc *gramCache) lrsdl.Cost {
	d, _ := Db.Dims()
	K := ap.Len()
	kb, N := Xb.Dims()
	k0 := kb - K
	C := sp.Blocks()
	x, G, B, W := Xb.RawMatrix(), gc.G.RawMatrix(), gc.B.RawMatrix(), gc.W.RawMatrix()
	// dot returns ⟨a, b⟩ over rows [r0, r1) and columns [c0, c1).
	dot := func(a, b blas64.General, r0, r1, c0, c1 int) float64 {
		var s float64
		for i := r0; i < r1; i++ {
			ar, br := a.Data[i*a.Stride+c0:i*a.Stride+c1], b.Data[i*b.Stride+c0:i*b.Stride+c1]
			for j, v := range ar {
				s += v * br[j]
			}
		}
		return s
	}
	var ysq float64
	for _, v := range gc.ysq {
		ysq += v
	}
	gc.sw.Mul(W, G, x)
	fid := ysq - 2*dot(B, x, 0, kb, 0, N) + dot(W, x, 0, kb, 0, N)
	// W = blockdiag(G_jj, G_00)·X̄; its diagonal blocks give ‖D_jX_c^j‖²
	// and part of ‖D_cX_c^c + D0X0_c‖².
	for j := 0; j < C; j++ {
		a0, a1 := ap.Block(j)
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, sub(G, a0, a1, a0, a1), sub(x, a0, a1, 0, N), 0, sub(W, a0, a1, 0, N))
	}
	if k0 > 0 {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, sub(G, K, kb, K, kb), sub(x, K, kb, 0, N), 0, sub(W, K, kb, 0, N))
		fid += dot(W, x, K, kb, 0, N) - 2*dot(B, x, K, kb, 0, N)
	}
	fid += ysq
	for j := 0; j < C; j++ {
		a0, a1 := ap.Block(j)
		fid += dot(W, x, a0, a1, 0, N)
		s0, s1 := sp.Block(j)
		fid -= 2 * dot(B, x, a0, a1, s0, s1)
		if k0 > 0 {
			// 2⟨D_jX_j^j, D0X0_j⟩ = 2⟨X_j^j, G_j0·X0_j⟩
			fid += 2 * crossDot(sub(G, a0, a1, K, kb), sub(x, K, kb, s0, s1), sub(x, a0, a1, s0, s1))
		}
	}
	fid *= 0.5
	var l1 float64
	for i := 0; i < kb; i++ {
		for _, v := range Xb.RawRowView(i) {
			l1 += math.Abs(v)
		}
	}
	// Fisher term.
	X := Xb.Slice(0, K, 0, N).(*mat.Dense)
	mc := mat.NewDense(K, C, nil)
	kernels.BlockMeans(mc.RawMatrix(), X.RawMatrix(), sp)
	m := make([]float64, K)
	for i := 0; i < K; i++ {
		for c := 0; c < C; c++ {
			m[i] += float64(sp.Size(c)) * mc.At(i, c)
		}
		m[i] /= float64(N)
	}
	var g float64
	for i := 0; i < K; i++ {
		row := X.RawRowView(i)
		for c := 0; c < C; c++ {
			s0, s1 := sp.Block(c)
			mic := mc.At(i, c)
			for _, v := range row[s0:s1] {
				g += (v-mic)*(v-mic) + v*v
			}
			g -= float64(sp.Size(c)) * (mic - m[i]) * (mic - m[i])
		}
	}
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
	if k0 > 0 && p.eta > 0 {
		nuc = p.eta * core.NuclearNorm(Db.Slice(0, d, K, kb))
	}
	if p.alpha > 0 {
		for c := 0; c < C; c++ {
			a0, a1 := ap.Block(c)
			nuc += p.alpha * core.NuclearNorm(Db.Slice(0, d, a0, a1))
		}
	}
	terms := []lrsdl.Term{
		{Name: "fidelity", Value: fid},
		{Name: "l1", Value: p.lambda1 * l1},
		{Name: "fisher", Value: p.lambda2 / 2 * g},
		{Name: "shared", Value: p.lambda2 / 2 * sh},
		{Name: "nuclear", Value: nuc},
	}
	var tot float64
	for _, tm := range terms {
		tot += tm.Value
	}
	return lrsdl.Cost{Total: tot, Terms: terms}
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

// costOf codes Y by the training X step at the learned D̄ and returns J̄
// with the parameters of o (a copy of the model's options).
func (f *fisherDL) costOf(ctx context.Context, o fisherOptions, Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	if err := f.trained(); err != nil {
		return lrsdl.Cost{}, err
	}
	p, err := paramsOf(o, nil)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	if err := testSet(Y, f.d); err != nil {
		return lrsdl.Cost{}, err
	}
	_, n := Y.Dims()
	if len(labels) != n {
		return lrsdl.Cost{}, fmt.Errorf("methods: %d labels for %d samples", len(labels), n)
	}
	g, err := core.GroupWith(f.classes, labels)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	Ys := permuteColumns(Y, g.Perm)
	_, kb := f.Db.Dims()
	t := &train{p: p, Y: Ys, sp: g.Part, ap: f.part, K: f.part.Len(), k0: kb - f.part.Len(), Db: f.Db,
		Xb: mat.NewDense(kb, n, nil)}
	if err := t.solveX(ctx, t.Xb); err != nil {
		return lrsdl.Cost{}, err
	}
	return t.cost(), nil
}
