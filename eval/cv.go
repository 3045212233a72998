package eval

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/internal/cvhook"
	"github.com/lrsdl/lrsdl/split"
)

// CVScore is the mean validation accuracy of one grid point.
type CVScore struct {
	Params   Params
	Accuracy float64
	// Iters is the number of outer iterations the score was measured at:
	// the method's own (or the point's "iters") for a point trained to the
	// end, fewer for one successive halving dropped; 0 for methods without
	// an iters option.
	Iters int
	// Same is the index in CVResult.Scores of the first point trained
	// with the same options whose predictions equal this one's on every
	// fold (it differs only in prediction options that had no effect, such
	// as the GC weight under local coding); this point's own index if none.
	Same int
}

// CVResult is the outcome of CrossValidate.
type CVResult struct {
	// Best is the chosen point as it was scored: among the points scored
	// at full length, the highest mean accuracy; ties go to fewer atoms
	// (smaller k), then to the larger sparsity weight (lambda1, else
	// lambda), then to the grid's order. A k the folds capped is the
	// capped value (see KCap), and is what the final fit should use.
	Best Params
	// Chosen is the index of Best in Scores.
	Chosen int
	// Scores are the distinct points scored, in the order of Grid.Points
	// of the grid after capping k: two grid points equal after capping
	// are one score.
	Scores []CVScore
	// Points is the number of points of the grid as given.
	Points int
	// KCap, if not 0, is the smallest class of a training fold, at which
	// every grid value of "k" above it was scored.
	KCap int
	// Iters is the full length: the method's outer iterations (0 for a
	// method without an iters option, or when the grid sets "iters").
	Iters int
}

// Distinct returns the number of scores that are not the same as an
// earlier one (see CVScore.Same): the points that were really compared.
func (r *CVResult) Distinct() int {
	n := 0
	for i, s := range r.Scores {
		if s.Same == i {
			n++
		}
	}
	return n
}

// Halving selects how CrossValidateWith spends its training.
type Halving int

const (
	// HalvingFair is successive halving that compares points only at
	// equal training length and carries on a point still rising (see
	// CrossValidateWith). It is the default.
	HalvingFair Halving = iota
	// HalvingOff trains every point for all of the method's iterations.
	HalvingOff
)

// CVOptions are the options of CrossValidateWith; the zero value is the
// default of CrossValidate.
type CVOptions struct {
	Halving Halving
}

// CrossValidate chooses the point of grid with the highest mean accuracy
// over k-fold cross-validation on (Y, labels), which should be training
// data only. Folds are stratified by class and drawn from seed.
func CrossValidate(ctx context.Context, newClassifier NewFunc, Y mat.Matrix, labels []int, k int, grid Grid, seed uint64) (*CVResult, error) {
	return CrossValidateWith(ctx, newClassifier, split.Set{Y: Y, Labels: labels}, k, grid, seed, CVOptions{})
}

// CrossValidateSet is CrossValidateWith with the default options.
func CrossValidateSet(ctx context.Context, newClassifier NewFunc, s split.Set, k int, grid Grid, seed uint64) (*CVResult, error) {
	return CrossValidateWith(ctx, newClassifier, s, k, grid, seed, CVOptions{})
}

