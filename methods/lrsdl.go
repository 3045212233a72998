package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/kernels"
)

func init() {
	register("LRSDL", func() lrsdl.Classifier { return &LRSDL{} })
}

// LRSDLOptions configures LRSDL. The zero value means the defaults: those of
// FDDLOptions, k0 = 10 shared atoms and η = 0.1.
type LRSDLOptions struct {
	FDDLOptions
	K0  int     `json:"k0"`  // shared atoms k0; zero means 10
	Eta float64 `json:"eta"` // nuclear-norm weight η; zero means 0.1, negative means 0
}

// LRSDL is low-rank shared dictionary learning (Vu & Monga), minimising
//
//	J̄(D̄, X̄) = ½f̄_Y(D̄, X̄) + λ1‖X̄‖₁ + λ2/2·ḡ(X̄) + η‖D0‖_*
//
// over the class dictionaries D = [D_1..D_C], the shared dictionary D0 and
// the codes X̄ = [X; X0] (eq. lrsdl_cost_fn), by Algorithm 2.
type LRSDL struct {
	Options LRSDLOptions
	dl      fisherDL
}

// Name returns "LRSDL".
func (m *LRSDL) Name() string { return "LRSDL" }

// Config returns a pointer to m.Options.
func (m *LRSDL) Config() any { return &m.Options }

func (m *LRSDL) params() dlParams {
	p := m.Options.FDDLOptions.params()
	p.k0 = max(defInt(m.Options.K0, 10), 0)
	p.eta = defFloat(m.Options.Eta, 0.1)
	return p
}

// Fit learns D, D0 and the class means from the columns of Y.
func (m *LRSDL) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return m.dl.fit(ctx, m.params(), Y, labels)
}

// Predict returns the label of each column of Y (GC or LC rule of the options).
func (m *LRSDL) Predict(Y mat.Matrix) ([]int, error) { return m.dl.predict(m.params(), Y) }

// Transform returns the codes X (K×n) and X0 (k0×n) of the columns of Y by
// eq. findcodebarx.
func (m *LRSDL) Transform(Y mat.Matrix) (X, X0 *mat.Dense, err error) {
	return m.dl.transform(m.params(), Y)
}

// Cost evaluates J̄ at the learned dictionaries, with the codes of Y found by
// the training X step. Terms: fidelity, l1, fisher, shared, nuclear.
func (m *LRSDL) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	return m.dl.costOf(m.params(), Y, labels)
}

// Atoms returns the class dictionaries D, their atom partition and D0.
func (m *LRSDL) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) { return m.dl.atoms() }

// Means returns the class code means m_c (columns of a K×C matrix) and the
// shared code mean m^0 (k0).
func (m *LRSDL) Means() (Mc *mat.Dense, m0 []float64) { return m.dl.mc, m.dl.m0 }

// Tune chooses the prediction rule (GC with Options.W, or LC) and
// Options.Lambda by stratified
// cross-validation on the training set (Y, labels), training with the
// current options on each fold. It does not train m; call Fit afterwards.
func (m *LRSDL) Tune(ctx context.Context, Y mat.Matrix, labels []int, o TuneOptions) (Tuned, error) {
	r, err := tune(ctx, m.params(), Y, labels, o)
	if err == nil {
		r.set(&m.Options.FDDLOptions)
	}
	return r, err
}

// State returns the trained model.
func (m *LRSDL) State() (*lrsdl.State, error) { return m.dl.state(m.Name(), &m.Options) }

// SetState restores a model returned by State.
func (m *LRSDL) SetState(s *lrsdl.State) error { return m.dl.setState(m.Name(), s, &m.Options) }

// dlParams are the resolved parameters of the Fisher-type models.
type dlParams struct {
	k, k0                 int
	lambda1, lambda2, eta float64
	alpha                 float64 // D2L2R2 weight of Σ‖D_c‖_*
	iters                 int
	tol                   float64
	xIters                int
	xTol                  float64
	dIters, admmIters     int
	initIters             int
	origX, origD          bool
	lc                    bool
	w, lambda             float64
	seed                  uint64
	progress              lrsdl.ProgressFunc
	// plain selects the reference algorithm of the speed benchmarks: FISTA
	// without restart at the exact L (opNorm) for exactly xIters iterations,
	// and fixed ODL/ADMM iteration counts.
	plain bool
}

