package main

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/split"
)

// evalResult is one line of 'lrsdl eval -json'.
type evalResult struct {
	Method               string        `json:"method"`
	Dataset              string        `json:"dataset"`
	Samples              int           `json:"samples"`   // of the file's training set, before splitting
	Dimension            int           `json:"dimension"` // d
	Classes              int           `json:"classes"`   // C
	Normalize            bool          `json:"normalize"`
	Backend              string        `json:"backend"`
	Splits               int           `json:"splits"`
	TrainPerClass        int           `json:"train_per_class"`
	TestSamples          int           `json:"test_samples"` // per split
	MeanAcc              float64       `json:"mean_acc"`
	StdAcc               float64       `json:"std_acc"`
	TrainSeconds         float64       `json:"train_seconds"`
	TestSecondsPerSample float64       `json:"test_seconds_per_sample"`
	Params               eval.Params   `json:"params"`                // as used in the first split
	ItersRun             []int         `json:"iters_run,omitempty"`   // per split
	StopReason           []string      `json:"stop_reason,omitempty"` // per split
	CVFolds              int           `json:"cv_folds,omitempty"`
	CVGroupSize          int           `json:"cv_group_size,omitempty"`
	CVGrid               eval.Grid     `json:"cv_grid,omitempty"`
	CVChosen             []eval.Params `json:"cv_chosen,omitempty"`       // per split, as scored
	CVScores             [][]cvScore   `json:"cv_scores,omitempty"`       // per split, one per distinct grid point
	CVDistinct           []int         `json:"cv_distinct,omitempty"`     // per split, points with distinct predictions
	CVKCap               []int         `json:"cv_k_cap,omitempty"`        // per split, the folds' cap on k (0: none)
	CVChosenIters        []int         `json:"cv_chosen_iters,omitempty"` // per split
}

// cvScore is the mean validation accuracy of one grid point, measured at
// iters outer iterations (fewer for points successive halving dropped).
// SameAs, if set, is the index of an earlier score of the split whose
// predictions were the same on every fold.
type cvScore struct {
	Params   eval.Params `json:"params"`
	Accuracy float64     `json:"accuracy"`
	Iters    int         `json:"iters,omitempty"`
	SameAs   *int        `json:"same_as,omitempty"`
}

// fewClasses is the most classes at which eval -cv without -group-size
// warns that a subject's samples may fall in several folds: with few
// classes (gender, digits) a class usually holds many subjects, with many
// (faces, objects) each class is one.
const fewClasses = 10

