package methods

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/methods/internal/fisher"
)

func init() {
	register("LRSDL", func() lrsdl.Model { return &LRSDL{} })
}

// LRSDLOptions configures LRSDL: the defaults of FDDLOptions except XIters
// 20 (chosen by cross-validation on training data; see
// bench/studies/defaults), k0 = 10 and η = 0.1; Off sets k0 or η to 0.
type LRSDLOptions struct {
	FDDLOptions
	K0     int     `json:"k0"`      // shared atoms k0, at most the samples; zero means 10
	Eta    float64 `json:"eta"`     // nuclear-norm weight η; zero means 0.1
	PaperX bool    `json:"paper_x"` // X step by the paper's LRSDL-X alone, without the exact X0 update after it
}

func (o *LRSDLOptions) spec() optSpec {
	fo := withDefault(o.FDDLOptions.nuclearOpts(20), "x_iters", lrsdlXIters)
	return optSpec{method: "LRSDL", opts: append(fo,
		opt{name: "k0", doc: "shared atoms k0", i: &o.K0, def: 10, off: true},
		opt{name: "eta", doc: "nuclear-norm weight η of the shared dictionary", f: &o.Eta, def: 0.1, off: true},
		opt{name: "paper_x", doc: "X step by LRSDL-X alone, without the exact X0 update after it", b: &o.PaperX})}
}

// lrsdlXIters is LRSDL's default FISTA iteration limit per X step, the best
// of {10, 20, 50} in 3-fold cross-validation on the training parts of four
// data sets (bench/studies/defaults/defaults-lrsdl-xiters.md).
const lrsdlXIters = 20

// params returns the training parameters of resolved options.
func (o *LRSDLOptions) params() fisher.Params {
	p := o.FDDLOptions.params()
	p.K0, p.Eta, p.PaperX = lit(o.K0), lit(o.Eta), o.PaperX
	return p
}

// LRSDL is low-rank shared dictionary learning (Vu & Monga): class
// dictionaries D = [D_1..D_C] and a low-rank shared D0 minimising
// J̄(D̄, X̄) = ½f̄_Y(D̄, X̄) + λ1‖X̄‖₁ + λ2/2·ḡ(X̄) + η‖D0‖_* over D̄ = [D D0]
// and the codes X̄ = [X; X0].
type LRSDL struct {
	Options LRSDLOptions
	res     LRSDLOptions // resolved options of the last Fit or SetState
	fisherModel
}

// Name returns "LRSDL".
func (m *LRSDL) Name() string { return "LRSDL" }

// Params lists the options, resolved once trained.
func (m *LRSDL) Params() []lrsdl.Param { return listParams(m.Classes() != nil, &m.Options, &m.res) }

// SetParam sets the named option from its text form.
func (m *LRSDL) SetParam(name, value string) error {
	return setParam(m.Classes() != nil, &m.Options, &m.res, name, value)
}

// SetProgress sets the function called after each outer iteration.
func (m *LRSDL) SetProgress(f lrsdl.ProgressFunc) { m.Options.Progress, m.res.Progress = f, f }

// fitRaw is Fit on samples as given.
func (m *LRSDL) fitRaw(ctx context.Context, Y mat.Matrix, labels []int) error {
	o := m.Options
	err := m.fit(ctx, &o, Y, labels)
	if err == nil {
		m.res = o
	}
	return err
}

// Predict returns the label of each column of Y.
func (m *LRSDL) Predict(Y mat.Matrix) ([]int, error) {
	return m.PredictContext(context.Background(), Y)
}

// predictRaw is PredictContext on samples as given.
func (m *LRSDL) predictRaw(ctx context.Context, Y mat.Matrix) ([]int, error) {
	o := m.res
	return m.predict(ctx, &o, Y)
}

// transformRaw is Transform on samples as given.
func (m *LRSDL) transformRaw(Y mat.Matrix) (*mat.Dense, error) {
	o := m.res
	return m.transform(&o, Y)
}

// Cost returns J̄ for (Y, labels), Y coded by the training X step.
func (m *LRSDL) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	Y = normalized(Y, !m.res.NoNormalize)
	return m.costContext(context.Background(), Y, labels)
}

// costContext is Cost with a context.
func (m *LRSDL) costContext(ctx context.Context, Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	Y = normalized(Y, !m.res.NoNormalize)
	o := m.res
	return m.cost(ctx, &o, Y, labels)
}

// Means returns the class code means m_c (K×C) and the shared mean m0.
func (m *LRSDL) Means() (Mc *mat.Dense, m0 []float64) { return m.fm.Mc, m.fm.M0 }

// Tune chooses the prediction rule (GC with Options.W, or LC) and
// Options.Lambda by stratified cross-validation on (Y, labels) and sets
// them in Options; it does not train m.
func (m *LRSDL) Tune(ctx context.Context, Y mat.Matrix, labels []int, o TuneOptions) (Tuned, error) {
	opts := m.Options
	r, err := tune(ctx, func() lrsdl.Classifier {
		c := &LRSDL{Options: m.Options, fisherModel: fisherModel{fm: fisher.Model{Set: m.fm.Set}}}
		c.Options.Progress = nil
		return c
	}, &opts, Y, labels, o)
	if err == nil {
		r.set(&m.Options.FDDLOptions)
	}
	return r, err
}

// stateBody returns the trained model.
func (m *LRSDL) stateBody() (*lrsdl.State, error) { return m.state(m.Name(), &m.res) }

// setStateBody restores a model returned by State.
func (m *LRSDL) setStateBody(s *lrsdl.State) error {
	var o LRSDLOptions
	if err := m.setState(m.Name(), s, &o); err != nil {
		return err
	}
	o.Progress = m.Options.Progress
	m.Options, m.res = o, o
	return nil
}

// decideRaw is DecisionFunction on samples as given.
func (m *LRSDL) decideRaw(Y mat.Matrix) (*mat.Dense, error) {
	o := m.res
	return m.decide(&o, Y)
}

// PredictProba returns softmax(DecisionFunction/T) per column.
func (m *LRSDL) PredictProba(Y mat.Matrix) (*mat.Dense, error) { return m.proba(m.DecisionFunction(Y)) }