func defInt(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

// defFloat returns d for zero, 0 for negative values and v otherwise.
func defFloat(v, d float64) float64 {
	switch {
	case v == 0:
		return d
	case v < 0:
		return 0
	}
	return v
}

// fisherDL is the model shared by FDDL (k0 = 0), LRSDL and D2L2R2.
type fisherDL struct {
	classes *core.Classes
	d       int
	part    core.Partition // atoms of each class
	Db      *mat.Dense     // [D D0], d×(K+k0)
	mc      *mat.Dense     // K×C class means of X
	m0      []float64      // mean of X0
}

func (f *fisherDL) trained() error {
	if f.Db == nil {
		return fmt.Errorf("methods: model is not trained")
	}
	return nil
}

func (f *fisherDL) dims() (K, k0 int) {
	K = f.part.Len()
	_, kb := f.Db.Dims()
	return K, kb - K
}

func (f *fisherDL) atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) {
	if f.Db == nil {
		return nil, nil, nil
	}
	K, k0 := f.dims()
	D = mat.DenseCopyOf(f.Db.Slice(0, f.d, 0, K))
	if k0 > 0 {
		D0 = mat.DenseCopyOf(f.Db.Slice(0, f.d, K, K+k0))
	}
	return D, append(core.Partition(nil), f.part...), D0
}

// train is the state of one training run.
type train struct {
	p  dlParams
	Y  *mat.Dense     // d×N, columns by class
	sp core.Partition // samples of each class
	ap core.Partition // atoms of each class
	Db *mat.Dense     // [D D0]
	Xb *mat.Dense     // [X; X0]
	K  int
	k0 int
	xs xstep
	gc gramCache
	// workspaces of the D and D0 updates
	du, du0     core.DictUpdater
	admm, admm0 core.ADMMDictWorkspace
	// hook, if set, is called after every gradient evaluation of the X step
	// (benchmarks use it to follow the iterates).
	hook  func(G, W *mat.Dense, L float64)
	lip   lipWork
	fist  core.FISTA
	cur   lrsdl.Cost // cost at the current point when curOK
	curOK bool
}

func (t *train) D() *mat.Dense  { return t.Db.Slice(0, t.Db.RawMatrix().Rows, 0, t.K).(*mat.Dense) }
func (t *train) D0() *mat.Dense { r, c := t.Db.Dims(); return t.Db.Slice(0, r, t.K, c).(*mat.Dense) }
func (t *train) X() *mat.Dense  { _, n := t.Xb.Dims(); return t.Xb.Slice(0, t.K, 0, n).(*mat.Dense) }
func (t *train) X0() *mat.Dense { r, n := t.Xb.Dims(); return t.Xb.Slice(t.K, r, 0, n).(*mat.Dense) }

func (f *fisherDL) fit(ctx context.Context, p dlParams, Y mat.Matrix, labels []int) error {
	if err := p.validate(); err != nil {
		return err
	}
	Ys, g, err := trainingSet(Y, labels)
	if err != nil {
		return err
	}
	C := g.Classes.Len()
	if C < 2 {
		return fmt.Errorf("methods: need at least 2 classes, have %d", C)
	}
	for c := 0; c < C; c++ {
		if g.Part.Size(c) < 2 {
			return fmt.Errorf("methods: class %d has %d training sample, need at least 2", g.Classes.Labels[c], g.Part.Size(c))
		}
	}
	start := time.Now()
	// Train in span(Y) on Yr = QᵀY (N×N) when d is well above N; D̄ = Q·D̄_r.
	Q, Yr := reduceSpan(Ys)
	Yt := Ys
	if Q != nil {
		Yt = Yr
	}
	t, err := newTrain(ctx, p, Yt, g.Part)
	if err != nil {
		return err
	}
	prev := t.current().Total
	for it := 1; it <= p.iters; it++ {
		if err := t.stepX(ctx); err != nil {
			return err
		}
		if err := t.stepD(ctx); err != nil {
			return err
		}
		if err := t.stepD0(ctx); err != nil {
			return err
		}
		cost := t.current()
		if p.progress != nil {
			p.progress(lrsdl.Progress{Iter: it, Cost: cost, Elapsed: time.Since(start)})
		}
		if p.tol > 0 && math.Abs(prev-cost.Total) <= p.tol*math.Abs(prev) {
			break
		}
		prev = cost.Total
	}
	f.classes = g.Classes
	f.d, _ = Ys.Dims()
	f.part = t.ap
	f.Db = t.Db
	if Q != nil {
		f.Db = expand(Q, t.Db)
	}
	f.mc, f.m0 = t.means()
	return nil
}

