package online

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods"
)

// record is what a State holds beside the batch method's options, as the
// 1×10 matrix "online.record" in the order of its fields: the minibatch
// options and what has been seen. (The options stay the batch method's
// own, so that a model file of it reads as any LRSDL or FDDL model.)
type record struct {
	Batch     int     `json:"batch"`
	Epochs    int     `json:"epochs"`
	Forget    float64 `json:"forget"`
	XIters    int     `json:"x_iters"`
	DIters    int     `json:"d_iters"`
	ADMMIters int     `json:"admm_iters"`
	OwnIters  int     `json:"own_iters"`
	Batches   int64   `json:"batches"` // minibatches trained
	Seen      int64   `json:"seen"`    // samples trained on
	N0        float64 `json:"n0"`      // weighted sample count of the shared statistics
}

// matrix returns r as the 1×10 matrix of State.
func (r record) matrix() *mat.Dense {
	return rowOf([]float64{float64(r.Batch), float64(r.Epochs), r.Forget, float64(r.XIters), float64(r.DIters),
		float64(r.ADMMIters), float64(r.OwnIters), float64(r.Batches), float64(r.Seen), r.N0})
}

// recordOf reads a record from State's matrix; a state without one (a
// batch-trained model) gives the zero record.
func recordOf(st *lrsdl.State) (record, error) {
	m, ok := st.Matrices[matRecord]
	if !ok {
		return record{}, nil
	}
	if r, c := m.Dims(); r != 1 || c != 10 {
		return record{}, fmt.Errorf("online: state matrix %s is %d×%d, want 1×10", matRecord, r, c)
	}
	v := m.RawRowView(0)
	return record{Batch: int(v[0]), Epochs: int(v[1]), Forget: v[2], XIters: int(v[3]), DIters: int(v[4]),
		ADMMIters: int(v[5]), OwnIters: int(v[6]), Batches: int64(v[7]), Seen: int64(v[8]), N0: v[9]}, nil
}

// Names of the State matrices that only minibatch training uses.
const (
	matA, matB, matA0, matB0 = "online.A", "online.B", "online.A0", "online.B0"
	matS, matN, matS0        = "online.S", "online.n", "online.s0"
	matPending, matRecord    = "online.pending", "online.record"
)

// fisherOptions returns the batch method's options that describe the model.
func (m *Model) fisherOptions() methods.FDDLOptions {
	r := m.res
	return methods.FDDLOptions{K: r.K, Lambda1: r.Lambda1, Lambda2: r.Lambda2, XIters: r.XIters,
		DIters: r.DIters, ADMMIters: r.ADMMIters, Seed: r.Seed}
}

// State returns the trained model as the state of methods.LRSDL or
// methods.FDDL (Method "LRSDL" or "FDDL"): matrices Dbar = [D D0], part,
// Mc (the running class means of the codes) and m0, with the options of
// the batch method. It also holds the accumulated statistics, the samples
// of pending classes and, in the matrix online.record, the minibatch
// options and the number of samples and minibatches seen, so that
// SetState resumes training exactly. It needs at least two trained
// classes.
func (m *Model) State() (*lrsdl.State, error) {
	s := &m.st
	C := len(s.labels)
	if C < 2 {
		return nil, fmt.Errorf("online: model has %d trained classes, need at least 2", C)
	}
	rec := record{Batch: m.res.Batch, Epochs: m.res.Epochs, Forget: m.res.Forget, XIters: m.res.XIters,
		DIters: m.res.DIters, ADMMIters: m.res.ADMMIters, OwnIters: m.res.OwnIters, Batches: s.t, Seen: s.seen, N0: s.n0}
	var opts []byte
	var err error
	if m.p.lrsdl {
		opts, err = json.Marshal(methods.LRSDLOptions{FDDLOptions: m.fisherOptions(), K0: m.res.K0, Eta: m.res.Eta})
	} else {
		opts, err = json.Marshal(m.fisherOptions())
	}
	if err != nil {
		return nil, err
	}
	d, K, k0 := s.d, s.K(), s.k0()
	Db := mat.NewDense(d, K+k0, nil)
	Db.Slice(0, d, 0, K).(*mat.Dense).Copy(&s.D)
	if k0 > 0 {
		Db.Slice(0, d, K, K+k0).(*mat.Dense).Copy(&s.D0)
	}
	Mc := mat.NewDense(K, C, nil)
	mv, m0 := make([]float64, K), make([]float64, k0)
	s.means(Mc, mv, m0)
	st := &lrsdl.State{Method: m.res.Method, Options: opts, Classes: slices.Clone(s.labels), Matrices: map[string]*mat.Dense{}}
	add := func(name string, a *mat.Dense) {
		st.Names = append(st.Names, name)
		st.Matrices[name] = mat.DenseCopyOf(a)
	}
	add("Dbar", Db)
	add("part", rowOf(intsToFloats(s.part)))
	add("Mc", Mc)
	add("m0", rowOf(m0))
	add(matA, &s.A)
	add(matB, &s.B)
	add(matS, &s.S)
	add(matN, rowOf(s.n))
	add(matRecord, rec.matrix())
	if k0 > 0 {
		add(matA0, &s.A0)
		add(matB0, &s.B0)
		add(matS0, rowOf(s.s0))
	}
	if P := m.Pending(); len(P) > 0 {
		var cols [][]float64
		var ls []int
		for _, l := range P {
			for _, c := range s.pend[l] {
				cols, ls = append(cols, c), append(ls, l)
			}
		}
		pm := mat.NewDense(d+1, len(cols), nil)
		for j, c := range cols {
			pm.Set(0, j, float64(ls[j]))
			for i, v := range c {
				pm.Set(i+1, j, v)
			}
		}
		add(matPending, pm)
	}
	return st, nil
}

