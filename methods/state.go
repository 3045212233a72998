package methods

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
)

// State returns the trained model.
func (m *COPAR) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *COPAR) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model.
func (m *D2L2R2) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *D2L2R2) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model.
func (m *DLRD) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *DLRD) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model.
func (m *DLSI) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *DLSI) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model.
func (m *FDDL) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *FDDL) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model.
func (m *JDL) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *JDL) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model.
func (m *LCKSVD1) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *LCKSVD1) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model.
func (m *LCKSVD2) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *LCKSVD2) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model.
func (m *LRSDL) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *LRSDL) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model.
func (m *ODL) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *ODL) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model.
func (m *SRC) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *SRC) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model.
func (m *SRRS) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *SRRS) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// Fit trains the model on the columns of Y and their labels.
func (m *COPAR) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict with a context.
func (m *COPAR) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns −‖y − D_cx^c − D_0x^0‖²₂ for the lasso code x of
// y on D̄ (Options.Coding "gc") or on [D_c D_0] ("lc").
func (m *COPAR) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the lasso codes of Y on D̄ ((K+k0)×n).
func (m *COPAR) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit trains the model on the columns of Y and their labels.
func (m *D2L2R2) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict with a context.
func (m *D2L2R2) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns −e_c: GC e_c = w‖y − D_cx^c‖² + (1−w)‖x − m_c‖²,
// LC the lasso objective of y coded on D_c.
func (m *D2L2R2) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the lasso codes x = argmin ½‖y − Dx‖² + λ‖x‖₁ (K×n).
func (m *D2L2R2) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit trains the model on the columns of Y and their labels.
func (m *DLRD) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict with a context.
func (m *DLRD) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns −‖y − D_cx^c‖²₂ for the lasso code x of y on D.
func (m *DLRD) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the lasso codes of Y on D (K×n).
func (m *DLRD) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit trains the model on the columns of Y and their labels.
func (m *DLSI) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict with a context.
func (m *DLSI) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns −‖y − D_cx_c‖²₂, x_c the lasso code of y on D_c.
func (m *DLSI) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the codes x_c of DecisionFunction, class c in D_c's rows.
func (m *DLSI) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit trains the model on the columns of Y and their labels.
func (m *FDDL) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict with a context.
func (m *FDDL) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns −e_c: GC e_c = w‖y − D_cx^c‖² + (1−w)‖x − m_c‖²,
// LC the lasso objective of y coded on D_c.
func (m *FDDL) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the lasso codes x = argmin ½‖y − Dx‖² + λ‖x‖₁ (K×n).
func (m *FDDL) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit trains the model on the columns of Y and their labels.
func (m *JDL) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict with a context.
func (m *JDL) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns −‖y − D_cx^c − D_0x^0‖²₂ for the lasso code x of
// y on [D_c D_0] (JDL) or on D̄ (JDL*).
func (m *JDL) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the lasso codes of Y on D̄ ((K+k0)×n).
func (m *JDL) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit trains the model on the columns of Y and their labels.
func (m *LCKSVD1) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return m.fitRaw(ctx, normalized(Y, !m.Options.NoNormalize), labels)
}

// PredictContext is Predict with a context.
func (m *LCKSVD1) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns W·x for the OMP code x of y on D.
func (m *LCKSVD1) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the OMP codes of Y on D (K×n).
func (m *LCKSVD1) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit trains the model on the columns of Y and their labels.
func (m *LCKSVD2) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return m.fitRaw(ctx, normalized(Y, !m.Options.NoNormalize), labels)
}

// PredictContext is Predict with a context.
func (m *LCKSVD2) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns W·x for the OMP code x of y on D.
func (m *LCKSVD2) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the OMP codes of Y on D (K×n).
func (m *LCKSVD2) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit trains the model on the columns of Y and their labels.
func (m *LRSDL) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict with a context.
func (m *LRSDL) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns −e_c: GC e_c = w‖ȳ − D_cx^c‖² + (1−w)‖x − m_c‖²
// (ȳ = y − D0x0), LC the lasso objective of y coded on [D_c D0].
func (m *LRSDL) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the codes [x; x0] ((K+k0)×n) = argmin ½‖y − D̄x̄‖² +
// λ2/2‖x0 − m0‖² + λ‖x̄‖₁.
func (m *LRSDL) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit trains the model on the columns of Y and their labels.
func (m *ODL) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict with a context.
func (m *ODL) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns −‖y − D_cx^c‖²₂ for the lasso code x of y on D
// (an error after Learn).
func (m *ODL) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the lasso codes of Y on D (K×n).
func (m *ODL) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit stores the training samples, normalised, as the dictionary.
func (m *SRC) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return m.fitRaw(ctx, normalized(Y, !m.Options.NoNormalize), labels)
}

// PredictContext is Predict with a context.
func (m *SRC) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns −‖y − D_cx^c‖²₂ for the lasso code x of y on D.
func (m *SRC) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the lasso codes of Y on D (N×n, rows in class order).
func (m *SRC) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit trains the model on the columns of Y and their labels.
func (m *SRRS) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return m.fitRaw(ctx, normalized(Y, !m.Options.NoNormalize), labels)
}

// PredictContext is Predict with a context.
func (m *SRRS) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns 2fᵀPᵀy − ‖f‖², f the projected class mean
// (Rule "mean") or the nearest projected training sample of class c ("nn").
func (m *SRRS) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the projections PᵀY (p×n).
func (m *SRRS) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}
