package methods

import (
	"context"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/incoherent"
)

func init() { register("DLSI", func() lrsdl.Model { return &DLSI{} }) }

// DLSIOptions controls DLSI. The zero value means the defaults, the
// authors' settings for AR gender; Off sets a literal 0 for eta.
type DLSIOptions struct {
	K           int                `json:"k"`                      // atoms per class; zero means min(25, smallest class)
	Lambda      float64            `json:"lambda"`                 // ℓ1 weight λ; zero means 0.001
	Eta         float64            `json:"eta"`                    // incoherence weight η; zero means 0.05
	Iters       int                `json:"iters"`                  // outer iterations; zero means 15
	OriginalD   bool               `json:"original_d"`             // O-DLSI-D (column by column) instead of E-DLSI-D (ADMM)
	Seed        uint64             `json:"seed"`                   // seed of the initialisation
	NoNormalize bool               `json:"no_normalize,omitempty"` // use the samples as given, not scaled to unit ℓ2 norm
	Progress    lrsdl.ProgressFunc `json:"-"`                      // called after each outer iteration
}

func (o *DLSIOptions) spec() optSpec {
	return optSpec{method: "DLSI", opts: []opt{
		kOpt(&o.K, 25, "atoms per class"),
		{name: "lambda", doc: "ℓ1 weight λ", f: &o.Lambda, def: 0.001, minOpen: true, zeroAt: 2},
		{name: "eta", doc: "incoherence weight η", f: &o.Eta, def: 0.05, off: true},
		itersOpt(&o.Iters, 15),
		{name: "original_d", doc: "O-DLSI-D (column by column) instead of E-DLSI-D (ADMM)", b: &o.OriginalD},
		seedOpt(&o.Seed),
		normOpt(&o.NoNormalize),
	}}
}

// DLSI is dictionary learning with structured incoherence (Ramirez,
// Sprechmann and Sapiro, CVPR 2010): class dictionaries D_c minimising
// Σ_c ‖Y_c − D_cX^c‖²_F + λ‖X^c‖₁ + η/2·Σ_{j≠c} ‖D_jᵀD_c‖²_F, ‖dᵢ‖₂ ≤ 1.
type DLSI struct {
	Options DLSIOptions
	res     DLSIOptions // resolved options of the last Fit or SetState

	base
	classes *core.Classes
	D       *mat.Dense     // d×K class dictionaries
	part    core.Partition // atoms of each class
}

// Name returns "DLSI".
func (m *DLSI) Name() string { return "DLSI" }

// Params lists the options, resolved once trained.
func (m *DLSI) Params() []lrsdl.Param { return listParams(m.Classes() != nil, &m.Options, &m.res) }

// SetParam sets the named option from its text form.
func (m *DLSI) SetParam(name, value string) error {
	return setParam(m.Classes() != nil, &m.Options, &m.res, name, value)
}

// SetProgress sets the function called after each outer iteration.
func (m *DLSI) SetProgress(f lrsdl.ProgressFunc) { m.Options.Progress, m.res.Progress = f, f }

// Atoms returns D, its atom partition and a nil D0; see Dictionary.
func (m *DLSI) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) {
	if m.D == nil {
		return nil, nil, nil
	}
	return mat.DenseCopyOf(m.D), dl.CopyPart(m.part), nil
}

