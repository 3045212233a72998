package methods

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
)

// State returns the trained model with its normalisation and the
// temperature of PredictProba.
func (m *COPAR) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *COPAR) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model with its normalisation and the
// temperature of PredictProba.
func (m *D2L2R2) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *D2L2R2) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model with its normalisation and the
// temperature of PredictProba.
func (m *DLRD) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *DLRD) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model with its normalisation and the
// temperature of PredictProba.
func (m *DLSI) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *DLSI) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model with its normalisation and the
// temperature of PredictProba.
func (m *FDDL) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *FDDL) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model with its normalisation and the
// temperature of PredictProba.
func (m *JDL) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *JDL) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model with its normalisation and the
// temperature of PredictProba.
func (m *LCKSVD1) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *LCKSVD1) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model with its normalisation and the
// temperature of PredictProba.
func (m *LCKSVD2) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *LCKSVD2) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model with its normalisation and the
// temperature of PredictProba.
func (m *LRSDL) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *LRSDL) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model with its normalisation and the
// temperature of PredictProba.
func (m *ODL) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *ODL) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model with its normalisation and the
// temperature of PredictProba.
func (m *SRC) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *SRC) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// State returns the trained model with its normalisation and the
// temperature of PredictProba.
func (m *SRRS) State() (*lrsdl.State, error) { return m.calib.stateOut(m.stateBody()) }

// SetState restores a model returned by State.
func (m *SRRS) SetState(s *lrsdl.State) error { return m.calib.stateIn(s, m.setStateBody) }

// Fit learns the class and shared dictionaries from the columns of Y.
func (m *COPAR) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict, returning ctx.Err() when ctx is cancelled.
func (m *COPAR) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns the C×n scores −‖y − D_cx^c − D0x^0‖²₂ of the
// codes of Options.Coding.
func (m *COPAR) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the lasso codes (K̄×n, class atoms then shared ones)
// of the columns of Y on D̄.
func (m *COPAR) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit learns D and the class means from the columns of Y, leaving Options
// as they are (Params reports the resolved ones).
func (m *D2L2R2) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict, returning ctx.Err() when ctx is cancelled.
func (m *D2L2R2) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns the C×n scores −e_c of the prediction rule: GC
// e_c = w‖ȳ − D_cx^c‖² + (1−w)‖x − m_c‖² (ȳ = y − D0x0), LC the lasso
// objective of y coded on [D_c D0].
func (m *D2L2R2) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the codes X (K×n) of the columns of Y.
func (m *D2L2R2) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit learns the class dictionaries from the columns of Y.
func (m *DLRD) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict, returning ctx.Err() when ctx is cancelled.
func (m *DLRD) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns the C×n scores −‖y − D_cx^c‖²₂ of the lasso
// codes x of the columns of Y on D.
func (m *DLRD) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the lasso codes (K×n) of the columns of Y on D.
func (m *DLRD) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit learns the class dictionaries from the columns of Y.
func (m *DLSI) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict, returning ctx.Err() when ctx is cancelled.
func (m *DLSI) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns the C×n scores −‖y − D_cx_c‖²₂, x_c the lasso
// code of y on D_c alone.
func (m *DLSI) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the codes x_c of each class stacked (K×n, the rows of
// D_c for class c), those DecisionFunction scores.
func (m *DLSI) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit learns D and the class means from the columns of Y, leaving Options
// as they are (Params reports the resolved ones).
func (m *FDDL) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict, returning ctx.Err() when ctx is cancelled.
func (m *FDDL) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns the C×n scores −e_c of the prediction rule: GC
// e_c = w‖ȳ − D_cx^c‖² + (1−w)‖x − m_c‖² (ȳ = y − D0x0), LC the lasso
// objective of y coded on [D_c D0].
func (m *FDDL) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the codes X (K×n) of the columns of Y.
func (m *FDDL) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit learns the class and shared dictionaries from the columns of Y.
func (m *JDL) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict, returning ctx.Err() when ctx is cancelled.
func (m *JDL) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns the C×n scores −‖y − D_cx^c − D0x^0‖²₂ of the
// local (JDL) or global (JDL*) lasso codes.
func (m *JDL) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the lasso codes (K̄×n, class atoms then shared ones)
// of the columns of Y on D̄.
func (m *JDL) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit learns D, A and W from the columns of Y; see LCKSVD1.
func (m *LCKSVD1) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return m.fitRaw(ctx, normalized(Y, !m.Options.NoNormalize), labels)
}