func (p *dlParams) validate() error {
	switch {
	case p.k < 1:
		return fmt.Errorf("methods: need k ≥ 1 atoms per class, have %d", p.k)
	case p.k0 < 0:
		return fmt.Errorf("methods: need k0 ≥ 0 shared atoms, have %d", p.k0)
	case p.w < 0 || p.w > 1:
		return fmt.Errorf("methods: GC weight w = %v is outside [0, 1]", p.w)
	}
	for _, v := range []float64{p.lambda1, p.lambda2, p.eta, p.alpha, p.lambda} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("methods: non-finite regularisation parameter %v", v)
		}
	}
	return nil
}

// newTrain initialises per Algorithm 2: each D_c and its codes X_c^c by ODL
// on Y_c, D0 and X0 by ODL on Y, the other codes zero.
func newTrain(ctx context.Context, p dlParams, Y *mat.Dense, sp core.Partition) (*train, error) {
	d, N := Y.Dims()
	C := sp.Blocks()
	sizes := make([]int, C)
	for c := range sizes {
		sizes[c] = p.k
	}
	ap := core.NewPartition(sizes...)
	K := ap.Len()
	t := &train{p: p, Y: Y, sp: sp, ap: ap, K: K, k0: p.k0,
		Db: mat.NewDense(d, K+p.k0, nil), Xb: mat.NewDense(K+p.k0, N, nil)}
	rng := rand.New(rand.NewPCG(p.seed, 0x5eed1e55))
	lo := core.LearnDictOptions{Iter: p.initIters, Lasso: core.LassoOptions{MaxIter: p.xIters, Tol: p.xTol}}
	for c := 0; c < C; c++ {
		s0, s1 := sp.Block(c)
		a0, a1 := ap.Block(c)
		Dc, Xc, err := core.LearnDict(ctx, Y.Slice(0, d, s0, s1), p.k, p.lambda1, rng, lo)
		if err != nil {
			return nil, err
		}
		t.Db.Slice(0, d, a0, a1).(*mat.Dense).Copy(Dc)
		t.Xb.Slice(a0, a1, s0, s1).(*mat.Dense).Copy(Xc)
	}
	if p.k0 > 0 {
		D0, X0, err := core.LearnDict(ctx, Y, p.k0, p.lambda1, rng, lo)
		if err != nil {
			return nil, err
		}
		t.D0().Copy(D0)
		t.X0().Copy(X0)
	}
	return t, nil
}

// means returns the class means of X (K×C) and the mean of X0.
func (t *train) means() (*mat.Dense, []float64) {
	C := t.sp.Blocks()
	mc := mat.NewDense(t.K, C, nil)
	kernels.BlockMeans(mc.RawMatrix(), t.X().RawMatrix(), t.sp)
	m0 := make([]float64, t.k0)
	_, N := t.Xb.Dims()
	for i := range m0 {
		var s float64
		for _, v := range t.Xb.RawRowView(t.K + i) {
			s += v
		}
		m0[i] = s / float64(N)
	}
	return mc, m0
}

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
	W    *mat.Dense // kb×N workspace
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
			B: mat.NewDense(kb, N, nil), W: mat.NewDense(kb, N, nil)}
	}
	g.Db.Copy(Db)
	g.y = y
	db := Db.RawMatrix()
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, db, db, 0, g.G.RawMatrix())
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, db, Y.RawMatrix(), 0, g.B.RawMatrix())
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
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, G, x, 0, W)
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