func runEval(ctx context.Context, e *env, args []string) error {
	fs := flagSet(e, "eval")
	var df dataFlags
	var mf methodFlags
	df.register(fs, true, true, false)
	mf.register(fs)
	e.progressFlags(fs)
	names := fs.String("method", "", "comma-separated method `names` (see 'lrsdl methods'), or all")
	perClass := fs.Int("train-per-class", 0, "training samples drawn per class in each split (0: all; required without a test set)")
	testPerClass := fs.Int("test-per-class", 0, "without a test set: test samples per class taken from the rest (0: all the rest)")
	splits := fs.Int("splits", 1, "number of random splits")
	cv := fs.Int("cv", 0, "choose options per split by `K`-fold cross-validation on the split's training data, over the method's grid:\n"+gridDoc())
	groupSize := fs.Int("group-size", 0, "with -cv: every `N` consecutive training samples of a class (in file order) come from one subject, e.g. 14 images per person in AR gender's Y_train; folds keep them together, so validation measures generalisation to new subjects (0: folds are drawn sample by sample)")
	gridFlag := fs.String("grid", "", "with -cv: the `grid` to search instead of the method's, e.g. 'lambda1={0.001,0.01} k={20,40}'")
	asJSON := fs.Bool("json", false, "print one JSON object per method")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	var grid eval.Grid
	if *gridFlag != "" {
		if *cv == 0 {
			return usagef("-grid needs -cv K")
		}
		var err error
		if grid, err = eval.ParseGrid(*gridFlag); err != nil {
			return usagef("-%v", err) // "-grid …"
		}
	}
	switch {
	case *names == "":
		return usagef("missing -method NAME[,NAME...]")
	case *splits < 1:
		return usagef("-splits %d: want at least 1", *splits)
	case *perClass < 0 || *testPerClass < 0:
		return usagef("-train-per-class and -test-per-class must not be negative")
	case *cv == 1 || *cv < 0:
		return usagef("-cv %d: want K ≥ 2 folds", *cv)
	case *groupSize < 0:
		return usagef("-group-size %d: want N ≥ 1 samples per subject", *groupSize)
	case *groupSize > 0 && *cv == 0:
		return usagef("-group-size needs -cv K")
	}
	list := strings.Split(*names, ",")
	if *names == "all" {
		list = methodNames()
	}
	mf.noNormalize = !df.normalize
	// Check every method and option before the long work starts.
	for _, n := range list {
		c, err := mf.newClassifier(strings.TrimSpace(n))()
		if err != nil {
			return err
		}
		for _, p := range grid.Points() {
			if err := eval.Configure(c, p); err != nil {
				return usagef("-grid: %v", err)
			}
		}
	}
	ds, err := df.load(ctx, e.rep)
	if err != nil {
		return err
	}
	train, test := ds.Train, ds.Test
	if err := checkTraining(df.path, train); err != nil {
		return err
	}
	if test.Y == nil && *perClass == 0 {
		return usagef("%s has no test set: give -train-per-class N to split one off", df.path)
	}
	// A k of the user's grid above the training samples of a class is an
	// error, as with -p k (cross-validation caps it silently otherwise).
	if ks := grid["k"]; len(ks) > 0 {
		_, idx := split.ByClass(train.Labels)
		most := len(train.Labels)
		for _, ix := range idx {
			most = min(most, len(ix))
		}
		if *perClass > 0 {
			most = min(most, *perClass)
		}
		for _, v := range ks {
			if k, ok := v.(float64); ok && k > float64(most) {
				return usagef("-grid k=%g: k must be at most %d, the training samples of the smallest class", k, most)
			}
		}
	}
	if *groupSize > 0 {
		if train.Groups, err = split.RunGroups(train.Labels, *groupSize); err != nil {
			return usagef("-group-size: %v", err)
		}
		classes, idx := split.ByClass(train.Labels)
		for c, ix := range idx {
			if g := (len(ix) + *groupSize - 1) / *groupSize; g < *cv {
				return usagef("-group-size %d makes %d subjects of class %d, fewer than the %d folds: every fold would miss the class in training", *groupSize, g, classes[c], *cv)
			}
		}
	} else if *cv > 0 && len(ds.Classes) <= fewClasses {
		e.rep.event("cross-validation folds are drawn sample by sample: if several samples come from one subject (e.g. images of one person), give -group-size N, or validation accuracy overstates")
	}
	// The table's head comes with its first row, so that an option the
	// data puts out of range (found at Fit) is an error before any output.
	head := sync.OnceFunc(func() {
		fmt.Fprintf(e.stdout, "%s; %s\n", df.path, normalizeNote(df.normalize))
		fmt.Fprintf(e.stdout, "%-8s %10s %6s %9s %15s\n", "method", "accuracy %", "± std", "train s", "test ms/sample")
	})
	for _, n := range list {
		newC := mf.newClassifier(strings.TrimSpace(n))
		c, _ := newC()
		opts := eval.SplitOptions{Splits: *splits, PerClass: *perClass, TestPerClass: *testPerClass, Seed: mf.seed}
		if *cv > 0 {
			opts.Folds, opts.Grid = *cv, eval.DefaultGrid(c)
			if grid != nil {
				opts.Grid = grid
			}
			if opts.Grid == nil {
				e.rep.event("%s: no cross-validation grid for this method; using its options as given", c.Name())
				opts.Folds = 0
			}
		}
		tr := newEvalTracker(e.rep, c.Name(), opts, newC)
		opts.Progress = func(i int, r eval.Run) {
			chosen := ""
			if r.Params != nil {
				chosen = ", chose " + r.Params.String()
			}
			for j, sc := range r.CV {
				at := ""
				if sc.Iters > 0 {
					at = fmt.Sprintf(" at %d iterations", sc.Iters)
				}
				if sc.Same != j {
					at += fmt.Sprintf(", same predictions as %s", r.CV[sc.Same].Params)
				}
				e.rep.event("%s: split %d/%d cross-validation %s: %.2f%%%s", c.Name(), i+1, *splits, sc.Params, 100*sc.Accuracy, at)
			}
			if cv := r.CVResult; cv != nil {
				e.rep.event("%s: split %d/%d cross-validation: %s", c.Name(), i+1, *splits, cvAccount(cv))
			}
			e.rep.event("%s: split %d/%d accuracy %.2f%%, training %.3gs%s", c.Name(), i+1, *splits, 100*r.Accuracy, r.TrainTime.Seconds(), chosen)
		}
		opts.Fit = tr.fit
		s, err := eval.RandomSplits(ctx, newC, train, test, opts)
		tr.j.finish()
		if err != nil {
			return fmt.Errorf("%s on %s: %w", c.Name(), df.path, err)
		}
		d, _ := train.Y.Dims()
		res := evalResult{Method: c.Name(), Dataset: ds.Name, Samples: train.Len(), Dimension: d, Classes: len(ds.Classes),
			Normalize: df.normalize, Backend: lrsdl.Backend(),
			Splits: *splits, TrainPerClass: *perClass,
			MeanAcc: s.MeanAcc, StdAcc: s.StdAcc, TrainSeconds: s.TrainSeconds, TestSecondsPerSample: s.TestSecondsPerSample,
			Params: paramValues(c), TestSamples: s.Runs[0].NTest}
		for i, f := range tr.finals {
			if i == 0 {
				res.Params = paramValues(f)
			}
			if it, stop := fitInfo(f); it > 0 {
				res.ItersRun, res.StopReason = append(res.ItersRun, it), append(res.StopReason, stop)
			}
		}
		if opts.Folds > 0 {
			res.CVFolds, res.CVGrid, res.CVGroupSize = opts.Folds, opts.Grid, *groupSize
			for _, r := range s.Runs {
				res.CVChosen = append(res.CVChosen, r.Params)
				var sc []cvScore
				for j, v := range r.CV {
					s := cvScore{Params: v.Params, Accuracy: v.Accuracy, Iters: v.Iters}
					if v.Same != j {
						s.SameAs = &v.Same
					}
					sc = append(sc, s)
				}
				res.CVScores = append(res.CVScores, sc)
				if cv := r.CVResult; cv != nil {
					res.CVDistinct = append(res.CVDistinct, cv.Distinct())
					res.CVKCap = append(res.CVKCap, cv.KCap)
					res.CVChosenIters = append(res.CVChosenIters, cv.Scores[cv.Chosen].Iters)
				}
			}
		}
		if *asJSON {
			if err := printJSON(e.stdout, res); err != nil {
				return err
			}
			continue
		}
		head()
		fmt.Fprintf(e.stdout, "%-8s %10.2f %6.2f %9.3g %15.3g\n", res.Method, 100*res.MeanAcc, 100*res.StdAcc, res.TrainSeconds, 1e3*res.TestSecondsPerSample)
	}
	return nil
}