// rowOf returns v as a 1×len(v) matrix (at least 1×1).
func rowOf(v []float64) *mat.Dense {
	r := mat.NewDense(1, max(len(v), 1), nil)
	copy(r.RawRowView(0), v)
	return r
}

func intsToFloats(v []int) []float64 {
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	return f
}

// Classifier returns the trained model as a methods.LRSDL or methods.FDDL
// (by Options.Method), for prediction and model files (methods.SaveFile).
// Its State keeps the minibatch statistics, so that SetState of the State
// of a model loaded from such a file resumes training exactly.
func (m *Model) Classifier() (lrsdl.Model, error) {
	st, err := m.State()
	if err != nil {
		return nil, err
	}
	c, err := methods.New(st.Method)
	if err != nil {
		return nil, err
	}
	if err := c.SetState(st); err != nil {
		return nil, err
	}
	return c, nil
}

// SetState restores a model from a State returned by State, after which
// PartialFit continues exactly as the model that State was taken from
// would have. A state of batch-trained methods.LRSDL or methods.FDDL is
// accepted too: training continues from its dictionaries and means with
// empty statistics. The options of the state replace the model's, except
// Progress.
func (m *Model) SetState(st *lrsdl.State) error {
	if st == nil {
		return errors.New("online: nil state")
	}
	var o Options
	rec, err := recordOf(st)
	if err != nil {
		return err
	}
	switch st.Method {
	case "LRSDL":
		var r methods.LRSDLOptions
		if err := json.Unmarshal(st.Options, &r); err != nil {
			return fmt.Errorf("online: LRSDL state options: %v", err)
		}
		o = fromFisher(r.FDDLOptions)
		o.K0, o.Eta = r.K0, r.Eta
	case "FDDL":
		var r methods.FDDLOptions
		if err := json.Unmarshal(st.Options, &r); err != nil {
			return fmt.Errorf("online: FDDL state options: %v", err)
		}
		o = fromFisher(r)
	default:
		return fmt.Errorf("online: state is for method %q, not LRSDL or FDDL", st.Method)
	}
	o.Method, o.Batch, o.Epochs, o.Forget = st.Method, rec.Batch, rec.Epochs, rec.Forget
	if rec.XIters > 0 {
		o.XIters, o.DIters, o.ADMMIters, o.OwnIters = rec.XIters, rec.DIters, rec.ADMMIters, rec.OwnIters
	}
	o.Progress = m.opts.Progress
	res, p, err := o.resolve()
	if err != nil {
		return fmt.Errorf("%v (in the state)", err)
	}
	// Check the state through the batch method, which validates its shapes.
	c, err := methods.New(st.Method)
	if err != nil {
		return err
	}
	if err := c.(lrsdl.Persistent).SetState(st); err != nil {
		return err
	}
	s, err := stateOf(st, p, rec)
	if err != nil {
		return err
	}
	m.opts, m.res, m.p, m.st = o, res, p, s
	return nil
}

