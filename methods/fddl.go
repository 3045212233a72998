package methods

import (
	"context"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/methods/internal/fisher"
)

func init() {
	register("FDDL", func() lrsdl.Model { return &FDDL{} })
}

// FDDLOptions configures FDDL and the FDDL part of LRSDL and D2L2R2. The
// zero value of a field means the default written beside it; Off requests
// a literal 0 where the range allows it (λ2, tol, x_tol, w).
type FDDLOptions struct {
	K         int     `json:"k"`          // atoms per class; zero means min(20, smallest class)
	Lambda1   float64 `json:"lambda1"`    // ℓ1 weight λ1 > 0; zero means 0.01
	Lambda2   float64 `json:"lambda2"`    // Fisher weight λ2; zero means 0.01
	Iters     int     `json:"iters"`      // outer iterations; zero means 30
	Tol       float64 `json:"tol"`        // stop when the cost changes by at most Tol, relative; zero means 1e-4, Off runs every iteration
	XIters    int     `json:"x_iters"`    // FISTA iterations per X step; zero means 50, or 20 at λ1 ≤ 0.001 (LRSDL: 20)
	XTol      float64 `json:"x_tol"`      // FISTA relative tolerance; zero means 1e-4, Off none
	XMetric   bool    `json:"x_metric"`   // X step's FISTA in a rank-one metric (core.RankOneMajorizer) when one eigenvalue of D̄ᵀD̄ dominates
	DIters    int     `json:"d_iters"`    // ODL sweeps per dictionary update (at most 2 per ADMM iteration); zero means 5
	ADMMIters int     `json:"admm_iters"` // ADMM iterations of nuclear-norm updates (LRSDL, D2L2R2; FDDL has none); zero means 20 (D2L2R2: 2)
	InitIters int     `json:"init_iters"` // ODL alternations of the initialisation; zero means 5
	OriginalX bool    `json:"original_x"` // O-FDDL-X (class by class) instead of one FISTA
	OriginalD bool    `json:"original_d"` // O-FDDL-D (sub-dictionary by sub-dictionary)
	LC        bool    `json:"lc"`         // prediction by local (class-by-class) coding instead of global (GC)
	W         float64 `json:"w"`          // GC weight of the residual against the code distance, in [0, 1]; zero means 0.5
	Lambda    float64 `json:"lambda"`     // ℓ1 weight of the coding at prediction, > 0; zero means Lambda1

	Seed        uint64             `json:"seed"`                   // seed of the initialisation
	NoNormalize bool               `json:"no_normalize,omitempty"` // use the samples as given, not scaled to unit ℓ2 norm
	Progress    lrsdl.ProgressFunc `json:"-"`                      // called after each outer iteration
}

func (o *FDDLOptions) opts() []opt {
	return []opt{
		kOpt(&o.K, 20, "atoms per class"),
		{name: "lambda1", doc: "ℓ1 weight λ1 of the codes", f: &o.Lambda1, def: 0.01, minOpen: true, zeroAt: 2},
		{name: "lambda2", doc: "Fisher weight λ2", f: &o.Lambda2, def: 0.01, off: true},
		itersOpt(&o.Iters, 30),
		tolOpt(&o.Tol),
		xItersOpt(&o.XIters, &o.Lambda1),
		{name: "x_tol", doc: "FISTA relative tolerance (0: run every iteration)", f: &o.XTol, def: 1e-4, off: true},
		{name: "x_metric", doc: "FISTA in a rank-one metric when one eigenvalue of D̄ᵀD̄ dominates", b: &o.XMetric},
		{name: "d_iters", doc: "ODL sweeps per dictionary update", i: &o.DIters, def: fisherDIters, min: 1},
		{name: "init_iters", doc: "ODL alternations of the initialisation", i: &o.InitIters, def: 5, min: 1},
		{name: "original_x", doc: "O-FDDL-X (class by class) instead of E-FDDL-X", b: &o.OriginalX},
		{name: "original_d", doc: "O-FDDL-D (sub-dictionary by sub-dictionary) instead of E-FDDL-D", b: &o.OriginalD},
		{name: "lc", doc: "predict by local (class-by-class) coding instead of GC", b: &o.LC, predict: true},
		{name: "w", doc: "GC weight of the residual against the code distance", f: &o.W, def: 0.5, off: true, max: 1, predict: true},
		lambdaOpt(&o.Lambda, &o.Lambda1),
		seedOpt(&o.Seed),
		normOpt(&o.NoNormalize),
	}
}

// nuclearOpts returns the options of a Fisher model with nuclear-norm
// dictionary updates by ADMM (LRSDL's D0, D2L2R2's D): FDDL's and
// admm_iters, whose default is admmIters.
func (o *FDDLOptions) nuclearOpts(admmIters float64) []opt {
	fo := o.opts()
	i := slices.IndexFunc(fo, func(p opt) bool { return p.name == "d_iters" })
	fo[i].doc += " (at most 2 per ADMM iteration)"
	return slices.Insert(fo, i+1, opt{name: "admm_iters", doc: "ADMM iterations of nuclear-norm updates", i: &o.ADMMIters, def: admmIters, min: 1})
}

