package fisher

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// train is the state of one training run.
type train struct {
	p   Params
	set dl.Settings
	Y   *mat.Dense     // d×N, columns by class
	sp  core.Partition // samples of each class
	ap  core.Partition // atoms of each class
	Db  *mat.Dense     // [D D0]
	Xb  *mat.Dense     // [X; X0]
	K   int
	k0  int
	xs  xstep
	xf  xfused
	gc  gramCache
	// workspaces of the D and D0 updates
	du, du0     core.DictUpdater
	dw, dw0     dWork // of the products with X and with X0
	admm, admm0 core.ADMMDictWorkspace
	svt0        core.SVTWorkspace   // of the D0 step's prox
	svtC        []core.SVTWorkspace // of each class block (svtJob, nuclearJob)
	// hook, if set, is called after every gradient evaluation of the X step
	// (benchmarks use it to follow the iterates).
	hook  func(G, W *mat.Dense, L float64)
	lip   lipWork
	fist  core.FISTA
	x0    x0step
	fist0 core.FISTA
	cur   lrsdl.Cost // cost at the current point when curOK
	curOK bool
	// before holds X̄ before the X step, restored if the step raises J̄
	// (counted by reverts).
	before  mat.Dense
	reverts int
	db      dBufs
	// d0X: d0ProblemX has run for the current X̄ (outerStepOverlap), so
	// the next stepD0 needs only d0ProblemD.
	d0X bool
}

// dBufs holds the matrices the D and D0 steps return or work in (M(X),
// their E and F, the new dictionary), reused from one outer iteration to
// the next. Allocated afresh, they were nearly all of an iteration's
// garbage (TestOuterStepGarbage).
type dBufs struct {
	mx, e, f, xm, p, dn  mat.Dense
	e0, f0, mx0, p0, dn0 mat.Dense
}

func (t *train) D() *mat.Dense  { return t.Db.Slice(0, t.Db.RawMatrix().Rows, 0, t.K).(*mat.Dense) }
func (t *train) D0() *mat.Dense { r, c := t.Db.Dims(); return t.Db.Slice(0, r, t.K, c).(*mat.Dense) }
func (t *train) X() *mat.Dense  { _, n := t.Xb.Dims(); return t.Xb.Slice(0, t.K, 0, n).(*mat.Dense) }
func (t *train) X0() *mat.Dense { r, n := t.Xb.Dims(); return t.Xb.Slice(t.K, r, 0, n).(*mat.Dense) }

// Fit trains f as the named method on the columns of Y; resolve returns
// the training parameters for the sizes of the training set. Its route:
// dl.Prepare checks the data and reduces it to its span (Y = Q·Yr, shared
// between resumable fits of the same data), the outer iterations train on
// Yr, and finish keeps the state and maps D̄ back by Q.
func (f *Model) Fit(ctx context.Context, name string, Y mat.Matrix, labels []int, resolve func(dl.Info) (Params, error)) error {
	start := time.Now()
	f.Info, f.rs = lrsdl.FitInfo{}, nil
	var p Params
	s, err := dl.Prepare(ctx, Y, labels, f.Set, f.keep, func(s *dl.Prepared) (err error) {
		p, err = accept(name, s, f.Set, resolve)
		return err
	})
	if err != nil {
		return err
	}
	t, err := newTrain(ctx, p, f.Set, s.Train, s.Group.Part)
	if err != nil {
		return err
	}
	fi, err := dl.RunOuter(ctx, dl.Loop{Iters: p.Iters, Tol: p.Tol, Progress: p.Progress, Start: start},
		func(int, bool) (lrsdl.Cost, error) { return t.outerStep(ctx) })
	f.Info = fi
	if err != nil {
		return err
	}
	f.finish(s, t, labels, start)
	return nil
}

