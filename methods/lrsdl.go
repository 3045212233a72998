package methods

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
)

func init() {
	register("LRSDL", func() lrsdl.Classifier { return &LRSDL{} })
}

// LRSDLOptions configures LRSDL. The zero value means the defaults: those of
// FDDLOptions, k0 = 10 shared atoms and η = 0.1.
type LRSDLOptions struct {
	FDDLOptions
	K0  int     `json:"k0"`  // shared atoms k0; zero means 10
	Eta float64 `json:"eta"` // nuclear-norm weight η; zero means 0.1, negative means 0
}

// LRSDL is low-rank shared dictionary learning (Vu & Monga), minimising
//
//	J̄(D̄, X̄) = ½f̄_Y(D̄, X̄) + λ1‖X̄‖₁ + λ2/2·ḡ(X̄) + η‖D0‖_*
//
// over the class dictionaries D = [D_1..D_C], the shared dictionary D0 and
// the codes X̄ = [X; X0] (eq. lrsdl_cost_fn), by Algorithm 2.
type LRSDL struct {
	Options LRSDLOptions
	dl      fisherDL
}

// Name returns "LRSDL".
func (m *LRSDL) Name() string { return "LRSDL" }

// Config returns a pointer to m.Options.
func (m *LRSDL) Config() any { return &m.Options }

func (m *LRSDL) params() dlParams {
	p := m.Options.FDDLOptions.params()
	p.k0 = max(defInt(m.Options.K0, 10), 0)
	p.eta = defFloat(m.Options.Eta, 0.1)
	return p
}

// Fit learns D, D0 and the class means from the columns of Y.
func (m *LRSDL) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return m.dl.fit(ctx, m.params(), Y, labels)
}

// Predict returns the label of each column of Y (GC or LC rule of the options).
func (m *LRSDL) Predict(Y mat.Matrix) ([]int, error) { return m.dl.predict(m.params(), Y) }

// Transform returns the codes X (K×n) and X0 (k0×n) of the columns of Y by
// eq. findcodebarx.
func (m *LRSDL) Transform(Y mat.Matrix) (X, X0 *mat.Dense, err error) {
	return m.dl.transform(m.params(), Y)
}

// Cost evaluates J̄ at the learned dictionaries, with the codes of Y found by
// the training X step. Terms: fidelity, l1, fisher, shared, nuclear.
func (m *LRSDL) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	return m.dl.costOf(m.params(), Y, labels)
}

// Atoms returns the class dictionaries D, their atom partition and D0.
func (m *LRSDL) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) { return m.dl.atoms() }

// Means returns the class code means m_c (columns of a K×C matrix) and the
// shared code mean m^0 (k0).
func (m *LRSDL) Means() (Mc *mat.Dense, m0 []float64) { return m.dl.mc, m.dl.m0 }

// Tune chooses the prediction rule (GC with Options.W, or LC) and
// Options.Lambda by stratified
// cross-validation on the training set (Y, labels), training with the
// current options on each fold. It does not train m; call Fit afterwards.
func (m *LRSDL) Tune(ctx context.Context, Y mat.Matrix, labels []int, o TuneOptions) (Tuned, error) {
	r, err := tune(ctx, m.params(), Y, labels, o)
	if err == nil {
		r.set(&m.Options.FDDLOptions)
	}
	return r, err
}

// State returns the trained model.
func (m *LRSDL) State() (*lrsdl.State, error) { return m.dl.state(m.Name(), &m.Options) }

// SetState restores a model returned by State.
func (m *LRSDL) SetState(s *lrsdl.State) error { return m.dl.setState(m.Name(), s, &m.Options) }
