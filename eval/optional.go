package eval

import (
	"context"

	"gonum.org/v1/gonum/mat"
)

// The interfaces of this file are optional: a classifier that implements
// them is cross-validated faster (CrossValidateWith), to the same result.

// Resumable is a classifier whose training can be continued (as
// methods.LRSDL, FDDL and D2L2R2): after SetResumable(true), Fit keeps its
// training state; Suspend frees the trained model but keeps that state;
// Resume continues the last Fit on the same data up to iters outer
// iterations in total, giving the model of a Fit with iters.
type Resumable interface {
	SetResumable(on bool)
	Suspend()
	Resume(ctx context.Context, Y mat.Matrix, labels []int, iters int) error
}

// Scorer is a Resumable classifier that scores from its training state
// (as methods.LRSDL, FDDL and D2L2R2): after SetScoreOnly(true), Fit and Resume
// keep that state and leave the model suspended, and ScoreEach returns the
// labels PredictEach would give, without forming the model (for the span
// reduction, without mapping the dictionary back to the data space).
type Scorer interface {
	Resumable
	SetScoreOnly(on bool)
	ScoreEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error)
}

// EachPredictor predicts with several settings of the prediction options
// at once, sharing the work they have in common (as methods.LRSDL, FDDL
// and D2L2R2); the labels are those of setting each and calling Predict.
type EachPredictor interface {
	PredictEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error)
}