func fromFisher(f methods.FDDLOptions) Options {
	return Options{K: f.K, Lambda1: f.Lambda1, Lambda2: f.Lambda2, XIters: f.XIters, DIters: f.DIters,
		ADMMIters: f.ADMMIters, Seed: f.Seed}
}

// stateOf rebuilds the training state from a State whose Dbar, part, Mc
// and m0 have been checked by the batch method.
func stateOf(st *lrsdl.State, p params, rec record) (state, error) {
	Db, pm := st.Matrices["Dbar"], st.Matrices["part"]
	d, kb := Db.Dims()
	C := len(st.Classes)
	s := state{d: d, labels: slices.Clone(st.Classes), part: make(core.Partition, C+1), t: rec.Batches, seen: rec.Seen, n0: rec.N0}
	for i := range s.part {
		s.part[i] = int(pm.At(0, i))
	}
	K := s.part.Len()
	k0 := kb - K
	if k0 != p.k0 {
		return s, fmt.Errorf("online: state has %d shared atoms, its options say k0=%d", k0, p.k0)
	}
	s.D.CloneFrom(Db.Slice(0, d, 0, K))
	if k0 > 0 {
		s.D0.CloneFrom(Db.Slice(0, d, K, kb))
	}
	get := func(name string, r, c int) (*mat.Dense, error) {
		a := st.Matrices[name]
		if a == nil {
			return nil, nil
		}
		if ar, ac := a.Dims(); ar != r || ac != c {
			return nil, fmt.Errorf("online: state matrix %s is %d×%d, need %d×%d", name, ar, ac, r, c)
		}
		return a, nil
	}
	A, err := get(matA, K, K)
	if err != nil {
		return s, err
	}
	if A == nil {
		// A batch-trained state: the means restart from Mc and m0 with
		// weight 1, the statistics from zero.
		s.A.ReuseAs(K, K)
		s.B.ReuseAs(d, K)
		s.S.CloneFrom(st.Matrices["Mc"])
		s.n = make([]float64, C)
		for c := range s.n {
			s.n[c] = 1
		}
		if k0 > 0 {
			s.A0.ReuseAs(k0, k0)
			s.B0.ReuseAs(d, k0)
			s.s0 = slices.Clone(st.Matrices["m0"].RawRowView(0)[:k0])
			s.n0 = 1
		}
		return s, nil
	}
	s.A.CloneFrom(A)
	need := []struct {
		name string
		r, c int
		dst  *mat.Dense
	}{{matB, d, K, &s.B}, {matS, K, C, &s.S}}
	if k0 > 0 {
		need = append(need, struct {
			name string
			r, c int
			dst  *mat.Dense
		}{matA0, k0, k0, &s.A0}, struct {
			name string
			r, c int
			dst  *mat.Dense
		}{matB0, d, k0, &s.B0})
	}
	for _, n := range need {
		a, err := get(n.name, n.r, n.c)
		if err != nil {
			return s, err
		}
		if a == nil {
			return s, fmt.Errorf("online: state has %s but no %s", matA, n.name)
		}
		n.dst.CloneFrom(a)
	}
	nv, err := get(matN, 1, C)
	if err != nil || nv == nil {
		return s, fmt.Errorf("online: state has no class counts %s 1×%d (%v)", matN, C, err)
	}
	s.n = slices.Clone(nv.RawRowView(0))
	if k0 > 0 {
		sv, err := get(matS0, 1, k0)
		if err != nil || sv == nil {
			return s, fmt.Errorf("online: state has no shared sums %s 1×%d (%v)", matS0, k0, err)
		}
		s.s0 = slices.Clone(sv.RawRowView(0))
	}
	if pm := st.Matrices[matPending]; pm != nil {
		r, n := pm.Dims()
		if r != d+1 {
			return s, fmt.Errorf("online: state matrix %s has %d rows, need %d", matPending, r, d+1)
		}
		s.pend = make(map[int][][]float64)
		for j := 0; j < n; j++ {
			l := int(pm.At(0, j))
			if s.classOf(l) >= 0 {
				return s, fmt.Errorf("online: state has pending samples of trained class %d", l)
			}
			col := make([]float64, d)
			for i := range col {
				col[i] = pm.At(i+1, j)
			}
			s.pend[l] = append(s.pend[l], col)
		}
	}
	return s, nil
}
