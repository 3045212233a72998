package eval

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/split"
)

// CVScore is the mean validation accuracy of one grid point.
type CVScore struct {
	Params   Params
	Accuracy float64
	// Iters is the number of outer iterations the score was measured at:
	// those of the last round of successive halving the point was trained
	// in (the method's own without halving); 0 for methods without an
	// iters option.
	Iters int
}

// CVResult is the outcome of CrossValidate.
type CVResult struct {
	// Best is the first point of the last round run with the highest
	// mean accuracy, except that a k the folds capped at their smallest
	// class (see CrossValidateSet) is the grid's value capped at the
	// smallest class of the whole set: with 10 samples per class and 3
	// folds, k=25 is scored as 6 and chosen as 10.
	Best   Params
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
//
// The work is cut three ways without changing what is compared. Options
// that act only at prediction (lrsdl.Param.Predict) are scored on one fit
// per fold. A grid value of "k" above the smallest class of a training fold
// is lowered to it (and duplicate points dropped); Best gives it capped at
// the whole set's smallest class instead. With four or more training
// points and an "iters" option, successive halving trains every point for
// a ninth of the method's iterations if it is Resumable (a quarter for the
// others, or when a ninth is under 3), keeps the best third of them (at
// least one) for the next round, and stops when one is left, so that 8
// points take two rounds (a ninth, then a third) and the prediction
// options of the last one are chosen at that round's iterations; the
// dropped points keep the score of their last round. A Resumable method
// continues its fits of one round in the next instead of retraining them,
// to the same models; an EachPredictor scores all prediction options of a
// fit in one call, sharing the coding, and a Scorer scores from its
// training state without forming the model, in the coordinates of its span
// reduction, to the same labels up to rounding.
//
// The fits of a round, every candidate on every fold, train in parallel
// on GOMAXPROCS goroutines; the result does not depend on how many.
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
	smallest := math.MaxInt
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
				return nil, fmt.Errorf("eval: grouped cross-validation: all samples of class %d are in fold %d; it needs more groups", c, f+1)
			}
		}
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
	kFrom := map[float64]float64{} // capped k → the grid's value
	if g, ok := grid["k"]; ok {
		// Cap k at the smallest class of a training fold.
		capped := Grid{}
		for n, v := range grid {
			capped[n] = v
		}
		var ks []any
		for _, v := range g {
			if x, ok := gridValue(v).(float64); ok {
				v = min(x, float64(smallest))
				if _, ok := kFrom[v.(float64)]; !ok {
					kFrom[v.(float64)] = x
				}
			}
			if !slices.Contains(ks, v) {
				ks = append(ks, v)
			}
		}
		capped["k"], grid = ks, capped
	}
	pts := grid.Points()
	// cands are the training points; each lists the grid points it scores.
	type cand struct {
		train  Params
		pts    []int
		models []lrsdl.Classifier // suspended fits to resume, by fold
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
	res := &CVResult{Scores: make([]CVScore, len(pts))}
	for i, p := range pts {
		res.Scores[i].Params = p
	}
	rounds := []int{iters}
	if _, fixed := grid["iters"]; len(cands) >= 4 && iters >= 4 && !fixed {
		_, resumes := probe.(Resumable)
		rounds = halvingRounds(iters, resumes)
	}
	alive := cands
	for r, it := range rounds {
		last := r == len(rounds)-1
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
		accs, err := crossValidateRound(newClassifier, jobs, it, !last, pts, trains, vals)
		if err != nil {
			return nil, err
		}
		for ci, c := range alive {
			for j, i := range c.pts {
				res.Scores[i].Accuracy, res.Scores[i].Iters = accs[ci][j], it
			}
		}
		if r == len(rounds)-1 {
			break
		}
		// Keep the best third, by each candidate's best point; ties keep
		// the grid's order.
		best := func(c *cand) float64 {
			b := -1.0
			for _, i := range c.pts {
				b = max(b, res.Scores[i].Accuracy)
			}
			return b
		}
		next := slices.Clone(alive)
		slices.SortStableFunc(next, func(a, b *cand) int { return cmpDesc(best(a), best(b)) })
		next = next[:(len(next)+2)/3]
		alive = alive[:0:0]
		for _, c := range cands {
			if slices.Contains(next, c) {
				alive = append(alive, c)
			} else {
				c.models = nil // frees the dropped candidate's training states
			}
		}
		if len(alive) == 1 {
			break // chosen: another round would only re-rank its prediction options
		}
	}
	bestAcc := -1.0
	for _, c := range alive {
		for _, i := range c.pts {
			if a := res.Scores[i].Accuracy; a > bestAcc || a == bestAcc && i < indexOf(pts, res.Best) {
				bestAcc, res.Best = a, pts[i]
			}
		}
	}
	if k, ok := res.Best["k"].(float64); ok && kFrom[k] > k {
		// A k capped at the folds' smallest class is capped again at the
		// whole set's, which the chosen options are trained on.
		all := math.MaxInt
		_, idx := split.ByClass(s.Labels)
		for _, ix := range idx {
			all = min(all, len(ix))
		}
		best := Params{}
		for n, v := range res.Best {
			best[n] = v
		}
		best["k"] = min(kFrom[k], float64(all))
		res.Best = best
	}
	return res, nil
}

// minFirstRound is the fewest outer iterations of the first round of
// successive halving.
const minFirstRound = 3

