package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

func init() {
	register("SRC", func() lrsdl.Classifier { return &SRC{} })
}

// SRCOptions configures SRC. The zero value means the defaults.
type SRCOptions struct {
	Lambda float64 `json:"lambda"` // sparsity weight λ; zero means 0.001
	Iters  int     `json:"iters"`  // iteration limit of the coding (ADMM); zero means 100
	Seed   uint64  `json:"seed"`   // unused: SRC is deterministic
}

func (o *SRCOptions) spec() optSpec {
	return optSpec{method: "SRC", opts: []opt{
		{name: "lambda", doc: "sparsity weight λ of the lasso", f: &o.Lambda, def: 0.001, minOpen: true},
		{name: "iters", doc: "iteration limit of the coding (ADMM)", i: &o.Iters, def: 100, min: 1},
		{name: "seed", doc: "unused: SRC is deterministic", u: &o.Seed},
	}}
}

// SRC is the sparse representation-based classifier of Wright et al.: the
// dictionary D = [D_1..D_C] is the training set (columns scaled to unit
// norm), a sample y is coded by the lasso (core.LassoGram's ADMM option:
// the exact homotopy path for sparse codes, ADMM for dense ones)
//
//	x = argmin_x ½‖y − Dx‖²₂ + λ‖x‖₁
//
// and assigned to the class c with the smallest residual ‖y − D_c x^c‖₂.
// Fit keeps the N×N Gram matrix DᵀD, so that coding costs d·N per sample
// (for DᵀY) plus iterations in span(D) at N×N. SRC has no training
// iterations, so it reports no progress. Predict is safe for concurrent use.
type SRC struct {
	Options SRCOptions
	m       blModel
	gram    *mat.Dense // DᵀD
	base
}

// Name returns "SRC".
func (m *SRC) Name() string { return "SRC" }

// Params lists the options; after Fit or SetState, the resolved ones.
func (m *SRC) Params() []lrsdl.Param { return m.Options.spec().params() }

// SetParam sets the named option from its text form.
func (m *SRC) SetParam(name, value string) error { return m.Options.spec().set(name, value) }

// SetProgress does nothing: SRC has no training iterations.
func (m *SRC) SetProgress(lrsdl.ProgressFunc) {}

// FitInfo describes the last call of Fit (no iterations).
func (m *SRC) FitInfo() lrsdl.FitInfo { return m.info }

// Fit stores the training samples, normalised, as the dictionary.
func (m *SRC) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	start := time.Now()
	m.info = lrsdl.FitInfo{}
	o := m.Options
	Ys, g, info, err := classTrainingSet("SRC", Y, labels, &o)
	if err != nil {
		return err
	}
	if err := dl.CheckMemory("SRC", float64(info.Dim)*float64(info.N)+float64(info.N)*float64(info.N), "the training set"); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	d, n := Ys.Dims()
	col := make([]float64, d)
	for j := 0; j < n; j++ {
		mat.Col(col, j, Ys)
		if nrm := floats.Norm(col, 2); nrm > 0 {
			floats.Scale(1/nrm, col)
			Ys.SetCol(j, col)
		}
	}
	m.m = blModel{classes: g.Classes, part: g.Part, D: Ys}
	m.gram = srcGram(Ys)
	m.Options = o
	m.info.Elapsed = time.Since(start)
	return nil
}

func srcGram(D *mat.Dense) *mat.Dense {
	_, K := D.Dims()
	G := mat.NewDense(K, K, nil)
	G.Mul(D.T(), D)
	return G
}

// codes returns the lasso codes of the columns of Y over the dictionary.
func (m *SRC) codes(ctx context.Context, Y mat.Matrix) (*mat.Dense, error) {
	if err := m.m.check("SRC", Y); err != nil {
		return nil, err
	}
	_, K := m.m.D.Dims()
	_, n := Y.Dims()
	if err := dl.CheckMemory("SRC", 2*float64(K)*float64(n), "the number of test samples per call"); err != nil {
		return nil, err
	}
	B := mat.NewDense(K, n, nil)
	core.MulTrans(B, m.m.D, Y)
	X := mat.NewDense(K, n, nil)
	err := core.LassoGram(ctx, X, m.gram, B, m.Options.Lambda, core.LassoOptions{MaxIter: m.Options.Iters, ADMM: true})
	return X, err
}

