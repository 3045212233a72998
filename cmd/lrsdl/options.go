package main

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/eval"
)

// setProgress makes c report its outer iterations to f.
func setProgress(c lrsdl.Classifier, f lrsdl.ProgressFunc) { eval.SetProgress(c, f) }

// iterations returns the number of outer iterations c will run, or 0 if
// unknown.
func iterations(c lrsdl.Classifier) int {
	if v, ok := eval.CurrentParams(c)["iters"].(float64); ok {
		return int(v)
	}
	return 0
}

// predict classifies the columns of Y, returning ctx.Err() promptly when
// ctx is cancelled.
func predict(ctx context.Context, c lrsdl.Classifier, Y mat.Matrix) ([]int, error) {
	if cp, ok := c.(interface {
		PredictContext(context.Context, mat.Matrix) ([]int, error)
	}); ok {
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

// paramValues returns c's options by name; after Fit, the values used.
func paramValues(c lrsdl.Classifier) eval.Params { return eval.CurrentParams(c) }

// fitInfo returns the iterations run by c's last Fit and why it stopped
// (0 and "" when c does not say).
func fitInfo(c lrsdl.Classifier) (iters int, stop string) { return 0, "" }
