package methods

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/split"
)

// transform codes the columns of Y by eq. findcodebarx,
//
//	x̄ = argmin ½‖y − D̄x̄‖² + λ2/2‖x0 − m0‖² + λ‖x̄‖₁,
//
// by core.LassoGram's ADMM option (the homotopy path for sparse codes),
// and returns X (K×n) and X0 (k0×n, nil when k0 = 0); o is a copy of the
// model's options.
func (f *fisherDL) transform(o fisherOptions, Y mat.Matrix) (X, X0 *mat.Dense, err error) {
	if err := f.trained(); err != nil {
		return nil, nil, err
	}
	p, err := paramsOf(o, nil)
	if err != nil {
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

func (f *fisherDL) codes(ctx context.Context, p dlParams, Y mat.Matrix) (*mat.Dense, error) {
	if err := f.trained(); err != nil {
		return nil, err
	}
	if err := testSet(Y, f.d); err != nil {
		return nil, err
	}
	K, k0 := f.dims()
	kb := K + k0
	_, n := Y.Dims()
	G := mat.NewDense(kb, kb, nil)
	G.Mul(f.Db.T(), f.Db)
	B := mat.NewDense(kb, n, nil)
	core.MulTrans(B, f.Db, Y)
	l2 := p.lambda2
	for i := 0; i < k0; i++ { // the λ2·m0 part of −∇ at 0
		row := B.RawRowView(K + i)
		for j := range row {
			row[j] += l2 * f.m0[i]
		}
	}
	for i := K; i < kb; i++ { // ½λ2‖x0‖² joins the quadratic
		G.Set(i, i, G.At(i, i)+l2)
	}
	Xb := mat.NewDense(kb, n, nil)
	return Xb, core.LassoGram(ctx, Xb, G, B, p.lambda, core.LassoOptions{ADMM: true})
}

// scores returns e[j*C+c], the class-c score of sample j (smaller is
// better). GC: e_c = w‖ȳ − D_cx^c‖² + (1−w)‖x − m_c‖² with ȳ = y − D0x0.
// LC: e_c = ½‖y − D_cα − D0β‖² + λ‖[α; β]‖₁ with [α; β] the lasso code of
// y on [D_c D0] (on D_c alone without a shared dictionary). Xb (the codes)
// is not used by LC.
func (f *fisherDL) scores(ctx context.Context, p dlParams, Y mat.Matrix, Xb *mat.Dense) ([]float64, error) {
	if p.lc {
		return f.lcScores(ctx, p.lambda, Y)
	}
	r2, c2, err := f.gcParts(ctx, Y, Xb)
	if err != nil {
		return nil, err
	}
	return gcScores(nil, p.w, r2, c2), nil
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
func (f *fisherDL) gcParts(ctx context.Context, Y mat.Matrix, Xb *mat.Dense) (r2, c2 []float64, err error) {
	K, k0 := f.dims()
	d, n := Y.Dims()
	C := f.part.Blocks()
	Yb := denseCopy(Y)
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
		a0, a1 := f.part.Block(c)
		Dc := f.Db.Slice(0, d, a0, a1).(*mat.Dense)
		R.Reset()
		R.Mul(Dc, Xb.Slice(a0, a1, 0, n))
		R.Sub(Yb, &R)
		// Row by row; each sum still runs over i in order.
		colSquares(rs, R.RawMatrix())
		clear(qs)
		for i := 0; i < K; i++ {
			m := f.mc.At(i, c)
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
// its residual comes from them (dlsiBlockResiduals), with no pass over
// d×n data per class.
func (f *fisherDL) lcScores(ctx context.Context, lambda float64, Y mat.Matrix) ([]float64, error) {
	_, n := Y.Dims()
	C := f.part.Blocks()
	G, B, yy := f.lcProducts(Y)
	e := make([]float64, n*C)
	r, l1 := make([]float64, n), make([]float64, n)
	for c := 0; c < C; c++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		idx := f.lcAtoms(c)
		Gc, Bc := coparGather(G, idx, idx), coparGather(B, idx, nil)
		A := mat.NewDense(len(idx), n, nil)
		if err := core.LassoGram(ctx, A, Gc, Bc, lambda, core.LassoOptions{ADMM: true}); err != nil {
			return nil, err
		}
		dlsiBlockResiduals(r, A, Gc, Bc, yy)
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
func (f *fisherDL) lcProducts(Y mat.Matrix) (G, B *mat.Dense, yy []float64) {
	G, B = new(mat.Dense), new(mat.Dense)
	G.Mul(f.Db.T(), f.Db)
	core.MulTrans(B, f.Db, Y)
	return G, B, dlsiColSqNorms(Y)
}

// lcAtoms returns the atoms class c codes on locally: D_c's, then D0's.
func (f *fisherDL) lcAtoms(c int) []int {
	K, k0 := f.dims()
	a0, a1 := f.part.Block(c)
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
// 1e-9‖y‖², which rounding in the bounds cannot reach. On COIL-100 (100
// classes) most columns stop after a few classes.
func (f *fisherDL) lcPredict(ctx context.Context, lambda float64, Y mat.Matrix) ([]int, int, error) {
	K, k0 := f.dims()
	_, n := Y.Dims()
	C := f.part.Blocks()
	G, B, yy := f.lcProducts(Y)
	type class struct{ G, B *mat.Dense }
	cls := make([]class, C)
	lb := make([]float64, n*C) // lb[j*C+c]
	work := 0
	for c := 0; c < C; c++ {
		a0, a1 := f.part.Block(c)
		work += (a1 - a0 + k0) * (a1 - a0 + k0) * n
	}
	mu := 2 * lambda * lambda / max(slices.Max(yy), math.SmallestNonzeroFloat64)
	err := forClasses(C, work, func(c int) error {
		idx := f.lcAtoms(c)
		q := &cls[c]
		q.G, q.B = coparGather(G, idx, idx), coparGather(B, idx, nil)
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
		err := forClasses(C, m*(K/C+k0)*(K/C+k0)*100, func(c int) error {
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
			dlsiBlockResiduals(r, A, q.G, Bc, yc)
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
		out[j] = f.classes.Labels[c]
	}
	return out, coded, nil
}

// predict returns the user label of the best-scoring class of each column,
// with the parameters of o (a copy of the model's options).
func (f *fisherDL) predict(ctx context.Context, o fisherOptions, Y mat.Matrix) ([]int, error) {
	if err := f.trained(); err != nil {
		return nil, err
	}
	p, err := paramsOf(o, nil)
	if err != nil {
		return nil, err
	}
	out, err := f.predictEach(ctx, Y, []dlParams{p})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// predictEach returns the labels predict gives with each of ps, computing
// once what rules share: the GC codes and the terms of gcParts once per
// coding weight (λ, and λ2 for the shared codes) for every w, the LC
// scores once per λ (LC does not depend on w, nor need the GC codes).
func (f *fisherDL) predictEach(ctx context.Context, Y mat.Matrix, ps []dlParams) ([][]int, error) {
	if err := f.trained(); err != nil {
		return nil, err
	}
	if err := testSet(Y, f.d); err != nil {
		return nil, err
	}
	out := make([][]int, len(ps))
	var e []float64
	for i, p := range ps {
		if out[i] != nil {
			continue
		}
		if p.lc {
			lc, _, err := f.lcPredict(ctx, p.lambda, Y)
			if err != nil {
				return nil, err
			}
			for j := i; j < len(ps); j++ {
				if q := ps[j]; q.lc && q.lambda == p.lambda {
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
			if q := ps[j]; !q.lc && q.lambda == p.lambda && q.lambda2 == p.lambda2 {
				e = gcScores(e, q.w, r2, c2)
				out[j] = f.argmin(e)
			}
		}
	}
	return out, nil
}

// predictParams returns the parameters of o (a copy of a model's options)
// with the prediction options of set (name → text, as SetParam takes)
// applied in sorted order of name.
func predictParams(o fisherOptions, set map[string]string) (dlParams, error) {
	spec := o.spec()
	for _, n := range slices.Sorted(maps.Keys(set)) {
		op, err := spec.find(n)
		if err != nil {
			return dlParams{}, err
		}
		if !op.predict {
			return dlParams{}, fmt.Errorf("methods: %s option %q acts at training, not at prediction", spec.method, n)
		}
		if err := spec.set(n, set[n]); err != nil {
			return dlParams{}, err
		}
	}
	return paramsOf(o, nil)
}

func (f *fisherDL) argmin(e []float64) []int {
	C := f.part.Blocks()
	out := make([]int, len(e)/C)
	for j := range out {
		best := 0
		for c := 1; c < C; c++ {
			if e[j*C+c] < e[j*C+best] {
				best = c
			}
		}
		out[j] = f.classes.Labels[best]
	}
	return out
}

// TuneOptions controls the cross-validation of the prediction parameters.
// The zero value means the defaults.
type TuneOptions struct {
	Folds  int       // stratified folds of the training set; zero means 3
	W      []float64 // GC weights tried; nil means 0.25, 0.5, 0.75, 1; empty tries LC only
	Lambda []float64 // coding ℓ1 weights tried; nil means λ1·{0.25, 0.5, 1, 3}
	// Groups, if not nil, holds the group of each training sample (e.g.
	// the person in a face data set); folds then keep groups together
	// (split.GroupFolds), so that validation samples come from
	// groups unseen in training, as test samples may.
	Groups []int
}

// tune chooses GC with weight w or LC, and the coding λ, of the best k-fold
// cross-validated accuracy on the training set (Y, labels), training with
// p on each fold. Ties go to the first candidate.
func tune(ctx context.Context, opts fisherOptions, Y mat.Matrix, labels []int, o TuneOptions) (r Tuned, err error) {
	if Y == nil {
		return r, fmt.Errorf("methods: nil training data")
	}
	if _, n := Y.Dims(); len(labels) != n {
		return r, fmt.Errorf("methods: %d labels for %d training samples (columns of Y)", len(labels), n)
	}
	g, err := core.GroupByClass(labels)
	if err != nil {
		return r, err
	}
	info := infoOf(Y, g)
	p, err := paramsOf(opts, &info)
	if err != nil {
		return r, err
	}
	name := opts.spec().method
	folds := o.Folds
	if folds == 0 {
		folds = 3
	}
	for c := 0; c < g.Classes.Len(); c++ {
		if g.Part.Size(c) < 2*folds {
			return r, fmt.Errorf("methods: class %d has %d samples, too few for %d-fold cross-validation", g.Classes.Labels[c], g.Part.Size(c), folds)
		}
	}
	if folds < 2 {
		return r, fmt.Errorf("methods: need at least 2 cross-validation folds, have %d", folds)
	}
	ws, ls := o.W, o.Lambda
	if ws == nil {
		ws = []float64{0.25, 0.5, 0.75, 1}
	}
	if ls == nil {
		ls = []float64{0.25 * p.lambda1, 0.5 * p.lambda1, p.lambda1, 3 * p.lambda1}
	}
	for _, v := range ws {
		if !(v >= 0 && v <= 1) {
			return r, fmt.Errorf("methods: GC weight candidate %v is outside [0, 1]", v)
		}
	}
	for _, v := range ls {
		if !(v > 0) || math.IsInf(v, 0) {
			return r, fmt.Errorf("methods: coding λ candidate %v is not a finite positive number", v)
		}
	}
	// fold[j] is the fold of sample j.
	var fold []int
	if o.Groups == nil {
		fold, err = split.Folds(labels, folds, rand.New(rand.NewPCG(p.seed, 0xf01d)))
		if err != nil {
			return r, fmt.Errorf("methods: %w", err)
		}
	} else {
		fold, err = split.GroupFolds(labels, o.Groups, folds, split.Rand(p.seed))
		if err != nil {
			return r, fmt.Errorf("methods: grouped cross-validation: %w", err)
		}
		// Every class must be trained on in every fold.
		for c := 0; c < g.Classes.Len(); c++ {
			lo, hi := g.Part.Block(c)
			for f := range folds {
				in := 0
				for _, j := range g.Perm[lo:hi] {
					if fold[j] == f {
						in++
					}
				}
				if in == hi-lo {
					return r, fmt.Errorf("methods: grouped cross-validation: all samples of class %d are in fold %d; it needs more groups", g.Classes.Labels[c], f+1)
				}
			}
		}
	}
	p.progress = nil
	correct := make([]int, (len(ws)+1)*len(ls))
	for f := 0; f < folds; f++ {
		tr, va := split.Fold(fold, f)
		sel := func(idx []int) []int {
			out := make([]int, len(idx))
			for i, j := range idx {
				out[i] = labels[j]
			}
			return out
		}
		var m fisherDL
		if err := m.fit(ctx, name, permuteColumns(Y, tr), sel(tr), func(dataInfo) (dlParams, error) { return p, nil }); err != nil {
			return r, err
		}
		Yv, lv := permuteColumns(Y, va), sel(va)
		for li, l := range ls {
			q := p
			q.lambda = l
			Xb, err := m.codes(ctx, q, Yv)
			if err != nil {
				return r, err
			}
			for wi := 0; wi <= len(ws); wi++ { // the last slot is LC
				q.lc = wi == len(ws)
				if !q.lc {
					q.w = ws[wi]
				}
				var pred []int
				if q.lc {
					pred, _, err = m.lcPredict(ctx, q.lambda, Yv)
				} else {
					var e []float64
					e, err = m.scores(ctx, q, Yv, Xb)
					pred = m.argmin(e)
				}
				if err != nil {
					return r, err
				}
				for j, pl := range pred {
					if pl == lv[j] {
						correct[li*(len(ws)+1)+wi]++
					}
				}
			}
		}
	}
	best := 0
	for i, c := range correct {
		if c > correct[best] {
			best = i
		}
	}
	for i, c := range correct {
		t := TuneScore{Lambda: ls[i/(len(ws)+1)], Accuracy: float64(c) / float64(len(labels))}
		if wi := i % (len(ws) + 1); wi < len(ws) {
			t.W = ws[wi]
		} else {
			t.LC = true
		}
		r.Scores = append(r.Scores, t)
	}
	r.TuneScore = r.Scores[best]
	return r, nil
}

// TuneScore is the cross-validated accuracy of one prediction rule.
type TuneScore struct {
	LC       bool    // local coding
	W        float64 // GC weight (when !LC)
	Lambda   float64 // coding ℓ1 weight
	Accuracy float64 // cross-validated accuracy
}

// Tuned is the result of cross-validating the prediction parameters: the
// chosen rule and its accuracy, and the scores of every candidate.
type Tuned struct {
	TuneScore
	Scores []TuneScore // by coding λ, then GC weights in order and LC last
}

// set stores the choice in o.
func (r Tuned) set(o *FDDLOptions) {
	o.LC, o.W, o.Lambda = r.LC, r.W, r.Lambda
	if r.LC {
		o.W = 0
	} else if r.W == 0 {
		o.W = Off
	}
}

// predictSets is PredictEach for a model f with options o (a copy of
// them); opts returns a fresh copy of o for each set.
func (f *fisherDL) predictSets(ctx context.Context, Y mat.Matrix, sets []map[string]string, opts func() fisherOptions) ([][]int, error) {
	ps, err := setsParams(sets, opts)
	if err != nil {
		return nil, err
	}
	return f.predictEach(ctx, Y, ps)
}

// setsParams returns the prediction parameters of each of sets applied to
// a fresh copy of the options from opts.
func setsParams(sets []map[string]string, opts func() fisherOptions) ([]dlParams, error) {
	ps := make([]dlParams, len(sets))
	for i, set := range sets {
		p, err := predictParams(opts(), set)
		if err != nil {
			return nil, err
		}
		ps[i] = p
	}
	return ps, nil
}

// PredictEach returns the labels Predict gives for the columns of Y with
// each of sets applied to the options (prediction options only, by name as
// SetParam takes them, e.g. {"w": "0.25"} or {"lc": "true"}); m's options
// do not change. It computes once what the rules share: the GC codes and
// residuals once per coding λ for every w, and the LC coding once per λ.
func (m *LRSDL) PredictEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error) {
	return m.dl.predictSets(ctx, Y, sets, func() fisherOptions { o := m.Options; return &o })
}

// PredictEach is LRSDL.PredictEach.
func (m *FDDL) PredictEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error) {
	return m.dl.predictSets(ctx, Y, sets, func() fisherOptions { o := m.Options; return &o })
}

// PredictEach is LRSDL.PredictEach.
func (m *D2L2R2) PredictEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error) {
	return m.dl.predictSets(ctx, Y, sets, func() fisherOptions { o := m.Options; return &o })
}