// accept returns the training parameters of the prepared set s, or an
// error when it has fewer than 2 classes, a class of fewer than 2 samples,
// fewer samples than k0 shared atoms, or sizes beyond the memory limit.
func accept(name string, s *dl.Prepared, set dl.Settings, resolve func(dl.Info) (Params, error)) (Params, error) {
	g := s.Group
	C := g.Classes.Len()
	if C < 2 {
		return Params{}, fmt.Errorf("methods: %s needs at least 2 classes, have %d", name, C)
	}
	for c := 0; c < C; c++ {
		if g.Part.Size(c) < 2 {
			return Params{}, fmt.Errorf("methods: %s: class %d has %d training sample, need at least 2", name, g.Classes.Labels[c], g.Part.Size(c))
		}
	}
	_, N := s.Y.Dims()
	p, err := resolve(s.Info)
	if err != nil {
		return Params{}, err
	}
	if p.K0 > N {
		return Params{}, fmt.Errorf("methods: %s has %d training samples, fewer than k0=%d shared atoms", name, N, p.K0)
	}
	if err := dl.CheckMemory(name, Plan(s.Info, set, C*p.K, p.K0, p.Alpha > 0), "k, k0 or the training set"); err != nil {
		return Params{}, err
	}
	return p, nil
}

// finish ends a Fit or Resume on the prepared set s: with f.keep it keeps
// what Resume needs (t compacted, with a copy of D̄ when the model's is
// the iterate itself); then it sets the model, D̄ = Q·D̄_r and the code
// means, or with SetScoreOnly leaves it suspended.
func (f *Model) finish(s *dl.Prepared, t *train, labels []int, start time.Time) {
	f.Classes, f.Dim, f.Part = s.Group.Classes, s.Info.Dim, t.ap
	f.rs = nil
	if f.keep {
		c := t.compact()
		if s.Span.Q == nil && !f.score {
			c.Db = mat.DenseCopyOf(t.Db)
		}
		f.rs = &fitState{t: c, d: s.Info.Dim, labels: slices.Clone(labels), key: s.Key, span: s.Span}
	}
	if f.score {
		f.Suspend()
	} else {
		f.Db = s.Span.Q.Expand(t.Db)
		f.Mc, f.M0 = t.means()
	}
	f.Info.Elapsed = time.Since(start)
	if f.rs != nil {
		f.rs.info = f.Info
	}
}

// newTrain initialises per Algorithm 2: each D_c and its codes X_c^c by ODL
// on Y_c, D0 and X0 by ODL on Y, the other codes zero.
func newTrain(ctx context.Context, p Params, set dl.Settings, Y *mat.Dense, sp core.Partition) (*train, error) {
	d, N := Y.Dims()
	C := sp.Blocks()
	sizes := make([]int, C)
	for c := range sizes {
		sizes[c] = p.K
	}
	ap := core.NewPartition(sizes...)
	K := ap.Len()
	t := &train{p: p, set: set, Y: Y, sp: sp, ap: ap, K: K, k0: p.K0,
		Db: mat.NewDense(d, K+p.K0, nil), Xb: mat.NewDense(K+p.K0, N, nil)}
	rng := rand.New(rand.NewPCG(p.Seed, 0x5eed1e55))
	lo := core.LearnDictOptions{Iter: p.InitIters, Lasso: core.LassoOptions{MaxIter: p.XIters, Tol: p.XTol}}
	bs := make([]dl.DictBlock, C, C+1)
	for c := range bs {
		s0, s1 := sp.Block(c)
		bs[c] = dl.DictBlock{Y: Y.Slice(0, d, s0, s1), K: p.K}
	}
	if p.K0 > 0 {
		bs = append(bs, dl.DictBlock{Y: Y, K: p.K0})
	}
	if err := dl.LearnDicts(ctx, bs, p.Lambda1, rng, lo); err != nil {
		return nil, err
	}
	for c := 0; c < C; c++ {
		s0, s1 := sp.Block(c)
		a0, a1 := ap.Block(c)
		t.Db.Slice(0, d, a0, a1).(*mat.Dense).Copy(bs[c].D)
		t.Xb.Slice(a0, a1, s0, s1).(*mat.Dense).Copy(bs[c].X)
	}
	if p.K0 > 0 {
		t.D0().Copy(bs[C].D)
		t.X0().Copy(bs[C].X)
	}
	return t, nil
}

