package fisher

import (
	"cmp"
	"context"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// Transform codes the columns of Y,
//
//	x̄ = argmin ½‖y − D̄x̄‖² + λ2/2‖x0 − m0‖² + λ‖x̄‖₁,
//
// by core.LassoGram's ADMM option (the homotopy path for sparse codes)
// with the parameters p, and returns X (K×n) and X0 (k0×n, nil when
// k0 = 0).
func (f *Model) Transform(p Params, Y mat.Matrix) (X, X0 *mat.Dense, err error) {
	if err := f.Trained(); err != nil {
		return nil, nil, err
	}
	Xb, err := f.codes(context.Background(), p, Y)
	if err != nil {
		return nil, nil, err
	}
	K, k0 := f.dims()
	_, n := Xb.Dims()
	X = mat.DenseCopyOf(Xb.Slice(0, K, 0, n))
	if k0 > 0 {
		X0 = mat.DenseCopyOf(Xb.Slice(K, K+k0, 0, n))
	}
	return X, X0, nil
}

func (f *Model) codes(ctx context.Context, p Params, Y mat.Matrix) (*mat.Dense, error) {
	if err := f.Trained(); err != nil {
		return nil, err
	}
	if err := dl.TestSet(Y, f.Dim); err != nil {
		return nil, err
	}
	K, k0 := f.dims()
	kb := K + k0
	_, n := Y.Dims()
	G := mat.NewDense(kb, kb, nil)
	G.Mul(f.Db.T(), f.Db)
	B := mat.NewDense(kb, n, nil)
	core.MulTrans(B, f.Db, Y)
	l2 := p.Lambda2
	for i := 0; i < k0; i++ { // the λ2·m0 part of −∇ at 0
		row := B.RawRowView(K + i)
		for j := range row {
			row[j] += l2 * f.M0[i]
		}
	}
	for i := K; i < kb; i++ { // ½λ2‖x0‖² joins the quadratic
		G.Set(i, i, G.At(i, i)+l2)
	}
	Xb := mat.NewDense(kb, n, nil)
	return Xb, core.LassoGram(ctx, Xb, G, B, p.Lambda, core.LassoOptions{ADMM: true})
}

// scores returns e[j*C+c], the class-c score of sample j (smaller is
// better). GC: e_c = w‖ȳ − D_cx^c‖² + (1−w)‖x − m_c‖² with ȳ = y − D0x0.
// LC: e_c = ½‖y − D_cα − D0β‖² + λ‖[α; β]‖₁ with [α; β] the lasso code of
// y on [D_c D0] (on D_c alone without a shared dictionary). Xb (the codes)
// is not used by LC.
func (f *Model) scores(ctx context.Context, p Params, Y mat.Matrix, Xb *mat.Dense) ([]float64, error) {
	if p.LC {
		return f.lcScores(ctx, p.Lambda, Y)
	}
	r2, c2, err := f.gcParts(ctx, Y, Xb)
	if err != nil {
		return nil, err
	}
	return gcScores(nil, p.W, r2, c2), nil
}

// gcScores returns e = w·r2 + (1−w)·c2 (the GC scores of gcParts) in dst,
// reallocated when too short.
func gcScores(dst []float64, w float64, r2, c2 []float64) []float64 {
	if cap(dst) < len(r2) {
		dst = make([]float64, len(r2))
	}
	dst = dst[:len(r2)]
	for i := range dst {
		dst[i] = w*r2[i] + (1-w)*c2[i]
	}
	return dst
}

// gcParts returns the two terms of the GC scores of sample j and class c,
// r2[j*C+c] = ‖ȳ_j − D_cx_j^c‖² with ȳ = y − D0x0, and c2[j*C+c] =
// ‖x_j − m_c‖², for the codes Xb of the columns of Y.
func (f *Model) gcParts(ctx context.Context, Y mat.Matrix, Xb *mat.Dense) (r2, c2 []float64, err error) {
	K, k0 := f.dims()
	d, n := Y.Dims()
	C := f.Part.Blocks()
	Yb := dl.DenseCopy(Y)
	if k0 > 0 {
		var t mat.Dense
		t.Mul(f.Db.Slice(0, d, K, K+k0), Xb.Slice(K, K+k0, 0, n))
		Yb.Sub(Yb, &t)
	}
	r2, c2 = make([]float64, n*C), make([]float64, n*C)
	rs, qs := make([]float64, n), make([]float64, n)
	var R mat.Dense
	for c := 0; c < C; c++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		a0, a1 := f.Part.Block(c)
		Dc := f.Db.Slice(0, d, a0, a1).(*mat.Dense)
		R.Reset()
		R.Mul(Dc, Xb.Slice(a0, a1, 0, n))
		R.Sub(Yb, &R)
		// Row by row; each sum still runs over i in order.
		colSquares(rs, R.RawMatrix())
		clear(qs)
		for i := 0; i < K; i++ {
			m := f.Mc.At(i, c)
			for j, x := range Xb.RawRowView(i)[:n] {
				v := x - m
				qs[j] += v * v
			}
		}
		for j := 0; j < n; j++ {
			r2[j*C+c], c2[j*C+c] = rs[j], qs[j]
		}
	}
	return r2, c2, nil
}

