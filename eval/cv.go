package eval

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/split"
)

// Grid lists candidate values of method options by JSON name.
type Grid map[string][]float64

// Points returns every combination of g's values, varying the option
// whose name sorts last fastest.
func (g Grid) Points() []Params {
	names := make([]string, 0, len(g))
	for k := range g {
		names = append(names, k)
	}
	sort.Strings(names)
	pts := []Params{{}}
	for _, k := range names {
		var next []Params
		for _, p := range pts {
			for _, v := range g[k] {
				q := Params{k: v}
				for kk, vv := range p {
					q[kk] = vv
				}
				next = append(next, q)
			}
		}
		pts = next
	}
	return pts
}

// String formats g as "name={v1,v2} ...".
func (g Grid) String() string {
	var s []string
	names := make([]string, 0, len(g))
	for k := range g {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		vs := make([]string, len(g[k]))
		for i, v := range g[k] {
			vs[i] = fmt.Sprint(v)
		}
		s = append(s, k+"={"+strings.Join(vs, ",")+"}")
	}
	return strings.Join(s, " ")
}

// DefaultGrids are the cross-validation grids of the command's -cv flag,
// by method name: two values of each regularisation weight around those
// the paper and its authors report (λ, λ1 0.001–0.01; λ2, η 0.01–0.05;
// α, β 0.001–0.01) and of the GC weight w. Options a method lacks are
// dropped by DefaultGrid. Every point costs one training per fold.
var DefaultGrids = map[string]Grid{
	"LRSDL":   {"lambda1": {0.001, 0.01}, "eta": {0.01, 0.05}, "w": {0.25, 0.5}},
	"FDDL":    {"lambda1": {0.001, 0.01}, "lambda2": {0.01, 0.05}, "w": {0.25, 0.5}},
	"D2L2R2":  {"lambda1": {0.001, 0.01}, "lambda2": {0.01, 0.05}, "w": {0.25, 0.5}},
	"DLSI":    {"lambda": {0.001, 0.01}, "eta": {0.01, 0.05}},
	"COPAR":   {"lambda": {0.001, 0.01}, "eta": {0.01, 0.05}},
	"LCKSVD1": {"alpha": {0.001, 0.01}},
	"LCKSVD2": {"alpha": {0.001, 0.01}, "beta": {0.001, 0.01}},
	"SRC":     {"lambda": {0.0001, 0.001, 0.01}},
	"ODL":     {"lambda": {0.001, 0.01}},
}

// DefaultGrid returns the default grid of c's method restricted to the
// options c has, or nil.
func DefaultGrid(c lrsdl.Classifier) Grid {
	g := DefaultGrids[strings.ToUpper(strings.ReplaceAll(c.Name(), "-", ""))]
	names := ParamNames(c)
	out := Grid{}
	for k, v := range g {
		if i := sort.SearchStrings(names, k); i < len(names) && names[i] == k {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// CVScore is the mean validation accuracy of one grid point.
type CVScore struct {
	Params   Params
	Accuracy float64
}

// CVResult is the outcome of CrossValidate.
type CVResult struct {
	Best   Params    // the first point with the highest mean accuracy
	Scores []CVScore // in the order of Grid.Points
}

// CrossValidate chooses the point of grid with the highest mean accuracy
// over k-fold cross-validation on (Y, labels), which should be training
// data only. Folds are stratified by class and drawn from seed.
func CrossValidate(ctx context.Context, newClassifier NewFunc, Y mat.Matrix, labels []int, k int, grid Grid, seed uint64) (*CVResult, error) {
	return CrossValidateSet(ctx, newClassifier, split.Set{Y: Y, Labels: labels}, k, grid, seed)
}

// CrossValidateSet is CrossValidate on s. Folds are split.Folds drawn
// from PCG(seed, 0) or, if s.Groups is not nil, split.GroupFolds drawn
// from split.Rand(seed), which keep each group in one fold, so that
// validation measures generalisation to unseen groups, e.g. new people.
func CrossValidateSet(ctx context.Context, newClassifier NewFunc, s split.Set, k int, grid Grid, seed uint64) (*CVResult, error) {
	if k < 2 {
		return nil, fmt.Errorf("eval: %d-fold cross-validation: need at least 2 folds", k)
	}
	if _, n := s.Y.Dims(); n != len(s.Labels) {
		return nil, fmt.Errorf("eval: %d labels for %d samples", len(s.Labels), n)
	}
	var fold []int
	var err error
	if s.Groups == nil {
		fold, err = split.Folds(s.Labels, k, rand.New(rand.NewPCG(seed, 0)))
	} else {
		fold, err = split.GroupFolds(s.Labels, s.Groups, k, split.Rand(seed))
	}
	if err != nil {
		return nil, fmt.Errorf("eval: cross-validation: %w", err)
	}
	trains, vals := make([]split.Set, k), make([]split.Set, k)
	for f := range k {
		tr, va := split.Fold(fold, f)
		trains[f], vals[f] = split.Subset(s, tr), split.Subset(s, va)
	}
	res := &CVResult{}
	bestAcc := -1.0
	for _, p := range grid.Points() {
		acc := 0.0
		for f := range k {
			c, err := newClassifier()
			if err != nil {
				return nil, err
			}
			if err := Configure(c, p); err != nil {
				return nil, err
			}
			r, _, err := FitPredict(ctx, c, trains[f], vals[f])
			if err != nil {
				return nil, fmt.Errorf("cross-validation at %v, fold %d: %w", p, f+1, err)
			}
			acc += r.Accuracy / float64(k)
		}
		res.Scores = append(res.Scores, CVScore{Params: p, Accuracy: acc})
		if acc > bestAcc {
			bestAcc, res.Best = acc, p
		}
	}
	return res, nil
}