// halvingRounds returns the outer iterations of the rounds of successive
// halving for a method of iters iterations: a ninth, a third and all of
// them for a resumable method, whose survivors continue where they
// stopped, and a quarter, half and all for the others, which retrain
// every round (and for a resumable one when a ninth is under
// minFirstRound). The first round only separates clearly weaker points;
// the second chooses (checked by bench/defaults on the training parts of
// AR gender, Oxford Flower and digits).
func halvingRounds(iters int, resumes bool) []int {
	if first := iters / 9; resumes && first >= minFirstRound {
		return []int{first, iters / 3, iters}
	}
	return []int{max(iters/4, 1), iters / 2, iters}
}

// cmpDesc orders larger values first.
func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// indexOf returns the index of the point p in pts (by identity of content), or len(pts).
func indexOf(pts []Params, p Params) int {
	for i, q := range pts {
		if p != nil && q.String() == p.String() {
			return i
		}
	}
	return len(pts)
}

// cvJob is one candidate of a round of CrossValidateSet: its training
// options tp, its fits by fold (suspended fits to resume, or nil) and the
// grid points idx it scores.
type cvJob struct {
	ctx    context.Context
	tp     Params
	models []lrsdl.Classifier
	idx    []int
}

// crossValidateRound trains every job's options (it outer iterations) on
// every fold and returns, by job, the mean validation accuracy of each of
// its grid points pts[i], i in idx, setting their prediction options on
// the fit. The fits of all jobs and folds share one pool of GOMAXPROCS
// goroutines, taken job by job, so that a round of many candidates keeps
// both cores busy where the folds of one candidate would leave one idle,
// and a job's fold f starts after the previous job's, whose span factors
// it shares (see foldScores). models[f], if not nil, is fold f's
// suspended fit of the same options at fewer iterations, which is resumed
// instead; with keep, the fits of resumable methods are left in models.
// Each fit is independent, so the result does not depend on the order.
func crossValidateRound(newClassifier NewFunc, jobs []cvJob, it int, keep bool, pts []Params, trains, vals []split.Set) ([][]float64, error) {
	k := len(trains)
	accs := make([][]float64, len(jobs)*k)
	err := core.ForEach(len(jobs)*k, runtime.GOMAXPROCS(0), func(_, i int) error {
		j, f := &jobs[i/k], i%k
		fctx := withStage(j.ctx, func(s *Stage) { s.Fold = f + 1 })
		var err error
		parallel.Job(func() {
			accs[i], j.models[f], err = foldScores(fctx, newClassifier, j.models[f], j.tp, it, keep, pts, j.idx, trains[f], vals[f])
		})
		if err != nil {
			return fmt.Errorf("cross-validation at %v, fold %d: %w", j.tp, f+1, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([][]float64, len(jobs))
	for ji, j := range jobs {
		out[ji] = make([]float64, len(j.idx))
		for f := range k {
			for p := range j.idx {
				out[ji][p] += accs[ji*k+f][p] / float64(k)
			}
		}
	}
	return out, nil
}

// foldScores fits one classifier on train with the options tp (or resumes
// prev, a suspended fit of them, to it outer iterations) and returns the
// accuracy on val of each grid point pts[i], i in idx, whose remaining
// (prediction) options it sets before predicting. With keep and a
// resumable method, it returns the fit suspended, to be resumed later; a
// scorer's fit is returned even without keep, so that the fits of one
// fold, holding it, share its span factors.
func foldScores(ctx context.Context, newClassifier NewFunc, prev lrsdl.Classifier, tp Params, it int, keep bool, pts []Params, idx []int, train, val split.Set) ([]float64, lrsdl.Classifier, error) {
	c := prev
	if rc, ok := prev.(Resumable); ok {
		notifyStage(ctx, c)
		if err := rc.Resume(ctx, train.Y, train.Labels, it); err != nil {
			return nil, nil, err
		}
	} else {
		var err error
		if c, err = newClassifier(); err != nil {
			return nil, nil, err
		}
		if err := Configure(c, tp); err != nil {
			return nil, nil, err
		}
		if sc, ok := c.(Scorer); ok {
			sc.SetScoreOnly(true)
		} else if rc, ok := c.(Resumable); ok {
			rc.SetResumable(keep)
		}
		notifyStage(ctx, c)
		if err := c.Fit(ctx, train.Y, train.Labels); err != nil {
			return nil, nil, err
		}
	}
	pps := make([]Params, len(idx))
	for j, i := range idx {
		pps[j] = Params{}
		for n, v := range pts[i] {
			if _, ok := tp[n]; !ok {
				pps[j][n] = v
			}
		}
	}
	out := make([]float64, len(idx))
	sc, isScorer := c.(Scorer)
	if ep, ok := c.(EachPredictor); ok || isScorer {
		sets := make([]map[string]string, len(pps))
		for j, pp := range pps {
			sets[j] = map[string]string{}
			for n, v := range pp {
				sets[j][n] = formatValue(v)
			}
		}
		var preds [][]int
		var err error
		if isScorer {
			preds, err = sc.ScoreEach(ctx, val.Y, sets)
		} else {
			preds, err = ep.PredictEach(ctx, val.Y, sets)
		}
		if err != nil {
			return nil, nil, err
		}
		for j, pred := range preds {
			out[j] = Accuracy(pred, val.Labels)
		}
	} else {
		for j, pp := range pps {
			if err := Configure(c, pp); err != nil {
				return nil, nil, err
			}
			pred, err := c.Predict(val.Y)
			if err != nil {
				return nil, nil, err
			}
			out[j] = Accuracy(pred, val.Labels)
		}
	}
	if isScorer {
		return out, c, nil
	}
	if rc, ok := c.(Resumable); ok && keep {
		rc.Suspend()
		return out, c, nil
	}
	return out, nil, nil
}
