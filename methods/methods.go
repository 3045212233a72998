package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
)

var registry = map[string]func() lrsdl.Classifier{}

// register makes a method available to New; method files call it from init.
func register(name string, f func() lrsdl.Classifier) { registry[strings.ToUpper(name)] = f }

// New returns an untrained classifier with default options by its name
// (case-insensitive, as listed by Names).
func New(name string) (lrsdl.Classifier, error) {
	f, ok := registry[strings.ToUpper(strings.ReplaceAll(name, "-", ""))]
	if !ok {
		return nil, fmt.Errorf("methods: unknown method %q (have %s)", name, strings.Join(Names(), ", "))
	}
	return f(), nil
}

// Names returns the registered method names in sorted order.
func Names() []string {
	var ns []string
	for n := range registry {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// Dictionary is implemented by the methods that learn dictionaries: Atoms
// returns the class dictionaries D (atoms as columns), the atoms of each
// class, and the shared dictionary D0 (nil without one). Before training
// all three are nil.
type Dictionary interface {
	Atoms() (D *mat.Dense, part core.Partition, D0 *mat.Dense)
}

// checkFinite returns an error naming the first NaN or infinite entry of Y.
func checkFinite(what string, Y mat.Matrix) error {
	r, c := Y.Dims()
	if r == 0 || c == 0 {
		return fmt.Errorf("methods: %s is empty (%d×%d)", what, r, c)
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

// trainingSet validates training input and returns Y as a dense matrix with
// its columns ordered by class, and the grouping that did it.
func trainingSet(Y mat.Matrix, labels []int) (*mat.Dense, *core.Grouping, error) {
	if Y == nil {
		return nil, nil, fmt.Errorf("methods: nil training data")
	}
	_, n := Y.Dims()
	if len(labels) != n {
		return nil, nil, fmt.Errorf("methods: %d labels for %d training samples (columns of Y)", len(labels), n)
	}
	if err := checkFinite("training data", Y); err != nil {
		return nil, nil, err
	}
	if maxColNorm(Y) == 0 {
		return nil, nil, fmt.Errorf("methods: training data is all zero")
	}
	g, err := core.GroupByClass(labels)
	if err != nil {
		return nil, nil, err
	}
	return permuteColumns(Y, g.Perm), g, nil
}

// classTrainingSet validates the training set of a method (at least 2
// classes), resolves its options o against the data and returns the
// class-ordered samples, their grouping and the data sizes.
func classTrainingSet(method string, Y mat.Matrix, labels []int, o interface{ spec() optSpec }) (*mat.Dense, *core.Grouping, dataInfo, error) {
	Ys, g, err := trainingSet(Y, labels)
	if err != nil {
		return nil, nil, dataInfo{}, err
	}
	if C := g.Classes.Len(); C < 2 {
		return nil, nil, dataInfo{}, fmt.Errorf("methods: %s needs at least 2 classes, have %d", method, C)
	}
	info := infoOf(Ys, g)
	if err := o.spec().resolve(&info); err != nil {
		return nil, nil, dataInfo{}, err
	}
	return Ys, g, info, nil
}

// colNonZeroDoer is a sparse matrix that visits the non-zeros of one
// column (sparse.CSC), far faster than its At.
type colNonZeroDoer interface {
	DoColNonZero(j int, fn func(i, j int, v float64))
}

// denseCopy returns a dense copy of Y (mat.DenseCopyOf, without its
// element-by-element At on sparse input).
func denseCopy(Y mat.Matrix) *mat.Dense {
	if _, ok := Y.(colNonZeroDoer); !ok {
		return mat.DenseCopyOf(Y)
	}
	_, n := Y.Dims()
	perm := make([]int, n)
	for j := range perm {
		perm[j] = j
	}
	return permuteColumns(Y, perm)
}

// permuteColumns returns the dense matrix whose j-th column is column perm[j] of Y.
func permuteColumns(Y mat.Matrix, perm []int) *mat.Dense {
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

// testSet validates prediction input against the training dimension d.
func testSet(Y mat.Matrix, d int) error {
	if Y == nil {
		return fmt.Errorf("methods: nil test data")
	}
	r, _ := Y.Dims()
	if r != d {
		return fmt.Errorf("methods: test data has dimension %d, the model was trained on %d", r, d)
	}
	return checkFinite("test data", Y)
}

// newState returns the State of a trained model: opts JSON-encoded, the
// class labels, and copies of ms under the given names, in order.
func newState(name string, opts any, cl *core.Classes, names []string, ms ...*mat.Dense) (*lrsdl.State, error) {
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

// rowOf returns v as a 1×len(v) matrix (at least 1×1).
func rowOf[T int | float64](v []T) *mat.Dense {
	r := mat.NewDense(1, max(len(v), 1), nil)
	for i, x := range v {
		r.Set(0, i, float64(x))
	}
	return r
}

// blockPartition returns C blocks of k atoms followed by the blocks of the
// given sizes (a shared dictionary).
func blockPartition(C, k int, shared ...int) core.Partition {
	sizes := make([]int, C, C+len(shared))
	for c := range sizes {
		sizes[c] = k
	}
	return core.NewPartition(append(sizes, shared...)...)
}

// initDict returns the d×part.Len() dictionary whose block b is learned by
// ODL (core.LearnDict, 5 iterations, weight lambda) on the samples of class
// b of Ys (partition sp), or on all of Ys for blocks past the classes.
func initDict(ctx context.Context, Ys *mat.Dense, sp, part core.Partition, lambda float64, rng *rand.Rand) (*mat.Dense, error) {
	d, _ := Ys.Dims()
	bs := make([]dictBlock, part.Blocks())
	for b := range bs {
		bs[b] = dictBlock{Y: Ys, k: part.Size(b)}
		if b < sp.Blocks() {
			lo, hi := sp.Block(b)
			bs[b].Y = Ys.Slice(0, d, lo, hi)
		}
	}
	if err := learnDicts(ctx, bs, lambda, rng, core.LearnDictOptions{Iter: 5}); err != nil {
		return nil, err
	}
	D := mat.NewDense(d, part.Len(), nil)
	for b := range bs {
		lo, hi := part.Block(b)
		D.Slice(0, d, lo, hi).(*mat.Dense).Copy(bs[b].D)
	}
	return D, nil
}

// dictBlock is one dictionary of learnDicts: k atoms learned on Y, giving
// D and the codes X.
type dictBlock struct {
	Y    mat.Matrix
	k    int
	D, X *mat.Dense
}

// learnDicts sets the D and X of every block to core.LearnDict(ctx, Y, k,
// lambda, rng, opts), called in the order of bs with the one source rng.
// The starting atoms (core.InitDict, the only draws) are drawn in that
// order first, then the blocks learn concurrently, largest first, so the
// result is that of the successive calls whatever GOMAXPROCS is.
func learnDicts(ctx context.Context, bs []dictBlock, lambda float64, rng *rand.Rand, opts core.LearnDictOptions) error {
	work := make([]int, len(bs))
	total := 0
	for i := range bs {
		D, err := core.InitDict(bs[i].Y, bs[i].k, rng)
		if err != nil {
			return err
		}
		bs[i].D = D
		d, n := bs[i].Y.Dims()
		work[i] = lassoWork(d, bs[i].k, n)
		total += work[i]
	}
	order := make([]int, len(bs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return work[b] - work[a] })
	return forClasses(len(bs), total, func(j int) error {
		b := &bs[order[j]]
		X, err := core.LearnDictFrom(ctx, b.Y, b.D, lambda, opts)
		b.X = X
		return err
	})
}
