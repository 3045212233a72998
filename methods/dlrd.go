package methods

import (
	"context"
	"fmt"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/fisher"
)

func init() { register("DLRD", func() lrsdl.Model { return &DLRD{} }) }

// DLRDOptions controls DLRD. The zero value means the defaults, chosen by
// cross-validation on training data (see bench/studies/defaults); Off sets
// a literal 0 where the range allows it.
type DLRDOptions struct {
	K           int                `json:"k"`                      // atoms per class; zero means min(20, smallest class)
	Lambda1     float64            `json:"lambda1"`                // ℓ1 weight λ1 of the codes; zero means 0.02
	Alpha       float64            `json:"alpha"`                  // nuclear-norm weight α of each D_c; zero means 0.005
	Beta        float64            `json:"beta"`                   // ℓ1 weight β of the sparse error E; zero means 1
	Lambda      float64            `json:"lambda"`                 // ℓ1 weight of the coding at prediction; zero means lambda1
	Iters       int                `json:"iters"`                  // outer iterations; zero means 15
	ADMMIters   int                `json:"admm_iters"`             // ADMM iterations per dictionary update; zero means 2
	Tol         float64            `json:"tol"`                    // stop when the cost changes by at most Tol, relative; zero means 1e-4, Off runs every iteration
	Seed        uint64             `json:"seed"`                   // seed of the initialisation
	NoNormalize bool               `json:"no_normalize,omitempty"` // use the samples as given, not scaled to unit ℓ2 norm
	Progress    lrsdl.ProgressFunc `json:"-"`                      // called after each outer iteration
}

func (o *DLRDOptions) spec() optSpec {
	return optSpec{method: "DLRD", opts: []opt{
		kOpt(&o.K, 20, "atoms per class"),
		{name: "lambda1", doc: "ℓ1 weight λ1 of the codes", f: &o.Lambda1, def: 0.02, minOpen: true, zeroAt: 2},
		{name: "alpha", doc: "nuclear-norm weight α of each class dictionary", f: &o.Alpha, def: 0.005, off: true},
		{name: "beta", doc: "ℓ1 weight β of the sparse error", f: &o.Beta, def: 1, minOpen: true},
		lambdaOpt(&o.Lambda, &o.Lambda1),
		itersOpt(&o.Iters, 15),
		{name: "admm_iters", doc: "ADMM iterations of each dictionary update", i: &o.ADMMIters, def: dlrdADMMIters, min: 1},
		tolOpt(&o.Tol),
		seedOpt(&o.Seed),
		normOpt(&o.NoNormalize),
	}}
}

// DLRD is discriminative low-rank dictionary learning (Ma et al., CVPR
// 2012): low-rank class dictionaries D = [D_1 … D_C] learned from samples
// with sparse errors E, minimising FDDL's fidelity on Y − E + λ1‖X‖₁ +
// α Σ_c ‖D_c‖_* + β‖E‖₁; it predicts like SRC on D.
type DLRD struct {
	Options DLRDOptions
	res     DLRDOptions // resolved options of the last Fit or SetState

	base
	classes *core.Classes
	D       *mat.Dense     // d×K: [D_1 … D_C]
	part    core.Partition // atoms of each class
}

// Name returns "DLRD".
func (m *DLRD) Name() string { return "DLRD" }

// Atoms returns D, its atom partition and a nil D0; see Dictionary.
func (m *DLRD) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) {
	if m.D == nil {
		return nil, nil, nil
	}
	return mat.DenseCopyOf(m.D), dl.CopyPart(m.part), nil
}

// dlrdADMMIters is the default of DLRDOptions.ADMMIters.
const dlrdADMMIters = 2

// dlrdParams returns the parameters of the Fisher-model training steps
// DLRD reuses: no shared atoms, λ2 = 0 and the nuclear weight α.
func dlrdParams(o DLRDOptions) fisher.Params {
	return fisher.Params{K: o.K, Lambda1: o.Lambda1, Alpha: lit(o.Alpha), Iters: o.Iters, XIters: 50, XTol: 1e-4,
		DIters: 20, ADMMIters: o.ADMMIters, InitIters: 5, W: 1, Lambda: o.Lambda, Seed: o.Seed}
}

// fitRaw is Fit on samples as given.
func (m *DLRD) fitRaw(ctx context.Context, Y mat.Matrix, labels []int) error {
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
	if err := dl.CheckMemory("DLRD", dlrdPlan(d, N, K), "k or the training set"); err != nil {
		return err
	}
	D, part, fi, err := fisher.FitDLRD(ctx, dlrdParams(o), m.set, Ys, g.Part, o.Beta,
		dl.Loop{Iters: o.Iters, Tol: lit(o.Tol), Progress: o.Progress, Start: start})
	m.info = fi
	if err != nil {
		return err
	}
	m.res, m.classes, m.D, m.part = o, g.Classes, D, part
	m.info.Elapsed = time.Since(start)
	return nil
}

