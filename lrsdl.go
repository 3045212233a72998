package lrsdl

import (
	"context"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

// Backend returns the name of the BLAS implementation linked into this
// binary: "openblas" for builds with -tags openblas, "gonum" otherwise.
func Backend() string { return backend }

// Implementations returns the BLAS implementations linked into this binary
// by name: always "gonum", and "openblas" in the openblas build. Tests use it
// with blas64.Use to check that the backends agree.
func Implementations() map[string]blas.Float64 {
	m := map[string]blas.Float64{"gonum": gonum.Implementation{}}
	addImplementations(m)
	return m
}

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

// Term is one named, weighted term of a cost function.
type Term struct {
	Name  string
	Value float64
}

// Cost is the value of a method's cost function split into its terms.
type Cost struct {
	Total float64 // sum of the terms
	Terms []Term  // in the order of the method's formula
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
}

// Persistent is implemented by classifiers whose trained state can be saved
// and restored. Restoring the state of a trained model predicts the same
// labels bit for bit.
type Persistent interface {
	State() (*State, error)
	SetState(*State) error
}
