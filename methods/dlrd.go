package methods

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
)

func init() { register("DLRD", func() lrsdl.Classifier { return &DLRD{} }) }

// DLRDOptions controls DLRD. The zero value means the defaults, chosen by
// cross-validation on the AR gender training set, and β by
// cross-validation on the training parts of four data sets
// (bench/defaults-dlrd.md); Off sets a literal 0 where the range allows it.
type DLRDOptions struct {
	K       int     `json:"k"`       // atoms per class; zero means min(20, smallest class)
	Lambda1 float64 `json:"lambda1"` // ℓ1 weight λ1 of the codes; zero means 0.02
	Alpha   float64 `json:"alpha"`   // nuclear-norm weight α of each D_c; zero means 0.005
	Beta    float64 `json:"beta"`    // ℓ1 weight β of the sparse error E; zero means 1
	Lambda  float64 `json:"lambda"`  // ℓ1 weight of the coding at prediction; zero means lambda1
	Iters   int     `json:"iters"`   // outer iterations; zero means 15
	// ADMMIters caps the ADMM iterations of each dictionary update; zero
	// means 2.
	ADMMIters int `json:"admm_iters"`
	// Tol stops training when the cost changes by at most Tol relative;
	// zero means 1e-4.
	Tol      float64            `json:"tol"`
	Seed     uint64             `json:"seed"` // seed of the initialisation
	Progress lrsdl.ProgressFunc `json:"-"`    // called after each outer iteration
}

func (o *DLRDOptions) spec() optSpec {
	return optSpec{method: "DLRD", opts: []opt{
		kOpt(&o.K, 20, "atoms per class"),
		{name: "lambda1", doc: "ℓ1 weight λ1 of the codes", f: &o.Lambda1, def: 0.02, minOpen: true, zeroAt: 1},
		{name: "alpha", doc: "nuclear-norm weight α of each class dictionary", f: &o.Alpha, def: 0.005, off: true},
		{name: "beta", doc: "ℓ1 weight β of the sparse error", f: &o.Beta, def: 1, minOpen: true},
		lambdaOpt(&o.Lambda, &o.Lambda1),
		itersOpt(&o.Iters, 15),
		{name: "admm_iters", doc: "ADMM iterations of each dictionary update", i: &o.ADMMIters, def: dlrdADMMIters, min: 1},
		tolOpt(&o.Tol),
		seedOpt(&o.Seed),
	}}
}

// DLRD is discriminative low-rank dictionary learning (Ma et al., "Sparse
// representation for face recognition based on discriminative low-rank
// dictionary learning", CVPR 2012): class dictionaries D = [D_1 … D_C] of
// low rank, learned from training samples with sparse errors E,
//
//	J(D, X, E) = ½Σ_c (‖Y_c − E_c − DX_c‖² + ‖Y_c − E_c − D_cX_c^c‖² + Σ_{j≠c}‖D_jX_c^j‖²)
//	           + λ1‖X‖₁ + α Σ_c ‖D_c‖_* + β‖E‖₁,   ‖dᵢ‖₂ ≤ 1,
//
// FDDL's discriminative fidelity on the cleaned samples Y − E without its
// Fisher term, the nuclear norm of each class dictionary and an ℓ1 error.
// The paper's constraint Y = DX + E is relaxed into the first fidelity
// term, as FDDL does, so that every block has an exact or convergent
// solver; training alternates
//
//   - X: FDDL-X with λ2 = 0 (one FISTA over X on Y − E);
//   - D: min −2tr(EDᵀ) + tr(F·DᵀD) + 2α Σ_c ‖D_c‖_*, twice J's D part
//     (E-FDDL-D's quadratic), by ADMM on the split D = Z with singular
//     value thresholding of each class block of Z at 2α/ρ, the D2L2R2
//     step (the paper's inexact ALM splits D_c = J_c the same way);
//   - E: J is ‖E − ½(R + R̂)‖² + β‖E‖₁ + const in E, R = Y − DX and
//     R̂_c = Y_c − D_cX_c^c, so E = S_{β/2}(½(R + R̂)) (soft thresholding).
//
// A D step that does not lower J (ADMM stopped early) is discarded, so J
// never increases. The ℓ1 error lives in the data space; with d ≥ 2N
// training runs in the coordinates of a basis of span(Y) grown by the rows
// where E is non-zero (dlrdBasis), with only the E step in the data space;
// the D step runs in span([D E]) (at most 2K dimensions; see
// dlrdTrain.stepD) and the initial class dictionaries are learned in
// span(Y_c) (newTrainSpan).
//
// Prediction follows SRC, as Ma et al. do: y is coded on D by the lasso
// (½‖y − Dx‖² + λ‖x‖₁) and assigned to the class c of the smallest
// ‖y − D_cx^c‖².
type DLRD struct {
	Options DLRDOptions

	info    lrsdl.FitInfo
	classes *core.Classes
	D       *mat.Dense     // d×K: [D_1 … D_C]
	part    core.Partition // atoms of each class
}