// Predict returns the label of each column of Y.
func (m *SRC) Predict(Y mat.Matrix) ([]int, error) { return m.PredictContext(context.Background(), Y) }

// PredictContext is Predict, returning ctx.Err() when ctx is cancelled.
func (m *SRC) PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error) {
	X, err := m.codes(ctx, Y)
	if err != nil {
		return nil, err
	}
	return m.m.residualLabels(Y, X), nil
}

// Cost returns the lasso objective of coding Y over the training set,
// with terms "fidelity" ½‖Y − DX‖²_F and "l1" λ‖X‖₁. SRC has no training
// objective; labels are only checked for their number.
func (m *SRC) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	X, err := m.codes(context.Background(), Y)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	if _, n := Y.Dims(); len(labels) != n {
		return lrsdl.Cost{}, fmt.Errorf("methods: %d labels for %d samples", len(labels), n)
	}
	return blLassoCost(m.m.D, Y, X, m.Options.Lambda), nil
}

// State returns the dictionary (the normalised training set) and classes.
func (m *SRC) State() (*lrsdl.State, error) { return m.m.state(m.Name(), &m.Options, nil) }

// SetState restores a state returned by State.
func (m *SRC) SetState(s *lrsdl.State) error {
	var o SRCOptions
	var b blModel
	if _, err := b.setState(m.Name(), s, &o); err != nil {
		return err
	}
	m.Options, m.m, m.gram, m.info = o, b, srcGram(b.D), lrsdl.FitInfo{}
	return nil
}

// spanDim is the number of rows training works on after dl.ReduceSpan: N
// when d > dl.SpanRatio·N, else d.
func spanDim(info dl.Info, set dl.Settings) float64 {
	if !set.NoSpan && float64(info.Dim) > dl.SpanRatio*float64(info.N) {
		return float64(info.N)
	}
	return float64(info.Dim)
}

// blModel is the part shared by SRC, ODL and LC-KSVD: classes, a dictionary
// D = [D_1..D_C] and the atoms of each class.
type blModel struct {
	classes *core.Classes
	part    core.Partition
	D       *mat.Dense
}

// check returns an error if the model is untrained or Y does not fit it.
func (b *blModel) check(name string, Y mat.Matrix) error {
	if b.D == nil {
		return ErrNotTrained
	}
	d, _ := b.D.Dims()
	return dl.TestSet(Y, d)
}

// residualLabels returns, for each column j of Y, the user label of the
// class c minimising ‖y_j − D_c·X_c[:, j]‖₂.
func (b *blModel) residualLabels(Y mat.Matrix, X *mat.Dense) []int {
	d, n := Y.Dims()
	Yd, ok := Y.(*mat.Dense)
	if !ok {
		Yd = dl.DenseCopy(Y)
	}
	best := make([]float64, n)
	out := make([]int, n)
	R := mat.NewDense(d, n, nil)
	r := make([]float64, n)
	for c := 0; c < b.part.Blocks(); c++ {
		lo, hi := b.part.Block(c)
		R.Mul(b.D.Slice(0, d, lo, hi), X.Slice(lo, hi, 0, n))
		R.Sub(Yd, R)
		for j := range r {
			r[j] = 0
		}
		raw := R.RawMatrix()
		for i := 0; i < d; i++ {
			for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+n] {
				r[j] += v * v
			}
		}
		for j, v := range r {
			if c == 0 || v < best[j] { // a training label even when every residual overflows
				best[j], out[j] = v, b.classes.Labels[c]
			}
		}
	}
	return out
}

