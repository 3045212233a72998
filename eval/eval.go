package eval

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
)

// Set is a labelled set of samples, one per column of Y (d×N), dense or
// sparse (*sparse.CSC). It has the layout of data.Set.
type Set struct {
	Y      mat.Matrix
	Labels []int
	// Groups, if not nil, holds the group of each sample, e.g. the person
	// in a face data set: CrossValidateSet keeps each group in one fold.
	// Subset and the splits carry it along.
	Groups []int
}

// Len returns the number of samples of s.
func (s Set) Len() int { return len(s.Labels) }

// Subset returns the samples of s at the column indices idx, in order.
// A *sparse.CSC stays sparse; other matrices are copied into a *mat.Dense.
func Subset(s Set, idx []int) Set {
	labels := make([]int, len(idx))
	for i, j := range idx {
		labels[i] = s.Labels[j]
	}
	var groups []int
	if s.Groups != nil {
		groups = make([]int, len(idx))
		for i, j := range idx {
			groups[i] = s.Groups[j]
		}
	}
	d, _ := s.Y.Dims()
	if c, ok := s.Y.(*sparse.CSC); ok {
		ptr := make([]int, 1, len(idx)+1)
		var ind []int
		var val []float64
		for _, j := range idx {
			c.DoColNonZero(j, func(i, _ int, v float64) {
				ind = append(ind, i)
				val = append(val, v)
			})
			ptr = append(ptr, len(ind))
		}
		return Set{Y: sparse.NewCSC(d, len(idx), ptr, ind, val), Labels: labels, Groups: groups}
	}
	out := mat.NewDense(d, len(idx), nil)
	col := make([]float64, d)
	for k, j := range idx {
		mat.Col(col, j, s.Y)
		out.SetCol(k, col)
	}
	return Set{Y: out, Labels: labels, Groups: groups}
}

// ByClass returns the column indices of each label, labels in increasing order.
func ByClass(labels []int) (classes []int, idx [][]int) {
	at := map[int]int{}
	for _, l := range labels {
		if _, ok := at[l]; !ok {
			at[l] = 0
			classes = append(classes, l)
		}
	}
	sort.Ints(classes)
	for i, l := range classes {
		at[l] = i
	}
	idx = make([][]int, len(classes))
	for j, l := range labels {
		idx[at[l]] = append(idx[at[l]], j)
	}
	return classes, idx
}

// SplitPerClass draws perClass samples of every class of s at random for
// training; the rest, up to testPerClass per class (0 means all), is the
// test set. It fails when a class has perClass samples or fewer.
func SplitPerClass(s Set, perClass, testPerClass int, rng *rand.Rand) (train, test Set, err error) {
	if perClass <= 0 {
		return Set{}, Set{}, fmt.Errorf("eval: %d training samples per class requested", perClass)
	}
	classes, idx := ByClass(s.Labels)
	var tr, te []int
	for c, ix := range idx {
		if len(ix) <= perClass {
			return Set{}, Set{}, fmt.Errorf("eval: class %d has %d samples, need more than %d to split off a test set", classes[c], len(ix), perClass)
		}
		p := rng.Perm(len(ix))
		for i, k := range p {
			switch {
			case i < perClass:
				tr = append(tr, ix[k])
			case testPerClass <= 0 || i < perClass+testPerClass:
				te = append(te, ix[k])
			}
		}
	}
	slices.Sort(tr)
	slices.Sort(te)
	return Subset(s, tr), Subset(s, te), nil
}

// DrawPerClass returns perClass samples of every class of s drawn at random.
// perClass 0 returns s.
func DrawPerClass(s Set, perClass int, rng *rand.Rand) (Set, error) {
	if perClass == 0 {
		return s, nil
	}
	classes, idx := ByClass(s.Labels)
	var tr []int
	for c, ix := range idx {
		if len(ix) < perClass {
			return Set{}, fmt.Errorf("eval: class %d has %d training samples, %d requested", classes[c], len(ix), perClass)
		}
		for _, k := range rng.Perm(len(ix))[:perClass] {
			tr = append(tr, ix[k])
		}
	}
	slices.Sort(tr)
	return Subset(s, tr), nil
}

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
	ls, _ := ByClass(append(slices.Clone(truth), pred...))
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
	Params    Params // options chosen by cross-validation, if any
}

// FitPredict trains c on train, predicts test and times both.
func FitPredict(ctx context.Context, c lrsdl.Classifier, train, test Set) (Run, []int, error) {
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
	Folds int
	Grid  Grid
	// Progress, if not nil, is called after every split.
	Progress func(split int, r Run)
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
func RandomSplits(ctx context.Context, newClassifier NewFunc, train, test Set, opts SplitOptions) (*Summary, error) {
	splits := max(opts.Splits, 1)
	if test.Y == nil && opts.PerClass == 0 {
		return nil, fmt.Errorf("eval: no test set and no training samples per class to split one off")
	}
	s := &Summary{}
	for i := range splits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rng := rand.New(rand.NewPCG(opts.Seed, uint64(i)))
		tr, te := train, test
		var err error
		if test.Y == nil {
			tr, te, err = SplitPerClass(train, opts.PerClass, opts.TestPerClass, rng)
		} else {
			tr, err = DrawPerClass(train, opts.PerClass, rng)
		}
		if err != nil {
			return nil, err
		}
		var best Params
		if opts.Folds > 1 && len(opts.Grid) > 0 {
			cv, err := CrossValidate(ctx, newClassifier, tr.Y, tr.Labels, opts.Folds, opts.Grid, rng.Uint64())
			if err != nil {
				return nil, err
			}
			best = cv.Best
		}
		c, err := newClassifier()
		if err != nil {
			return nil, err
		}
		if err := Configure(c, best); err != nil {
			return nil, err
		}
		r, _, err := FitPredict(ctx, c, tr, te)
		if err != nil {
			return nil, err
		}
		r.Params = best
		s.Runs = append(s.Runs, r)
		if opts.Progress != nil {
			opts.Progress(i, r)
		}
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
