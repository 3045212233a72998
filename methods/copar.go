package methods

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/incoherent"
)

func init() { register("COPAR", func() lrsdl.Model { return &COPAR{} }) }

// COPAROptions controls COPAR. The zero value means the defaults, the
// authors' settings for AR gender; Off sets a literal 0 for k0 and eta.
type COPAROptions struct {
	K           int                `json:"k"`                      // atoms per class; zero means min(20, smallest class)
	K0          int                `json:"k0"`                     // shared atoms, at most the samples; zero means 10
	Lambda      float64            `json:"lambda"`                 // ℓ1 weight λ; zero means 0.001
	Eta         float64            `json:"eta"`                    // incoherence weight η; zero means 0.01
	Iters       int                `json:"iters"`                  // outer iterations; zero means 15
	XIters      int                `json:"x_iters"`                // FISTA iterations per class and COPAR-X step; zero means 200
	OriginalD   bool               `json:"original_d"`             // O-COPAR-D (column by column) instead of E-COPAR-D (ADMM)
	Coding      string             `json:"coding"`                 // prediction: "gc" (global) or "lc" (local); empty means "lc"
	Seed        uint64             `json:"seed"`                   // seed of the initialisation
	NoNormalize bool               `json:"no_normalize,omitempty"` // use the samples as given, not scaled to unit ℓ2 norm
	Progress    lrsdl.ProgressFunc `json:"-"`                      // called after each outer iteration
}

func (o *COPAROptions) spec() optSpec {
	return optSpec{method: "COPAR", opts: []opt{
		kOpt(&o.K, 20, "atoms per class"),
		{name: "k0", doc: "shared atoms k0", i: &o.K0, def: 10, off: true},
		{name: "lambda", doc: "ℓ1 weight λ", f: &o.Lambda, def: 0.001, minOpen: true, zeroAt: 1},
		{name: "eta", doc: "incoherence weight η", f: &o.Eta, def: 0.01, off: true},
		itersOpt(&o.Iters, 15),
		{name: "x_iters", doc: "FISTA iterations per class and COPAR-X step", i: &o.XIters, def: coparXIters, min: 1},
		{name: "original_d", doc: "O-COPAR-D (column by column) instead of E-COPAR-D (ADMM)", b: &o.OriginalD},
		{name: "coding", doc: "prediction by local (lc) or global (gc) coding", s: &o.Coding, choices: []string{"lc", "gc"}},
		seedOpt(&o.Seed),
		normOpt(&o.NoNormalize),
	}}
}

// COPAR separates the particularity and the commonality (Kong and Wang,
// ECCV 2012): class dictionaries D_1..D_C and a shared D_0, D̄ = [D_1 … D_C
// D_0], minimising ½Σ_c r(Y_c) + λ‖X̄‖₁ + η·Σ_c Σ_{i≠c} ‖D_iᵀD_c‖²_F, r(Y_c)
// the fidelity of class c on D̄ and on [D_c D_0].
type COPAR struct {
	Options COPAROptions
	res     COPAROptions // resolved options of the last Fit or SetState

	base
	classes *core.Classes
	D       *mat.Dense     // d×(K+k0): [D_1 … D_C D_0]
	part    core.Partition // C+1 blocks of atoms, the last is D_0
}

// Name returns "COPAR".
func (m *COPAR) Name() string { return "COPAR" }

// Params lists the options, resolved once trained.
func (m *COPAR) Params() []lrsdl.Param { return listParams(m.Classes() != nil, &m.Options, &m.res) }

// SetParam sets the named option from its text form.
func (m *COPAR) SetParam(name, value string) error {
	return setParam(m.Classes() != nil, &m.Options, &m.res, name, value)
}

// SetProgress sets the function called after each outer iteration.
func (m *COPAR) SetProgress(f lrsdl.ProgressFunc) { m.Options.Progress, m.res.Progress = f, f }

