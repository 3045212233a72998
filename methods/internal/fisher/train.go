package fisher

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/parallel"
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
// the training parameters for the sizes of the training set.
func (f *Model) Fit(ctx context.Context, name string, Y mat.Matrix, labels []int, resolve func(dl.Info) (Params, error)) error {
	start := time.Now()
	f.Info, f.rs = lrsdl.FitInfo{}, nil
	Ys, g, err := dl.TrainingSet(Y, labels)
	if err != nil {
		return err
	}
	C := g.Classes.Len()
	if C < 2 {
		return fmt.Errorf("methods: %s needs at least 2 classes, have %d", name, C)
	}
	for c := 0; c < C; c++ {
		if g.Part.Size(c) < 2 {
			return fmt.Errorf("methods: %s: class %d has %d training sample, need at least 2", name, g.Classes.Labels[c], g.Part.Size(c))
		}
	}
	d, N := Ys.Dims()
	p, err := resolve(dl.InfoOf(Ys, g))
	if err != nil {
		return err
	}
	if p.K0 > N {
		return fmt.Errorf("methods: %s has %d training samples, fewer than k0=%d shared atoms", name, N, p.K0)
	}
	// Y and Q, [D D0], and [X; X0] with the K̄×N and K̄×K̄ products and
	// workspaces of the cost and the X step.
	kb := float64(C*p.K + p.K0)
	if err := dl.CheckMemory(name, 2*float64(d)*float64(N)+kb*(float64(d)+6*float64(N)+3*kb), "k, k0 or the training set"); err != nil {
		return err
	}
	// Train in span(Y) on Yr = QᵀY (N×N) when d is well above N; D̄ = Q·D̄_r.
	// Resumable fits of the same data share Q and Yr (sharedSpan); others
	// skip hashing the data.
	var key dataKey
	span := &spanEntry{}
	if f.keep {
		key = keyOf(Ys)
		span, err = sharedSpan(ctx, Ys, key, f.Set)
	} else {
		span.Q, span.Yr, err = dl.ReduceSpan(ctx, Ys, f.Set)
	}
	if err != nil {
		return err
	}
	Q, Yt := span.Q, Ys
	if Q != nil {
		Yt = span.Yr
	}
	t, err := newTrain(ctx, p, f.Set, Yt, g.Part)
	if err != nil {
		return err
	}
	fi, err := dl.RunOuter(ctx, dl.Loop{Iters: p.Iters, Tol: p.Tol, Progress: p.Progress, Start: start},
		func(int, bool) (lrsdl.Cost, error) { return t.outerStep(ctx) })
	f.Info = fi
	if err != nil {
		return err
	}
	f.finish(g.Classes, d, t, Q)
	f.Info.Elapsed = time.Since(start)
	f.keepState(t, d, labels, key, span)
	return nil
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
	old := t.current()
	if err := t.solveX(ctx, t.Xb); err != nil {
		return err
	}
	t.keepIfLower(old, func() { t.Xb.Copy(&t.before) }) // FISTA is not monotone
	return nil
}

// saveX copies X̄ to t.before.
func (t *train) saveX() {
	if r, c := t.Xb.Dims(); t.before.IsEmpty() || t.before.RawMatrix().Rows != r || t.before.RawMatrix().Cols != c {
		t.before.Reset()
		t.before.ReuseAs(r, c)
	}
	t.before.Copy(t.Xb)
}

// current returns J̄ at the current point, evaluated once per change.
func (t *train) current() lrsdl.Cost {
	if !t.curOK {
		t.cur, t.curOK = t.cost(), true
	}
	return t.cur
}

