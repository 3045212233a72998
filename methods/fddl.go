package methods

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
)

func init() {
	register("FDDL", func() lrsdl.Classifier { return &FDDL{} })
}

// FDDLOptions configures FDDL and the FDDL part of LRSDL and D2L2R2. The
// zero value means the defaults written beside each field. For the float
// parameters a negative value means 0.
type FDDLOptions struct {
	K       int     `json:"k"`       // atoms per class; zero means 20
	Lambda1 float64 `json:"lambda1"` // ℓ1 weight λ1; zero means 0.01
	Lambda2 float64 `json:"lambda2"` // Fisher weight λ2; zero means 0.01
	Iters   int     `json:"iters"`   // outer iterations; zero means 30
	// Tol stops training when the cost changes by less than Tol relative;
	// zero means 1e-4, negative runs all Iters.
	Tol       float64 `json:"tol"`
	XIters    int     `json:"x_iters"`    // FISTA iterations per X step; zero means 50
	XTol      float64 `json:"x_tol"`      // FISTA relative tolerance; zero means 1e-4
	DIters    int     `json:"d_iters"`    // ODL sweeps per dictionary update; zero means 20
	ADMMIters int     `json:"admm_iters"` // ADMM iterations of nuclear-norm updates; zero means 20
	InitIters int     `json:"init_iters"` // ODL alternations of the initialisation; zero means 5
	OriginalX bool    `json:"original_x"` // O-FDDL-X (class by class) instead of one FISTA
	OriginalD bool    `json:"original_d"` // O-FDDL-D (sub-dictionary by sub-dictionary)

	// LC selects local (class-by-class) coding for Predict instead of GC.
	LC bool `json:"lc"`
	// W weights the residual against the code distance in GC; zero means 0.5,
	// negative means 0.
	W float64 `json:"w"`
	// Lambda is the ℓ1 weight of the coding at prediction; zero means Lambda1.
	Lambda float64 `json:"lambda"`

	Seed     uint64             `json:"seed"`
	Progress lrsdl.ProgressFunc `json:"-"` // called after each outer iteration
}

func (o *FDDLOptions) params() dlParams {
	p := dlParams{
		k:         defInt(o.K, 20),
		lambda1:   defFloat(o.Lambda1, 0.01),
		lambda2:   defFloat(o.Lambda2, 0.01),
		iters:     defInt(o.Iters, 30),
		tol:       defFloat(o.Tol, 1e-4),
		xIters:    defInt(o.XIters, 50),
		xTol:      o.XTol,
		dIters:    defInt(o.DIters, 20),
		admmIters: defInt(o.ADMMIters, 20),
		initIters: defInt(o.InitIters, 5),
		origX:     o.OriginalX,
		origD:     o.OriginalD,
		lc:        o.LC,
		w:         defFloat(o.W, 0.5),
		seed:      o.Seed,
		progress:  o.Progress,
	}
	if p.xTol == 0 {
		p.xTol = 1e-4
	}
	p.lambda = defFloat(o.Lambda, p.lambda1)
	return p
}

// FDDL is Fisher discrimination dictionary learning (Yang et al.), the
// k0 = 0 case of LRSDL:
//
//	J(D, X) = ½f_Y(D, X) + λ1‖X‖₁ + λ2/2·g(X)
//
// trained by E-FDDL-X and E-FDDL-D (or the original algorithms).
type FDDL struct {
	Options FDDLOptions
	dl      fisherDL
}

// Name returns "FDDL".
func (m *FDDL) Name() string { return "FDDL" }

// Config returns a pointer to m.Options.
func (m *FDDL) Config() any { return &m.Options }

// Fit learns D and the class means from the columns of Y.
func (m *FDDL) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return m.dl.fit(ctx, m.Options.params(), Y, labels)
}

// Predict returns the label of each column of Y.
func (m *FDDL) Predict(Y mat.Matrix) ([]int, error) { return m.dl.predict(m.Options.params(), Y) }

// Transform returns the codes X (K×n) of the columns of Y.
func (m *FDDL) Transform(Y mat.Matrix) (*mat.Dense, error) {
	X, _, err := m.dl.transform(m.Options.params(), Y)
	return X, err
}

// Cost evaluates J at the learned D (terms fidelity, l1, fisher, shared, nuclear).
func (m *FDDL) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	return m.dl.costOf(m.Options.params(), Y, labels)
}

// Atoms returns D, its atom partition and a nil shared dictionary.
func (m *FDDL) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) { return m.dl.atoms() }

// Means returns the class code means m_c as the columns of a K×C matrix.
func (m *FDDL) Means() *mat.Dense { return m.dl.mc }

// Tune chooses the prediction rule and Options.Lambda by cross-validation on the
// training set; see LRSDL.Tune.
func (m *FDDL) Tune(ctx context.Context, Y mat.Matrix, labels []int, o TuneOptions) (Tuned, error) {
	r, err := tune(ctx, m.Options.params(), Y, labels, o)
	if err == nil {
		r.set(&m.Options)
	}
	return r, err
}

// State returns the trained model.
func (m *FDDL) State() (*lrsdl.State, error) { return m.dl.state(m.Name(), &m.Options) }

// SetState restores a model returned by State.
func (m *FDDL) SetState(s *lrsdl.State) error { return m.dl.setState(m.Name(), s, &m.Options) }