// Atoms returns D, its atom partition and D0; see Dictionary.
func (m *COPAR) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) {
	if m.D == nil {
		return nil, nil, nil
	}
	d, _ := m.D.Dims()
	C := m.part.Blocks() - 1
	lo, hi := m.part.Block(C)
	return mat.DenseCopyOf(m.D.Slice(0, d, 0, lo)), dl.CopyPart(m.part[:C+1]), mat.DenseCopyOf(m.D.Slice(0, d, lo, hi))
}

// fitRaw is Fit on samples as given.
func (m *COPAR) fitRaw(ctx context.Context, Y mat.Matrix, labels []int) error {
	start := time.Now()
	m.info = lrsdl.FitInfo{}
	o := m.Options
	Ys, g, info, err := classTrainingSet(m.Name(), Y, labels, &o)
	if err != nil {
		return err
	}
	k0 := lit(o.K0)
	if info.N < k0 {
		return &OptionError{Method: m.Name(), Name: "k0", Value: fmtNum(float64(o.K0)),
			Reason: fmt.Sprintf("must be at most %d, the training samples", info.N)}
	}
	C := g.Classes.Len()
	part := dl.BlockPartition(C, o.K, k0)
	if err := dl.CheckMemory(m.Name(), coparPlan(info, m.set, part.Len(), o.Iters), "k (atoms per class), k0 or the training set"); err != nil {
		return err
	}
	Q, Yr, err := dl.ReduceSpan(ctx, Ys, m.set)
	if err != nil {
		return err
	}
	if Q != nil {
		Ys = Yr
	}
	D, err := dl.InitDict(ctx, Ys, g.Part, part, o.Lambda, rand.New(rand.NewPCG(o.Seed, 0x434f504152)))
	if err != nil {
		return err
	}
	X := make([]*mat.Dense, C)
	for c := range X {
		X[c] = mat.NewDense(part.Len(), g.Part.Size(c), nil)
	}
	duals := make([]mat.Dense, part.Blocks())
	fi, err := dl.RunOuter(ctx, dl.Loop{Iters: o.Iters, Progress: o.Progress, Start: start}, func(it int, wantCost bool) (lrsdl.Cost, error) {
		if err := coparUpdateX(ctx, X, D, part, Ys, g.Part, o.Lambda, o.XIters, it > coparFISTAOuter); err != nil {
			return lrsdl.Cost{}, err
		}
		if err := coparUpdateD(ctx, D, part, X, Ys, g.Part, duals, lit(o.Eta), o.OriginalD, m.set); err != nil {
			return lrsdl.Cost{}, err
		}
		if !wantCost {
			return lrsdl.Cost{}, nil
		}
		return coparCost(D, part, X, Ys, g.Part, o), nil
	})
	m.info = fi
	if err != nil {
		return err
	}
	if Q != nil {
		D = Q.Expand(D)
	}
	m.res, m.classes, m.D, m.part = o, g.Classes, D, part
	m.info.Elapsed = time.Since(start)
	return nil
}

