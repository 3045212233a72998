package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/split"
)

func runTrain(ctx context.Context, e *env, args []string) error {
	fs := flagSet(e, "train")
	var df dataFlags
	var mf methodFlags
	df.register(fs, true)
	mf.register(fs)
	method := fs.String("method", "", "method `name` (see 'lrsdl methods')")
	perClass := fs.Int("train-per-class", 0, "train on `N` samples per class drawn at random (0: all training samples)")
	out := fs.String("o", "", "model `file` to write")
	verbose := fs.Bool("v", false, "print the cost after every iteration")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	switch {
	case *method == "":
		return usagef("missing -method NAME")
	case *out == "":
		return usagef("missing -o MODEL")
	case *perClass < 0:
		return usagef("-train-per-class %d: want N ≥ 0", *perClass)
	}
	c, err := mf.newClassifier(*method)()
	if err != nil {
		return err
	}
	if _, ok := c.(lrsdl.Persistent); !ok {
		return fmt.Errorf("method %s cannot be saved to a model file", c.Name())
	}
	ds, err := df.load()
	if err != nil {
		return err
	}
	tr, err := split.Draw(ds.Train, *perClass, split.Rand(mf.seed))
	if err != nil {
		return fmt.Errorf("%s: %v", df.path, err)
	}
	p := newProgress(e, *verbose, c.Name(), iterations(c))
	eval.SetProgress(c, p.iter)
	t0 := time.Now()
	err = c.Fit(ctx, tr.Y, tr.Labels)
	p.done()
	if err != nil {
		return err
	}
	took := time.Since(t0)
	st, err := c.(lrsdl.Persistent).State()
	if err != nil {
		return err
	}
	if err := data.WriteModel(*out, st); err != nil {
		return err
	}
	d, _ := tr.Y.Dims()
	fmt.Fprintf(e.stdout, "trained %s on %d samples of dimension %d, %d classes, in %.3gs; model written to %s\n",
		c.Name(), tr.Len(), d, len(ds.Classes), took.Seconds(), *out)
	if te := ds.Test; te.Y != nil {
		pred, err := c.Predict(te.Y)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "test accuracy %.2f%% on %d samples\n", 100*eval.Accuracy(pred, te.Labels), te.Len())
	}
	return nil
}

// iterations returns the iters option of c, or 0.
func iterations(c lrsdl.Classifier) int {
	if v, ok := eval.CurrentParams(c)["iters"].(float64); ok {
		return int(v)
	}
	return 0
}

func runPredict(ctx context.Context, e *env, args []string) error {
	fs := flagSet(e, "predict")
	var df dataFlags
	df.register(fs, true)
	model := fs.String("model", "", "model `file` written by 'lrsdl train'")
	out := fs.String("o", "", "write the predictions to this CSV `file` (sample, predicted, true label)")
	which := fs.String("set", "test", "samples to classify: `test` (the test set of a split file, else all samples) or train")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	if *model == "" {
		return usagef("missing -model MODEL")
	}
	if *which != "test" && *which != "train" {
		return usagef("-set %q: want test or train", *which)
	}
	st, err := data.ReadModel(*model)
	if err != nil {
		return err
	}
	c, err := newMethod(st.Method)
	if err != nil {
		return fmt.Errorf("%s: %v", *model, err)
	}
	pc, ok := c.(lrsdl.Persistent)
	if !ok {
		return fmt.Errorf("%s: method %s cannot load a model", *model, c.Name())
	}
	if err := pc.SetState(st); err != nil {
		return fmt.Errorf("%s: %v", *model, err)
	}
	ds, err := df.load()
	if err != nil {
		return err
	}
	s := ds.Test
	if *which == "train" || s.Y == nil {
		s = ds.Train
	}
	t0 := time.Now()
	pred, err := c.Predict(s.Y)
	if err != nil {
		return fmt.Errorf("%s: %v", df.path, err)
	}
	took := time.Since(t0)
	fmt.Fprintf(e.stdout, "%s: %d samples classified by %s in %.3gs (%.3g ms/sample)\n", df.path, s.Len(), c.Name(),
		took.Seconds(), 1e3*took.Seconds()/float64(max(1, s.Len())))
	fmt.Fprintf(e.stdout, "accuracy %.2f%%\nconfusion matrix (rows: true label, columns: predicted):\n%s",
		100*eval.Accuracy(pred, s.Labels), eval.NewConfusion(s.Labels, pred))
	if *out != "" {
		return writePredictions(*out, pred, s.Labels)
	}
	return nil
}

func writePredictions(path string, pred, truth []int) error {
	rows := [][]string{{"sample", "predicted", "label"}}
	for i, p := range pred {
		rows = append(rows, []string{strconv.Itoa(i), strconv.Itoa(p), strconv.Itoa(truth[i])})
	}
	return writeCSV(path, rows)
}

// writeCSV writes rows to the file path.
func writeCSV(path string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := csv.NewWriter(f).WriteAll(rows); err != nil {
		f.Close()
		return fmt.Errorf("%s: %v", path, err)
	}
	return f.Close()
}