// colSquares sets s[j] = Σ_i a_ij², summing over i in increasing order.
func colSquares(s []float64, a blas64.General) {
	clear(s[:a.Cols])
	for i := 0; i < a.Rows; i++ {
		for j, v := range a.Data[i*a.Stride : i*a.Stride+a.Cols] {
			s[j] += v * v
		}
	}
}

// lcScores returns the LC scores e[j*C+c] of scores at coding weight lambda.
// D̄ᵀD̄ and D̄ᵀY are formed once; class c codes on their rows of [D_c D0]
// by the exact lasso path (core.LassoOptions.ADMM, as the GC codes), and
// its residual comes from them (dl.BlockResiduals), with no pass over
// d×n data per class.
func (f *Model) lcScores(ctx context.Context, lambda float64, Y mat.Matrix) ([]float64, error) {
	_, n := Y.Dims()
	C := f.Part.Blocks()
	G, B, yy := f.lcProducts(Y)
	e := make([]float64, n*C)
	r, l1 := make([]float64, n), make([]float64, n)
	for c := 0; c < C; c++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		idx := f.lcAtoms(c)
		Gc, Bc := dl.Gather(G, idx, idx), dl.Gather(B, idx, nil)
		A := mat.NewDense(len(idx), n, nil)
		if err := core.LassoGram(ctx, A, Gc, Bc, lambda, core.LassoOptions{ADMM: true}); err != nil {
			return nil, err
		}
		dl.BlockResiduals(r, A, Gc, Bc, yy)
		clear(l1)
		for i := range idx {
			for j, v := range A.RawRowView(i) {
				l1[j] += math.Abs(v)
			}
		}
		for j, v := range r {
			e[j*C+c] = 0.5*v + lambda*l1[j]
		}
	}
	return e, nil
}

// lcProducts returns D̄ᵀD̄, D̄ᵀY and the squared norms of Y's columns, the
// products local coding takes every class's from.
func (f *Model) lcProducts(Y mat.Matrix) (G, B *mat.Dense, yy []float64) {
	G, B = new(mat.Dense), new(mat.Dense)
	G.Mul(f.Db.T(), f.Db)
	core.MulTrans(B, f.Db, Y)
	return G, B, dl.ColSqNorms(Y)
}

// lcAtoms returns the atoms class c codes on locally: D_c's, then D0's.
func (f *Model) lcAtoms(c int) []int {
	K, k0 := f.dims()
	a0, a1 := f.Part.Block(c)
	idx := make([]int, 0, a1-a0+k0)
	for i := a0; i < a1; i++ {
		idx = append(idx, i)
	}
	for i := K; i < K+k0; i++ {
		idx = append(idx, i)
	}
	return idx
}

// lcBoundCond is the largest condition number of G_II + 2μI for which
// lcPredict bounds class c's scores: the bound's rounding error, about
// cond·1e-16·‖y‖², stays well below its 1e-9‖y‖² margin.
const lcBoundCond = 1e6