// coparDictProducts returns F = Σ_c X̄_cX̄_cᵀ + (P_cX̄_c)(P_cX̄_c)ᵀ and
// E = Σ_c Y_c(X̄_c + P_cX̄_c)ᵀ: F = X̄X̄ᵀ and E = YX̄ᵀ over all samples, one
// product each, plus the terms of P_cX̄_c on the rows I of D_c and D_0 only,
// F_II += X̄_c[I]X̄_c[I]ᵀ and E_I += Y_cX̄_c[I]ᵀ (P_cX̄_c is zero elsewhere).
func coparDictProducts(part core.Partition, X []*mat.Dense, Ys *mat.Dense, sp core.Partition) (F, E *mat.Dense) {
	K := part.Len()
	d, N := Ys.Dims()
	F = mat.NewDense(K, K, nil)
	E = mat.NewDense(d, K, nil)
	if N == 0 {
		return F, E
	}
	W := mat.NewDense(K, N, nil)
	for c := range X {
		lo, hi := sp.Block(c)
		W.Slice(0, K, lo, hi).(*mat.Dense).Copy(X[c])
	}
	dl.MulDense(F, W, W.T())
	dl.MulDense(E, Ys, W.T())
	var ff, ye mat.Dense
	for c := range X {
		lo, hi := sp.Block(c)
		idx := dl.Rows(part, c)
		Xc := dl.Gather(X[c], idx, nil)
		ff.Reset()
		dl.MulDense(&ff, Xc, Xc.T())
		ye.Reset()
		dl.MulDense(&ye, Ys.Slice(0, d, lo, hi), Xc.T())
		for i, gi := range idx {
			for j, gj := range idx {
				F.Set(gi, gj, F.At(gi, gj)+ff.At(i, j))
			}
			for r := 0; r < d; r++ {
				E.Set(r, gi, E.At(r, gi)+ye.At(r, i))
			}
		}
	}
	return F, E
}

// coparUpdateD updates D_1..D_C and then D_0, each with the others fixed.
// As a function of D̄, 2J = tr(F·D̄ᵀD̄) − 2tr(E·D̄ᵀ) + 2η·Σ_{b≠c}‖D_bᵀD_c‖² +
// const with F = Σ_c X̄_cX̄_cᵀ + (P_cX̄_c)(P_cX̄_c)ᵀ and E = Σ_c Y_c(X̄_c + P_cX̄_c)ᵀ.
// duals, if not nil, holds one ADMM dual per block, kept across calls.
func coparUpdateD(ctx context.Context, D *mat.Dense, part core.Partition, X []*mat.Dense, Ys *mat.Dense, sp core.Partition, duals []mat.Dense, eta float64, original bool, set dl.Settings) error {
	d, K := D.Dims()
	F, E := coparDictProducts(part, X, Ys, sp)
	var Eb mat.Dense
	var gram incoherent.Gram
	var inv *incoherent.Inverse
	useGram := !original && eta != 0
	if useGram && incoherent.UseInverse(d, part) {
		// One ρ for the pass: the mean of tr(F_bb)/k_b over the blocks.
		var rho float64
		nb := 0
		for b := 0; b < part.Blocks(); b++ {
			if lo, hi := part.Block(b); hi > lo {
				rho += mat.Trace(F.Slice(lo, hi, lo, hi)) / float64(hi-lo)
				nb++
			}
		}
		rho /= float64(max(nb, 1))
		if rho <= 0 {
			rho = 1
		}
		inv = new(incoherent.Inverse)
		if !inv.Init(D, part, rho, 4*eta) {
			inv = nil
		}
	}
	if useGram {
		gram.Init(D)
	}
	for b := 0; b < part.Blocks(); b++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		lo, hi := part.Block(b)
		if hi == lo {
			if inv != nil && b+1 < part.Blocks() && !inv.Next(D, part) {
				inv = nil
			}
			continue
		}
		Db := D.Slice(0, d, lo, hi).(*mat.Dense)
		Fb := mat.DenseCopyOf(F.Slice(lo, hi, lo, hi))
		// E_b = E[:,b] − D̄·F[:,b] + D_b·F_bb
		Eb.Reset()
		dl.MulDense(&Eb, D, F.Slice(0, K, lo, hi))
		Eb.Sub(E.Slice(0, d, lo, hi), &Eb)
		var t mat.Dense
		dl.MulDense(&t, Db, Fb)
		Eb.Add(&Eb, &t)
		var dual *mat.Dense
		if duals != nil {
			dual = &duals[b]
		}
		if !useGram {
			if err := incoherent.Update(ctx, Db, &Eb, Fb, incoherent.OtherAtoms(D, part, b), 4*eta, original, set); err != nil {
				return err
			}
			continue
		}
		if inv != nil {
			if err := incoherent.UpdateGram(ctx, Db, &Eb, Fb, nil, &gram, part, b, dual, inv, 4*eta, false, set); err != nil {
				return err
			}
			if b+1 < part.Blocks() && !inv.Next(D, part) {
				inv = nil
			}
			continue
		}
		if err := incoherent.UpdateGram(ctx, Db, &Eb, Fb, gram.OtherAtoms(D, part, b), &gram, part, b, dual, nil, 4*eta, false, set); err != nil {
			return err
		}
	}
	return nil
}