// means returns the class means of X (K×C) and the mean of X0.
func (t *train) means() (*mat.Dense, []float64) {
	C := t.sp.Blocks()
	mc := mat.NewDense(t.K, C, nil)
	blas.BlockMeans(mc.RawMatrix(), t.X().RawMatrix(), t.sp)
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

// stepX updates X̄ by LRSDL-X (one FISTA over [X; X0]) followed, when
// k0 > 0 and not paperX (the default), by the exact X0 update solveX0; or,
// with origX, by O-FDDL-X (one FISTA per class over its columns, the
// others fixed).
func (t *train) stepX(ctx context.Context) error {
	t.saveX()
	old, err := t.current(ctx)
	if err != nil {
		return err
	}
	if err := t.solveX(ctx, t.Xb); err != nil {
		return err
	}
	return t.keepIfLower(ctx, old, func() { t.Xb.Copy(&t.before) }) // FISTA is not monotone
}

// saveX copies X̄ to t.before.
func (t *train) saveX() {
	if r, c := t.Xb.Dims(); t.before.IsEmpty() || t.before.RawMatrix().Rows != r || t.before.RawMatrix().Cols != c {
		t.before.Reset()
		t.before.ReuseAs(r, c)
	}
	t.before.Copy(t.Xb)
}

// current returns J̄ at the current point, evaluated once per change, or
// ctx's error if it is cancelled first.
func (t *train) current(ctx context.Context) (lrsdl.Cost, error) {
	if !t.curOK {
		c, err := t.cost(ctx)
		if err != nil {
			return lrsdl.Cost{}, err
		}
		t.cur, t.curOK = c, true
	}
	return t.cur, nil
}

// keepIfLower keeps the new point of an X step if its cost is not above
// old.Total, and otherwise calls revert and restores old. D̄ has not
// changed since old, so the nuclear term is old's (no SVDs): the other
// terms come from totalCost with η = α = 0, summed in its order. Cancelled
// before the cost's products end, it returns ctx's error and keeps the new
// point, its cost unknown.
func (t *train) keepIfLower(ctx context.Context, old lrsdl.Cost, revert func()) error {
	p := t.p
	p.Eta, p.Alpha = 0, 0
	t.curOK = false
	if err := t.gc.update(ctx, t.Db, t.Y, t.sp, t.K); err != nil {
		return err
	}
	c := totalCost(p, t.sp, t.ap, t.Db, t.Xb, &t.gc)
	c.Total = 0
	for i := range c.Terms {
		if c.Terms[i].Name == "nuclear" {
			c.Terms[i].Value = old.Term("nuclear")
		}
		c.Total += c.Terms[i].Value
	}
	if c.Total > old.Total {
		revert()
		c = old
		t.reverts++
	}
	t.cur, t.curOK = c, true
	return nil
}

// solveX runs the X step of stepX on Xb from its current value (no
// keep-if-lower test).
func (t *train) solveX(ctx context.Context, Xb *mat.Dense) error {
	if err := t.solveXJoint(ctx, Xb); err != nil || !t.exactX0() {
		return err
	}
	return t.solveX0(ctx, Xb)
}

// exactX0 reports whether the X step ends with solveX0.
func (t *train) exactX0() bool {
	return t.k0 > 0 && !t.p.PaperX && !t.p.Plain && !t.p.OrigX
}

// solveXJoint is solveX without its solveX0.
func (t *train) solveXJoint(ctx context.Context, Xb *mat.Dense) error {
	s := &t.xs
	s.set = t.set
	if err := t.gc.update(ctx, t.Db, t.Y, t.sp, t.K); err != nil {
		return err
	}
	s.setupFrom(t.Db, t.Y, t.sp, t.ap, t.p.Lambda2, t.gc.G, t.gc.B)
	L := s.lipschitz(&t.lip)
	t.fist.MaxIter, t.fist.Tol, t.fist.Restart = t.p.XIters, t.p.XTol, true
	if t.p.Plain {
		L = s.opNorm()
		t.fist.Tol, t.fist.Restart = -1, false
	}
	grad := s.grad
	if t.hook != nil {
		grad = func(G, W *mat.Dense) { s.grad(G, W); t.hook(G, W, L) }
	}
	if !t.p.OrigX {
		m, metric := core.RankOneMetric{}, false
		if t.p.XMetric && !t.p.Plain {
			m, metric = s.metric(&t.lip)
		}
		var err error
		switch {
		case metric:
			_, err = t.fist.SolveMetric(ctx, Xb, grad, m, t.p.Lambda1)
		case t.hook == nil && useFused(s):
			t.xf.setup(s)
			err = t.xf.solve(ctx, &t.fist, Xb, L, t.p.Lambda1)
		default:
			_, err = t.fist.Solve(ctx, Xb, grad, L, t.p.Lambda1, nil)
		}
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
		if _, err := t.fist.Solve(ctx, Xc, grad, L, t.p.Lambda1, nil); err != nil {
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

// x0Iters is the FISTA iteration limit of solveX0, whose iterations cost
// O(k0²N), next to O(K̄²N) for one of LRSDL-X.
const x0Iters = 200

// solveX0 minimises J̄ over the X0 rows of Xb with X fixed (x0step) by
// FISTA at X0's own Lipschitz constant λmax(2R + λ2I), from the current X0
// and to the X step's tolerance. After LRSDL-X it is what makes the X step
// exact in X0: the joint step 1/L, L ≥ λmax of the whole Hessian (set by
// the class atoms and their coupling with D0), is far below 1/λmax(2R +
// λ2I), so LRSDL-X barely moves X0, and its tolerance test, a relative
// change of X̄ per iteration, stops it while X0 is still far from optimal
// (J̄ after 10 outer iterations on COIL-100 is 16.9 with solveX0 against
// 23.2 without: lrsdl train -data testdata/coil100-32x32.mat -method LRSDL
// -train-per-class 10 -iters 10 [-p paper_x=true]).
func (t *train) solveX0(ctx context.Context, Xb *mat.Dense) error {
	K, kb := t.K, t.K+t.k0
	_, N := Xb.Dims()
	t.x0.setup(t.gc.G.RawMatrix(), t.gc.B.RawMatrix(), Xb.Slice(0, K, 0, N).(*mat.Dense).RawMatrix(), t.sp, t.ap, t.p.Lambda2)
	t.fist0.MaxIter, t.fist0.Tol, t.fist0.Restart = x0Iters, t.p.XTol, true
	_, err := t.fist0.Solve(ctx, Xb.Slice(K, kb, 0, N).(*mat.Dense), t.x0.grad, t.x0.lipschitz(), t.p.Lambda1, nil)
	return err
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

// mx returns M(X), X with its diagonal (class atoms × class samples)
// blocks doubled, in t.db.mx until the next call.
func (t *train) mx() *mat.Dense {
	_, N := t.Xb.Dims()
	MX := dl.Reuse(&t.db.mx, t.K, N)
	MX.Copy(t.X())
	blas.DoubleDiagBlocks(MX.RawMatrix(), t.ap, t.sp)
	return MX
}

// Plan returns the floats a Fisher fit allocates at most on the training
// set info with K class atoms and k0 shared ones (kb = K+k0), the samples
// reduced to dr rows (dl.SpanRows), adm for the ADMM dictionary step:
//
//	d·N + span       the class-ordered samples and their span (dl.SpanFloats)
//	dr·N, 2 with D0  Yᵀ of the dictionary steps
//	6·dr·kb          D̄, its update and the products of the D step; 2 more with D0, 6 more with ADMM
//	14·kb·N          X̄, FISTA's iterates and gradient, sparse copies, the cost's products
//	4·kb², 6 with ADMM  the Gram matrices of the X step, the cost and the D step
func Plan(info dl.Info, set dl.Settings, K, k0 int, adm bool) float64 {
	d, N, dr := float64(info.Dim), float64(info.N), dl.SpanRows(info, set)
	kb := float64(K + k0)
	yt, dk, kk := 1.0, 6.0, 4.0
	if k0 > 0 {
		yt, dk = 2, 8
	}
	if adm {
		dk, kk = dk+6, 6
	}
	return d*N + dl.SpanFloats(info, set) + yt*dr*N + dk*dr*kb + 14*kb*N + kk*kb*kb
}