// xstep holds the precomputed matrices of LRSDL-X (Algorithm 1). With
// P = DᵀD, Q = DᵀD0, R = D0ᵀD0 its gradient is
//
//	upper: (M(P) + 2λ2I)X + M(Q X0) − M(DᵀY) + λ2(M − 2M̂)
//	lower: (2R + λ2I)X0 + Qᵀ M(X) − 2D0ᵀY − λ2M0
//
// which is ∇[½f̄ + λ2/2·ḡ] with Ȳ = Y − D0X0 and V = Y − ½D·M(X).
type xstep struct {
	K, k0, N int
	lambda2  float64
	sp, ap   core.Partition
	gram     *mat.Dense // D̄ᵀD̄
	H        *mat.Dense // [M(P)+2λ2I, Q; Qᵀ, 2R+λ2I]
	B        *mat.Dense // [M(DᵀY); 2D0ᵀY]
	mc       *mat.Dense // K×C means workspace
	cs       []float64  // class sums of a row of W̄
	// Columns [col0, col0+n) of the full problem are solved; other holds
	// the column sums of X̄ outside them (for the global means).
	col0  int
	other []float64
	c0    int                      // first class of the block
	sw    *kernels.SparseWorkspace // H·W̄ for sparse W̄ over all N columns
	// With d < K/2, H·W̄ is computed through T = D̄W̄ (d×N).
	D blas64.General
	T *mat.Dense
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
	sw := s.sw
	if sw == nil || s.K != K || s.k0 != k0 || s.N != N {
		sw = kernels.NewSparseWorkspace(kb, N)
	}
	*s = xstep{K: K, k0: k0, N: N, lambda2: lambda2, sp: sp, ap: ap, sw: sw}
	if G == nil {
		G = mat.NewDense(kb, kb, nil)
		G.Mul(Db.T(), Db)
	}
	s.gram = G
	s.H = mat.DenseCopyOf(s.gram)
	kernels.DoubleDiagBlocks(s.H.RawMatrix(), ap, ap)
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
		s.B = mat.DenseCopyOf(DtY)
	} else {
		s.B = mat.NewDense(kb, N, nil)
		s.B.Mul(Db.T(), Y)
	}
	kernels.DoubleDiagBlocks(s.B.Slice(0, K, 0, N).(*mat.Dense).RawMatrix(), ap, sp)
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
// multiply-adds goes to Gemm rather than addMul: on OpenBLAS from 8192 on
// (the LRSDL-X gradient on AR gender, k=20, k0=10, 350 samples per class:
// 110 µs against 200 µs); never on gonum, whose Gemm is slower than the
// axpys at these shapes (705 µs against 560 µs).
func useBlockGemm(work int) bool {
	return !kernels.PureGo() && work >= blockGemmMin
}

var blockGemmMin = 8192 // a variable for the tests

// addMul adds op(a)·b to dst, op(a) = aᵀ if trans, by axpys over the
// non-zeros of a (kernels.AddCombination, no cgo): per-class blocks below
// useBlockGemm's size do not pay for a BLAS call.
func addMul(dst, a, b blas64.General, trans bool) {
	for i := 0; i < dst.Rows; i++ {
		dr := dst.Data[i*dst.Stride : i*dst.Stride+dst.Cols]
		if trans {
			kernels.AddCombination(dr, a.Rows, a.Data[i:], a.Stride, b.Data, b.Stride)
		} else {
			kernels.AddCombination(dr, a.Cols, a.Data[i*a.Stride:], 1, b.Data, b.Stride)
		}
	}
}

// factoredMul sets g = H·w as D̄ᵀ(D̄·w) + diag(D_cᵀD_c)·X + 2λ2·X on the
// upper rows and + R·X0 + λ2·X0 on the lower ones, which costs about
// 2dK̄n instead of K̄²n multiply-adds: fewer when d < K/2.
func (s *xstep) factoredMul(g, w blas64.General, full bool) {
	t := s.T.RawMatrix()
	t.Cols = w.Cols
	if full {
		s.sw.Mul(t, s.D, w)
	} else {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, s.D, w, 0, t)
	}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, s.D, t, 0, g)
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

