package methods

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"gonum.org/v1/gonum/mat"
)

// classDict is the part shared by SRC, ODL and LC-KSVD: classes, a dictionary
// D = [D_1..D_C] and the atoms of each class.
type classDict struct {
	classes *core.Classes
	part    core.Partition
	D       *mat.Dense
}

// check returns an error if the model is untrained or Y does not fit it.
func (b *classDict) check(name string, Y mat.Matrix) error {
	if b.D == nil {
		return ErrNotTrained
	}
	d, _ := b.D.Dims()
	return dl.TestSet(Y, d)
}

// residualLabels returns, for each column j of Y, the user label of the
// class c minimising ‖y_j − D_c·X_c[:, j]‖₂ (a training label even when
// every residual overflows).
func (b *classDict) residualLabels(Y mat.Matrix, X *mat.Dense) []int {
	return argmaxLabels(b.residualScores(Y, X), b.classes)
}

// residualScores returns the C×n scores −‖y_j − D_c·X_c[:, j]‖²₂.
func (b *classDict) residualScores(Y mat.Matrix, X *mat.Dense) *mat.Dense {
	d, n := Y.Dims()
	Yd, ok := Y.(*mat.Dense)
	if !ok {
		Yd = dl.DenseCopy(Y)
	}
	S := mat.NewDense(b.part.Blocks(), n, nil)
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
			S.Set(c, j, -v)
		}
	}
	return S
}

// state encodes the model; extra matrices are added by name.
func (b *classDict) state(name string, opts any, extra map[string]*mat.Dense, extraNames ...string) (*lrsdl.State, error) {
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
func (b *classDict) setState(name string, s *lrsdl.State, opts interface{ spec() optSpec }, extra ...string) (map[string]*mat.Dense, error) {
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

// lassoCost returns ½‖Y − DX‖²_F ("fidelity") and λ‖X‖₁ ("l1").
func lassoCost(D *mat.Dense, Y mat.Matrix, X *mat.Dense, lambda float64) lrsdl.Cost {
	var R mat.Dense
	R.Mul(D, X)
	R.Sub(Y, &R)
	f := 0.5 * frobSq(&R)
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

// frobSq returns ‖A‖²_F.
func frobSq(a *mat.Dense) float64 {
	n := mat.Norm(a, 2)
	return n * n
}

// classList returns the labels of a trained model's classes, nil before.
func (b *classDict) classList() []int {
	if b.D == nil {
		return nil
	}
	return classesOf(b.classes)
}
