package methods

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
)

// dlParams are the resolved parameters of the Fisher-type models.
type dlParams struct {
	k, k0                 int
	lambda1, lambda2, eta float64
	alpha                 float64 // D2L2R2 weight of Σ‖D_c‖_*
	iters                 int
	tol                   float64
	xIters                int
	xTol                  float64
	xMetric               bool
	dIters, admmIters     int
	initIters             int
	origX, origD          bool
	paperX                bool // LRSDL-X alone, without solveX0
	lc                    bool
	w, lambda             float64
	seed                  uint64
	progress              lrsdl.ProgressFunc
	// plain selects the reference algorithm of the speed benchmarks: FISTA
	// without restart at the exact L (opNorm) for exactly xIters iterations,
	// and fixed ODL/ADMM iteration counts.
	plain bool
}

// fisherOptions are the options of FDDL, LRSDL and D2L2R2 (pointers to
// them): their declaration and, once resolved, the training parameters.
type fisherOptions interface {
	spec() optSpec
	params() dlParams
}

// paramsOf resolves o in place (defaults and ranges; info, when not nil,
// gives the data-aware ones) and returns its training parameters.
func paramsOf(o fisherOptions, info *dataInfo) (dlParams, error) {
	if err := o.spec().resolve(info); err != nil {
		return dlParams{}, err
	}
	return o.params(), nil
}

// fisherDL is the model shared by FDDL (k0 = 0), LRSDL and D2L2R2.
type fisherDL struct {
	classes *core.Classes
	d       int
	part    core.Partition // atoms of each class
	Db      *mat.Dense     // [D D0], d×(K+k0)
	mc      *mat.Dense     // K×C class means of X
	m0      []float64      // mean of X0
	info    lrsdl.FitInfo  // of the last Fit
	keep    bool           // Fit keeps rs (SetResumable)
	score   bool           // Fit and Resume stop at rs (SetScoreOnly)
	rs      *fitState      // what Resume continues from, or nil
}

func (f *fisherDL) trained() error {
	if f.Db == nil {
		return ErrNotTrained
	}
	return nil
}

func (f *fisherDL) dims() (K, k0 int) {
	K = f.part.Len()
	_, kb := f.Db.Dims()
	return K, kb - K
}

func (f *fisherDL) atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) {
	if f.Db == nil {
		return nil, nil, nil
	}
	K, k0 := f.dims()
	D = mat.DenseCopyOf(f.Db.Slice(0, f.d, 0, K))
	if k0 > 0 {
		D0 = mat.DenseCopyOf(f.Db.Slice(0, f.d, K, K+k0))
	}
	return D, append(core.Partition(nil), f.part...), D0
}

// state and setState implement lrsdl.Persistent for the Fisher-type models;
// opts are the model's resolved options.
func (f *fisherDL) state(name string, opts any) (*lrsdl.State, error) {
	if err := f.trained(); err != nil {
		return nil, err
	}
	return newState(name, opts, f.classes, []string{"Dbar", "part", "Mc", "m0"}, f.Db, rowOf(f.part), f.mc, rowOf(f.m0))
}

// setState restores f from s, decoding its options into opts (a zero
// value), whose k and k0 (k0 = 0 for FDDL and D2L2R2) the atoms must match.
func (f *fisherDL) setState(name string, s *lrsdl.State, opts fisherOptions) error {
	cl, err := decodeState(s, name, opts, "Dbar", "part", "Mc", "m0")
	if err != nil {
		return err
	}
	p := opts.params()
	Db, pm, mc, m0 := s.Matrices["Dbar"], s.Matrices["part"], s.Matrices["Mc"], s.Matrices["m0"]
	C := cl.Len()
	d, kb := Db.Dims()
	if r, np := pm.Dims(); r != 1 || np != C+1 {
		return fmt.Errorf("methods: %s state has %d classes and a partition of %d×%d entries", name, C, r, np)
	}
	part := make(core.Partition, C+1)
	for i := range part {
		part[i] = int(pm.At(0, i))
		if i > 0 && part[i]-part[i-1] != p.k {
			return fmt.Errorf("methods: %s state has %d atoms in class %d, its options say k=%d", name, part[i]-part[i-1], cl.Labels[i-1], p.k)
		}
	}
	K := part.Len()
	if part[0] != 0 || kb != K+p.k0 {
		return fmt.Errorf("methods: %s state has %d atoms, its options say %d classes × k=%d + k0=%d", name, kb, C, p.k, p.k0)
	}
	if r, c := mc.Dims(); r != K || c != C {
		return fmt.Errorf("methods: %s state shapes do not match: Dbar %d×%d, %d class atoms, Mc %d×%d", name, d, kb, K, r, c)
	}
	if r, c := m0.Dims(); r != 1 || c < p.k0 {
		return fmt.Errorf("methods: %s state m0 is %d×%d, need 1×%d", name, r, c, p.k0)
	}
	f.classes, f.info, f.rs = cl, lrsdl.FitInfo{}, nil
	f.d, f.part = d, part
	f.Db, f.mc = mat.DenseCopyOf(Db), mat.DenseCopyOf(mc)
	f.m0 = append([]float64(nil), m0.RawRowView(0)[:p.k0]...)
	return nil
}
