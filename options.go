package lrsdl

import (
	"context"
	"time"

	"gonum.org/v1/gonum/mat"
)

// Param describes one option of a method, as Configurable lists it.
type Param struct {
	Name    string // as set by SetParam and the command's -p name=value, e.g. "lambda1"
	Type    string // "int", "float", "bool" or "seed"
	Value   string // the value set; "" while it is zero (the default); resolved after Fit
	Default string // the documented default, e.g. "20" or "min(20, smallest class)"
	Range   string // the declared range, e.g. "≥ 1" or "[0, 1]"
	Doc     string // what the option does, one line
	// Predict is true for options that act only at prediction (a
	// prediction rule, its weights): changing one after Fit needs no new
	// Fit, so cross-validation trains once for all their values.
	Predict bool
}

// Configurable is implemented by every method of package methods: its
// options can be listed and set by name, and its progress reported.
type Configurable interface {
	// Params describes every option. After Fit or SetState the values are
	// the resolved ones the model was trained with.
	Params() []Param
	// SetParam sets the named option from its text form. The value is
	// literal: "0" sets 0 where the range allows it, and a value outside
	// the range is an error naming the option, the value and the range.
	// Once trained, a prediction option (Param.Predict) applies to the
	// model at once; a training option waits for the next Fit.
	SetParam(name, value string) error
	// SetProgress sets the function called after every outer iteration of
	// Fit (nil for none).
	SetProgress(ProgressFunc)
}

// StopReason says why a training run stopped.
type StopReason string

// The reasons a training run stops.
const (
	StopMaxIters  StopReason = "max_iterations" // ran every outer iteration asked for
	StopConverged StopReason = "converged"      // the cost changed by less than the tolerance
	StopCancelled StopReason = "cancelled"      // the context was cancelled
)

// FitInfo describes the last training run of a method.
type FitInfo struct {
	Iters   int           // outer iterations run
	Stop    StopReason    // why it stopped; "" for methods without iterations
	Elapsed time.Duration // wall time of Fit
	Cost    Cost          // cost after the last iteration, when the method reports one
}

// Fitted is implemented by every method of package methods.
type Fitted interface {
	// FitInfo describes the last call of Fit.
	FitInfo() FitInfo
}

// ContextPredictor is implemented by every method of package methods:
// PredictContext is Predict that returns ctx.Err() promptly when ctx is
// cancelled.
type ContextPredictor interface {
	PredictContext(ctx context.Context, Y mat.Matrix) ([]int, error)
}
