package lrsdl

import (
	"context"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
)

// Backend returns the name of the BLAS that gonum's blas64 uses now:
// "openblas" after UseOpenBLAS, "gonum" for gonum's pure-Go BLAS (the
// default), and "other" for an implementation the program installed itself.
func Backend() string { return blas.Backend() }

// Classifier is a trained-or-untrainable classification method.
//
// Y holds one sample per column. Labels may be any integers; Predict returns
// labels from the set seen by Fit.
type Classifier interface {
	// Name returns the method's name, e.g. "LRSDL".
	Name() string
	// Fit trains the classifier on the columns of Y. It returns ctx.Err()
	// promptly when ctx is cancelled.
	Fit(ctx context.Context, Y mat.Matrix, labels []int) error
	// Predict returns one label for each column of Y.
	Predict(Y mat.Matrix) ([]int, error)
}

// Model is the contract every method of package methods satisfies in full;
// the methods' own doc comments only say what their scores and codes are.
//
// Y holds one sample per column (d×n). Labels may be any integers; after
// Fit (or SetState) the model has C classes, Classes() in increasing
// order, and DecisionFunction and PredictProba return C×n matrices with one
// row per class in that order. Predict is the arg-max of DecisionFunction,
// the first class on ties.
//
// Every method scales each sample, in Fit and at prediction alike, to unit
// ℓ2 norm (zero columns stay zero) unless its Options.NoNormalize is set.
// Its Options struct's zero value means the defaults; Fit resolves them
// without changing Options, and Params reports the resolved values. Every
// model also has Temperature() float64, the softmax temperature T of
// PredictProba: 1 unless set by methods.Calibrate or restored by SetState.
//
// Errors: bad input (dimensions, labels, non-finite values, an option out
// of range) is an error naming what is wrong, never a panic; a method that
// needs a trained model returns methods.ErrNotTrained before a successful
// Fit or SetState; a cancelled ctx gives ctx.Err() promptly. One seed
// gives the same result.
//
// Concurrency: Fit, SetParam, SetProgress and SetState must not run
// concurrently with any other method. Predict, PredictContext,
// DecisionFunction, PredictProba and Transform of a trained model only read
// it and are safe for concurrent use.
type Model interface {
	Classifier
	Configurable
	Fitted
	ContextPredictor
	Persistent
	// DecisionFunction returns the C×n scores of the columns of Y, larger
	// meaning more likely; each method documents its score.
	DecisionFunction(Y mat.Matrix) (*mat.Dense, error)
	// PredictProba returns C×n class probabilities, softmax(scores/T) per
	// column, each column summing to 1.
	PredictProba(Y mat.Matrix) (*mat.Dense, error)
	// Transform returns the codes of the columns of Y, one column per
	// sample; each method documents its rows.
	Transform(Y mat.Matrix) (*mat.Dense, error)
	// Classes returns the labels seen by Fit in increasing order; nil
	// before Fit.
	Classes() []int
}

// Term is one named, weighted term of a cost function.
type Term struct {
	Name  string
	Value float64
}

// Cost is the value of a method's cost function split into its terms,
// named by what they weigh: fidelity, l1, fisher, shared, nuclear,
// incoherence, error, label, classification, …
type Cost struct {
	Total float64 // sum of the terms
	Terms []Term  // in the order of the method's formula
}

// NewCost returns the cost made of terms, in order, with their sum as
// the total.
func NewCost(terms ...Term) Cost {
	var total float64
	for _, t := range terms {
		total += t.Value
	}
	return Cost{Total: total, Terms: terms}
}

// Term returns the value of the named term, or 0.
func (c Cost) Term(name string) float64 {
	for _, t := range c.Terms {
		if t.Name == name {
			return t.Value
		}
	}
	return 0
}

// Progress describes one outer iteration of a training run.
type Progress struct {
	Iter    int           // outer iteration, starting at 1
	Cost    Cost          // cost after the iteration
	Elapsed time.Duration // time since Fit started
	Stop    StopReason    // why training stops, on the last iteration; "" before
}

// ProgressFunc receives training progress. It is called from the goroutine
// running Fit.
type ProgressFunc func(Progress)

// State is the serialisable content of a trained model.
type State struct {
	Method   string                // method name, as returned by Name
	Options  []byte                // method options, JSON-encoded
	Classes  []int                 // Classes[c] is the user label of class c
	Names    []string              // names of Matrices, in order
	Matrices map[string]*mat.Dense // learned matrices by name
	// Temperature is the softmax temperature of PredictProba; 0 means 1.
	Temperature float64
}

// Persistent is implemented by classifiers whose trained state can be saved
// and restored. Restoring the state of a trained model predicts the same
// labels bit for bit.
type Persistent interface {
	// State returns the trained model: its resolved options (normalisation
	// included), classes, learned matrices and PredictProba's temperature.
	State() (*State, error)
	// SetState restores a model returned by State, checking its matrices
	// against its options; a state of another method is an error.
	SetState(*State) error
}
