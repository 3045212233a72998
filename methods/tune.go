package methods

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/fisher"
	"github.com/lrsdl/lrsdl/split"
	"gonum.org/v1/gonum/mat"
)

// TuneOptions controls the cross-validation of the prediction parameters.
// The zero value means the defaults.
type TuneOptions struct {
	Folds  int       // stratified folds of the training set; zero means 3
	W      []float64 // GC weights tried; nil means 0.25, 0.5, 0.75, 1; empty tries LC only
	Lambda []float64 // coding ℓ1 weights tried; nil means λ1·{0.25, 0.5, 1, 3}
	// Groups, if not nil, holds the group of each training sample (e.g.
	// the person in a face data set); folds then keep groups together
	// (split.GroupFolds), so that validation samples come from
	// groups unseen in training, as test samples may.
	Groups []int
}

// tune chooses GC with weight w or LC, and the coding λ, of the best k-fold
// cross-validated accuracy on the training set (Y, labels), training with
// p on each fold. Ties go to the first candidate.
func tune(ctx context.Context, opts fisherOptions, Y mat.Matrix, labels []int, o TuneOptions) (r Tuned, err error) {
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
	name := opts.spec().method
	folds := o.Folds
	if folds == 0 {
		folds = 3
	}
	for c := 0; c < g.Classes.Len(); c++ {
		if g.Part.Size(c) < 2*folds {
			return r, fmt.Errorf("methods: class %d has %d samples, too few for %d-fold cross-validation", g.Classes.Labels[c], g.Part.Size(c), folds)
		}
	}
	if folds < 2 {
		return r, fmt.Errorf("methods: need at least 2 cross-validation folds, have %d", folds)
	}
	ws, ls := o.W, o.Lambda
	if ws == nil {
		ws = []float64{0.25, 0.5, 0.75, 1}
	}
	if ls == nil {
		ls = []float64{0.25 * p.Lambda1, 0.5 * p.Lambda1, p.Lambda1, 3 * p.Lambda1}
	}
	for _, v := range ws {
		if !(v >= 0 && v <= 1) {
			return r, fmt.Errorf("methods: GC weight candidate %v is outside [0, 1]", v)
		}
	}
	for _, v := range ls {
		if !(v > 0) || math.IsInf(v, 0) {
			return r, fmt.Errorf("methods: coding λ candidate %v is not a finite positive number", v)
		}
	}
	// fold[j] is the fold of sample j.
	var fold []int
	if o.Groups == nil {
		fold, err = split.Folds(labels, folds, rand.New(rand.NewPCG(p.Seed, 0xf01d)))
		if err != nil {
			return r, fmt.Errorf("methods: %w", err)
		}
	} else {
		fold, err = split.GroupFolds(labels, o.Groups, folds, split.Rand(p.Seed))
		if err != nil {
			return r, fmt.Errorf("methods: grouped cross-validation: %w", err)
		}
		// Every class must be trained on in every fold.
		for c := 0; c < g.Classes.Len(); c++ {
			lo, hi := g.Part.Block(c)
			for f := range folds {
				in := 0
				for _, j := range g.Perm[lo:hi] {
					if fold[j] == f {
						in++
					}
				}
				if in == hi-lo {
					return r, fmt.Errorf("methods: grouped cross-validation: all samples of class %d are in fold %d; it needs more groups", g.Classes.Labels[c], f+1)
				}
			}
		}
	}
	p.Progress = nil
	correct := make([]int, (len(ws)+1)*len(ls))
	ps := make([]fisher.Params, 0, len(correct))
	for _, l := range ls {
		for wi := 0; wi <= len(ws); wi++ { // the last slot is LC
			q := p
			q.Lambda, q.LC = l, wi == len(ws)
			if !q.LC {
				q.W = ws[wi]
			}
			ps = append(ps, q)
		}
	}
	for f := 0; f < folds; f++ {
		tr, va := split.Fold(fold, f)
		sel := func(idx []int) []int {
			out := make([]int, len(idx))
			for i, j := range idx {
				out[i] = labels[j]
			}
			return out
		}
		var m fisher.Model
		if err := m.Fit(ctx, name, dl.PermuteColumns(Y, tr), sel(tr), func(dl.Info) (fisher.Params, error) { return p, nil }); err != nil {
			return r, err
		}
		Yv, lv := dl.PermuteColumns(Y, va), sel(va)
		preds, err := m.PredictEach(ctx, Yv, ps)
		if err != nil {
			return r, err
		}
		for i, pred := range preds {
			for j, pl := range pred {
				if pl == lv[j] {
					correct[i]++
				}
			}
		}
	}
	best := 0
	for i, c := range correct {
		if c > correct[best] {
			best = i
		}
	}
	for i, c := range correct {
		t := TuneScore{Lambda: ls[i/(len(ws)+1)], Accuracy: float64(c) / float64(len(labels))}
		if wi := i % (len(ws) + 1); wi < len(ws) {
			t.W = ws[wi]
		} else {
			t.LC = true
		}
		r.Scores = append(r.Scores, t)
	}
	r.TuneScore = r.Scores[best]
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
