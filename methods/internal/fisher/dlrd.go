package fisher

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// FitDLRD trains DLRD's class dictionaries D (partition part) on the
// class-ordered samples Ys (partition sp) with sparse-error weight beta,
// for the outer iterations of l: X step, D step, E step.
func FitDLRD(ctx context.Context, p Params, set dl.Settings, Ys *mat.Dense, sp core.Partition, beta float64, l dl.Loop) (D *mat.Dense, part core.Partition, info lrsdl.FitInfo, err error) {
	t, err := newTrainSpan(ctx, p, set, mat.DenseCopyOf(Ys), sp)
	if err != nil {
		return nil, nil, info, err
	}
	s := &dlrdTrain{t: t, Y0: Ys, beta: beta}
	if !s.reduce() {
		d, N := Ys.Dims()
		s.E = mat.NewDense(d, N, nil)
	}
	info, err = dl.RunOuter(ctx, l, func(int, bool) (lrsdl.Cost, error) {
		if err := s.stepX(ctx); err != nil {
			return lrsdl.Cost{}, err
		}
		if err := s.stepD(ctx); err != nil {
			return lrsdl.Cost{}, err
		}
		s.stepE()
		return s.cost(ctx)
	})
	if err != nil {
		return nil, nil, info, err
	}
	return s.dictionary(), t.ap, info, nil
}

// CostDLRD returns DLRD's cost of the dictionaries D (partition part) on
// the class-ordered samples Ys (partition sp): the codes from the X step
// and the error from the E step, both started at zero.
func CostDLRD(p Params, set dl.Settings, D *mat.Dense, part core.Partition, Ys *mat.Dense, sp core.Partition, beta float64) (lrsdl.Cost, error) {
	d, n := Ys.Dims()
	K := part.Len()
	t := &train{p: p, set: set, Y: mat.DenseCopyOf(Ys), sp: sp, ap: part, K: K, Db: D, Xb: mat.NewDense(K, n, nil)}
	s := &dlrdTrain{t: t, Y0: Ys, beta: beta, E: mat.NewDense(d, n, nil)}
	if err := t.solveX(context.Background(), t.Xb); err != nil {
		return lrsdl.Cost{}, err
	}
	s.stepE()
	return s.cost(context.Background())
}

// newTrainSpan is newTrain for k0 = 0 with each class dictionary learned
// in span(Y_c): Y_c = Q_c·R_c (dl.ThinQR), D_c = Q_c·ODL(R_c), at n_c instead
// of d rows when d > dl.SpanRatio·n_c. ODL's iterates depend on Y_c only
// through inner products and column norms, which Q_c preserves (the
// argument of dl.ReduceSpan), so D_c and X_c^c are newTrain's up to rounding.
// A class with a zero sample is learned in the data space: ODL replaces
// a zero starting atom by a random one of length d.
func newTrainSpan(ctx context.Context, p Params, set dl.Settings, Y *mat.Dense, sp core.Partition) (*train, error) {
	d, N := Y.Dims()
	if p.K0 > 0 || set.NoSpan {
		return newTrain(ctx, p, set, Y, sp)
	}
	sizes := make([]int, sp.Blocks())
	for c := range sizes {
		sizes[c] = p.K
	}
	ap := core.NewPartition(sizes...)
	K := ap.Len()
	t := &train{p: p, set: set, Y: Y, sp: sp, ap: ap, K: K, Db: mat.NewDense(d, K, nil), Xb: mat.NewDense(K, N, nil)}
	rng := rand.New(rand.NewPCG(p.Seed, 0x5eed1e55))
	lo := core.LearnDictOptions{Iter: p.InitIters, Lasso: core.LassoOptions{MaxIter: p.XIters, Tol: p.XTol}}
	bs := make([]dl.DictBlock, sp.Blocks())
	Qs := make([]*dl.SpanBasis, len(bs))
	for c := range bs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s0, s1 := sp.Block(c)
		Yc := Y.Slice(0, d, s0, s1).(*mat.Dense)
		if float64(d) > dl.SpanRatio*float64(s1-s0) && !hasZeroColumn(Yc) {
			Qs[c], Yc = dl.ThinQR(Yc, set)
		}
		bs[c] = dl.DictBlock{Y: Yc, K: p.K}
	}
	if err := dl.LearnDicts(ctx, bs, p.Lambda1, rng, lo); err != nil {
		return nil, err
	}
	for c := range bs {
		s0, s1 := sp.Block(c)
		a0, a1 := ap.Block(c)
		Dc := bs[c].D
		if Qs[c] != nil {
			Dc = Qs[c].Expand(Dc)
		}
		t.Db.Slice(0, d, a0, a1).(*mat.Dense).Copy(Dc)
		t.Xb.Slice(a0, a1, s0, s1).(*mat.Dense).Copy(bs[c].X)
	}
	return t, nil
}