// evalTracker reports the fits of eval.RandomSplits: split, candidate,
// round of successive halving and fold, and the part of the work done.
type evalTracker struct {
	j      *job
	splits int
	newC   eval.NewFunc // makes the method, to read the iterations of a stage's options

	mu     sync.Mutex
	cv     map[int]float64    // cross-validation's share of the work of a split, by split
	finals []lrsdl.Classifier // the final fit of every split
}

func newEvalTracker(r *reporter, label string, opts eval.SplitOptions, newC eval.NewFunc) *evalTracker {
	t := &evalTracker{splits: max(opts.Splits, 1), cv: map[int]float64{}, newC: newC}
	t.j = r.job(label, t.splits)
	if opts.Folds > 1 {
		r.event("%s: %d splits, each choosing among %d grid points by %d-fold cross-validation (fewer if k is capped)", label, t.splits, len(opts.Grid.Points()), opts.Folds)
	}
	return t
}

// fit is an eval.SplitOptions.Fit: it makes c report to t.
func (t *evalTracker) fit(c lrsdl.Classifier, s eval.Stage) {
	where := fmt.Sprintf("split %d/%d", s.Split, s.Splits)
	base, size := float64(s.Split-1)/float64(t.splits), 1/float64(t.splits)
	from, width := base, size
	iters := t.iterations(c, s)
	t.mu.Lock()
	if s.Fold > 0 {
		if _, ok := t.cv[s.Split]; !ok && s.Round == 1 {
			t.cv[s.Split] = t.cvShare(s, iters)
		}
		where += fmt.Sprintf(" · cv %d/%d %s", s.Cand, s.Cands, s.Params)
		if s.Rounds > 1 {
			where += fmt.Sprintf(" · round %d/%d", s.Round, s.Rounds)
		}
		where += fmt.Sprintf(" · fold %d/%d", s.Fold, s.Folds)
		cv := t.cv[s.Split]
		per := cv / float64(s.Rounds*s.Cands*s.Folds)
		from = base + size*(float64(s.Round-1)*cv/float64(s.Rounds)+per*float64((s.Cand-1)*s.Folds+s.Fold-1))
		width = size * per
	} else {
		if s.Folds > 0 {
			cv := t.cv[s.Split]
			from, width = base+size*cv, size*(1-cv)
			where += " · final fit"
			if len(s.Params) > 0 {
				where += " " + s.Params.String()
			}
		}
		t.finals = append(t.finals, c)
	}
	t.mu.Unlock()
	setProgress(c, t.j.fitAt(where, iters, from, width))
}