// lcPredict returns the user label of the least LC score of each column of
// Y at coding weight lambda, as f.argmin(lcScores) (the first class of
// equal scores), and how many (column, class) pairs it coded, without
// coding every column on every class. Class c's score is at least a ridge
// residual on its atoms I = [D_c D0]: the lasso code x* has λ‖x*‖₁ ≤ ½‖y‖²
// (x = 0 scores that), so ‖x*‖₂ ≤ R = ‖y‖²/(2λ) and λ‖x*‖₁ ≥ (λ/R)‖x*‖₂²,
// and for any μ ≤ λ/R
//
//	e_c ≥ min_x ½‖y − D_I·x‖² + μ‖x‖² = ½(‖y‖² − b_Iᵀ(G_II + 2μI)⁻¹b_I),
//
// with b = D̄ᵀy, G = D̄ᵀD̄ and one μ = 2λ²/max‖y‖² for all columns. The
// ridge keeps the bound where G_II is singular (LRSDL's low-rank D0). So
// every column codes on its classes in increasing order of that bound,
// in rounds (one core.LassoGram per class over the columns whose turn it
// is), until the next bound is above its least score so far by more than
// 1e-9‖y‖², which rounding in the bounds cannot reach.
func (f *Model) lcPredict(ctx context.Context, lambda float64, Y mat.Matrix) ([]int, int, error) {
	K, k0 := f.dims()
	_, n := Y.Dims()
	C := f.Part.Blocks()
	G, B, yy := f.lcProducts(Y)
	type class struct{ G, B *mat.Dense }
	cls := make([]class, C)
	lb := make([]float64, n*C) // lb[j*C+c]
	work := 0
	for c := 0; c < C; c++ {
		a0, a1 := f.Part.Block(c)
		work += (a1 - a0 + k0) * (a1 - a0 + k0) * n
	}
	mu := 2 * lambda * lambda / max(slices.Max(yy), math.SmallestNonzeroFloat64)
	err := dl.ForClasses(C, work, func(c int) error {
		idx := f.lcAtoms(c)
		q := &cls[c]
		q.G, q.B = dl.Gather(G, idx, idx), dl.Gather(B, idx, nil)
		S := mat.NewSymDense(len(idx), nil)
		for i := range idx {
			for j := i; j < len(idx); j++ {
				S.SetSym(i, j, q.G.At(i, j))
			}
			S.SetSym(i, i, S.At(i, i)+2*mu)
		}
		var ch mat.Cholesky
		if !ch.Factorize(S) || ch.Cond() > lcBoundCond {
			for j := 0; j < n; j++ {
				lb[j*C+c] = math.Inf(-1) // no bound: always coded
			}
			return nil
		}
		// Z = U⁻ᵀB_I with G_II + 2μI = UᵀU, so ‖z_j‖² = b_jᵀ(G_II + 2μI)⁻¹b_j.
		var u mat.TriDense
		ch.UTo(&u)
		Z := mat.DenseCopyOf(q.B)
		blas64.Trsm(blas.Left, blas.Trans, 1, u.RawTriangular(), Z.RawMatrix())
		for j := 0; j < n; j++ {
			var s float64
			for i := range idx {
				v := Z.At(i, j)
				s += v * v
			}
			lb[j*C+c] = 0.5 * (yy[j] - s)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	order := make([]int32, n*C) // each column's classes by increasing bound
	for j := 0; j < n; j++ {
		o := order[j*C : (j+1)*C]
		for c := range o {
			o[c] = int32(c)
		}
		l := lb[j*C : (j+1)*C]
		slices.SortStableFunc(o, func(a, b int32) int { return cmp.Compare(l[a], l[b]) })
	}
	next := make([]int, n) // position in order of the next class to code
	best := make([]float64, n)
	arg := make([]int, n)
	for j := range arg {
		best[j], arg[j] = math.Inf(1), -1
	}
	cols := make([][]int, C)
	scores := make([][]float64, C)
	coded := 0
	for {
		m := 0
		for c := range cols {
			cols[c] = cols[c][:0]
		}
		for j := 0; j < n; j++ {
			if next[j] == C {
				continue
			}
			c := int(order[j*C+next[j]])
			if arg[j] >= 0 && lb[j*C+c] > best[j]+1e-9*yy[j] {
				next[j] = C
				continue
			}
			cols[c] = append(cols[c], j)
			next[j]++
			m++
		}
		if m == 0 {
			break
		}
		coded += m
		err := dl.ForClasses(C, m*(K/C+k0)*(K/C+k0)*100, func(c int) error {
			js := cols[c]
			if len(js) == 0 {
				return nil
			}
			q := &cls[c]
			k, _ := q.G.Dims()
			Bc := mat.NewDense(k, len(js), nil)
			yc := make([]float64, len(js))
			for i := 0; i < k; i++ {
				row, src := Bc.RawRowView(i), q.B.RawRowView(i)
				for t, j := range js {
					row[t] = src[j]
				}
			}
			for t, j := range js {
				yc[t] = yy[j]
			}
			A := mat.NewDense(k, len(js), nil)
			if err := core.LassoGram(ctx, A, q.G, Bc, lambda, core.LassoOptions{ADMM: true}); err != nil {
				return err
			}
			r := make([]float64, len(js))
			dl.BlockResiduals(r, A, q.G, Bc, yc)
			l1 := make([]float64, len(js))
			for i := 0; i < k; i++ {
				for t, v := range A.RawRowView(i) {
					l1[t] += math.Abs(v)
				}
			}
			e := scores[c][:0]
			for t := range js {
				e = append(e, 0.5*r[t]+lambda*l1[t])
			}
			scores[c] = e
			return nil
		})
		if err != nil {
			return nil, 0, err
		}
		for c, js := range cols {
			for t, j := range js {
				if v := scores[c][t]; v < best[j] || v == best[j] && c < arg[j] {
					best[j], arg[j] = v, c
				}
			}
		}
	}
	out := make([]int, n)
	for j, c := range arg {
		out[j] = f.Classes.Labels[c]
	}
	return out, coded, nil
}

// Predict returns the user label of the best-scoring class of each column,
// with the parameters of o (a copy of the model's options).
func (f *Model) Predict(ctx context.Context, p Params, Y mat.Matrix) ([]int, error) {
	if err := f.Trained(); err != nil {
		return nil, err
	}
	out, err := f.PredictEach(ctx, Y, []Params{p})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// PredictEach returns the labels Predict gives with each of ps, computing
// once what rules share: the GC codes and the residual terms once per
// coding weight (λ, and λ2 for the shared codes) for every w, the LC
// scores once per λ (LC does not depend on w, nor need the GC codes).
func (f *Model) PredictEach(ctx context.Context, Y mat.Matrix, ps []Params) ([][]int, error) {
	if err := f.Trained(); err != nil {
		return nil, err
	}
	if err := dl.TestSet(Y, f.Dim); err != nil {
		return nil, err
	}
	out := make([][]int, len(ps))
	var e []float64
	for i, p := range ps {
		if out[i] != nil {
			continue
		}
		if p.LC {
			lc, _, err := f.lcPredict(ctx, p.Lambda, Y)
			if err != nil {
				return nil, err
			}
			for j := i; j < len(ps); j++ {
				if q := ps[j]; q.LC && q.Lambda == p.Lambda {
					out[j] = slices.Clone(lc)
				}
			}
			continue
		}
		Xb, err := f.codes(ctx, p, Y)
		if err != nil {
			return nil, err
		}
		r2, c2, err := f.gcParts(ctx, Y, Xb)
		if err != nil {
			return nil, err
		}
		for j := i; j < len(ps); j++ {
			if q := ps[j]; !q.LC && q.Lambda == p.Lambda && q.Lambda2 == p.Lambda2 {
				e = gcScores(e, q.W, r2, c2)
				out[j] = f.argmin(e)
			}
		}
	}
	return out, nil
}

func (f *Model) argmin(e []float64) []int {
	C := f.Part.Blocks()
	out := make([]int, len(e)/C)
	for j := range out {
		best := 0
		for c := 1; c < C; c++ {
			if e[j*C+c] < e[j*C+best] {
				best = c
			}
		}
		out[j] = f.Classes.Labels[best]
	}
	return out
}

// Scores returns the C×n class scores of the rule of p, S[c, j] = −e_c of
// sample j (see scores): Predict returns the arg-max of each column.
func (f *Model) Scores(ctx context.Context, p Params, Y mat.Matrix) (*mat.Dense, error) {
	if err := f.Trained(); err != nil {
		return nil, err
	}
	if err := dl.TestSet(Y, f.Dim); err != nil {
		return nil, err
	}
	var Xb *mat.Dense
	if !p.LC {
		var err error
		if Xb, err = f.codes(ctx, p, Y); err != nil {
			return nil, err
		}
	}
	e, err := f.scores(ctx, p, Y, Xb)
	if err != nil {
		return nil, err
	}
	C := f.Part.Blocks()
	_, n := Y.Dims()
	S := mat.NewDense(C, n, nil)
	for j := 0; j < n; j++ {
		for c := 0; c < C; c++ {
			S.Set(c, j, -e[j*C+c])
		}
	}
	return S, nil
}

// Codes returns the codes [X; X0] ((K+k0)×n) of the columns of Y, those
// of Transform stacked.
func (f *Model) Codes(ctx context.Context, p Params, Y mat.Matrix) (*mat.Dense, error) {
	return f.codes(ctx, p, Y)
}