// lipWork holds the warm-started power iterations of xstep.lipschitz.
type lipWork struct {
	all core.PowerIter   // D̄ᵀD̄
	cls []core.PowerIter // [D_c D0]ᵀ[D_c D0] of each class c
	sub mat.Dense
}

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
	return l + mx + 2*s.lambda2
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

func sub(g blas64.General, r0, r1, c0, c1 int) blas64.General {
	return blas64.General{Rows: r1 - r0, Cols: c1 - c0, Stride: g.Stride, Data: g.Data[r0*g.Stride+c0:]}
}

// grad writes ∇h̄(W) into G for the column block [s.col0, s.col0+n) of the
// problem, n the columns of W. It allocates nothing.
func (s *xstep) grad(G, W *mat.Dense) {
	K, k0 := s.K, s.k0
	kb, n := W.Dims()
	g, w := G.RawMatrix(), W.RawMatrix()
	b := sub(s.B.RawMatrix(), 0, kb, s.col0, s.col0+n)
	// G = H·W − B with H = [M(P)+2λ2I, Q; Qᵀ, 2R+λ2I] except for the
	// diagonal blocks of M(Q·X0) and Qᵀ·M(X), added per class below. The
	// product takes the sparse kernel when W is sparse enough.
	full := s.sw != nil && n == s.N
	if s.T != nil {
		s.factoredMul(g, w, full)
	} else if full {
		s.sw.Mul(g, s.H.RawMatrix(), w)
	} else {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, s.H.RawMatrix(), w, 0, g)
	}
	// classes of the block and their column ranges relative to W
	cls := func(fn func(c, lo, hi int)) {
		for c := s.c0; c < s.sp.Blocks(); c++ {
			lo, hi := s.sp.Block(c)
			lo, hi = lo-s.col0, hi-s.col0
			if lo >= n {
				break
			}
			fn(c, lo, hi)
		}
	}
	if k0 > 0 {
		gr := s.gram.RawMatrix()
		cls(func(c, lo, hi int) {
			a0, a1 := s.ap.Block(c)
			Qc := sub(gr, a0, a1, K, kb)
			if !useBlockGemm((a1 - a0) * k0 * (hi - lo)) {
				addMul(sub(g, a0, a1, lo, hi), Qc, sub(w, K, kb, lo, hi), false)
				addMul(sub(g, K, kb, lo, hi), Qc, sub(w, a0, a1, lo, hi), true)
				return
			}
			blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, Qc, sub(w, K, kb, lo, hi), 1, sub(g, a0, a1, lo, hi))
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, Qc, sub(w, a0, a1, lo, hi), 1, sub(g, K, kb, lo, hi))
		})
	}
	// −B and the mean terms, λ2(M − 2M̂) on X and −λ2M0 on X0, in one pass
	// over G.
	l2, fN := s.lambda2, float64(s.N)
	for i := 0; i < kb; i++ {
		gr, br, wr := g.Data[i*g.Stride:i*g.Stride+n], b.Data[i*b.Stride:i*b.Stride+n], w.Data[i*w.Stride:i*w.Stride+n]
		if i >= K || l2 == 0 {
			var a float64
			if l2 != 0 {
				a = l2 * (floats.Sum(wr) + s.other[i]) / fN
			}
			for j, v := range br {
				gr[j] -= v + a
			}
			continue
		}
		tot := s.other[i]
		cls(func(c, lo, hi int) {
			s.cs[c] = floats.Sum(wr[lo:hi])
			tot += s.cs[c]
		})
		m := tot / fN
		cls(func(c, lo, hi int) {
			a := l2 * (m - 2*s.cs[c]/float64(hi-lo))
			gc := gr[lo:hi]
			for j, v := range br[lo:hi] {
				gc[j] += a - v
			}
		})
	}
}