// xItersOpt declares the FISTA iterations per X step of FDDL and D2L2R2:
// by default 50, or 20 when the resolved λ1 is at most 0.001, where FISTA
// runs to its cap in every X step: 3-fold cross-validation on the training
// parts of four data sets prefers 20 at λ1 = 0.001 and 50 at λ1 = 0.01
// (bench/studies/defaults/defaults-fisher-xiters*.md).
func xItersOpt(i *int, lambda1 *float64) opt {
	return opt{name: "x_iters", doc: "FISTA iterations per X step", i: i, def: 50, defDoc: "50, or 20 at lambda1 ≤ 0.001", min: 1,
		defFn: func() float64 {
			if *lambda1 <= 0.001 {
				return 20
			}
			return 50
		}}
}

// fisherDIters is the default of d_iters: each dictionary update starts
// from the previous one, and 3-fold cross-validation on the training parts
// of four data sets scores 5 sweeps as 20, at a quarter of the sweeps
// (bench/studies/defaults/defaults-fddl-iters*.md, defaults-lrsdl-diters*.md).
const fisherDIters = 5

func (o *FDDLOptions) spec() optSpec { return optSpec{method: "FDDL", opts: o.opts()} }

// params returns the training parameters of resolved options.
func (o *FDDLOptions) params() fisher.Params {
	xTol := lit(o.XTol)
	if xTol == 0 {
		xTol = -1 // FISTA's zero is its default
	}
	return fisher.Params{K: o.K, Lambda1: o.Lambda1, Lambda2: lit(o.Lambda2), Iters: o.Iters, Tol: lit(o.Tol),
		XIters: o.XIters, XTol: xTol, XMetric: o.XMetric, DIters: o.DIters, ADMMIters: o.ADMMIters, InitIters: o.InitIters,
		OrigX: o.OriginalX, OrigD: o.OriginalD, LC: o.LC, W: lit(o.W), Lambda: o.Lambda, Seed: o.Seed,
		Progress: o.Progress}
}

// FDDL is Fisher discrimination dictionary learning (Yang et al.), LRSDL
// without shared atoms: J(D, X) = ½f_Y(D, X) + λ1‖X‖₁ + λ2/2·g(X), f_Y the
// discriminative fidelity and g the Fisher term of the codes.
type FDDL struct {
	Options FDDLOptions
	res     FDDLOptions // resolved options of the last Fit or SetState
	fisherModel
}

// Name returns "FDDL".
func (m *FDDL) Name() string { return "FDDL" }

// Params lists the options, resolved once trained.
func (m *FDDL) Params() []lrsdl.Param { return listParams(m.Classes() != nil, &m.Options, &m.res) }

// SetParam sets the named option from its text form.
func (m *FDDL) SetParam(name, value string) error {
	return setParam(m.Classes() != nil, &m.Options, &m.res, name, value)
}

// SetProgress sets the function called after each outer iteration.
func (m *FDDL) SetProgress(f lrsdl.ProgressFunc) { m.Options.Progress, m.res.Progress = f, f }

// fitRaw is Fit on samples as given.
func (m *FDDL) fitRaw(ctx context.Context, Y mat.Matrix, labels []int) error {
	o := m.Options
	err := m.fit(ctx, &o, Y, labels)
	if err == nil {
		m.res = o
	}
	return err
}

// Predict returns the label of each column of Y.
func (m *FDDL) Predict(Y mat.Matrix) ([]int, error) { return m.PredictContext(context.Background(), Y) }

// predictRaw is PredictContext on samples as given.
func (m *FDDL) predictRaw(ctx context.Context, Y mat.Matrix) ([]int, error) {
	o := m.res
	return m.predict(ctx, &o, Y)
}

// transformRaw is Transform on samples as given.
func (m *FDDL) transformRaw(Y mat.Matrix) (*mat.Dense, error) {
	o := m.res
	return m.transform(&o, Y)
}

// Cost returns J for (Y, labels), Y coded by the training X step.
func (m *FDDL) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	Y = normalized(Y, !m.res.NoNormalize)
	return m.costContext(context.Background(), Y, labels)
}

// costContext is Cost with a context.
func (m *FDDL) costContext(ctx context.Context, Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	Y = normalized(Y, !m.res.NoNormalize)
	o := m.res
	return m.cost(ctx, &o, Y, labels)
}

// Means returns the class code means m_c as the columns of a K×C matrix.
func (m *FDDL) Means() *mat.Dense { return m.fm.Mc }

// Tune is LRSDL.Tune.
func (m *FDDL) Tune(ctx context.Context, Y mat.Matrix, labels []int, o TuneOptions) (Tuned, error) {
	opts := m.Options
	r, err := tune(ctx, func() lrsdl.Classifier {
		c := &FDDL{Options: m.Options, fisherModel: fisherModel{fm: fisher.Model{Set: m.fm.Set}}}
		c.Options.Progress = nil
		return c
	}, &opts, Y, labels, o)
	if err == nil {
		r.set(&m.Options)
	}
	return r, err
}

// stateBody returns the trained model.
func (m *FDDL) stateBody() (*lrsdl.State, error) { return m.state(m.Name(), &m.res) }

// setStateBody restores a model returned by State.
func (m *FDDL) setStateBody(s *lrsdl.State) error {
	var o FDDLOptions
	if err := m.setState(m.Name(), s, &o); err != nil {
		return err
	}
	o.Progress = m.Options.Progress
	m.Options, m.res = o, o
	return nil
}

// decideRaw is DecisionFunction on samples as given.
func (m *FDDL) decideRaw(Y mat.Matrix) (*mat.Dense, error) {
	o := m.res
	return m.decide(&o, Y)
}

// PredictProba returns softmax(DecisionFunction/T) per column.
func (m *FDDL) PredictProba(Y mat.Matrix) (*mat.Dense, error) { return m.proba(m.DecisionFunction(Y)) }