// keepIfLower keeps the new point of an X step if its cost is not above
// old.Total, and otherwise calls revert and restores old. D̄ has not
// changed since old, so the nuclear term is old's (no SVDs): the other
// terms come from lrsdlCost with η = α = 0, summed in its order.
func (t *train) keepIfLower(old lrsdl.Cost, revert func()) {
	p := t.p
	p.Eta, p.Alpha = 0, 0
	t.gc.update(t.Db, t.Y, t.sp, t.K)
	c := lrsdlCost(p, t.sp, t.ap, t.Db, t.Xb, &t.gc)
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
	t.gc.update(t.Db, t.Y, t.sp, t.K)
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

// stepD updates D by E-FDDL-D: D = argmin −2tr(EDᵀ) + tr(F·DᵀD) with
// E = Ȳ·M(X)ᵀ, F = M(XXᵀ), by ODL; with α > 0 (D2L2R2, DLRD) it minimises
// J's D part φ(D) of phiD, that is −2tr(EDᵀ) + tr(F·DᵀD) + 2αΣ_c‖D_c‖_*,
// by ADMM + SVT per class dictionary at threshold 2α/ρ (in span([D E]) by
// spanStepD when that is well below the data dimension); or, with origD,
// by O-FDDL-D class by class.
func (t *train) stepD(ctx context.Context) error {
	D, X := t.D(), t.X()
	uo := t.p.updateOpts()
	if t.p.OrigD {
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
	E, F := t.dProblem()
	if done, _, err := t.spanStepD(ctx, E, F); done || err != nil {
		return err
	}
	Dn := dl.Reuse(&t.db.dn, D.RawMatrix().Rows, t.K)
	Dn.Copy(D)
	if t.p.Alpha > 0 {
		d, _ := t.Y.Dims()
		rho := rhoFor(F) * nuclearRhoScale
		sj := &svtJob{ap: t.ap, w: t.classSVT()}
		prox := func(z, v *mat.Dense, rho float64) {
			sj.z, sj.v, sj.tau = z, v, 2*t.p.Alpha/rho
			parallel.For(t.ap.Blocks(), sj, d*t.K*t.K/t.ap.Blocks())
			sj.z, sj.v = nil, nil
		}
		if err := t.admm.Update(ctx, Dn, E, F, prox, t.p.admmOpts(rho, uo)); err != nil {
			return err
		}
		t.keepIfLowerIn(D, Dn, func(D *mat.Dense) float64 { return t.phiD(D, E, F) })
		return nil
	}
	if err := t.du.UpdateContext(ctx, Dn, E, F, uo); err != nil {
		return err
	}
	D.Copy(Dn)
	t.curOK = false
	return nil
}

func (p *Params) updateOpts() core.UpdateDictOptions {
	o := core.UpdateDictOptions{MaxIter: p.DIters}
	if p.Plain {
		o.Tol = -1
	}
	return o
}

// admmSweeps caps the ODL sweeps of the D update inside one ADMM
// iteration (inexact ADMM): each starts from the previous iteration's D,
// so a couple of sweeps reach what d_iters would. On COIL-100 (D2L2R2,
// k=10, λ1=0.001, 4 iterations) 2 sweeps give the same costs to 5 digits
// and the same accuracy as 20 in 0.37 of the time.
const admmSweeps = 2

// admmOpts returns the ADMM options of a nuclear-norm dictionary update;
// the reference algorithm (plain) keeps d_iters sweeps per iteration.
func (p *Params) admmOpts(rho float64, uo core.UpdateDictOptions) core.ADMMOptions {
	o := core.ADMMOptions{Rho: rho, MaxIter: p.ADMMIters, Update: uo}
	if p.Plain {
		o.Tol = -1
	} else {
		o.Update.MaxIter = min(uo.MaxIter, admmSweeps)
	}
	return o
}

// nuclearRhoScale scales rhoFor's penalty in the nuclear-norm dictionary
// updates: the D step of D2L2R2 and DLRD (class-wise SVT), where on Oxford
// Flower (K = 340) the ADMM meets its tolerance after 12–14 iterations at
// rhoFor(F), 8–9 at ½, 6–7 at ¼ and 5–6 at ⅛, each ending at a lower J;
// and LRSDL-D0, where on AR gender (k0 = 10, 30 outer iterations) it takes
// 17–20 iterations at rhoFor(F) (6 of 30 updates at the cap of 20) and 8–12
// at ⅛, ending at a lower J (18.56061 against 18.56072).
const nuclearRhoScale = 0.125

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
// that does not lower the cost (ADMM stopped early) is discarded; the cost
// is compared through its D0-dependent part (keepIfLowerIn).
func (t *train) stepD0(ctx context.Context) error {
	if t.k0 == 0 {
		return nil
	}
	D0 := t.D0()
	var E, F *mat.Dense
	if t.d0X {
		E, F = t.d0ProblemD()
		t.d0X = false
	} else {
		E, F = t.d0Problem()
	}
	Dn := dl.Reuse(&t.db.dn0, D0.RawMatrix().Rows, t.k0)
	Dn.Copy(D0)
	uo := t.p.updateOpts()
	if t.p.Eta == 0 {
		t.du0.Update(Dn, E, F, uo)
		D0.Copy(Dn)
		t.curOK = false
		return nil
	}
	eta := t.p.Eta
	prox := func(z, v *mat.Dense, rho float64) { t.svt0.SVT(z, v, eta/rho) }
	if err := t.admm0.Update(ctx, Dn, E, F, prox, t.p.admmOpts(rhoFor(F)*nuclearRhoScale, uo)); err != nil {
		return err
	}
	t.keepIfLowerIn(D0, Dn, func(D *mat.Dense) float64 { return t.phiD0(D, E, F) })
	return nil
}

// dProblem returns E = Ȳ·M(X)ᵀ and F = M(XXᵀ) of the D update, in
// t.db until the next call. Both products go through the sparse kernel
// when X is sparse enough (dWork.mulT): d·nnz(X) and K·nnz(X)
// multiply-adds instead of d·K·N and K²·N.
func (t *train) dProblem() (E, F *mat.Dense) {
	E, F = t.dProblemX()
	t.dProblemX0(E)
	return E, F
}

// dProblemX sets M(X), F and the part Y·M(X)ᵀ of E, which do not depend
// on X0 (dProblem).
func (t *train) dProblemX() (E, F *mat.Dense) {
	X, MX := t.X(), t.mx()
	d, _ := t.Y.Dims()
	E = dl.Reuse(&t.db.e, d, t.K)
	t.dw.mulT(E, t.Y, MX)
	F = dl.Reuse(&t.db.f, t.K, t.K)
	t.dw.mulT(F, X, X)
	symmetrize(F)
	blas.DoubleDiagBlocks(F.RawMatrix(), t.ap, t.ap)
	return E, F
}

// dProblemX0 completes E of dProblemX: Ȳ·M(X)ᵀ = Y·M(X)ᵀ − D0·(X0·M(X)ᵀ),
// no d×N product.
func (t *train) dProblemX0(E *mat.Dense) {
	if t.k0 == 0 {
		return
	}
	d, _ := t.Y.Dims()
	XM := dl.Reuse(&t.db.xm, t.k0, t.K)
	t.dw.mulT(XM, t.X0(), &t.db.mx)
	p := dl.Reuse(&t.db.p, d, t.K)
	p.Mul(t.D0(), XM)
	E.Sub(E, p)
}

// dWork holds the workspace of the D update's products.
type dWork struct {
	sw *blas.SparseWorkspace
}

// mulT sets dst = A·Bᵀ for A m×N and B K×N (dst m×K) through
// blas.SparseWorkspace.MulT, which takes the sparse path when B is
// sparse enough and Gemm otherwise.
func (w *dWork) mulT(dst, a, b *mat.Dense) {
	K, N := b.Dims()
	if w.sw != nil {
		if r, c := w.sw.Dims(); r != N || c != K {
			w.sw = nil
		}
	}
	if w.sw == nil {
		w.sw = blas.NewSparseWorkspace(N, K)
	}
	w.sw.MulT(dst.RawMatrix(), a.RawMatrix(), b.RawMatrix())
}

// d0Problem returns E = V·X0ᵀ, V = Y − ½D·M(X), and F = X0X0ᵀ of the D0
// update, in t.db until the next call. The products with X0ᵀ go through
// the sparse kernel when X0 is sparse enough, as dProblem's.
func (t *train) d0Problem() (E, F *mat.Dense) {
	t.d0ProblemX()
	return t.d0ProblemD()
}

// d0ProblemX computes the parts of d0Problem that do not depend on D:
// Y·X0ᵀ, M(X)·X0ᵀ and F.
func (t *train) d0ProblemX() {
	X0 := t.X0()
	d, _ := t.Y.Dims()
	t.dw0.mulT(dl.Reuse(&t.db.e0, d, t.k0), t.Y, X0)
	t.dw0.mulT(dl.Reuse(&t.db.mx0, t.K, t.k0), t.mx(), X0)
	F := dl.Reuse(&t.db.f0, t.k0, t.k0)
	t.dw0.mulT(F, X0, X0)
	symmetrize(F)
}

// d0ProblemD completes d0Problem from d0ProblemX's products: E = Y·X0ᵀ −
// ½D·(M(X)·X0ᵀ), no d×N product.
func (t *train) d0ProblemD() (E, F *mat.Dense) {
	E, F = &t.db.e0, &t.db.f0
	d, _ := t.Y.Dims()
	p := dl.Reuse(&t.db.p0, d, t.k0)
	p.Mul(t.D(), &t.db.mx0)
	p.Scale(0.5, p)
	E.Sub(E, p)
	return E, F
}

// symmetrize copies the upper triangle of the square f into its lower one:
// a product X·Xᵀ need not round symmetrically (OpenBLAS's AVX-512 kernels
// do not), and the ODL sweeps over F's rows take it as symmetric.
func symmetrize(F *mat.Dense) {
	f := F.RawMatrix()
	for i := 0; i < f.Rows; i++ {
		for j := i + 1; j < f.Cols; j++ {
			f.Data[j*f.Stride+i] = f.Data[i*f.Stride+j]
		}
	}
}

// phiD0 returns the part of J̄ that depends on D0,
//
//	φ(D0) = −2tr(E·D0ᵀ) + tr(F·D0ᵀD0) + η‖D0‖_*,
//
// for E and F of d0Problem at the current X̄ and D.
func (t *train) phiD0(D0, E, F *mat.Dense) float64 {
	return core.DictObjective(D0, E, F) + t.p.Eta*t.gc.nuc0.norm(D0)
}

// phiD returns the part of J̄ that depends on D,
//
//	φ(D) = ½(−2tr(EDᵀ) + tr(F·DᵀD)) + αΣ_c‖D_c‖_*,
//
// for E = Ȳ·M(X)ᵀ and F = M(XXᵀ) of stepD at the current X̄ and D0.
func (t *train) phiD(D, E, F *mat.Dense) float64 {
	return core.DictObjective(D, E, F)/2 + t.nuclear(D)
}

// keepIfLowerIn copies the update Dn into D if phi, which equals J̄ up to a
// term that does not depend on D, is not higher at Dn than at D. Comparing
// phi instead of J̄ spares the two evaluations of the full cost (one before
// and one after the update) that keepIfLower needs.
func (t *train) keepIfLowerIn(D, Dn *mat.Dense, phi func(*mat.Dense) float64) {
	if phi(Dn) <= phi(D) {
		D.Copy(Dn)
		t.curOK = false
	}
}