// coparCost evaluates J at (D̄, X̄) for the class-sorted samples Ys: the
// fidelity from one product D̄·[X̄_1 … X̄_C], the class fidelity from the
// blocks, Y_c − D_cX^c_c − D_0X⁰_c (d·(k+k0)·n_c each), instead of
// products of all of D̄ class by class.
func coparCost(D *mat.Dense, part core.Partition, X []*mat.Dense, Ys *mat.Dense, sp core.Partition, o COPAROptions) lrsdl.Cost {
	d, K := D.Dims()
	N := sp.Len()
	var fid, cfid, off, l1 float64
	if N > 0 {
		W := mat.NewDense(K, N, nil)
		for c := range X {
			lo, hi := sp.Block(c)
			W.Slice(0, K, lo, hi).(*mat.Dense).Copy(X[c])
		}
		var R mat.Dense
		dl.MulDense(&R, D, W)
		R.Sub(Ys, &R)
		fid = core.Dot(&R, &R)
	}
	C := part.Blocks() - 1
	var R mat.Dense
	for c := range X {
		lo, hi := sp.Block(c)
		if hi == lo {
			continue
		}
		R.Reset()
		R.CloneFrom(Ys.Slice(0, d, lo, hi))
		for _, b := range []int{c, C} {
			if a, e := part.Block(b); e > a {
				// R −= D_b·X^b_c
				blas64.Gemm(gblas.NoTrans, gblas.NoTrans, -1, D.Slice(0, d, a, e).(*mat.Dense).RawMatrix(),
					X[c].Slice(a, e, 0, hi-lo).(*mat.Dense).RawMatrix(), 1, R.RawMatrix())
			}
		}
		cfid += core.Dot(&R, &R)
		// off: the rows outside P_c, the other classes' blocks
		a, e := part.Block(c)
		for i := 0; i < part[C]; i++ {
			if i < a || i >= e {
				for _, x := range X[c].RawRowView(i) {
					off += x * x
				}
			}
		}
		l1 += core.L1(X[c])
	}
	return coparTerms(D, part, o, fid, cfid, off, l1)
}

// coparTerms returns J from its sums: ½ of the squared fidelity, class
// fidelity and off-class codes, λ times the ℓ1 norm, and η·Σ_{i≠j}‖D_iᵀD_j‖²_F.
func coparTerms(D *mat.Dense, part core.Partition, o COPAROptions, fid, cfid, off, l1 float64) lrsdl.Cost {
	var G mat.Dense
	dl.MulDense(&G, D.T(), D)
	terms := []lrsdl.Term{
		{Name: "fidelity", Value: fid / 2},
		{Name: "class fidelity", Value: cfid / 2},
		{Name: "off-class codes", Value: off / 2},
		{Name: "sparsity", Value: o.Lambda * l1},
		{Name: "incoherence", Value: lit(o.Eta) * incoherent.OffBlockSq(&G, part)},
	}
	var total float64
	for _, t := range terms {
		total += t.Value
	}
	return lrsdl.Cost{Total: total, Terms: terms}
}