// stepX updates X̄ by LRSDL-X (one FISTA over [X; X0]) or, with origX, by
// O-FDDL-X (one FISTA per class over its columns, the others fixed).
func (t *train) stepX(ctx context.Context) error {
	before := mat.DenseCopyOf(t.Xb)
	old := t.current()
	if err := t.solveX(ctx, t.Xb); err != nil {
		return err
	}
	t.keepIfLower(old, func() { t.Xb.Copy(before) }) // FISTA is not monotone
	return nil
}

// current returns J̄ at the current point, evaluated once per change.
func (t *train) current() lrsdl.Cost {
	if !t.curOK {
		t.cur, t.curOK = t.cost(), true
	}
	return t.cur
}

// keepIfLower keeps the new point if its cost is not above old.Total, and
// otherwise calls revert and restores old.
func (t *train) keepIfLower(old lrsdl.Cost, revert func()) {
	c := t.cost()
	if c.Total > old.Total {
		revert()
		c = old
	}
	t.cur, t.curOK = c, true
}

func (t *train) solveX(ctx context.Context, Xb *mat.Dense) error {
	s := &t.xs
	t.gc.update(t.Db, t.Y, t.sp)
	s.setupFrom(t.Db, t.Y, t.sp, t.ap, t.p.lambda2, t.gc.G, t.gc.B)
	L := s.lipschitz(&t.lip)
	t.fist.MaxIter, t.fist.Tol, t.fist.Restart = t.p.xIters, t.p.xTol, true
	if t.p.plain {
		L = s.opNorm()
		t.fist.Tol, t.fist.Restart = -1, false
	}
	grad := s.grad
	if t.hook != nil {
		grad = func(G, W *mat.Dense) { s.grad(G, W); t.hook(G, W, L) }
	}
	if !t.p.origX {
		_, err := t.fist.Solve(ctx, Xb, grad, L, t.p.lambda1, nil)
		return err
	}
	kb, N := Xb.Dims()
	for c := 0; c < t.sp.Blocks(); c++ {
		lo, hi := t.sp.Block(c)
		for i := 0; i < kb; i++ {
			var sum float64
			row := Xb.RawRowView(i)
			for j, v := range row {
				if j < lo || j >= hi {
					sum += v
				}
			}
			s.other[i] = sum
		}
		s.col0, s.c0 = lo, c
		Xc := mat.DenseCopyOf(Xb.Slice(0, kb, lo, hi))
		if _, err := t.fist.Solve(ctx, Xc, grad, L, t.p.lambda1, nil); err != nil {
			return err
		}
		Xb.Slice(0, kb, lo, hi).(*mat.Dense).Copy(Xc)
	}
	_ = N
	s.col0, s.c0 = 0, 0
	for i := range s.other {
		s.other[i] = 0
	}
	return nil
}

// ybar returns Ȳ = Y − D0X0.
func (t *train) ybar() *mat.Dense {
	Yb := mat.DenseCopyOf(t.Y)
	if t.k0 > 0 {
		var p mat.Dense
		p.Mul(t.D0(), t.X0())
		Yb.Sub(Yb, &p)
	}
	return Yb
}

// mx returns M(X), X with its diagonal (class atoms × class samples) blocks doubled.
func (t *train) mx() *mat.Dense {
	MX := mat.DenseCopyOf(t.X())
	kernels.DoubleDiagBlocks(MX.RawMatrix(), t.ap, t.sp)
	return MX
}