// Name returns "DLRD".
func (m *DLRD) Name() string { return "DLRD" }

// Atoms returns the class dictionaries, their atom partition and a nil
// shared dictionary.
func (m *DLRD) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) {
	if m.D == nil {
		return nil, nil, nil
	}
	return mat.DenseCopyOf(m.D), dlsiCopyPart(m.part), nil
}

// dlrdADMMIters is the default of DLRDOptions.ADMMIters.
const dlrdADMMIters = 2

// dlrdParams returns the parameters of the Fisher-model training steps
// DLRD reuses: no shared atoms, λ2 = 0 and the nuclear weight α.
func dlrdParams(o DLRDOptions) dlParams {
	return dlParams{k: o.K, lambda1: o.Lambda1, alpha: lit(o.Alpha), iters: o.Iters, xIters: 50, xTol: 1e-4,
		dIters: 20, admmIters: o.ADMMIters, initIters: 5, w: 1, lambda: o.Lambda, seed: o.Seed}
}

// Fit learns the class dictionaries from the columns of Y.
func (m *DLRD) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	start := time.Now()
	m.info = lrsdl.FitInfo{}
	o := m.Options
	Ys, g, _, err := classTrainingSet("DLRD", Y, labels, &o)
	if err != nil {
		return err
	}
	C := g.Classes.Len()
	d, N := Ys.Dims()
	K := C * o.K
	if err := checkMemory("DLRD", float64(d)*float64(N)*5+float64(K)*float64(N+K)*4, "k or the training set"); err != nil {
		return err
	}
	t, err := newTrainSpan(ctx, dlrdParams(o), mat.DenseCopyOf(Ys), g.Part)
	if err != nil {
		return err
	}
	s := &dlrdTrain{t: t, Y0: Ys, beta: o.Beta}
	if !s.reduce() {
		s.E = mat.NewDense(d, N, nil)
	}
	fi, err := runOuter(ctx, loop{iters: o.Iters, tol: lit(o.Tol), progress: o.Progress, start: start},
		func(int, bool) (lrsdl.Cost, error) {
			if err := s.stepX(ctx); err != nil {
				return lrsdl.Cost{}, err
			}
			if err := s.stepD(ctx); err != nil {
				return lrsdl.Cost{}, err
			}
			s.stepE()
			return s.cost(), nil
		})
	m.info = fi
	if err != nil {
		return err
	}
	m.Options, m.classes, m.D, m.part = o, g.Classes, s.dictionary(), t.ap
	m.info.Elapsed = time.Since(start)
	return nil
}