// state encodes the model; extra matrices are added by name.
func (b *blModel) state(name string, opts any, extra map[string]*mat.Dense, extraNames ...string) (*lrsdl.State, error) {
	if b.D == nil {
		return nil, ErrNotTrained
	}
	ms := []*mat.Dense{b.D, dl.RowOf(b.part)}
	for _, n := range extraNames {
		ms = append(ms, extra[n])
	}
	return dl.NewState(name, opts, b.classes, append([]string{"D", "part"}, extraNames...), ms...)
}

// setState decodes a state written by state into b and opts (see
// decodeState; an ODL model learned without labels has no classes) and
// returns copies of the extra matrices by name.
func (b *blModel) setState(name string, s *lrsdl.State, opts interface{ spec() optSpec }, extra ...string) (map[string]*mat.Dense, error) {
	names := append([]string{"D", "part"}, extra...)
	var cl *core.Classes
	if s != nil && s.Method == "ODL" && name == "ODL" && len(s.Classes) == 0 {
		if err := json.Unmarshal(s.Options, opts); err != nil {
			return nil, fmt.Errorf("methods: %s state options: %v", name, err)
		}
		if err := opts.spec().resolve(nil); err != nil {
			return nil, fmt.Errorf("%v (in the model's state)", err)
		}
		for _, n := range names {
			m := s.Matrices[n]
			if m == nil || m.IsEmpty() {
				return nil, fmt.Errorf("methods: %s state has no matrix %q", name, n)
			}
			if err := dl.CheckFinite(fmt.Sprintf("%s state matrix %q", name, n), m); err != nil {
				return nil, err
			}
		}
		cl = core.ClassesOf(nil)
	} else {
		var err error
		if cl, err = decodeState(s, name, opts, names...); err != nil {
			return nil, err
		}
	}
	D, pm := s.Matrices["D"], s.Matrices["part"]
	C := cl.Len()
	blocks := max(C, 1) // an unsupervised model has no classes and one block
	if r, c := pm.Dims(); r != 1 || c != blocks+1 {
		return nil, fmt.Errorf("methods: %s state has %d classes and a %d×%d partition", name, C, r, c)
	}
	part := make(core.Partition, blocks+1)
	for i := range part {
		v := pm.At(0, i)
		if !(v >= 0 && v <= math.MaxInt32) || v != math.Trunc(v) || i > 0 && int(v) < part[i-1] || i == 0 && v != 0 {
			return nil, fmt.Errorf("methods: %s state has a bad atom partition", name)
		}
		part[i] = int(v)
	}
	if _, k := D.Dims(); part.Len() != k {
		return nil, fmt.Errorf("methods: %s state partition covers %d atoms, D has %d", name, part.Len(), k)
	}
	for c := 0; c < C; c++ {
		if part.Size(c) == 0 {
			return nil, fmt.Errorf("methods: %s state has no atoms for class %d", name, c)
		}
	}
	out := make(map[string]*mat.Dense, len(extra))
	for _, n := range extra {
		out[n] = mat.DenseCopyOf(s.Matrices[n])
	}
	b.classes, b.part, b.D = cl, part, mat.DenseCopyOf(D)
	return out, nil
}

// blLassoCost returns ½‖Y − DX‖²_F ("fidelity") and λ‖X‖₁ ("l1").
func blLassoCost(D *mat.Dense, Y mat.Matrix, X *mat.Dense, lambda float64) lrsdl.Cost {
	var R mat.Dense
	R.Mul(D, X)
	R.Sub(Y, &R)
	f := 0.5 * blSq(&R)
	var l1 float64
	raw := X.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			l1 += math.Abs(v)
		}
	}
	l1 *= lambda
	return lrsdl.Cost{Total: f + l1, Terms: []lrsdl.Term{{Name: "fidelity", Value: f}, {Name: "l1", Value: l1}}}
}

// blSq returns ‖A‖²_F.
func blSq(a *mat.Dense) float64 {
	n := mat.Norm(a, 2)
	return n * n
}