// PredictContext is Predict, returning ctx.Err() when ctx is cancelled.
func (m *LCKSVD1) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns the C×n scores W·x of the OMP codes x of the
// columns of Y.
func (m *LCKSVD1) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the OMP codes (K×n) of the columns of Y on D.
func (m *LCKSVD1) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit learns D, A and W from the columns of Y; see LCKSVD2.
func (m *LCKSVD2) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return m.fitRaw(ctx, normalized(Y, !m.Options.NoNormalize), labels)
}

// PredictContext is Predict, returning ctx.Err() when ctx is cancelled.
func (m *LCKSVD2) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns the C×n scores W·x of the OMP codes x of the
// columns of Y.
func (m *LCKSVD2) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the OMP codes (K×n) of the columns of Y on D.
func (m *LCKSVD2) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit learns D, D0 and the class means from the columns of Y, leaving
// Options as they are (Params reports the resolved ones).
func (m *LRSDL) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict, returning ctx.Err() when ctx is cancelled.
func (m *LRSDL) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns the C×n scores −e_c of the prediction rule: GC
// e_c = w‖ȳ − D_cx^c‖² + (1−w)‖x − m_c‖² (ȳ = y − D0x0), LC the lasso
// objective of y coded on [D_c D0].
func (m *LRSDL) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the codes x̄ = [x; x0] ((K+k0)×n: the K class-atom rows,
// then the k0 shared-atom rows) of the columns of Y,
//
//	x̄ = argmin ½‖y − D̄x̄‖² + λ2/2‖x0 − m0‖² + λ‖x̄‖₁.
func (m *LRSDL) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit learns one dictionary per class; see ODL.
func (m *ODL) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return fitCodes(ctx, m, m.Options.spec(), normalized(Y, !m.Options.NoNormalize), labels, m.fitRaw, m.transformRaw)
}

// PredictContext is Predict, returning ctx.Err() when ctx is cancelled.
func (m *ODL) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns the C×n scores −‖y − D_cx^c‖²₂ of the lasso
// codes x of the columns of Y; an error for a model from Learn.
func (m *ODL) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the lasso codes (K×n) of the columns of Y over the
// learned dictionary D.
func (m *ODL) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit stores the training samples, normalised, as the dictionary.
func (m *SRC) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return m.fitRaw(ctx, normalized(Y, !m.Options.NoNormalize), labels)
}

// PredictContext is Predict, returning ctx.Err() when ctx is cancelled.
func (m *SRC) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns the C×n scores −‖y − D_cx^c‖²₂ of the lasso
// codes x of the columns of Y.
func (m *SRC) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the lasso codes (N×n, one row per training sample in
// class order) of the columns of Y.
func (m *SRC) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}

// Fit learns the projection from the columns of Y.
func (m *SRRS) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return m.fitRaw(ctx, normalized(Y, !m.Options.NoNormalize), labels)
}

// PredictContext is Predict, returning ctx.Err() when ctx is cancelled.
func (m *SRRS) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	return m.predictRaw(ctx, normalized(Y, !m.res.NoNormalize))
}

// DecisionFunction returns the C×n scores −(‖f‖² − 2fᵀPᵀy) of the nearest
// projected training sample f of each class (Options.Rule "mean": of the
// class mean), its squared distance to Pᵀy less ‖Pᵀy‖².
func (m *SRRS) DecisionFunction(Y mat.Matrix) (*mat.Dense, error) {
	return m.decideRaw(normalized(Y, !m.res.NoNormalize))
}

// Transform returns the projections PᵀY (p×n) of the columns of Y.
func (m *SRRS) Transform(Y mat.Matrix) (*mat.Dense, error) {
	return m.transformRaw(normalized(Y, !m.res.NoNormalize))
}
