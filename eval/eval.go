package eval

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/split"
)

// Accuracy returns the fraction of pred equal to truth.
func Accuracy(pred, truth []int) float64 {
	if len(truth) == 0 {
		return 0
	}
	n := 0
	for i, t := range truth {
		if pred[i] == t {
			n++
		}
	}
	return float64(n) / float64(len(truth))
}

// Confusion is a confusion matrix: Counts[i][j] samples of true label
// Labels[i] were predicted as Labels[j].
type Confusion struct {
	Labels []int
	Counts [][]int
}

// NewConfusion returns the confusion matrix of pred against truth over
// the union of their labels.
func NewConfusion(truth, pred []int) *Confusion {
	ls, _ := split.ByClass(append(slices.Clone(truth), pred...))
	at := map[int]int{}
	for i, l := range ls {
		at[l] = i
	}
	c := &Confusion{Labels: ls, Counts: make([][]int, len(ls))}
	for i := range c.Counts {
		c.Counts[i] = make([]int, len(ls))
	}
	for i, t := range truth {
		c.Counts[at[t]][at[pred[i]]]++
	}
	return c
}

// String formats c as a table, true labels down, predictions across.
func (c *Confusion) String() string {
	w := 5
	for _, l := range c.Labels {
		w = max(w, len(fmt.Sprint(l))+1)
	}
	for _, r := range c.Counts {
		for _, v := range r {
			w = max(w, len(fmt.Sprint(v))+1)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%*s", w, "true\\")
	for _, l := range c.Labels {
		fmt.Fprintf(&b, "%*d", w, l)
	}
	b.WriteByte('\n')
	for i, r := range c.Counts {
		fmt.Fprintf(&b, "%*d", w, c.Labels[i])
		for _, v := range r {
			fmt.Fprintf(&b, "%*d", w, v)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Run is the outcome of training on one set and testing on another.
type Run struct {
	Accuracy  float64
	TrainTime time.Duration // Fit
	TestTime  time.Duration // Predict, all test samples
	NTest     int
	Params    Params    // options chosen by cross-validation, if any
	CV        []CVScore // the cross-validation scores behind Params, if any
	CVResult  *CVResult // the cross-validation behind Params, if any
}

// FitPredict trains c on train, predicts test and times both.
func FitPredict(ctx context.Context, c lrsdl.Classifier, train, test split.Set) (Run, []int, error) {
	t0 := time.Now()
	if err := c.Fit(ctx, train.Y, train.Labels); err != nil {
		return Run{}, nil, err
	}
	t1 := time.Now()
	pred, err := c.Predict(test.Y)
	if err != nil {
		return Run{}, nil, err
	}
	t2 := time.Now()
	if len(pred) != test.Len() {
		return Run{}, nil, fmt.Errorf("eval: %s predicted %d labels for %d samples", c.Name(), len(pred), test.Len())
	}
	return Run{Accuracy: Accuracy(pred, test.Labels), TrainTime: t1.Sub(t0), TestTime: t2.Sub(t1), NTest: test.Len()}, pred, nil
}

// NewFunc returns a new, configured, untrained classifier.
type NewFunc func() (lrsdl.Classifier, error)

// SplitOptions control RandomSplits. The zero value trains once on the
// whole training set.
type SplitOptions struct {
	Splits       int    // number of random splits; 0 means 1
	PerClass     int    // training samples drawn per class; 0 means all (needs a test set)
	TestPerClass int    // without a test set: test samples per class from the rest; 0 means all
	Seed         uint64 // seeds the splits (split i uses PCG(Seed, i))
	// Folds > 1 chooses the options in Grid per split by Folds-fold
	// cross-validation on that split's training samples.
	Folds   int
	Grid    Grid
	Halving Halving // successive halving of the cross-validation
	// Parallel is the number of splits trained at once; 0 or 1 trains them
	// one after another; the results are the same.
	Parallel int
	// Progress, if not nil, is called after every split, in the order the
	// splits end; calls do not overlap.
	Progress func(split int, r Run)
	// Fit, if not nil, is called with every classifier trained, before
	// its Fit, and where it stands, e.g. to set its progress callback.
	// Cross-validation folds train in parallel: calls may be concurrent.
	Fit func(lrsdl.Classifier, Stage)
}

// Stage says where a training run of RandomSplits stands.
type Stage struct {
	Split, Splits int // the split, from 1
	// Fold is the cross-validation fold, from 1, of Folds; 0 for the
	// split's final fit with the chosen options.
	Fold, Folds   int
	Cand, Cands   int    // the candidate, from 1, among those of this round
	Round, Rounds int    // the round of successive halving, from 1
	Params        Params // the candidate's training options; the chosen ones for the final fit
}

type stageKey struct{}

// stageHook is what RandomSplits passes down to cross-validation.
type stageHook struct {
	fn func(lrsdl.Classifier, Stage)
	st Stage
}

// withStage returns ctx carrying the stage hook of ctx, if any, with its
// stage changed by f.
func withStage(ctx context.Context, f func(*Stage)) context.Context {
	h, ok := ctx.Value(stageKey{}).(stageHook)
	if !ok {
		return ctx
	}
	f(&h.st)
	return context.WithValue(ctx, stageKey{}, h)
}

// notifyStage calls the stage hook of ctx, if any, with c.
func notifyStage(ctx context.Context, c lrsdl.Classifier) {
	if h, ok := ctx.Value(stageKey{}).(stageHook); ok {
		h.fn(c, h.st)
	}
}

// Summary aggregates the runs of RandomSplits.
type Summary struct {
	Runs                 []Run
	MeanAcc, StdAcc      float64 // over splits; StdAcc is the sample standard deviation
	TrainSeconds         float64 // mean training time
	TestSecondsPerSample float64 // mean prediction time per sample
}

// RandomSplits evaluates the classifiers made by newClassifier on
// opts.Splits random splits. With a test set, each split trains on
// opts.PerClass samples per class drawn from train and tests on all of
// test; without one (test.Y nil), train is split per class into training
// and test samples. The same seed gives the same splits.
func RandomSplits(ctx context.Context, newClassifier NewFunc, train, test split.Set, opts SplitOptions) (*Summary, error) {
	splits := max(opts.Splits, 1)
	if test.Y == nil && opts.PerClass == 0 {
		return nil, fmt.Errorf("eval: no test set and no training samples per class to split one off")
	}
	s := &Summary{Runs: make([]Run, splits)}
	one := func(ctx context.Context, i int) (Run, error) {
		rng := rand.New(rand.NewPCG(opts.Seed, uint64(i)))
		var tr split.Set
		te := test
		var err error
		if test.Y == nil {
			tr, te, err = split.Split(train, opts.PerClass, opts.TestPerClass, rng)
		} else {
			tr, err = split.Draw(train, opts.PerClass, rng)
		}
		if err != nil {
			return Run{}, err
		}
		var best Params
		var scores []CVScore
		var cv *CVResult
		if opts.Folds > 1 && len(opts.Grid) > 0 {
			cctx := ctx
			if opts.Fit != nil {
				cctx = context.WithValue(ctx, stageKey{}, stageHook{opts.Fit, Stage{Split: i + 1, Splits: splits, Folds: opts.Folds}})
			}
			cv, err = CrossValidateWith(cctx, newClassifier, tr, opts.Folds, opts.Grid, rng.Uint64(), CVOptions{Halving: opts.Halving})
			if err != nil {
				return Run{}, err
			}
			best, scores = cv.Best, cv.Scores
		}
		c, err := newClassifier()
		if err != nil {
			return Run{}, err
		}
		if err := Configure(c, best); err != nil {
			return Run{}, err
		}
		if opts.Fit != nil {
			opts.Fit(c, Stage{Split: i + 1, Splits: splits, Folds: opts.Folds, Params: best})
		}
		var r Run
		parallel.Job(func() { r, _, err = FitPredict(ctx, c, tr, te) })
		r.Params, r.CV, r.CVResult = best, scores, cv
		return r, err
	}
	workers := min(max(opts.Parallel, 1), splits)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := i >= splits || first != nil
				mu.Unlock()
				if stop {
					return
				}
				if err := ctx.Err(); err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
					return
				}
				r, err := one(ctx, i)
				mu.Lock()
				if err != nil {
					if first == nil {
						first = err
						cancel()
					}
				} else {
					s.Runs[i] = r
					if opts.Progress != nil {
						opts.Progress(i, r)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	var nTest int
	var test0 time.Duration
	for _, r := range s.Runs {
		s.MeanAcc += r.Accuracy / float64(splits)
		s.TrainSeconds += r.TrainTime.Seconds() / float64(splits)
		test0 += r.TestTime
		nTest += r.NTest
	}
	if nTest > 0 {
		s.TestSecondsPerSample = test0.Seconds() / float64(nTest)
	}
	if splits > 1 {
		for _, r := range s.Runs {
			s.StdAcc += (r.Accuracy - s.MeanAcc) * (r.Accuracy - s.MeanAcc)
		}
		s.StdAcc = math.Sqrt(s.StdAcc / float64(splits-1))
	}
	return s, nil
}