// stepD updates D by E-FDDL-D: D = argmin −2tr(EDᵀ) + tr(F·DᵀD) with
// E = Ȳ·M(X)ᵀ, F = M(XXᵀ), by ODL (with α > 0, ADMM + SVT per class
// dictionary: D2L2R2); or, with origD, by O-FDDL-D class by class.
func (t *train) stepD(ctx context.Context) error {
	D, X := t.D(), t.X()
	uo := t.p.updateOpts()
	if t.p.origD {
		Yb := t.ybar()
		d, N := Yb.Dims()
		for c := 0; c < t.ap.Blocks(); c++ {
			a0, a1 := t.ap.Block(c)
			s0, s1 := t.sp.Block(c)
			Xc := X.Slice(a0, a1, 0, N)
			// Ŷ = Ȳ − Σ_{i≠c} D_iX^i
			Yh := mat.DenseCopyOf(Yb)
			var p mat.Dense
			p.Mul(D, X)
			Yh.Sub(Yh, &p)
			p.Reset()
			p.Mul(D.Slice(0, d, a0, a1), Xc)
			Yh.Add(Yh, &p)
			E := mat.NewDense(d, a1-a0, nil)
			E.Mul(Yh, Xc.T())
			p.Reset()
			p.Mul(Yb.Slice(0, d, s0, s1), X.Slice(a0, a1, s0, s1).T())
			E.Add(E, &p)
			F := mat.NewDense(a1-a0, a1-a0, nil)
			F.Mul(Xc, Xc.T())
			F.Scale(2, F)
			Dc := mat.DenseCopyOf(D.Slice(0, d, a0, a1))
			t.du.Update(Dc, E, F, uo)
			D.Slice(0, d, a0, a1).(*mat.Dense).Copy(Dc)
		}
		t.curOK = false
		return nil
	}
	MX := t.mx()
	d, _ := t.Y.Dims()
	E := mat.NewDense(d, t.K, nil)
	E.Mul(t.Y, MX.T())
	if t.k0 > 0 { // Ȳ·M(X)ᵀ = Y·M(X)ᵀ − D0·(X0·M(X)ᵀ), no d×N product
		var XM mat.Dense
		XM.Mul(t.X0(), MX.T())
		var p mat.Dense
		p.Mul(t.D0(), &XM)
		E.Sub(E, &p)
	}
	F := mat.NewDense(t.K, t.K, nil)
	F.Mul(X, X.T())
	kernels.DoubleDiagBlocks(F.RawMatrix(), t.ap, t.ap)
	Dn := mat.DenseCopyOf(D)
	if t.p.alpha > 0 {
		before := t.current()
		rho := rhoFor(F)
		prox := func(z, v *mat.Dense, rho float64) {
			for c := 0; c < t.ap.Blocks(); c++ {
				a0, a1 := t.ap.Block(c)
				zc := z.Slice(0, d, a0, a1).(*mat.Dense)
				core.SVT(zc, v.Slice(0, d, a0, a1).(*mat.Dense), t.p.alpha/rho)
			}
		}
		if err := t.admm.Update(ctx, Dn, E, F, prox, t.p.admmOpts(rho, uo)); err != nil {
			return err
		}
		old := mat.DenseCopyOf(D)
		D.Copy(Dn)
		t.keepIfLower(before, func() { D.Copy(old) })
		return nil
	}
	t.du.Update(Dn, E, F, uo)
	D.Copy(Dn)
	t.curOK = false
	return nil
}

func (p *dlParams) updateOpts() core.UpdateDictOptions {
	o := core.UpdateDictOptions{MaxIter: p.dIters}
	if p.plain {
		o.Tol = -1
	}
	return o
}

func (p *dlParams) admmOpts(rho float64, uo core.UpdateDictOptions) core.ADMMOptions {
	o := core.ADMMOptions{Rho: rho, MaxIter: p.admmIters, Update: uo}
	if p.plain {
		o.Tol = -1
	}
	return o
}

// rhoFor returns an ADMM penalty on the scale of the quadratic term tr(F·DᵀD).
func rhoFor(F *mat.Dense) float64 {
	k, _ := F.Dims()
	var tr float64
	for i := 0; i < k; i++ {
		tr += F.At(i, i)
	}
	return math.Max(2*tr/float64(k), 1e-3)
}

