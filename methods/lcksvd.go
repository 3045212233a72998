package methods

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
)

func init() {
	register("LCKSVD1", func() lrsdl.Model { return &LCKSVD1{} })
	register("LCKSVD2", func() lrsdl.Model { return &LCKSVD2{} })
}

// LCKSVDOptions configures LCKSVD1 and LCKSVD2. The zero value means the
// defaults, the authors' settings for AR gender; Off sets a literal 0 for
// alpha and beta (the term is left out).
type LCKSVDOptions struct {
	K           int                `json:"k"`                      // atoms per class; zero means min(25, smallest class)
	Sparsity    int                `json:"sparsity"`               // OMP sparsity T, at most the atoms of all classes; zero means 20
	Alpha       float64            `json:"alpha"`                  // label-consistency weight α; zero means 0.01
	Beta        float64            `json:"beta"`                   // classification weight β (LC-KSVD2); zero means 0.01
	Ridge       float64            `json:"ridge"`                  // ridge weight of the regressions for A and W; zero means 1
	Iters       int                `json:"iters"`                  // K-SVD iterations on the stacked problem; zero means 50
	InitIters   int                `json:"init_iters"`             // K-SVD iterations per class to initialise D; zero means 10
	Seed        uint64             `json:"seed"`                   // seed of the initial atom choice
	NoNormalize bool               `json:"no_normalize,omitempty"` // use the samples as given, not scaled to unit ℓ2 norm
	Progress    lrsdl.ProgressFunc `json:"-"`                      // called after each K-SVD iteration
}

func (o *LCKSVDOptions) spec() optSpec {
	return optSpec{method: "LCKSVD", opts: []opt{
		kOpt(&o.K, 25, "atoms per class"),
		{name: "sparsity", doc: "OMP sparsity T", i: &o.Sparsity, def: 20, min: 1},
		{name: "alpha", doc: "label-consistency weight α", f: &o.Alpha, def: 0.01, off: true},
		{name: "beta", doc: "classification weight β (LC-KSVD2)", f: &o.Beta, def: 0.01, off: true},
		{name: "ridge", doc: "ridge weight of the regressions for A and W", f: &o.Ridge, def: 1, minOpen: true},
		{name: "iters", doc: "K-SVD iterations on the stacked problem", i: &o.Iters, def: 50, min: 1},
		{name: "init_iters", doc: "K-SVD iterations per class of the initialisation", i: &o.InitIters, def: 10, min: 1},
		seedOpt(&o.Seed),
		normOpt(&o.NoNormalize),
	}}
}

// LCKSVD1 is label-consistent K-SVD (Jiang, Lin and Davis): K-SVD on
// min ‖Y − DX‖²_F + α‖Q − AX‖²_F s.t. ‖xᵢ‖₀ ≤ T (Q marks the atoms of each
// sample's class), then a linear classifier W fitted to the OMP codes by
// ridge regression.
type LCKSVD1 struct {
	Options LCKSVDOptions
	res     LCKSVDOptions // resolved options of the last Fit or SetState
	lcksvd
}

// LCKSVD2 is LCKSVD1 with the classifier learned jointly: K-SVD on
// min ‖Y − DX‖²_F + α‖Q − AX‖²_F + β‖H − WX‖²_F s.t. ‖xᵢ‖₀ ≤ T.
type LCKSVD2 struct {
	Options LCKSVDOptions
	res     LCKSVDOptions // resolved options of the last Fit or SetState
	lcksvd
}

// Name returns "LCKSVD1".
func (m *LCKSVD1) Name() string { return "LCKSVD1" }

// Name returns "LCKSVD2".
func (m *LCKSVD2) Name() string { return "LCKSVD2" }

// Params lists the options, resolved once trained.
func (m *LCKSVD1) Params() []lrsdl.Param { return listParams(m.Classes() != nil, &m.Options, &m.res) }

// Params lists the options, resolved once trained.
func (m *LCKSVD2) Params() []lrsdl.Param { return listParams(m.Classes() != nil, &m.Options, &m.res) }

// SetParam sets the named option from its text form.
func (m *LCKSVD1) SetParam(name, value string) error {
	return setParam(m.Classes() != nil, &m.Options, &m.res, name, value)
}

// SetParam sets the named option from its text form.
func (m *LCKSVD2) SetParam(name, value string) error {
	return setParam(m.Classes() != nil, &m.Options, &m.res, name, value)
}

// SetProgress sets the function called after each K-SVD iteration.
func (m *LCKSVD1) SetProgress(f lrsdl.ProgressFunc) { m.Options.Progress, m.res.Progress = f, f }