// CrossValidateWith is CrossValidate on s. Folds are split.Folds drawn
// from PCG(seed, 0) or, if s.Groups is not nil, split.GroupFolds drawn
// from split.Rand(seed), which keep each group in one fold, so that
// validation measures generalisation to unseen groups, e.g. new people.
//
// A grid value of "k" above the smallest class of a training fold is
// lowered to it and the points made equal are merged (Scores holds the
// distinct ones; Points counts the grid's). Options that act only at
// prediction (lrsdl.Param.Predict) are scored on one fit per fold.
//
// Successive halving (o.Halving, HalvingFair unless off; used with four
// or more training points, an "iters" option the grid does not set, and
// a first round of at least 2 iterations) trains all points for a ninth
// of the method's iterations if it resumes fits (a quarter for the
// others, or when a ninth is under 3), after a probe at half of that,
// then for a third (a half), then to the end. After each round but the
// last, every point alive has been scored at the same iterations; the
// best third (at least one) go on, and so does any other point whose
// score, continued along its rise since the round before, linearly in
// iterations to the full length, would reach the lowest score kept: for a
// learning curve that flattens as it goes, no point is dropped that could
// win at full length. The survivors are trained to the end, and Best is
// chosen among points scored at full length only. Dropped points keep the
// score of their last round, with its iterations.
//
// LRSDL, FDDL and D2L2R2 of package methods resume their fits of one round
// in the next instead of retraining them, to the same models, and score
// all prediction options of a fit in one call from its training state,
// without forming the model, to the same labels up to rounding. The fits of a round, every candidate on
// every fold, train in parallel on GOMAXPROCS goroutines; the result does
// not depend on how many.
func CrossValidateWith(ctx context.Context, newClassifier NewFunc, s split.Set, k int, grid Grid, seed uint64, o CVOptions) (*CVResult, error) {
	if k < 2 {
		return nil, fmt.Errorf("eval: %d-fold cross-validation: need at least 2 folds", k)
	}
	if o.Halving != HalvingFair && o.Halving != HalvingOff {
		return nil, fmt.Errorf("eval: cross-validation: unknown halving mode %d", o.Halving)
	}
	if _, n := s.Y.Dims(); n != len(s.Labels) {
		return nil, fmt.Errorf("eval: %d labels for %d samples", len(s.Labels), n)
	}
	trains, vals, smallest, err := cvFolds(s, k, seed)
	if err != nil {
		return nil, err
	}
	probe, err := newClassifier()
	if err != nil {
		return nil, err
	}
	predictOnly, iters := map[string]bool{}, 0
	if cf, ok := probe.(lrsdl.Configurable); ok {
		for _, p := range cf.Params() {
			predictOnly[p.Name] = p.Predict
		}
	}
	if v, ok := CurrentParams(probe)["iters"].(float64); ok {
		iters = int(v)
	}
	res := &CVResult{Points: len(grid.Points())}
	grid, res.KCap = capK(grid, smallest)
	pts := grid.Points()
	// cands are the training points; each lists the grid points it scores.
	type cand struct {
		train  Params
		pts    []int
		models []lrsdl.Classifier // suspended fits to resume, by fold
		last   []float64          // the scores of pts at the round before
	}
	var cands []*cand
	byKey := map[string]*cand{}
	for i, p := range pts {
		tp := Params{}
		for n, v := range p {
			if !predictOnly[n] {
				tp[n] = v
			}
		}
		key := tp.String()
		if byKey[key] == nil {
			c := &cand{train: tp}
			byKey[key] = c
			cands = append(cands, c)
		}
		byKey[key].pts = append(byKey[key].pts, i)
	}
	res.Scores = make([]CVScore, len(pts))
	for i, p := range pts {
		res.Scores[i] = CVScore{Params: p, Same: i}
	}
	_, fixed := grid["iters"]
	if !fixed {
		res.Iters = iters
	}
	rounds := []int{iters}
	if resumes := cvhook.Of(probe) != nil; o.Halving == HalvingFair && len(cands) >= 4 && !fixed {
		rounds = halvingRounds(iters, resumes)
	}
	alive := cands
	for r := 0; r < len(rounds); r++ {
		it, last := rounds[r], r == len(rounds)-1
		jobs := make([]cvJob, 0, len(alive))
		for ci, c := range alive {
			tp := c.train
			if !last {
				tp = Params{"iters": float64(it)}
				for n, v := range c.train {
					tp[n] = v
				}
			}
			sctx := withStage(ctx, func(s *Stage) {
				s.Cand, s.Cands, s.Round, s.Rounds, s.Params = ci+1, len(alive), r+1, len(rounds), tp
			})
			if c.models == nil {
				c.models = make([]lrsdl.Classifier, k)
			}
			jobs = append(jobs, cvJob{ctx: sctx, tp: tp, models: c.models, idx: c.pts})
		}
		out, err := crossValidateRound(newClassifier, jobs, it, pts, trains, vals)
		if err != nil {
			return nil, err
		}
		for ci, c := range alive {
			for j, i := range c.pts {
				sc := &res.Scores[i]
				sc.Accuracy, sc.Iters, sc.Same = out[ci].acc[j], it, i
				if v, ok := pts[i]["iters"].(float64); ok && fixed {
					sc.Iters = int(v)
				}
				for jj, h := range out[ci].preds[:j] {
					if slices.Equal(h, out[ci].preds[j]) {
						sc.Same = c.pts[jj]
						break
					}
				}
			}
		}
		if last {
			break
		}
		if r == 0 {
			// The probe round: every point's first score, for its rise.
			for ci, c := range alive {
				c.last = out[ci].acc
			}
			continue
		}
		now, proj := make([]float64, len(alive)), make([]float64, len(alive))
		for ci, c := range alive {
			now[ci], proj[ci] = -1, -1
			for j, a := range out[ci].acc {
				now[ci] = max(now[ci], a)
				proj[ci] = max(proj[ci], project(c.last[j], a, rounds[r-1], it, rounds[len(rounds)-1]))
			}
			c.last = out[ci].acc
		}
		keep := survivors(now, proj)
		next := alive[:0:0]
		for ci, c := range alive {
			if keep[ci] {
				next = append(next, c)
			} else {
				c.models = nil // frees the dropped candidate's training states
			}
		}
		alive = next
		if len(alive) == 1 && r < len(rounds)-2 {
			// One is left: train it to the end.
			rounds = append(rounds[:r+1], rounds[len(rounds)-1])
		}
	}
	var eligible []int
	for _, c := range alive {
		eligible = append(eligible, c.pts...)
	}
	slices.Sort(eligible)
	res.Chosen = choose(res.Scores, eligible)
	res.Best = pts[res.Chosen]
	return res, nil
}

