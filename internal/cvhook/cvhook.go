// Package cvhook is how package eval reaches the cross-validation plumbing
// of the models of package methods (LRSDL, FDDL and D2L2R2) without those
// models exporting it.
package cvhook

import (
	"context"

	"gonum.org/v1/gonum/mat"
)

// Model is a model whose fits cross-validation resumes and scores from
// their training state. After SetScoreOnly(true), Fit keeps that state and
// leaves the model suspended; Resume continues the last Fit on the same
// data up to iters outer iterations in total, to the model of a Fit with
// iters; ScoreEach returns, for each of sets applied to the prediction
// options, the labels Predict would give (up to rounding) without forming
// the model.
type Model interface {
	Resume(ctx context.Context, Y mat.Matrix, labels []int, iters int) error
	SetScoreOnly(on bool)
	ScoreEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error)
}

var adapt func(any) Model

// Register sets the adapter Of consults; package methods calls it from
// init.
func Register(f func(any) Model) { adapt = f }

// Of returns c as a Model: c itself if it is one, else the registered
// adapter's view of it, nil if c has no such plumbing.
func Of(c any) Model {
	if m, ok := c.(Model); ok {
		return m
	}
	if adapt != nil {
		return adapt(c)
	}
	return nil
}