// SetProgress sets the function called after each K-SVD iteration.
func (m *LCKSVD2) SetProgress(f lrsdl.ProgressFunc) { m.Options.Progress, m.res.Progress = f, f }

// fitRaw is Fit on samples as given.
func (m *LCKSVD1) fitRaw(ctx context.Context, Y mat.Matrix, labels []int) error {
	o := m.Options
	err := m.lcksvd.fit(ctx, m.Name(), &o, false, Y, labels)
	if err == nil {
		m.res = o
	}
	return err
}

// fitRaw is Fit on samples as given.
func (m *LCKSVD2) fitRaw(ctx context.Context, Y mat.Matrix, labels []int) error {
	o := m.Options
	err := m.lcksvd.fit(ctx, m.Name(), &o, true, Y, labels)
	if err == nil {
		m.res = o
	}
	return err
}

// Predict returns the label of each column of Y.
func (m *LCKSVD1) Predict(Y mat.Matrix) ([]int, error) {
	return m.PredictContext(context.Background(), Y)
}

// Predict returns the label of each column of Y.
func (m *LCKSVD2) Predict(Y mat.Matrix) ([]int, error) {
	return m.PredictContext(context.Background(), Y)
}

// predictRaw is PredictContext on samples as given.
func (m *LCKSVD1) predictRaw(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.lcksvd.predict(ctx, &m.res, Y)
}

// predictRaw is PredictContext on samples as given.
func (m *LCKSVD2) predictRaw(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.lcksvd.predict(ctx, &m.res, Y)
}

// Cost returns ‖Y − DX‖²_F and α‖Q − AX‖²_F, X the OMP codes of [Y; √α·Q].
func (m *LCKSVD1) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	Y = normalized(Y, !m.res.NoNormalize)
	return m.lcksvd.cost(&m.res, false, Y, labels)
}

// Cost returns ‖Y − DX‖²_F ("fidelity"), α‖Q − AX‖²_F ("label") and
// β‖H − WX‖²_F ("classification") for the OMP codes X of [Y; √α·Q; √β·H].
func (m *LCKSVD2) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	Y = normalized(Y, !m.res.NoNormalize)
	return m.lcksvd.cost(&m.res, true, Y, labels)
}

// Atoms returns D, its atom partition and a nil D0; see Dictionary.
func (m *LCKSVD1) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) {
	return m.lcksvd.m.D, m.lcksvd.m.part, nil
}

// Atoms returns D, its atom partition and a nil D0; see Dictionary.
func (m *LCKSVD2) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) {
	return m.lcksvd.m.D, m.lcksvd.m.part, nil
}

// stateBody returns D, A, W and the classes.
func (m *LCKSVD1) stateBody() (*lrsdl.State, error) { return m.lcksvd.state(m.Name(), &m.res) }

// stateBody returns D, A, W and the classes.
func (m *LCKSVD2) stateBody() (*lrsdl.State, error) { return m.lcksvd.state(m.Name(), &m.res) }

// setStateBody restores a state returned by State.
func (m *LCKSVD1) setStateBody(s *lrsdl.State) error {
	err := m.lcksvd.setState(m.Name(), s, &m.Options)
	if err == nil {
		m.res = m.Options
	}
	return err
}

// setStateBody restores a state returned by State.
func (m *LCKSVD2) setStateBody(s *lrsdl.State) error {
	err := m.lcksvd.setState(m.Name(), s, &m.Options)
	if err == nil {
		m.res = m.Options
	}
	return err
}

// decideRaw is DecisionFunction on samples as given.
func (m *LCKSVD1) decideRaw(Y mat.Matrix) (*mat.Dense, error) {
	o := m.res
	return m.decide(bg, &o, Y)
}

// PredictProba returns softmax(DecisionFunction/T) per column.
func (m *LCKSVD1) PredictProba(Y mat.Matrix) (*mat.Dense, error) {
	return m.proba(m.DecisionFunction(Y))
}

// transformRaw is Transform on samples as given.
func (m *LCKSVD1) transformRaw(Y mat.Matrix) (*mat.Dense, error) {
	o := m.res
	return m.codes(bg, &o, Y)
}

// decideRaw is DecisionFunction on samples as given.
func (m *LCKSVD2) decideRaw(Y mat.Matrix) (*mat.Dense, error) {
	o := m.res
	return m.decide(bg, &o, Y)
}

// PredictProba returns softmax(DecisionFunction/T) per column.
func (m *LCKSVD2) PredictProba(Y mat.Matrix) (*mat.Dense, error) {
	return m.proba(m.DecisionFunction(Y))
}

// transformRaw is Transform on samples as given.
func (m *LCKSVD2) transformRaw(Y mat.Matrix) (*mat.Dense, error) {
	o := m.res
	return m.codes(bg, &o, Y)
}
