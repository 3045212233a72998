package methods

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// Calibrate sets the softmax temperature T of m's PredictProba by
// cross-fitting on m's training set (Y, labels): the samples of each class
// are dealt into folds (0 means 3); for each fold a new model with m's
// Options is fitted on the others and scores the fold, and T minimises the
// negative log-likelihood of the true classes over all held-out scores.
// It costs folds fits on (folds−1)/folds of the data; m's learned model
// does not change. m must be trained; every class needs at least folds
// samples. Like Fit, it must not run concurrently with m's other methods.
// It returns T.
func Calibrate(ctx context.Context, m lrsdl.Model, Y mat.Matrix, labels []int, folds int) (float64, error) {
	if folds == 0 {
		folds = 3
	}
	cl := m.Classes()
	if cl == nil {
		return 0, ErrNotTrained
	}
	if folds < 2 {
		return 0, fmt.Errorf("methods: Calibrate needs at least 2 folds, have %d", folds)
	}
	_, N := Y.Dims()
	if len(labels) != N {
		return 0, fmt.Errorf("methods: %d labels for %d samples", len(labels), N)
	}
	fold := make([]int, N)
	seen := make(map[int]int)
	for j, l := range labels {
		if _, ok := slices.BinarySearch(cl, l); !ok {
			return 0, fmt.Errorf("methods: label %d is not a class of the model", l)
		}
		fold[j] = seen[l] % folds
		seen[l]++
	}
	for _, c := range cl {
		if seen[c] < folds {
			return 0, fmt.Errorf("methods: class %d has %d samples, too few for %d folds", c, seen[c], folds)
		}
	}
	Yd := dl.DenseCopy(Y)
	var scores [][]float64 // one column of class scores per held-out sample
	var truth []int
	for f := 0; f < folds; f++ {
		var tr, te []int
		for j := range fold {
			if fold[j] == f {
				te = append(te, j)
			} else {
				tr = append(tr, j)
			}
		}
		c, err := New(m.Name())
		if err != nil {
			return 0, err
		}
		reflect.ValueOf(c).Elem().FieldByName("Options").Set(reflect.ValueOf(m).Elem().FieldByName("Options"))
		c.SetProgress(nil)
		Ytr, ltr := columns(Yd, tr, labels)
		if err := c.Fit(ctx, Ytr, ltr); err != nil {
			return 0, fmt.Errorf("methods: Calibrate fold %d: %w", f+1, err)
		}
		Yte, lte := columns(Yd, te, labels)
		S, err := c.DecisionFunction(Yte)
		if err != nil {
			return 0, err
		}
		for j, l := range lte {
			i, _ := slices.BinarySearch(cl, l)
			scores, truth = append(scores, mat.Col(nil, j, S)), append(truth, i)
		}
	}
	t := fitTemperature(scores, truth)
	m.(interface{ setTemperature(float64) }).setTemperature(t)
	return t, nil
}

// columns returns the columns idx of Y and their labels.
func columns(Y *mat.Dense, idx, labels []int) (*mat.Dense, []int) {
	d, _ := Y.Dims()
	out := mat.NewDense(d, len(idx), nil)
	ls := make([]int, len(idx))
	for k, j := range idx {
		out.SetCol(k, mat.Col(nil, j, Y))
		ls[k] = labels[j]
	}
	return out, ls
}

// fitTemperature returns the T minimising Σ_j −log softmax(s_j/T)[y_j]. The
// negative log-likelihood is convex in β = 1/T, with derivative
// Σ_j E_p[s_j] − s_j[y_j], increasing in β; β is found by bisection in
// [0, 1e15]. Scores that rank every true class first give the largest β.
func fitTemperature(scores [][]float64, truth []int) float64 {
	grad := func(beta float64) float64 {
		var g float64
		for j, s := range scores {
			mx := slices.Max(s)
			var z, e float64
			for _, v := range s {
				w := math.Exp(beta * (v - mx))
				z += w
				e += w * v
			}
			g += e/z - s[truth[j]]
		}
		return g
	}
	if len(scores) == 0 || grad(0) >= 0 {
		return math.MaxFloat64 // uninformative scores: uniform probabilities
	}
	lo, hi := 0.0, 1.0
	for grad(hi) < 0 {
		if lo, hi = hi, 2*hi; hi > 1e15 {
			return 1 / hi
		}
	}
	for i := 0; i < 200 && hi-lo > 1e-12*hi; i++ {
		if mid := (lo + hi) / 2; grad(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 2 / (lo + hi)
}
