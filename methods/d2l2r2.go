package methods

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
)

func init() {
	register("D2L2R2", func() lrsdl.Classifier { return &D2L2R2{} })
}

// D2L2R2Options configures D2L2R2. The zero value means the defaults of
// FDDLOptions and α = 0.01.
type D2L2R2Options struct {
	FDDLOptions
	Alpha float64 `json:"alpha"` // weight α of Σ_c ‖D_c‖_*; zero means 0.01, negative means 0
}

// D2L2R2 is discriminative dictionary learning with low-rank regularisation
// (Li et al.): the FDDL model with a nuclear norm on each class dictionary,
//
//	J(D, X) = ½f_Y(D, X) + λ1‖X‖₁ + λ2/2·g(X) + α Σ_c ‖D_c‖_*,
//
// trained like FDDL with the dictionary step solved by ADMM with singular
// value thresholding of each D_c.
type D2L2R2 struct {
	Options D2L2R2Options
	dl      fisherDL
}

// Name returns "D2L2R2".
func (m *D2L2R2) Name() string { return "D2L2R2" }

// Config returns a pointer to m.Options.
func (m *D2L2R2) Config() any { return &m.Options }

func (m *D2L2R2) params() dlParams {
	p := m.Options.FDDLOptions.params()
	p.alpha = defFloat(m.Options.Alpha, 0.01)
	return p
}

// Fit learns D and the class means from the columns of Y.
func (m *D2L2R2) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return m.dl.fit(ctx, m.params(), Y, labels)
}

// Predict returns the label of each column of Y.
func (m *D2L2R2) Predict(Y mat.Matrix) ([]int, error) { return m.dl.predict(m.params(), Y) }

// Transform returns the codes X (K×n) of the columns of Y.
func (m *D2L2R2) Transform(Y mat.Matrix) (*mat.Dense, error) {
	X, _, err := m.dl.transform(m.params(), Y)
	return X, err
}

// Cost evaluates J at the learned D; the nuclear term is α Σ_c ‖D_c‖_*.
func (m *D2L2R2) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	return m.dl.costOf(m.params(), Y, labels)
}

// Atoms returns D, its atom partition and a nil shared dictionary.
func (m *D2L2R2) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) { return m.dl.atoms() }

// Means returns the class code means m_c as the columns of a K×C matrix.
func (m *D2L2R2) Means() *mat.Dense { return m.dl.mc }

// Tune chooses the prediction rule and Options.Lambda by cross-validation
// on the training set; see LRSDL.Tune.
func (m *D2L2R2) Tune(ctx context.Context, Y mat.Matrix, labels []int, o TuneOptions) (Tuned, error) {
	r, err := tune(ctx, m.params(), Y, labels, o)
	if err == nil {
		r.set(&m.Options.FDDLOptions)
	}
	return r, err
}

// State returns the trained model.
func (m *D2L2R2) State() (*lrsdl.State, error) { return m.dl.state(m.Name(), &m.Options) }

// SetState restores a model returned by State.
func (m *D2L2R2) SetState(s *lrsdl.State) error { return m.dl.setState(m.Name(), s, &m.Options) }
