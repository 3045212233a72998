package dl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
)

// CheckFinite returns an error naming the first NaN or infinite entry of Y.
func CheckFinite(what string, Y mat.Matrix) error {
	r, c := Y.Dims()
	if r == 0 || c == 0 {
		return fmt.Errorf("methods: %s is empty (%d×%d)", what, r, c)
	}
	if err := CheckCSC(what, Y); err != nil {
		return err
	}
	if nz, ok := Y.(mat.NonZeroDoer); ok {
		var err error
		nz.DoNonZero(func(i, j int, v float64) {
			if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
				err = fmt.Errorf("methods: %s has non-finite value %v at (%d, %d)", what, v, i, j)
			}
		})
		return err
	}
	if d, ok := Y.(mat.RawMatrixer); ok {
		raw := d.RawMatrix()
		for i := 0; i < raw.Rows; i++ {
			for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("methods: %s has non-finite value %v at (%d, %d)", what, v, i, j)
				}
			}
		}
		return nil
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := Y.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("methods: %s has non-finite value %v at (%d, %d)", what, v, i, j)
			}
		}
	}
	return nil
}

// CheckCSC returns an error if Y is a *sparse.CSC whose structure is not
// valid: column pointers from 0, non-decreasing, within the stored
// entries; row indices in range and distinct within each column (in any
// order: sparse.DOK.ToCSC leaves them unsorted).
func CheckCSC(what string, Y mat.Matrix) error {
	s, ok := Y.(*sparse.CSC)
	if !ok {
		return nil
	}
	r, c := s.Dims()
	raw := s.RawMatrix()
	if len(raw.Indptr) != c+1 || raw.Indptr[0] != 0 || raw.Indptr[c] > len(raw.Ind) || raw.Indptr[c] > len(raw.Data) {
		return fmt.Errorf("methods: %s is a sparse matrix with bad column pointers", what)
	}
	seen := make([]int, r) // seen[i] = j+1 once row i is in column j
	for j := 0; j < c; j++ {
		lo, hi := raw.Indptr[j], raw.Indptr[j+1]
		if hi < lo {
			return fmt.Errorf("methods: %s is a sparse matrix with decreasing column pointers at column %d", what, j)
		}
		for k := lo; k < hi; k++ {
			i := raw.Ind[k]
			if i < 0 || i >= r {
				return fmt.Errorf("methods: %s is a sparse matrix with row index %d out of range [0, %d) in column %d", what, i, r, j)
			}
			if seen[i] == j+1 {
				return fmt.Errorf("methods: %s is a sparse matrix with row index %d twice in column %d", what, i, j)
			}
			seen[i] = j + 1
		}
	}
	return nil
}

// TrainingSet validates training input and returns Y as a dense matrix with
// its columns ordered by class, and the grouping that did it.
func TrainingSet(Y mat.Matrix, labels []int) (*mat.Dense, *core.Grouping, error) {
	if Y == nil {
		return nil, nil, fmt.Errorf("methods: nil training data")
	}
	_, n := Y.Dims()
	if len(labels) != n {
		return nil, nil, fmt.Errorf("methods: %d labels for %d training samples (columns of Y)", len(labels), n)
	}
	if err := CheckFinite("training data", Y); err != nil {
		return nil, nil, err
	}
	if MaxColNorm(Y) == 0 {
		return nil, nil, fmt.Errorf("methods: training data is all zero")
	}
	g, err := core.GroupByClass(labels)
	if err != nil {
		return nil, nil, err
	}
	return PermuteColumns(Y, g.Perm), g, nil
}

// Prepared is a training set ready to train on (Prepare): its columns in
// class order, their grouping and sizes, and its reduction to span(Y).
type Prepared struct {
	Y     *mat.Dense // d×N, columns by class
	Group *core.Grouping
	Info  Info       // InfoOf(Y, Group)
	Key   DataKey    // of Y when the span is shared, else zero
	Span  *Span      // never nil; Span.Q is nil when Y is not reduced
	Train *mat.Dense // what training works on: Span.Yr, or Y
}

// Prepare validates the training set Y with its labels (TrainingSet) and
// returns it ready to train on, reduced to its span by ReduceSpan. check,
// if not nil, sees the set before the factorisation is paid for and may
// refuse it with an error. With share, Key is set and the fits of the same
// data share one Span: a process-wide cache keeps it while a fit holds it,
// so the fits of a cross-validation fold, which differ only in their
// options, factor the fold once (the factorisation is deterministic, so
// the entry is the one ReduceSpan would return).
func Prepare(ctx context.Context, Y mat.Matrix, labels []int, set Settings, share bool, check func(*Prepared) error) (*Prepared, error) {
	Ys, g, err := TrainingSet(Y, labels)
	if err != nil {
		return nil, err
	}
	p := &Prepared{Y: Ys, Group: g, Info: InfoOf(Ys, g), Train: Ys}
	if share {
		p.Key = KeyOf(Ys)
	}
	if check != nil {
		if err := check(p); err != nil {
			return nil, err
		}
	}
	if p.Span, err = spanOf(ctx, Ys, p.Key, set, share); err != nil {
		return nil, err
	}
	if p.Span.Q != nil {
		p.Train = p.Span.Yr
	}
	return p, nil
}

