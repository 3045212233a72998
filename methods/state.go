package methods

import "github.com/lrsdl/lrsdl"

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
