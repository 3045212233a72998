package methods

import (
	"context"
	"fmt"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

func init() {
	register("SRC", func() lrsdl.Model { return &SRC{} })
}

// SRCOptions configures SRC. The zero value means the defaults.
type SRCOptions struct {
	Lambda      float64 `json:"lambda"`                 // sparsity weight λ; zero means 0.001
	Iters       int     `json:"iters"`                  // iteration limit of the coding (ADMM); zero means 100
	Seed        uint64  `json:"seed"`                   // unused: SRC is deterministic
	NoNormalize bool    `json:"no_normalize,omitempty"` // use the samples as given, not scaled to unit ℓ2 norm
}

func (o *SRCOptions) spec() optSpec {
	return optSpec{method: "SRC", opts: []opt{
		{name: "lambda", doc: "sparsity weight λ of the lasso", f: &o.Lambda, def: 0.001, minOpen: true, zeroAt: 1},
		{name: "iters", doc: "iteration limit of the coding (ADMM)", i: &o.Iters, def: 100, min: 1},
		{name: "seed", doc: "unused: SRC is deterministic", u: &o.Seed},
		normOpt(&o.NoNormalize),
	}}
}

// SRC is the sparse representation-based classifier (Wright et al.): the
// dictionary D = [D_1..D_C] is the normalised training set, a sample is
// coded by the lasso x = argmin ½‖y − Dx‖²₂ + λ‖x‖₁ and given the class of
// the smallest residual ‖y − D_cx^c‖₂. Fit keeps DᵀD (N×N); coding costs
// d·N per sample plus iterations at N×N.
type SRC struct {
	Options SRCOptions
	res     SRCOptions // resolved options of the last Fit or SetState
	m       classDict
	gram    *mat.Dense // DᵀD
	base
}

// Name returns "SRC".
func (m *SRC) Name() string { return "SRC" }

// Params lists the options, resolved once trained.
func (m *SRC) Params() []lrsdl.Param { return listParams(m.Classes() != nil, &m.Options, &m.res) }

// SetParam sets the named option from its text form.
func (m *SRC) SetParam(name, value string) error {
	return setParam(m.Classes() != nil, &m.Options, &m.res, name, value)
}

// SetProgress does nothing: SRC has no training iterations.
func (m *SRC) SetProgress(lrsdl.ProgressFunc) {}

// fitRaw is Fit on samples as given.
func (m *SRC) fitRaw(ctx context.Context, Y mat.Matrix, labels []int) error {
	start := time.Now()
	m.info = lrsdl.FitInfo{}
	o := m.Options
	Ys, g, info, err := classTrainingSet("SRC", Y, labels, &o)
	if err != nil {
		return err
	}
	// The class-ordered samples (d·N) and their Gram matrix (N²).
	if err := dl.CheckMemory("SRC", float64(info.Dim)*float64(info.N)+float64(info.N)*float64(info.N), "the training set"); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	d, n := Ys.Dims()
	col := make([]float64, d)
	for j := 0; j < n; j++ {
		mat.Col(col, j, Ys)
		if nrm := floats.Norm(col, 2); nrm > 0 {
			floats.Scale(1/nrm, col)
			Ys.SetCol(j, col)
		}
	}
	m.m = classDict{classes: g.Classes, part: g.Part, D: Ys}
	m.gram = srcGram(Ys)
	m.res = o
	m.info.Elapsed = time.Since(start)
	return nil
}

func srcGram(D *mat.Dense) *mat.Dense {
	_, K := D.Dims()
	G := mat.NewDense(K, K, nil)
	G.Mul(D.T(), D)
	return G
}

// codes returns the lasso codes of the columns of Y over the dictionary.
func (m *SRC) codes(ctx context.Context, Y mat.Matrix) (*mat.Dense, error) {
	if err := m.m.check("SRC", Y); err != nil {
		return nil, err
	}
	_, K := m.m.D.Dims()
	_, n := Y.Dims()
	if err := dl.CheckMemory("SRC", 2*float64(K)*float64(n), "the number of test samples per call"); err != nil {
		return nil, err
	}
	B := mat.NewDense(K, n, nil)
	core.MulTrans(B, m.m.D, Y)
	X := mat.NewDense(K, n, nil)
	err := core.LassoGram(ctx, X, m.gram, B, m.res.Lambda, core.LassoOptions{MaxIter: m.res.Iters, ADMM: true})
	return X, err
}

// Predict returns the label of each column of Y.
func (m *SRC) Predict(Y mat.Matrix) ([]int, error) { return m.PredictContext(context.Background(), Y) }

// predictRaw is PredictContext on samples as given.
func (m *SRC) predictRaw(ctx context.Context, Y mat.Matrix) ([]int, error) {
	X, err := m.codes(ctx, Y)
	if err != nil {
		return nil, err
	}
	return m.m.residualLabels(Y, X), nil
}

// Cost returns ½‖Y − DX‖²_F ("fidelity") and λ‖X‖₁ ("l1") for the lasso
// codes X of Y; labels are only checked for their number.
func (m *SRC) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	Y = normalized(Y, !m.res.NoNormalize)
	X, err := m.codes(context.Background(), Y)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	if _, n := Y.Dims(); len(labels) != n {
		return lrsdl.Cost{}, fmt.Errorf("methods: %d labels for %d samples", len(labels), n)
	}
	return lassoCost(m.m.D, Y, X, m.res.Lambda), nil
}

// stateBody returns the dictionary (the normalised training set) and classes.
func (m *SRC) stateBody() (*lrsdl.State, error) { return m.m.state(m.Name(), &m.res, nil) }

// setStateBody restores a state returned by State.
func (m *SRC) setStateBody(s *lrsdl.State) error {
	var o SRCOptions
	var b classDict
	if _, err := b.setState(m.Name(), s, &o); err != nil {
		return err
	}
	m.Options, m.res, m.m, m.gram, m.info = o, o, b, srcGram(b.D), lrsdl.FitInfo{}
	return nil
}

// decideRaw is DecisionFunction on samples as given.
func (m *SRC) decideRaw(Y mat.Matrix) (*mat.Dense, error) {
	X, err := m.codes(bg, Y)
	if err != nil {
		return nil, err
	}
	return m.m.residualScores(Y, X), nil
}

// PredictProba returns softmax(DecisionFunction/T) per column.
func (m *SRC) PredictProba(Y mat.Matrix) (*mat.Dense, error) { return m.proba(m.DecisionFunction(Y)) }

// transformRaw is Transform on samples as given.
func (m *SRC) transformRaw(Y mat.Matrix) (*mat.Dense, error) { return m.codes(bg, Y) }

// Classes returns the class labels in increasing order.
func (m *SRC) Classes() []int { return m.m.classList() }
