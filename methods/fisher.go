package methods

import (
	"encoding/json"
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
	dIters, admmIters     int
	initIters             int
	origX, origD          bool
	lc                    bool
	w, lambda             float64
	seed                  uint64
	progress              lrsdl.ProgressFunc
	// plain selects the reference algorithm of the speed benchmarks: FISTA
	// without restart at the exact L (opNorm) for exactly xIters iterations,
	// and fixed ODL/ADMM iteration counts.
	plain bool
}

func defInt(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

// defFloat returns d for zero, 0 for negative values and v otherwise.
func defFloat(v, d float64) float64 {
	switch {
	case v == 0:
		return d
	case v < 0:
		return 0
	}
	return v
}

// fisherDL is the model shared by FDDL (k0 = 0), LRSDL and D2L2R2.
type fisherDL struct {
	classes *core.Classes
	d       int
	part    core.Partition // atoms of each class
	Db      *mat.Dense     // [D D0], d×(K+k0)
	mc      *mat.Dense     // K×C class means of X
	m0      []float64      // mean of X0
}

func (f *fisherDL) trained() error {
	if f.Db == nil {
		return fmt.Errorf("methods: model is not trained")
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

// state and setState implement lrsdl.Persistent for the Fisher-type models.
func (f *fisherDL) state(name string, opts any) (*lrsdl.State, error) {
	if err := f.trained(); err != nil {
		return nil, err
	}
	return newState(name, opts, f.classes, []string{"Dbar", "part", "Mc", "m0"}, f.Db, rowOf(f.part), f.mc, rowOf(f.m0))
}

func (f *fisherDL) setState(name string, s *lrsdl.State, opts any) error {
	if s == nil || s.Method != name {
		return fmt.Errorf("methods: state is not of method %s", name)
	}
	if err := json.Unmarshal(s.Options, opts); err != nil {
		return fmt.Errorf("methods: bad %s options in state: %v", name, err)
	}
	Db, pm, mc, m0 := s.Matrices["Dbar"], s.Matrices["part"], s.Matrices["Mc"], s.Matrices["m0"]
	if Db == nil || pm == nil || mc == nil || m0 == nil {
		return fmt.Errorf("methods: %s state lacks a matrix (need Dbar, part, Mc, m0)", name)
	}
	C := len(s.Classes)
	_, np := pm.Dims()
	d, kb := Db.Dims()
	if np != C+1 || C < 2 {
		return fmt.Errorf("methods: %s state has %d classes and a partition of %d entries", name, C, np)
	}
	part := make(core.Partition, np)
	for i := range part {
		part[i] = int(pm.At(0, i))
		if i > 0 && part[i] < part[i-1] || part[0] != 0 {
			return fmt.Errorf("methods: %s state has a bad atom partition", name)
		}
	}
	K := part.Len()
	if r, c := mc.Dims(); K > kb || r != K || c != C {
		return fmt.Errorf("methods: %s state shapes do not match: Dbar %d×%d, %d class atoms, Mc %d×%d", name, d, kb, K, r, c)
	}
	if _, c := m0.Dims(); c < kb-K {
		return fmt.Errorf("methods: %s state m0 has %d entries, need %d", name, c, kb-K)
	}
	f.classes = core.ClassesOf(s.Classes)
	f.d, f.part = d, part
	f.Db, f.mc = mat.DenseCopyOf(Db), mat.DenseCopyOf(mc)
	f.m0 = append([]float64(nil), m0.RawRowView(0)[:kb-K]...)
	return nil
}