// fitRaw is Fit on samples as given.
func (m *DLSI) fitRaw(ctx context.Context, Y mat.Matrix, labels []int) error {
	start := time.Now()
	m.info = lrsdl.FitInfo{}
	o := m.Options
	Ys, g, info, err := classTrainingSet(m.Name(), Y, labels, &o)
	if err != nil {
		return err
	}
	C := g.Classes.Len()
	if err := dl.CheckMemory(m.Name(), dlsiPlan(info, m.set, C, o.K), "k (atoms per class) or the training set"); err != nil {
		return err
	}
	Q, Yr, err := dl.ReduceSpan(ctx, Ys, m.set)
	if err != nil {
		return err
	}
	if Q != nil {
		Ys = Yr
	}
	part := dl.BlockPartition(C, o.K)
	D, err := dl.InitDict(ctx, Ys, g.Part, part, o.Lambda/2, rand.New(rand.NewPCG(o.Seed, 0x444c5349)))
	if err != nil {
		return err
	}
	X := make([]*mat.Dense, C)
	for c := range X {
		X[c] = mat.NewDense(o.K, g.Part.Size(c), nil)
	}
	duals := make([]mat.Dense, C)
	fi, err := dl.RunOuter(ctx, dl.Loop{Iters: o.Iters, Progress: o.Progress, Start: start}, func(_ int, wantCost bool) (lrsdl.Cost, error) {
		if err := dlsiUpdateX(ctx, X, D, part, Ys, g.Part, o.Lambda); err != nil {
			return lrsdl.Cost{}, err
		}
		if err := dlsiUpdateD(ctx, D, part, X, Ys, g.Part, duals, lit(o.Eta), o.OriginalD, m.set); err != nil {
			return lrsdl.Cost{}, err
		}
		if !wantCost {
			return lrsdl.Cost{}, nil
		}
		return dlsiCost(D, part, X, Ys, g.Part, o), nil
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

// dlsiUpdateX sets X^c = argmin ‖Y_c − D_cX‖² + λ‖X‖₁ for every class, that
// is the lasso ½‖·‖² + (λ/2)‖·‖₁, warm-started from X^c, the classes in
// parallel.
func dlsiUpdateX(ctx context.Context, X []*mat.Dense, D *mat.Dense, part core.Partition, Ys *mat.Dense, sp core.Partition, lambda float64) error {
	d, _ := D.Dims()
	var work int
	for c := range X {
		k, n := X[c].Dims()
		work += dl.LassoWork(d, k, n)
	}
	return dl.ForClasses(len(X), work, func(c int) error {
		a, b := part.Block(c)
		lo, hi := sp.Block(c)
		Dc := D.Slice(0, d, a, b).(*mat.Dense)
		return core.Lasso(ctx, X[c], Dc, Ys.Slice(0, d, lo, hi), lambda/2, core.LassoOptions{})
	})
}

// dlsiUpdateD updates each D_c in turn with the others fixed (see
// incoherent.Update).
//
// duals, if not nil, holds one ADMM dual per class, kept across calls.
func dlsiUpdateD(ctx context.Context, D *mat.Dense, part core.Partition, X []*mat.Dense, Ys *mat.Dense, sp core.Partition, duals []mat.Dense, eta float64, original bool, set dl.Settings) error {
	d, _ := D.Dims()
	var E, F mat.Dense
	var gram incoherent.Gram
	var inv *incoherent.Inverse
	if !original && eta != 0 {
		if incoherent.UseInverse(d, part) {
			// One ρ for the pass: the mean of tr(F_c)/k_c = ‖X^c‖²_F/k_c.
			var rho float64
			for c := range X {
				if kc := part.Size(c); kc > 0 {
					rho += core.Dot(X[c], X[c]) / float64(kc)
				}
			}
			rho /= float64(len(X))
			if rho <= 0 {
				rho = 1
			}
			inv = new(incoherent.Inverse)
			ok := false
			if err := abandonable(ctx, func() error { ok = inv.Init(D, part, rho, eta); return nil }); err != nil {
				return err
			}
			if !ok {
				inv = nil
			}
		}
		if err := abandonable(ctx, func() error { gram.Init(D); return nil }); err != nil {
			return err
		}
	}
	for c := range X {
		if err := ctx.Err(); err != nil {
			return err
		}
		a, b := part.Block(c)
		lo, hi := sp.Block(c)
		Dc := D.Slice(0, d, a, b).(*mat.Dense)
		E.Reset()
		F.Reset()
		dl.MulDense(&E, Ys.Slice(0, d, lo, hi), X[c].T())
		dl.MulDense(&F, X[c], X[c].T())
		if original || eta == 0 {
			if err := incoherent.Update(ctx, Dc, &E, &F, incoherent.OtherAtoms(D, part, c), eta, original, set); err != nil {
				return err
			}
			continue
		}
		var dual *mat.Dense
		if duals != nil {
			dual = &duals[c]
		}
		if inv != nil {
			if err := incoherent.UpdateGram(ctx, Dc, &E, &F, nil, &gram, part, c, dual, inv, eta, false, set); err != nil {
				return err
			}
			if c+1 < len(X) && !inv.Next(D, part) {
				inv = nil
			}
			continue
		}
		if err := incoherent.UpdateGram(ctx, Dc, &E, &F, gram.OtherAtoms(D, part, c), &gram, part, c, dual, nil, eta, false, set); err != nil {
			return err
		}
	}
	return nil
}

// dlsiCost evaluates J at (D, X) for the class-sorted samples Ys.
func dlsiCost(D *mat.Dense, part core.Partition, X []*mat.Dense, Ys *mat.Dense, sp core.Partition, o DLSIOptions) lrsdl.Cost {
	d, _ := D.Dims()
	var fid, l1 float64
	var R mat.Dense
	for c := range X {
		a, b := part.Block(c)
		lo, hi := sp.Block(c)
		R.Reset()
		dl.MulDense(&R, D.Slice(0, d, a, b), X[c])
		R.Sub(Ys.Slice(0, d, lo, hi), &R)
		fid += core.Dot(&R, &R)
		l1 += core.L1(X[c])
	}
	var G mat.Dense
	dl.MulDense(&G, D.T(), D)
	terms := []lrsdl.Term{
		{Name: "fidelity", Value: fid},
		{Name: "sparsity", Value: o.Lambda * l1},
		{Name: "incoherence", Value: lit(o.Eta) / 2 * incoherent.OffBlockSq(&G, part)},
	}
	return lrsdl.Cost{Total: terms[0].Value + terms[1].Value + terms[2].Value, Terms: terms}
}

// Cost returns J for (Y, labels), Y coded by the training X step.
func (m *DLSI) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	Y = normalized(Y, !m.res.NoNormalize)
	if err := dl.Trained(m.D); err != nil {
		return lrsdl.Cost{}, err
	}
	Ys, sp, err := dl.SortedSet(Y, labels, m.classes, m.D)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	X := make([]*mat.Dense, len(m.part)-1)
	for c := range X {
		X[c] = mat.NewDense(m.part.Size(c), sp.Size(c), nil)
	}
	if err := dlsiUpdateX(context.Background(), X, m.D, m.part, Ys, sp, m.res.Lambda); err != nil {
		return lrsdl.Cost{}, err
	}
	return dlsiCost(m.D, m.part, X, Ys, sp, m.res), nil
}

// Predict returns the label of each column of Y.
func (m *DLSI) Predict(Y mat.Matrix) ([]int, error) { return m.PredictContext(context.Background(), Y) }

// predictRaw is PredictContext on samples as given.
func (m *DLSI) predictRaw(ctx context.Context, Y mat.Matrix) ([]int, error) {
	if err := dl.Trained(m.D); err != nil {
		return nil, err
	}
	return localPredict(m.D, m.classes, Y, m.local(ctx, nil))
}

// local returns the coding of localPredict: y on D_c alone. With X not
// nil it also copies class c's codes into X's rows of D_c.
func (m *DLSI) local(ctx context.Context, Xall *mat.Dense) func(c int, G, DtY *mat.Dense) (X, Gc, Bc *mat.Dense, err error) {
	return func(c int, G, DtY *mat.Dense) (X, Gc, Bc *mat.Dense, err error) {
		a, b := m.part.Block(c)
		_, n := DtY.Dims()
		Gc, Bc = G.Slice(a, b, a, b).(*mat.Dense), DtY.Slice(a, b, 0, n).(*mat.Dense)
		X = mat.NewDense(b-a, n, nil)
		err = core.LassoGram(ctx, X, Gc, Bc, m.res.Lambda/2, core.LassoOptions{ADMM: true})
		if Xall != nil {
			Xall.Slice(a, b, 0, n).(*mat.Dense).Copy(X)
		}
		return X, Gc, Bc, err
	}
}

// decideRaw is DecisionFunction on samples as given.
func (m *DLSI) decideRaw(Y mat.Matrix) (*mat.Dense, error) {
	if err := dl.Trained(m.D); err != nil {
		return nil, err
	}
	return localScores(m.D, m.classes, Y, m.local(bg, nil))
}

// PredictProba returns softmax(DecisionFunction/T) per column.
func (m *DLSI) PredictProba(Y mat.Matrix) (*mat.Dense, error) { return m.proba(m.DecisionFunction(Y)) }

// transformRaw is Transform on samples as given.
func (m *DLSI) transformRaw(Y mat.Matrix) (*mat.Dense, error) {
	if err := dl.Trained(m.D); err != nil {
		return nil, err
	}
	_, n := Y.Dims()
	X := mat.NewDense(m.part.Len(), n, nil)
	if _, err := localScores(m.D, m.classes, Y, m.local(bg, X)); err != nil {
		return nil, err
	}
	return X, nil
}

// Classes returns the class labels in increasing order.
func (m *DLSI) Classes() []int {
	if m.D == nil {
		return nil
	}
	return classesOf(m.classes)
}

// stateBody returns the trained model: the options and the matrix "D".
func (m *DLSI) stateBody() (*lrsdl.State, error) {
	if err := dl.Trained(m.D); err != nil {
		return nil, err
	}
	return dl.NewState(m.Name(), m.res, m.classes, []string{"D"}, m.D)
}

// setStateBody restores a model returned by State.
func (m *DLSI) setStateBody(s *lrsdl.State) error {
	var o DLSIOptions
	cl, D, part, err := dictState(s, m.Name(), &o, func(C int) core.Partition { return dl.BlockPartition(C, o.K) })
	if err != nil {
		return err
	}
	o.Progress = m.Options.Progress
	m.Options, m.res, m.classes, m.D, m.part, m.info = o, o, cl, D, part, lrsdl.FitInfo{}
	return nil
}
