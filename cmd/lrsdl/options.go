package main

import (
	"context"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/eval"
)

// setProgress makes c report its outer iterations to f.
func setProgress(c lrsdl.Classifier, f lrsdl.ProgressFunc) {
	if cf, ok := c.(lrsdl.Configurable); ok {
		cf.SetProgress(f)
	}
}

// param returns c's option name, and whether c has it.
func param(c lrsdl.Classifier, name string) (lrsdl.Param, bool) {
	if cf, ok := c.(lrsdl.Configurable); ok {
		for _, p := range cf.Params() {
			if p.Name == name {
				return p, true
			}
		}
	}
	return lrsdl.Param{}, false
}

// iterations returns the number of outer iterations c will run at most,
// or 0 if unknown.
func iterations(c lrsdl.Classifier) int {
	p, ok := param(c, "iters")
	if !ok {
		return 0
	}
	v := p.Value
	if v == "" {
		v = p.Default
	}
	n, _ := strconv.Atoi(v)
	return max(n, 0)
}

// paramValues returns c's options by name; after Fit, the values used.
func paramValues(c lrsdl.Classifier) eval.Params { return eval.CurrentParams(c) }

// fitInfo returns the iterations run by c's last Fit and why it stopped
// (0 and "" when c does not say).
func fitInfo(c lrsdl.Classifier) (iters int, stop string) {
	if f, ok := c.(lrsdl.Fitted); ok {
		fi := f.FitInfo()
		return fi.Iters, string(fi.Stop)
	}
	return 0, ""
}

// predict classifies the columns of Y, returning ctx.Err() promptly when
// ctx is cancelled.
func predict(ctx context.Context, c lrsdl.Classifier, Y mat.Matrix) ([]int, error) {
	if cp, ok := c.(lrsdl.ContextPredictor); ok {
		return cp.PredictContext(ctx, Y)
	}
	type result struct {
		pred []int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		p, err := c.Predict(Y)
		done <- result{p, err}
	}()
	select {
	case r := <-done:
		return r.pred, r.err
	case <-ctx.Done():
		// The command exits; the abandoned Predict goes with it.
		return nil, ctx.Err()
	}
}