// stepD0 updates D0 by LRSDL-D0: argmin −2tr(E·D0ᵀ) + tr(F·D0ᵀD0) + η‖D0‖_*
// with E = V·X0ᵀ, F = X0X0ᵀ, V = Y − ½D·M(X), by ADMM with SVT. A result
// that does not lower the cost (ADMM stopped early) is discarded.
func (t *train) stepD0(ctx context.Context) error {
	if t.k0 == 0 {
		return nil
	}
	D0, X0 := t.D0(), t.X0()
	// E = Y·X0ᵀ − ½D·(M(X)·X0ᵀ), no d×N product.
	d, _ := t.Y.Dims()
	E := mat.NewDense(d, t.k0, nil)
	E.Mul(t.Y, X0.T())
	var MX0 mat.Dense
	MX0.Mul(t.mx(), X0.T())
	var p mat.Dense
	p.Mul(t.D(), &MX0)
	p.Scale(0.5, &p)
	E.Sub(E, &p)
	F := mat.NewDense(t.k0, t.k0, nil)
	F.Mul(X0, X0.T())
	Dn := mat.DenseCopyOf(D0)
	uo := t.p.updateOpts()
	if t.p.eta == 0 {
		t.du0.Update(Dn, E, F, uo)
		D0.Copy(Dn)
		t.curOK = false
		return nil
	}
	before := t.current()
	eta := t.p.eta
	prox := func(z, v *mat.Dense, rho float64) { core.SVT(z, v, eta/rho) }
	if err := t.admm0.Update(ctx, Dn, E, F, prox, t.p.admmOpts(rhoFor(F), uo)); err != nil {
		return err
	}
	old := mat.DenseCopyOf(D0)
	D0.Copy(Dn)
	t.keepIfLower(before, func() { D0.Copy(old) })
	return nil
}

// state and setState implement lrsdl.Persistent for the Fisher-type models.
func (f *fisherDL) state(name string, opts any) (*lrsdl.State, error) {
	if err := f.trained(); err != nil {
		return nil, err
	}
	return newState(name, opts, f.classes, []string{"Dbar", "part", "Mc", "m0"}, f.Db, rowOf(f.part), f.mc, rowOf(f.m0))
}

func (f *fisherDL) setState(name string, s *lrsdl.State, opts any) error {
	if s == nil || s.Method != name {
		return fmt.Errorf("methods: state is not of method %s", name)
	}
	if err := json.Unmarshal(s.Options, opts); err != nil {
		return fmt.Errorf("methods: bad %s options in state: %v", name, err)
	}
	Db, pm, mc, m0 := s.Matrices["Dbar"], s.Matrices["part"], s.Matrices["Mc"], s.Matrices["m0"]
	if Db == nil || pm == nil || mc == nil || m0 == nil {
		return fmt.Errorf("methods: %s state lacks a matrix (need Dbar, part, Mc, m0)", name)
	}
	C := len(s.Classes)
	_, np := pm.Dims()
	d, kb := Db.Dims()
	if np != C+1 || C < 2 {
		return fmt.Errorf("methods: %s state has %d classes and a partition of %d entries", name, C, np)
	}
	part := make(core.Partition, np)
	for i := range part {
		part[i] = int(pm.At(0, i))
		if i > 0 && part[i] < part[i-1] || part[0] != 0 {
			return fmt.Errorf("methods: %s state has a bad atom partition", name)
		}
	}
	K := part.Len()
	if r, c := mc.Dims(); K > kb || r != K || c != C {
		return fmt.Errorf("methods: %s state shapes do not match: Dbar %d×%d, %d class atoms, Mc %d×%d", name, d, kb, K, r, c)
	}
	if _, c := m0.Dims(); c < kb-K {
		return fmt.Errorf("methods: %s state m0 has %d entries, need %d", name, c, kb-K)
	}
	f.classes = core.ClassesOf(s.Classes)
	f.d, f.part = d, part
	f.Db, f.mc = mat.DenseCopyOf(Db), mat.DenseCopyOf(mc)
	f.m0 = append([]float64(nil), m0.RawRowView(0)[:kb-K]...)
	return nil
}

// costOf codes Y by the training X step at the learned D̄ and returns J̄.
func (f *fisherDL) costOf(p dlParams, Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	if err := f.trained(); err != nil {
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
	if err := t.solveX(context.Background(), t.Xb); err != nil {
		return lrsdl.Cost{}, err
	}
	return t.cost(), nil
}