// colNonZeroDoer is a sparse matrix that visits the non-zeros of one
// column (sparse.CSC), far faster than its At.
type colNonZeroDoer interface {
	DoColNonZero(j int, fn func(i, j int, v float64))
}

// DenseCopy returns a dense copy of Y (mat.DenseCopyOf, without its
// element-by-element At on sparse input).
func DenseCopy(Y mat.Matrix) *mat.Dense {
	if _, ok := Y.(colNonZeroDoer); !ok {
		return mat.DenseCopyOf(Y)
	}
	_, n := Y.Dims()
	perm := make([]int, n)
	for j := range perm {
		perm[j] = j
	}
	return PermuteColumns(Y, perm)
}

// PermuteColumns returns the dense matrix whose j-th column is column perm[j] of Y.
func PermuteColumns(Y mat.Matrix, perm []int) *mat.Dense {
	d, _ := Y.Dims()
	out := mat.NewDense(d, len(perm), nil)
	if sp, ok := Y.(colNonZeroDoer); ok {
		for j, p := range perm {
			sp.DoColNonZero(p, func(i, _ int, v float64) { out.Set(i, j, v) })
		}
		return out
	}
	col := make([]float64, d)
	for j, p := range perm {
		mat.Col(col, p, Y)
		out.SetCol(j, col)
	}
	return out
}

// TestSet validates prediction input against the training dimension d.
func TestSet(Y mat.Matrix, d int) error {
	if Y == nil {
		return fmt.Errorf("methods: nil test data")
	}
	r, _ := Y.Dims()
	if r != d {
		return fmt.Errorf("methods: test data has dimension %d, the model was trained on %d", r, d)
	}
	return CheckFinite("test data", Y)
}

// NewState returns the State of a trained model: opts JSON-encoded, the
// class labels, and copies of ms under the given names, in order.
func NewState(name string, opts any, cl *core.Classes, names []string, ms ...*mat.Dense) (*lrsdl.State, error) {
	o, err := json.Marshal(opts)
	if err != nil {
		return nil, err
	}
	s := &lrsdl.State{
		Method:   name,
		Options:  o,
		Classes:  append([]int(nil), cl.Labels...),
		Names:    append([]string(nil), names...),
		Matrices: make(map[string]*mat.Dense, len(names)),
	}
	for i, n := range names {
		s.Matrices[n] = mat.DenseCopyOf(ms[i])
	}
	return s, nil
}

// RowOf returns v as a 1×len(v) matrix (at least 1×1).
func RowOf[T int | float64](v []T) *mat.Dense {
	r := mat.NewDense(1, max(len(v), 1), nil)
	for i, x := range v {
		r.Set(0, i, float64(x))
	}
	return r
}

// ErrNotTrained is returned by Predict, Cost, State and the other methods
// that need a trained model when Fit (or SetState) has not succeeded.
var ErrNotTrained = errors.New("methods: model is not trained")

// Trained returns ErrNotTrained for a model whose dictionary D has not
// been learned or restored.
func Trained(D *mat.Dense) error {
	if D == nil {
		return ErrNotTrained
	}
	return nil
}

// InfoOf returns the sizes of the training set Y (samples as columns)
// grouped by g, and its largest sample norm.
func InfoOf(Y mat.Matrix, g *core.Grouping) Info {
	d, _ := Y.Dims()
	info := Info{Dim: d, N: g.Part.Len(), Classes: g.Classes.Len(), MinClass: math.MaxInt, MaxNorm: MaxColNorm(Y)}
	for c := 0; c < info.Classes; c++ {
		info.MinClass = min(info.MinClass, g.Part.Size(c))
	}
	return info
}

// MaxColNorm returns the largest ℓ2 norm of a column of Y.
func MaxColNorm(Y mat.Matrix) float64 {
	_, n := Y.Dims()
	sq := make([]float64, n)
	if nz, ok := Y.(mat.NonZeroDoer); ok {
		nz.DoNonZero(func(_, j int, v float64) { sq[j] += v * v })
	} else {
		r, _ := Y.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < n; j++ {
				v := Y.At(i, j)
				sq[j] += v * v
			}
		}
	}
	var m float64
	for _, v := range sq {
		m = max(m, v)
	}
	return math.Sqrt(m)
}

// Info are the sizes of a training set that data-aware defaults and
// ranges depend on.
type Info struct {
	Dim, N   int     // dimension and number of samples
	Classes  int     // number of classes
	MinClass int     // samples in the smallest class
	MaxNorm  float64 // largest ℓ2 norm of a sample
}