// Cost returns J for (Y, labels), Y coded by the training X step.
func (m *COPAR) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	Y = normalized(Y, !m.res.NoNormalize)
	if err := dl.Trained(m.D); err != nil {
		return lrsdl.Cost{}, err
	}
	Ys, sp, err := dl.SortedSet(Y, labels, m.classes, m.D)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	X := make([]*mat.Dense, m.classes.Len())
	for c := range X {
		X[c] = mat.NewDense(m.part.Len(), sp.Size(c), nil)
	}
	if err := coparUpdateX(context.Background(), X, m.D, m.part, Ys, sp, m.res.Lambda, m.res.XIters, false); err != nil {
		return lrsdl.Cost{}, err
	}
	return coparCost(m.D, m.part, X, Ys, sp, m.res), nil
}

// Predict returns the label of each column of Y.
func (m *COPAR) Predict(Y mat.Matrix) ([]int, error) {
	return m.PredictContext(context.Background(), Y)
}

// predictRaw is PredictContext on samples as given.
func (m *COPAR) predictRaw(ctx context.Context, Y mat.Matrix) ([]int, error) {
	if err := dl.Trained(m.D); err != nil {
		return nil, err
	}
	return localPredict(m.D, m.classes, Y, m.local(ctx))
}

// decideRaw is DecisionFunction on samples as given.
func (m *COPAR) decideRaw(Y mat.Matrix) (*mat.Dense, error) {
	if err := dl.Trained(m.D); err != nil {
		return nil, err
	}
	return localScores(m.D, m.classes, Y, m.local(bg))
}

// PredictProba returns softmax(DecisionFunction/T) per column.
func (m *COPAR) PredictProba(Y mat.Matrix) (*mat.Dense, error) { return m.proba(m.DecisionFunction(Y)) }

// transformRaw is Transform on samples as given.
func (m *COPAR) transformRaw(Y mat.Matrix) (*mat.Dense, error) {
	if err := dl.Trained(m.D); err != nil {
		return nil, err
	}
	return globalCodes(m.D, Y, m.res.Lambda, core.LassoOptions{})
}

// Classes returns the class labels in increasing order.
func (m *COPAR) Classes() []int {
	if m.D == nil {
		return nil
	}
	return classesOf(m.classes)
}

// local returns the coding of localPredict for Options.Coding.
func (m *COPAR) local(ctx context.Context) func(c int, G, DtY *mat.Dense) (X, Gc, Bc *mat.Dense, err error) {
	var Xall *mat.Dense
	return func(c int, G, DtY *mat.Dense) (X, Gc, Bc *mat.Dense, err error) {
		K, n := DtY.Dims()
		if m.res.Coding == "gc" && Xall == nil {
			Xall = mat.NewDense(K, n, nil)
			if err := core.LassoGram(ctx, Xall, G, DtY, m.res.Lambda, core.LassoOptions{}); err != nil {
				return nil, nil, nil, err
			}
		}
		idx := dl.Rows(m.part, c)
		Gc, Bc = dl.Gather(G, idx, idx), dl.Gather(DtY, idx, nil)
		if Xall != nil {
			return dl.Gather(Xall, idx, nil), Gc, Bc, nil
		}
		X = mat.NewDense(len(idx), n, nil)
		return X, Gc, Bc, core.LassoGram(ctx, X, Gc, Bc, m.res.Lambda, core.LassoOptions{ADMM: true})
	}
}

// stateBody returns the trained model: the options and the matrix "D" = D̄.
func (m *COPAR) stateBody() (*lrsdl.State, error) {
	if err := dl.Trained(m.D); err != nil {
		return nil, err
	}
	return dl.NewState(m.Name(), m.res, m.classes, []string{"D"}, m.D)
}

// setStateBody restores a model returned by State.
func (m *COPAR) setStateBody(s *lrsdl.State) error {
	var o COPAROptions
	cl, D, part, err := dictState(s, m.Name(), &o, func(C int) core.Partition { return dl.BlockPartition(C, o.K, lit(o.K0)) })
	if err != nil {
		return err
	}
	o.Progress = m.Options.Progress
	m.Options, m.res, m.classes, m.D, m.part, m.info = o, o, cl, D, part, lrsdl.FitInfo{}
	return nil
}