// hasZeroColumn reports whether a has a column of zeros.
func hasZeroColumn(a *mat.Dense) bool {
	r, c := a.Dims()
	nz := make([]bool, c)
	for i := 0; i < r; i++ {
		for j, v := range a.RawRowView(i) {
			if v != 0 {
				nz[j] = true
			}
		}
	}
	for _, v := range nz {
		if !v {
			return true
		}
	}
	return false
}

// dlrdTrain is a Fisher-model training run on Y0 − E with the error E.
type dlrdTrain struct {
	t    *train
	Y0   *mat.Dense // the samples, by class
	E    *mat.Dense // sparse error, d×N; nil in coordinates (b.nz)
	beta float64
	b    *dlrdBasis // non-nil when training in coordinates (reduce)
	R    mat.Dense
	sw   *blas.SparseWorkspace // D·M(X) for sparse X
	ej   dlrdEJob              // the reduced E step's task
	dT   mat.Dense             // N×K: ΔEᵀD in stepE
	// fit holds the fidelity and ℓ1 terms at the current point when fitOK,
	// nuc the nuclear term αΣ_c‖D_c‖_* at the current D when nucOK.
	fit          lrsdl.Cost
	nuc          float64
	fitOK, nucOK bool
}

// stepX is train.stepX comparing only the terms the X step changes, the
// fidelity and ℓ1 (fitCost): the nuclear and error terms stay as they are.
func (s *dlrdTrain) stepX(ctx context.Context) error {
	t := s.t
	if r, c := t.Xb.Dims(); t.before.IsEmpty() || t.before.RawMatrix().Rows != r || t.before.RawMatrix().Cols != c {
		t.before.Reset()
		t.before.ReuseAs(r, c)
	}
	t.before.Copy(t.Xb)
	old, err := s.fitCost(ctx)
	if err != nil {
		return err
	}
	if err := t.solveX(ctx, t.Xb); err != nil {
		return err
	}
	s.fitOK, t.curOK = false, false
	fit, err := s.fitCost(ctx)
	if err != nil {
		return err
	}
	if fit.Total > old.Total { // FISTA is not monotone
		t.Xb.Copy(&t.before)
		s.fit = old
	}
	return nil
}

// stepD is the D step of DLRD, train.stepD: ADMM with singular value
// thresholding of each class dictionary (D2L2R2's step), run in span([D E])
// by train.spanStepD when that is well below the data dimension, which
// also gives the new nuclear term; otherwise train.stepD in the data space.
func (s *dlrdTrain) stepD(ctx context.Context) error {
	t := s.t
	E, F := t.dProblem()
	// In coordinates the E step changes Y next: the cost's products of
	// the new D would be recomputed unused.
	nucOld := -1.0
	if s.nucOK {
		nucOld = s.nuc
	}
	done, nuc, err := t.spanStep(ctx, E, F, s.b == nil, nucOld)
	if err != nil {
		return err
	}
	if !done {
		if err := t.stepD(ctx); err != nil {
			return err
		}
		s.fitOK, s.nucOK = false, false
		return nil
	}
	if nuc >= 0 { // D changed
		s.fitOK, s.nuc, s.nucOK = false, nuc, true
	}
	return nil
}

// residualsOf sets s.R = ½(R + R̂), R = Y0 − DX, R̂_c = Y0_c − D_cX_c^c, as
// Y0 − ½D·M(X) for the data-space D: on the samples of class c, DX +
// D_cX_c^c is D times X with its diagonal block doubled (one d×K×N
// product, sparse in X).
func (s *dlrdTrain) residualsOf(D *mat.Dense) {
	s.mulMX(&s.R, D)
	s.halfResidual()
}

// mulMX sets dst to D·M(X), for D with K columns (sparse in X).
func (s *dlrdTrain) mulMX(dst, D *mat.Dense) {
	rows, _ := D.Dims()
	_, N := s.Y0.Dims()
	dst.Reset()
	dst.ReuseAs(rows, N)
	if s.sw == nil {
		s.sw = blas.NewSparseWorkspace(s.t.K, N)
	}
	s.sw.Mul(dst.RawMatrix(), D.RawMatrix(), s.t.mx().RawMatrix())
}

