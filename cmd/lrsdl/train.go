package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/split"
)

// trainResult is the output of 'lrsdl train -json'.
type trainResult struct {
	Method       string      `json:"method"`
	Dataset      string      `json:"dataset"` // name, as in eval -json
	Data         string      `json:"data"`    // file
	Samples      int         `json:"samples"`
	Dimension    int         `json:"dimension"`
	Classes      int         `json:"classes"`
	Normalize    bool        `json:"normalize"`
	Backend      string      `json:"backend"`
	Params       eval.Params `json:"params"`
	ItersRun     int         `json:"iters_run,omitempty"`
	StopReason   string      `json:"stop_reason,omitempty"`
	Cost         *float64    `json:"cost,omitempty"` // the method's cost after training, when it reports one
	TrainSeconds float64     `json:"train_seconds"`
	Model        string      `json:"model"`
	TestSamples  int         `json:"test_samples,omitempty"`
	TestAccuracy *float64    `json:"test_accuracy,omitempty"`
}

func runTrain(ctx context.Context, e *env, args []string) error {
	fs := flagSet(e, "train")
	var df dataFlags
	var mf methodFlags
	df.register(fs, true, true, false)
	mf.register(fs)
	e.progressFlags(fs)
	method := fs.String("method", "", "method `name` (see 'lrsdl methods')")
	perClass := fs.Int("train-per-class", 0, "train on `N` samples per class drawn at random (0: all training samples)")
	out := fs.String("o", "", "model `file` to write"+outputDoc)
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	var sf streamFlags
	sf.register(fs)
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
	case sf.batch < 0:
		return usagef("-batch %d: want B ≥ 1", sf.batch)
	case sf.batch > 0:
		if *perClass != 0 || *asJSON {
			return usagef("-batch streams every sample of -data: -train-per-class and -json do not apply")
		}
		return runTrainStream(ctx, e, *method, df.path, *out, df.normalize, &mf, &sf)
	case sf.epochs != 0 || sf.labels != "":
		return usagef("-epochs and -labels go with -batch")
	}
	if v, ok := mf.params["no_normalize"]; ok && v != 0 && df.normalize {
		// The model file records the model's normalisation only.
		return usagef("-p no_normalize=%g: the model would classify samples as they are, trained on samples scaled by -normalize; give -normalize=false", v)
	}
	mf.noNormalize = !df.normalize
	c, err := mf.newClassifier(*method)()
	if err != nil {
		return err
	}
	m, ok := c.(lrsdl.Model)
	if !ok {
		return fmt.Errorf("method %s cannot be saved to a model file", c.Name())
	}
	of, err := createOut(e.rep, "o", *out, "-data", df.path)
	if err != nil {
		return err
	}
	defer of.abort()
	ds, err := df.load(ctx, e.rep)
	if err != nil {
		return err
	}
	tr, err := split.Draw(ds.Train, *perClass, split.Rand(mf.seed))
	if err != nil {
		return fmt.Errorf("%s: -train-per-class %d: %v", df.path, *perClass, err)
	}
	if err := checkTraining(df.path, tr); err != nil {
		return err
	}
	d, _ := tr.Y.Dims()
	e.rep.event("%s: training on %d samples of dimension %d, %d classes from %s; %s", c.Name(), tr.Len(), d, len(ds.Classes), df.path, normalizeNote(df.normalize))
	j := e.rep.job(c.Name(), 1)
	setProgress(c, j.fit("", iterations(c)))
	t0 := time.Now()
	err = c.Fit(ctx, tr.Y, tr.Labels)
	j.finish()
	if err != nil {
		return err
	}
	took := time.Since(t0)
	if err := of.commit(func(w io.Writer) error { return methods.Save(w, m) }); err != nil {
		return err
	}
	res := trainResult{Method: c.Name(), Dataset: ds.Name, Data: df.path, Samples: tr.Len(), Dimension: d, Classes: len(ds.Classes),
		Normalize: df.normalize, Backend: lrsdl.Backend(), Params: paramValues(c), TrainSeconds: took.Seconds(), Model: *out}
	res.ItersRun, res.StopReason = fitInfo(c)
	if f, ok := c.(lrsdl.Fitted); ok {
		if fc := f.FitInfo().Cost; len(fc.Terms) > 0 {
			res.Cost = &fc.Total
		}
	}
	if te := ds.Test; te.Y != nil {
		pred, err := predict(ctx, c, te.Y)
		if err != nil {
			return &writtenError{path: *out, err: err}
		}
		acc := eval.Accuracy(pred, te.Labels)
		res.TestSamples, res.TestAccuracy = te.Len(), &acc
	}
	if *asJSON {
		return printJSON(e.stdout, res)
	}
	fmt.Fprintf(e.stdout, "trained %s on %d samples of dimension %d, %d classes, in %.3gs%s; model written to %s\n",
		c.Name(), tr.Len(), d, len(ds.Classes), took.Seconds(), stopNote(res.ItersRun, res.StopReason, res.Cost), *out)
	fmt.Fprintf(e.stdout, "%s\n", normalizeNote(df.normalize))
	if res.TestAccuracy != nil {
		fmt.Fprintf(e.stdout, "test accuracy %.2f%% on the %d samples of the test set of %s\n", 100**res.TestAccuracy, res.TestSamples, df.path)
	}
	return nil
}

// stopNote describes how training stopped and the final cost, e.g.
// " (30 iterations, max_iterations, cost 18.7)".
func stopNote(iters int, stop string, cost *float64) string {
	var c string
	if cost != nil {
		c = fmt.Sprintf(", cost %.6g", *cost)
	}
	switch {
	case iters == 0:
		return ""
	case stop == "":
		return fmt.Sprintf(" (%d iterations%s)", iters, c)
	}
	return fmt.Sprintf(" (%d iterations, %s%s)", iters, stop, c)
}

func printJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// writtenError is an error after the output was written in full: the
// command failed or was interrupted, but path holds its new content.
type writtenError struct {
	path string
	err  error
}

func (e *writtenError) Error() string {
	return fmt.Sprintf("%v (the model was written to %s; the test set was not scored)", e.err, e.path)
}

func (e *writtenError) Unwrap() error { return e.err }