// cvFolds draws the k folds of s and returns their training and
// validation parts and the smallest class of a training part.
func cvFolds(s split.Set, k int, seed uint64) (trains, vals []split.Set, smallest int, err error) {
	var fold []int
	if s.Groups == nil {
		fold, err = split.Folds(s.Labels, k, rand.New(rand.NewPCG(seed, 0)))
	} else {
		fold, err = split.GroupFolds(s.Labels, s.Groups, k, split.Rand(seed))
	}
	if err != nil {
		return nil, nil, 0, fmt.Errorf("eval: cross-validation: %w", err)
	}
	trains, vals = make([]split.Set, k), make([]split.Set, k)
	smallest = math.MaxInt
	classes, _ := split.ByClass(s.Labels)
	for f := range k {
		tr, va := split.Fold(fold, f)
		trains[f], vals[f] = split.Subset(s, tr), split.Subset(s, va)
		in, idx := split.ByClass(trains[f].Labels)
		for _, ix := range idx {
			smallest = min(smallest, len(ix))
		}
		for _, c := range classes {
			if _, ok := slices.BinarySearch(in, c); !ok {
				return nil, nil, 0, fmt.Errorf("eval: grouped cross-validation: all samples of class %d are in fold %d; it needs more groups", c, f+1)
			}
		}
	}
	return trains, vals, smallest, nil
}

// capK returns grid with every value of "k" above smallest lowered to it
// and repeated values dropped, and smallest if a value was lowered, else 0.
func capK(grid Grid, smallest int) (Grid, int) {
	g, ok := grid["k"]
	if !ok {
		return grid, 0
	}
	capped, kcap := Grid{}, 0
	for n, v := range grid {
		capped[n] = v
	}
	var ks []any
	for _, v := range g {
		if x, ok := gridValue(v).(float64); ok && x > float64(smallest) {
			v, kcap = float64(smallest), smallest
		}
		if !slices.Contains(ks, gridValue(v)) {
			ks = append(ks, gridValue(v))
		}
	}
	capped["k"] = ks
	return capped, kcap
}