// halfResidual sets s.R (d×N, holding D·M(X)) to Y0 − ½s.R.
func (s *dlrdTrain) halfResidual() {
	r, y := s.R.RawMatrix(), s.Y0.RawMatrix()
	for i := 0; i < r.Rows; i++ {
		ri, yi := r.Data[i*r.Stride:i*r.Stride+r.Cols], y.Data[i*y.Stride:i*y.Stride+r.Cols]
		for j, v := range ri {
			ri[j] = yi[j] - 0.5*v
		}
	}
}

// stepE sets E = S_{β/2}(½(R + R̂)) and the training data to Y0 − E.
// When the cost's products are those of the current D and the old Y, B =
// DᵀY follows the change of E as B − Dᵀ·ΔE, sparse in ΔE (K·nnz(ΔE)
// multiply-adds instead of a new d×K×N product).
func (s *dlrdTrain) stepE() {
	if s.b != nil {
		s.stepEReduced()
		return
	}
	t := s.t
	s.residualsOf(t.D())
	h := s.beta / 2
	gc := &t.gc
	keep := !t.set.NoGramReuse && !gc.partial && gc.Db != nil && gc.y == &t.Y.RawMatrix().Data[0] && mat.Equal(gc.Db, t.Db)
	if keep {
		s.dT.Reset()
		s.dT.ReuseAs(s.E.RawMatrix().Cols, t.K)
	}
	e, r := s.E.RawMatrix(), s.R.RawMatrix()
	db, dt := t.Db.RawMatrix(), s.dT.RawMatrix()
	for i := 0; i < e.Rows; i++ {
		ei, ri := e.Data[i*e.Stride:i*e.Stride+e.Cols], r.Data[i*r.Stride:i*r.Stride+e.Cols]
		for j, v := range ri {
			nv := math.Copysign(math.Max(math.Abs(v)-h, 0), v)
			if keep && nv != ei[j] {
				// row j of ΔEᵀD gains ΔE_ij·D_i.
				floats.AddScaled(dt.Data[j*dt.Stride:j*dt.Stride+t.K], nv-ei[j], db.Data[i*db.Stride:i*db.Stride+t.K])
			}
			ei[j] = nv
		}
	}
	t.Y.Sub(s.Y0, s.E)
	if keep {
		b := gc.B.RawMatrix()
		for j := 0; j < dt.Rows; j++ {
			for a, v := range dt.Data[j*dt.Stride : j*dt.Stride+t.K] {
				b.Data[a*b.Stride+j] -= v
			}
		}
		gc.ysq = dl.ClassSquares(gc.ysq[:0], t.Y, t.sp)
	} else {
		t.gc = gramCache{} // Y changed in place
	}
	t.curOK, s.fitOK = false, false
}

// fitCost returns the fidelity and ℓ1 terms of J at the current point:
// the Fisher model's cost with α = 0 (its "nuclear" term zero), evaluated
// once per change of D, X or Y, or ctx's error if it is cancelled first.
func (s *dlrdTrain) fitCost(ctx context.Context) (lrsdl.Cost, error) {
	if !s.fitOK {
		t := s.t
		if err := t.gc.update(ctx, t.Db, t.Y, t.sp, t.K); err != nil {
			return lrsdl.Cost{}, err
		}
		p := t.p
		p.Alpha = 0
		s.fit, s.fitOK = totalCost(p, t.sp, t.ap, t.Db, t.Xb, &t.gc), true
	}
	return s.fit, nil
}

// cost returns J: the terms of the Fisher model on Y0 − E ("fidelity",
// "l1", "nuclear"; "fisher" and "shared" are zero) and "error" β‖E‖₁.
func (s *dlrdTrain) cost(ctx context.Context) (lrsdl.Cost, error) {
	if !s.nucOK {
		s.nuc, s.nucOK = s.t.nuclear(s.t.D()), true
	}
	f, err := s.fitCost(ctx)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	terms := append([]lrsdl.Term(nil), f.Terms...)
	var tot float64
	for i := range terms {
		if terms[i].Name == "nuclear" {
			terms[i].Value = s.nuc
		}
		tot += terms[i].Value
	}
	e := s.beta * s.errorL1()
	return lrsdl.Cost{Total: tot + e, Terms: append(terms, lrsdl.Term{Name: "error", Value: e})}, nil
}

// errorL1 returns ‖E‖₁, summed by rows as core.L1 does (from E's
// non-zero entries when training in coordinates).
func (s *dlrdTrain) errorL1() float64 {
	if s.b == nil {
		return core.L1(s.E)
	}
	var v float64
	for _, z := range s.b.nz {
		v += math.Abs(z.v)
	}
	return v
}