// newTrainSpan is newTrain for k0 = 0 with each class dictionary learned
// in span(Y_c): Y_c = Q_c·R_c (thinQR), D_c = Q_c·ODL(R_c), at n_c instead
// of d rows when d > spanRatio·n_c. ODL's iterates depend on Y_c only
// through inner products and column norms, which Q_c preserves (the
// argument of reduceSpan), so D_c and X_c^c are newTrain's up to rounding.
// A class with a zero sample is learned in the data space: ODL replaces
// a zero starting atom by a random one of length d.
func newTrainSpan(ctx context.Context, p dlParams, Y *mat.Dense, sp core.Partition) (*train, error) {
	d, N := Y.Dims()
	if p.k0 > 0 || spanOff {
		return newTrain(ctx, p, Y, sp)
	}
	sizes := make([]int, sp.Blocks())
	for c := range sizes {
		sizes[c] = p.k
	}
	ap := core.NewPartition(sizes...)
	K := ap.Len()
	t := &train{p: p, Y: Y, sp: sp, ap: ap, K: K, Db: mat.NewDense(d, K, nil), Xb: mat.NewDense(K, N, nil)}
	rng := rand.New(rand.NewPCG(p.seed, 0x5eed1e55))
	lo := core.LearnDictOptions{Iter: p.initIters, Lasso: core.LassoOptions{MaxIter: p.xIters, Tol: p.xTol}}
	bs := make([]dictBlock, sp.Blocks())
	Qs := make([]*spanBasis, len(bs))
	for c := range bs {
		s0, s1 := sp.Block(c)
		Yc := Y.Slice(0, d, s0, s1).(*mat.Dense)
		if float64(d) > spanRatio*float64(s1-s0) && !hasZeroColumn(Yc) {
			Qs[c], Yc = thinQR(Yc)
		}
		bs[c] = dictBlock{Y: Yc, k: p.k}
	}
	if err := learnDicts(ctx, bs, p.lambda1, rng, lo); err != nil {
		return nil, err
	}
	for c := range bs {
		s0, s1 := sp.Block(c)
		a0, a1 := ap.Block(c)
		Dc := bs[c].D
		if Qs[c] != nil {
			Dc = expand(Qs[c], Dc)
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
	old := s.fitCost()
	if err := t.solveX(ctx, t.Xb); err != nil {
		return err
	}
	s.fitOK, t.curOK = false, false
	if s.fitCost().Total > old.Total { // FISTA is not monotone
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
	keep := !gramOff && gc.Db != nil && gc.y == &t.Y.RawMatrix().Data[0] && mat.Equal(gc.Db, t.Db)
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
		gc.ysq = classSquares(gc.ysq[:0], t.Y, t.sp)
	} else {
		t.gc = gramCache{} // Y changed in place
	}
	t.curOK, s.fitOK = false, false
}

// gramOff makes stepE recompute the cost's products after every E step
// (tests compare).
var gramOff bool

// classSquares appends ‖Y_c‖² for each class c of sp to dst.
func classSquares(dst []float64, Y *mat.Dense, sp core.Partition) []float64 {
	d, _ := Y.Dims()
	y := Y.RawMatrix()
	for c := 0; c < sp.Blocks(); c++ {
		s0, s1 := sp.Block(c)
		var s float64
		for i := 0; i < d; i++ {
			for _, v := range y.Data[i*y.Stride+s0 : i*y.Stride+s1] {
				s += v * v
			}
		}
		dst = append(dst, s)
	}
	return dst
}

// fitCost returns the fidelity and ℓ1 terms of J at the current point:
// the Fisher model's cost with α = 0 (its "nuclear" term zero), evaluated
// once per change of D, X or Y.
func (s *dlrdTrain) fitCost() lrsdl.Cost {
	if !s.fitOK {
		t := s.t
		t.gc.update(t.Db, t.Y, t.sp, t.K)
		p := t.p
		p.alpha = 0
		s.fit, s.fitOK = lrsdlCost(p, t.sp, t.ap, t.Db, t.Xb, &t.gc), true
	}
	return s.fit
}

// cost returns J: the terms of the Fisher model on Y0 − E ("fidelity",
// "l1", "nuclear"; "fisher" and "shared" are zero) and "error" β‖E‖₁.
func (s *dlrdTrain) cost() lrsdl.Cost {
	if !s.nucOK {
		s.nuc, s.nucOK = s.t.nuclear(s.t.D()), true
	}
	f := s.fitCost()
	terms := append([]lrsdl.Term(nil), f.Terms...)
	var tot float64
	for i := range terms {
		if terms[i].Name == "nuclear" {
			terms[i].Value = s.nuc
		}
		tot += terms[i].Value
	}
	e := s.beta * s.errorL1()
	return lrsdl.Cost{Total: tot + e, Terms: append(terms, lrsdl.Term{Name: "error", Value: e})}
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

// FitInfo describes the last call of Fit.
func (m *DLRD) FitInfo() lrsdl.FitInfo { return m.info }

// Params lists the options; after Fit or SetState, the resolved ones.
func (m *DLRD) Params() []lrsdl.Param { return m.Options.spec().params() }

// SetParam sets the named option from its text form.
func (m *DLRD) SetParam(name, value string) error { return m.Options.spec().set(name, value) }

// SetProgress sets the function called after every outer iteration.
func (m *DLRD) SetProgress(f lrsdl.ProgressFunc) { m.Options.Progress = f }

// Cost returns J at the learned dictionaries for the samples Y with known
// labels: the codes from the X step and the error from the E step, both
// started at zero.
func (m *DLRD) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	if err := trainedDict(m.D); err != nil {
		return lrsdl.Cost{}, err
	}
	Ys, sp, err := dlsiSortedSet(Y, labels, m.classes, m.D)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	d, n := Ys.Dims()
	K := m.part.Len()
	t := &train{p: dlrdParams(m.Options), Y: mat.DenseCopyOf(Ys), sp: sp, ap: m.part, K: K, Db: m.D, Xb: mat.NewDense(K, n, nil)}
	s := &dlrdTrain{t: t, Y0: Ys, beta: m.Options.Beta, E: mat.NewDense(d, n, nil)}
	if err := t.solveX(context.Background(), t.Xb); err != nil {
		return lrsdl.Cost{}, err
	}
	s.stepE()
	return s.cost(), nil
}

// Predict returns the label of each column of Y (SRC's rule on D).
func (m *DLRD) Predict(Y mat.Matrix) ([]int, error) { return m.PredictContext(context.Background(), Y) }

// PredictContext is Predict, returning ctx.Err() when ctx is cancelled.
func (m *DLRD) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	if err := trainedDict(m.D); err != nil {
		return nil, err
	}
	b := blModel{classes: m.classes, part: m.part, D: m.D}
	if err := b.check("DLRD", Y); err != nil {
		return nil, err
	}
	_, n := Y.Dims()
	X := mat.NewDense(m.part.Len(), n, nil)
	if err := core.Lasso(ctx, X, m.D, Y, m.Options.Lambda, core.LassoOptions{ADMM: true}); err != nil {
		return nil, err
	}
	return b.residualLabels(Y, X), nil
}

// State returns the trained model: the options and the matrix "D".
func (m *DLRD) State() (*lrsdl.State, error) {
	if err := trainedDict(m.D); err != nil {
		return nil, err
	}
	return newState(m.Name(), m.Options, m.classes, []string{"D"}, m.D)
}

// SetState restores a model returned by State.
func (m *DLRD) SetState(s *lrsdl.State) error {
	var o DLRDOptions
	cl, err := decodeState(s, m.Name(), &o, "D")
	if err != nil {
		return err
	}
	part := blockPartition(cl.Len(), o.K)
	D := s.Matrices["D"]
	if _, K := D.Dims(); K != part.Len() {
		return fmt.Errorf("methods: DLRD state has %d atoms, want %d", K, part.Len())
	}
	o.Progress = m.Options.Progress
	m.Options, m.classes, m.D, m.part, m.info = o, cl, mat.DenseCopyOf(D), part, lrsdl.FitInfo{}
	return nil
}