// Params lists the options, resolved once trained.
func (m *DLRD) Params() []lrsdl.Param { return listParams(m.Classes() != nil, &m.Options, &m.res) }

// SetParam sets the named option from its text form.
func (m *DLRD) SetParam(name, value string) error {
	return setParam(m.Classes() != nil, &m.Options, &m.res, name, value)
}

// SetProgress sets the function called after each outer iteration.
func (m *DLRD) SetProgress(f lrsdl.ProgressFunc) { m.Options.Progress, m.res.Progress = f, f }

// Cost returns J for (Y, labels), X and E from the training X and E steps.
func (m *DLRD) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	Y = normalized(Y, !m.res.NoNormalize)
	if err := dl.Trained(m.D); err != nil {
		return lrsdl.Cost{}, err
	}
	Ys, sp, err := dl.SortedSet(Y, labels, m.classes, m.D)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	return fisher.CostDLRD(dlrdParams(m.res), m.set, m.D, m.part, Ys, sp, m.res.Beta)
}

// Predict returns the label of each column of Y.
func (m *DLRD) Predict(Y mat.Matrix) ([]int, error) { return m.PredictContext(context.Background(), Y) }

// predictRaw is PredictContext on samples as given.
func (m *DLRD) predictRaw(ctx context.Context, Y mat.Matrix) ([]int, error) {
	S, err := m.decide(ctx, Y)
	if err != nil {
		return nil, err
	}
	return argmaxLabels(S, m.classes), nil
}

func (m *DLRD) codes(ctx context.Context, Y mat.Matrix) (*mat.Dense, error) {
	if err := dl.Trained(m.D); err != nil {
		return nil, err
	}
	b := classDict{classes: m.classes, part: m.part, D: m.D}
	if err := b.check("DLRD", Y); err != nil {
		return nil, err
	}
	_, n := Y.Dims()
	X := mat.NewDense(m.part.Len(), n, nil)
	return X, core.Lasso(ctx, X, m.D, Y, m.res.Lambda, core.LassoOptions{ADMM: true})
}

func (m *DLRD) decide(ctx context.Context, Y mat.Matrix) (*mat.Dense, error) {
	X, err := m.codes(ctx, Y)
	if err != nil {
		return nil, err
	}
	b := classDict{classes: m.classes, part: m.part, D: m.D}
	return b.residualScores(Y, X), nil
}

// decideRaw is DecisionFunction on samples as given.
func (m *DLRD) decideRaw(Y mat.Matrix) (*mat.Dense, error) { return m.decide(bg, Y) }

// PredictProba returns softmax(DecisionFunction/T) per column.
func (m *DLRD) PredictProba(Y mat.Matrix) (*mat.Dense, error) { return m.proba(m.DecisionFunction(Y)) }

// transformRaw is Transform on samples as given.
func (m *DLRD) transformRaw(Y mat.Matrix) (*mat.Dense, error) { return m.codes(bg, Y) }

// Classes returns the class labels in increasing order.
func (m *DLRD) Classes() []int {
	if m.D == nil {
		return nil
	}
	return classesOf(m.classes)
}

// stateBody returns the trained model: the options and the matrix "D".
func (m *DLRD) stateBody() (*lrsdl.State, error) {
	if err := dl.Trained(m.D); err != nil {
		return nil, err
	}
	return dl.NewState(m.Name(), m.res, m.classes, []string{"D"}, m.D)
}

// setStateBody restores a model returned by State.
func (m *DLRD) setStateBody(s *lrsdl.State) error {
	var o DLRDOptions
	cl, err := decodeState(s, m.Name(), &o, "D")
	if err != nil {
		return err
	}
	part := dl.BlockPartition(cl.Len(), o.K)
	D := s.Matrices["D"]
	if _, K := D.Dims(); K != part.Len() {
		return fmt.Errorf("methods: DLRD state has %d atoms, want %d", K, part.Len())
	}
	o.Progress = m.Options.Progress
	m.Options, m.res, m.classes, m.D, m.part, m.info = o, o, cl, mat.DenseCopyOf(D), part, lrsdl.FitInfo{}
	return nil
}

// dlrdPlan returns the floats DLRD's Fit allocates at most: the Fisher
// engine's in the data space with ADMM (fisher.Plan), plus the copy of the
// samples, the error E and the product D·X of the E step (3·d·N) and the
// d×K product of its residual.
func dlrdPlan(d, N, K int) float64 {
	fd, fN := float64(d), float64(N)
	return fisher.Plan(dl.Info{Dim: d, N: N}, dl.Settings{NoSpan: true}, K, 0, true) + 3*fd*fN + fd*float64(K)
}
