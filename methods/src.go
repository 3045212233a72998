package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
)

func init() {
	register("SRC", func() lrsdl.Classifier { return &SRC{} })
}

// SRCOptions configures SRC. The zero value means the defaults.
type SRCOptions struct {
	Lambda float64 `json:"lambda"` // sparsity weight λ; zero means 0.001
	Iters  int     `json:"iters"`  // FISTA iteration limit of the coding; zero means 200
	Seed   uint64  `json:"seed"`   // unused: SRC is deterministic
}

func (o *SRCOptions) lambda() float64 { return blDefault(o.Lambda, 0.001) }
func (o *SRCOptions) iters() int      { return blDefault(o.Iters, 200) }

// SRC is the sparse representation-based classifier of Wright et al.: the
// dictionary D = [D_1..D_C] is the training set (columns scaled to unit
// norm), a sample y is coded by the lasso (FISTA with adaptive restart)
//
//	x = argmin_x ½‖y − Dx‖²₂ + λ‖x‖₁
//
// and assigned to the class c with the smallest residual ‖y − D_c x^c‖₂.
// SRC has no training iterations, so it reports no progress.
type SRC struct {
	Options SRCOptions
	m       blModel
}

// Name returns "SRC".
func (m *SRC) Name() string { return "SRC" }

// Config returns a pointer to m.Options.
func (m *SRC) Config() any { return &m.Options }

// Fit stores the training samples, normalised, as the dictionary.
func (m *SRC) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	if err := blCheckLambda("SRC", m.Options.Lambda); err != nil {
		return err
	}
	if m.Options.Iters < 0 {
		return fmt.Errorf("methods: SRC option iters = %d must not be negative", m.Options.Iters)
	}
	Ys, g, err := trainingSet(Y, labels)
	if err != nil {
		return err
	}
	if g.Classes.Len() < 2 {
		return fmt.Errorf("methods: SRC needs at least 2 classes, have %d", g.Classes.Len())
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
	return nil
}

// codes returns the lasso codes of the columns of Y over the dictionary.
func (m *SRC) codes(Y mat.Matrix) (*mat.Dense, error) {
	if err := m.m.check("SRC", Y); err != nil {
		return nil, err
	}
	_, K := m.m.D.Dims()
	_, n := Y.Dims()
	X := mat.NewDense(K, n, nil)
	err := core.Lasso(context.Background(), X, m.m.D, Y, m.Options.lambda(), core.LassoOptions{MaxIter: m.Options.iters(), Restart: true})
	return X, err
}

// Predict returns the label of each column of Y.
func (m *SRC) Predict(Y mat.Matrix) ([]int, error) {
	X, err := m.codes(Y)
	if err != nil {
		return nil, err
	}
	return m.m.residualLabels(Y, X), nil
}

// Cost returns the lasso objective of coding Y over the training set,
// with terms "fidelity" ½‖Y − DX‖²_F and "l1" λ‖X‖₁. SRC has no training
// objective; labels are only checked for their number.
func (m *SRC) Cost(Y mat.Matrix, labels []int) (lrsdl.Cost, error) {
	X, err := m.codes(Y)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	if _, n := Y.Dims(); len(labels) != n {
		return lrsdl.Cost{}, fmt.Errorf("methods: %d labels for %d samples", len(labels), n)
	}
	return blLassoCost(m.m.D, Y, X, m.Options.lambda()), nil
}

// State returns the dictionary (the normalised training set) and classes.
func (m *SRC) State() (*lrsdl.State, error) { return m.m.state(m.Name(), &m.Options, nil) }

// SetState restores a state returned by State.
func (m *SRC) SetState(s *lrsdl.State) error {
	var o SRCOptions
	if err := m.m.setState(m.Name(), s, &o, nil); err != nil {
		return err
	}
	m.Options = o
	return nil
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
		return fmt.Errorf("methods: %s is not trained", name)
	}
	d, _ := b.D.Dims()
	return testSet(Y, d)
}

// residualLabels returns, for each column j of Y, the user label of the
// class c minimising ‖y_j − D_c·X_c[:, j]‖₂.
func (b *blModel) residualLabels(Y mat.Matrix, X *mat.Dense) []int {
	d, n := Y.Dims()
	Yd, ok := Y.(*mat.Dense)
	if !ok {
		Yd = mat.DenseCopyOf(Y)
	}
	best := make([]float64, n)
	for j := range best {
		best[j] = math.Inf(1)
	}
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
			if v < best[j] {
				best[j], out[j] = v, b.classes.Labels[c]
			}
		}
	}
	return out
}

// state encodes the model; extra matrices are added by name.
func (b *blModel) state(name string, opts any, extra map[string]*mat.Dense, extraNames ...string) (*lrsdl.State, error) {
	if b.D == nil {
		return nil, fmt.Errorf("methods: %s is not trained", name)
	}
	ms := []*mat.Dense{b.D, rowOf(b.part)}
	for _, n := range extraNames {
		ms = append(ms, extra[n])
	}
	return newState(name, opts, b.classes, append([]string{"D", "part"}, extraNames...), ms...)
}

// setState decodes a state written by state into b and opts; the matrices
// named in extra are copied into the map, which must have their names.
func (b *blModel) setState(name string, s *lrsdl.State, opts any, extra map[string]*mat.Dense) error {
	if s == nil || s.Method != name {
		return fmt.Errorf("methods: state is not of method %s", name)
	}
	if err := json.Unmarshal(s.Options, opts); err != nil {
		return fmt.Errorf("methods: bad %s options in state: %v", name, err)
	}
	D, pm := s.Matrices["D"], s.Matrices["part"]
	if D == nil || pm == nil {
		return fmt.Errorf("methods: %s state lacks matrix D or part", name)
	}
	C := len(s.Classes)
	blocks := max(C, 1) // an unsupervised model has no classes and one block
	if r, c := pm.Dims(); r != 1 || c != blocks+1 {
		return fmt.Errorf("methods: %s state has %d classes and a %d×%d partition", name, C, r, c)
	}
	for i := 1; i < C; i++ {
		if s.Classes[i] <= s.Classes[i-1] {
			return fmt.Errorf("methods: %s state class labels are not increasing", name)
		}
	}
	part := make(core.Partition, blocks+1)
	for i := range part {
		v := pm.At(0, i)
		part[i] = int(v)
		if float64(part[i]) != v || part[0] != 0 || i > 0 && part[i] < part[i-1] {
			return fmt.Errorf("methods: %s state has a bad atom partition", name)
		}
	}
	if _, k := D.Dims(); part.Len() != k {
		return fmt.Errorf("methods: %s state partition covers %d atoms, D has %d", name, part.Len(), k)
	}
	if err := checkFinite(name+" state D", D); err != nil {
		return err
	}
	for n := range extra {
		m := s.Matrices[n]
		if m == nil {
			return fmt.Errorf("methods: %s state lacks matrix %s", name, n)
		}
		if err := checkFinite(name+" state "+n, m); err != nil {
			return err
		}
		extra[n] = mat.DenseCopyOf(m)
	}
	b.classes = core.ClassesOf(s.Classes)
	b.part = part
	b.D = mat.DenseCopyOf(D)
	return nil
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

// blDefault returns v, or def when v is zero.
func blDefault[T int | float64](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// blCheckLambda rejects a negative or non-finite weight.
func blCheckLambda(name string, v float64) error {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("methods: %s option lambda = %v must be finite and non-negative", name, v)
	}
	return nil
}