// cvShare returns the part of a split's work that its cross-validation
// does, from the first round's stage s, whose fits run iters iterations.
// The unit is the split's final fit: every iteration on all the training
// samples. A fold's fit trains on (Folds−1)/Folds of them, and the rounds
// of successive halving cost about the same (fewer candidates, more
// iterations), each as the first round.
func (t *evalTracker) cvShare(s eval.Stage, iters int) float64 {
	units := float64(s.Rounds * s.Cands * (s.Folds - 1))
	if s.Rounds > 1 {
		full := maps.Clone(s.Params)
		delete(full, "iters")
		if f, err := t.newC(); err == nil && eval.Configure(f, full) == nil && iterations(f) > 0 && iters > 0 {
			units *= float64(iters) / float64(iterations(f))
		}
	}
	return units / (units + 1)
}

// iterations returns the iterations a fit at stage s runs to: those of
// the stage's options, which a fit resumed by successive halving reaches
// though c was made with those of an earlier round.
func (t *evalTracker) iterations(c lrsdl.Classifier, s eval.Stage) int {
	if f, err := t.newC(); err == nil && eval.Configure(f, s.Params) == nil {
		return iterations(f)
	}
	return iterations(c)
}

// cvAccount says what a cross-validation compared and chose: the grid's
// points, the distinct ones scored, and the choice as scored.
func cvAccount(cv *eval.CVResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d grid points", cv.Points)
	if cv.KCap > 0 {
		fmt.Fprintf(&b, ", %d after capping k at the folds' smallest class (%d)", len(cv.Scores), cv.KCap)
	}
	if d := cv.Distinct(); d < len(cv.Scores) {
		fmt.Fprintf(&b, ", %d with distinct predictions", d)
	}
	best := cv.Scores[cv.Chosen]
	fmt.Fprintf(&b, "; chose %s (%.2f%%", best.Params, 100*best.Accuracy)
	if best.Iters > 0 {
		fmt.Fprintf(&b, " at %d iterations", best.Iters)
	}
	b.WriteString(")")
	return b.String()
}

// gridDoc describes eval.DefaultGrids for -h.
func gridDoc() string {
	var b strings.Builder
	for _, n := range sortedKeys(eval.DefaultGrids) {
		fmt.Fprintf(&b, "\t%s: %s\n", n, eval.DefaultGrids[n])
	}
	return strings.TrimRight(b.String(), "\n")
}
