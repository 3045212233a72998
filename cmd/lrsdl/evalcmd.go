package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/eval"
)

// evalResult is one line of 'lrsdl eval -json'.
type evalResult struct {
	Method               string        `json:"method"`
	Dataset              string        `json:"dataset"`
	Splits               int           `json:"splits"`
	TrainPerClass        int           `json:"train_per_class"`
	TestSamples          int           `json:"test_samples"` // per split
	MeanAcc              float64       `json:"mean_acc"`
	StdAcc               float64       `json:"std_acc"`
	TrainSeconds         float64       `json:"train_seconds"`
	TestSecondsPerSample float64       `json:"test_seconds_per_sample"`
	Params               eval.Params   `json:"params"`
	CVFolds              int           `json:"cv_folds,omitempty"`
	CVGrid               eval.Grid     `json:"cv_grid,omitempty"`
	CVChosen             []eval.Params `json:"cv_chosen,omitempty"`
}

func runEval(ctx context.Context, e *env, args []string) error {
	fs := flagSet(e, "eval")
	var df dataFlags
	var mf methodFlags
	df.register(fs, true)
	mf.register(fs)
	names := fs.String("method", "", "comma-separated method `names` (see 'lrsdl methods'), or all")
	perClass := fs.Int("train-per-class", 0, "training samples drawn per class in each split (0: all; required without a test set)")
	testPerClass := fs.Int("test-per-class", 0, "without a test set: test samples per class taken from the rest (0: all the rest)")
	splits := fs.Int("splits", 1, "number of random splits")
	cv := fs.Int("cv", 0, "choose options per split by `K`-fold cross-validation on the split's training data, over the method's grid:\n"+gridDoc())
	asJSON := fs.Bool("json", false, "print one JSON object per method")
	verbose := fs.Bool("v", false, "print every split and training iteration")
	if err := parse(e, fs, args); err != nil {
		return err
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
	}
	list := strings.Split(*names, ",")
	if *names == "all" {
		list = methodNames()
	}
	// Check every method and option before the long work starts.
	for _, n := range list {
		if _, err := mf.newClassifier(strings.TrimSpace(n))(); err != nil {
			return err
		}
	}
	ds, err := df.load()
	if err != nil {
		return err
	}
	train, test := ds.Train, ds.Test
	if test.Y == nil && *perClass == 0 {
		return usagef("%s has no test set: give -train-per-class N to split one off", df.path)
	}
	if !*asJSON {
		fmt.Fprintf(e.stdout, "%-8s %10s %6s %9s %15s\n", "method", "accuracy %", "± std", "train s", "test ms/sample")
	}
	for _, n := range list {
		newC := mf.newClassifier(strings.TrimSpace(n))
		c, _ := newC()
		opts := eval.SplitOptions{Splits: *splits, PerClass: *perClass, TestPerClass: *testPerClass, Seed: mf.seed}
		if *cv > 0 {
			opts.Folds, opts.Grid = *cv, eval.DefaultGrid(c)
			if opts.Grid == nil {
				fmt.Fprintf(e.stderr, "%s: no cross-validation grid for this method; using its options as given\n", c.Name())
			}
		}
		p := newProgress(e, *verbose, c.Name(), *splits)
		opts.Progress = func(i int, r eval.Run) {
			if *verbose {
				fmt.Fprintf(e.stderr, "%s: split %d/%d accuracy %.2f%% train %.3gs %s\n", c.Name(), i+1, *splits, 100*r.Accuracy, r.TrainTime.Seconds(), r.Params)
			} else {
				p.bar(i+1, fmt.Sprintf("accuracy %.2f%%", 100*r.Accuracy))
			}
		}
		newTraced := newC
		if *verbose {
			newTraced = func() (lrsdl.Classifier, error) {
				c, err := newC()
				if err == nil {
					eval.SetProgress(c, newProgress(e, true, c.Name(), 0).iter)
				}
				return c, err
			}
		}
		s, err := eval.RandomSplits(ctx, newTraced, train, test, opts)
		p.done()
		if err != nil {
			return fmt.Errorf("%s on %s: %w", c.Name(), df.path, err)
		}
		res := evalResult{Method: c.Name(), Dataset: ds.Name, Splits: *splits, TrainPerClass: *perClass,
			MeanAcc: s.MeanAcc, StdAcc: s.StdAcc, TrainSeconds: s.TrainSeconds, TestSecondsPerSample: s.TestSecondsPerSample,
			Params: eval.CurrentParams(c), TestSamples: s.Runs[0].NTest}
		if opts.Folds > 0 && opts.Grid != nil {
			res.CVFolds, res.CVGrid = opts.Folds, opts.Grid
			for _, r := range s.Runs {
				res.CVChosen = append(res.CVChosen, r.Params)
			}
		}
		if *asJSON {
			b, err := json.Marshal(res)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%s\n", b)
			continue
		}
		fmt.Fprintf(e.stdout, "%-8s %10.2f %6.2f %9.3g %15.3g\n", res.Method, 100*res.MeanAcc, 100*res.StdAcc, res.TrainSeconds, 1e3*res.TestSecondsPerSample)
	}
	return nil
}

// gridDoc describes eval.DefaultGrids for -h.
func gridDoc() string {
	var b strings.Builder
	for _, n := range sortedKeys(eval.DefaultGrids) {
		fmt.Fprintf(&b, "\t%s: %s\n", n, eval.DefaultGrids[n])
	}
	return strings.TrimRight(b.String(), "\n")
}
