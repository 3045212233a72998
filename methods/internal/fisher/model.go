package fisher

import (
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// Params are the resolved parameters of the Fisher-type models (see the
// options of FDDL, LRSDL and D2L2R2 in package methods).
type Params struct {
	K, K0                 int     // atoms per class and shared atoms
	Lambda1, Lambda2, Eta float64 // ℓ1, Fisher and nuclear-norm (D0) weights
	Alpha                 float64 // D2L2R2 weight of Σ‖D_c‖_*
	Iters                 int     // outer iterations
	Tol                   float64 // relative change of the cost that stops
	XIters                int     // FISTA iterations per X step
	XTol                  float64 // FISTA tolerance; negative means none
	XMetric               bool    // FISTA in the rank-one metric
	DIters, ADMMIters     int     // ODL sweeps and ADMM iterations per D step
	InitIters             int     // ODL alternations of the initialisation
	OrigX, OrigD          bool    // O-FDDL-X and O-FDDL-D
	PaperX                bool    // LRSDL-X alone, without the exact X0 update
	LC                    bool    // predict by local coding
	W, Lambda             float64 // GC weight and prediction ℓ1 weight
	Seed                  uint64
	Progress              lrsdl.ProgressFunc
	// Plain selects the reference algorithm of the speed benchmarks: FISTA
	// without restart at the exact L (opNorm) for exactly XIters
	// iterations, and fixed ODL/ADMM iteration counts.
	Plain bool
}

// Model is the model shared by FDDL (K0 = 0), LRSDL and D2L2R2: the
// dictionary D̄ = [D D0] and the code means, with the training state that
// Resume continues from.
type Model struct {
	Classes *core.Classes
	Dim     int            // dimension of the samples
	Part    core.Partition // atoms of each class
	Db      *mat.Dense     // [D D0], d×(K+k0)
	Mc      *mat.Dense     // K×C class means of X
	M0      []float64      // mean of X0
	Info    lrsdl.FitInfo  // of the last Fit
	Set     dl.Settings    // the engine's paths
	keep    bool           // Fit keeps rs (SetResumable)
	score   bool           // Fit and Resume stop at rs (SetScoreOnly)
	rs      *fitState      // what Resume continues from, or nil
}

// Trained returns dl.ErrNotTrained before a Fit or a restore.
func (f *Model) Trained() error {
	if f.Db == nil {
		return dl.ErrNotTrained
	}
	return nil
}

func (f *Model) dims() (K, k0 int) {
	K = f.Part.Len()
	_, kb := f.Db.Dims()
	return K, kb - K
}

// Atoms returns copies of D, its partition and D0 (nil when k0 = 0), or
// nils before training.
func (f *Model) Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense) {
	if f.Db == nil {
		return nil, nil, nil
	}
	K, k0 := f.dims()
	D = mat.DenseCopyOf(f.Db.Slice(0, f.Dim, 0, K))
	if k0 > 0 {
		D0 = mat.DenseCopyOf(f.Db.Slice(0, f.Dim, K, K+k0))
	}
	return D, append(core.Partition(nil), f.Part...), D0
}

// Restore sets the trained model (dropping any training state): the
// classes, the dimension, the atoms of each class, D̄ and the means.
func (f *Model) Restore(cl *core.Classes, d int, part core.Partition, Db, Mc *mat.Dense, M0 []float64) {
	f.Classes, f.Info, f.rs = cl, lrsdl.FitInfo{}, nil
	f.Dim, f.Part, f.Db, f.Mc, f.M0 = d, part, Db, Mc, M0
}
