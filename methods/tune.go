package methods

import (
	"context"
	"fmt"
	"math"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/split"
	"gonum.org/v1/gonum/mat"
)

// TuneOptions controls the cross-validation of the prediction parameters.
// The zero value means the defaults.
type TuneOptions struct {
	Folds  int       // stratified folds of the training set; zero means 3
	W      []float64 // GC weights tried; nil means 0.25, 0.5, 0.75, 1; empty tries LC only
	Lambda []float64 // coding ℓ1 weights tried; nil means λ1·{0.25, 0.5, 1, 3}
	Groups []int     // if not nil, the group of each sample (e.g. the person); folds keep groups together
}

// tune chooses GC with a weight of o.W, or LC, and the coding λ of the best
// mean accuracy of eval.CrossValidateSet on the training set (Y, labels),
// training a model of newModel on each fold. opts are the model's options
// (a copy), whose λ1 gives the default λ candidates and whose seed draws
// the folds. Ties go to the first candidate.
func tune(ctx context.Context, newModel func() lrsdl.Classifier, opts fisherOptions, Y mat.Matrix, labels []int, o TuneOptions) (r Tuned, err error) {
	if Y == nil {
		return r, fmt.Errorf("methods: nil training data")
	}
	if _, n := Y.Dims(); len(labels) != n {
		return r, fmt.Errorf("methods: %d labels for %d training samples (columns of Y)", len(labels), n)
	}
	g, err := core.GroupByClass(labels)
	if err != nil {
		return r, err
	}
	info := dl.InfoOf(Y, g)
	p, err := paramsOf(opts, &info)
	if err != nil {
		return r, err
	}
	folds := o.Folds
	if folds == 0 {
		folds = 3
	}
	for c := 0; c < g.Classes.Len(); c++ {
		if g.Part.Size(c) < 2*folds {
			return r, fmt.Errorf("methods: class %d has %d samples, too few for %d-fold cross-validation", g.Classes.Labels[c], g.Part.Size(c), folds)
		}
	}
	ws, ls := o.W, o.Lambda
	if ws == nil {
		ws = []float64{0.25, 0.5, 0.75, 1}
	}
	if ls == nil {
		ls = []float64{0.25 * p.Lambda1, 0.5 * p.Lambda1, p.Lambda1, 3 * p.Lambda1}
	}
	grid := eval.Grid{"lambda": nil, "lc": {true}}
	for _, v := range ls {
		if !(v > 0) || math.IsInf(v, 0) {
			return r, fmt.Errorf("methods: coding λ candidate %v is not a finite positive number", v)
		}
		grid["lambda"] = append(grid["lambda"], v)
	}
	for _, v := range ws {
		if !(v >= 0 && v <= 1) {
			return r, fmt.Errorf("methods: GC weight candidate %v is outside [0, 1]", v)
		}
		grid["w"], grid["lc"] = append(grid["w"], v), []any{false, true}
	}
	res, err := eval.CrossValidateSet(ctx, func() (lrsdl.Classifier, error) { return newModel(), nil },
		split.Set{Y: Y, Labels: labels, Groups: o.Groups}, folds, grid, p.Seed)
	if err != nil {
		return r, fmt.Errorf("methods: %w", err)
	}
	// The grid varies w fastest, then lc: GC's weights, then LC once per λ
	// (its score does not depend on w).
	for _, s := range res.Scores {
		t := TuneScore{Lambda: s.Params["lambda"].(float64), Accuracy: s.Accuracy}
		t.LC = s.Params["lc"].(bool)
		if w, ok := s.Params["w"].(float64); ok && !t.LC {
			t.W = w
		} else if ok && w != ws[0] {
			continue
		}
		if len(r.Scores) == 0 || t.Accuracy > r.Accuracy {
			r.TuneScore = t
		}
		r.Scores = append(r.Scores, t)
	}
	return r, nil
}

// TuneScore is the cross-validated accuracy of one prediction rule.
type TuneScore struct {
	LC       bool    // local coding
	W        float64 // GC weight (when !LC)
	Lambda   float64 // coding ℓ1 weight
	Accuracy float64 // cross-validated accuracy
}

// Tuned is the result of cross-validating the prediction parameters: the
// chosen rule and its accuracy, and the scores of every candidate.
type Tuned struct {
	TuneScore
	Scores []TuneScore // by coding λ, then GC weights in order and LC last
}

// set stores the choice in o.
func (r Tuned) set(o *FDDLOptions) {
	o.LC, o.W, o.Lambda = r.LC, r.W, r.Lambda
	if r.LC {
		o.W = 0
	} else if r.W == 0 {
		o.W = Off
	}
}
