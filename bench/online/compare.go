package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/online"
	"github.com/lrsdl/lrsdl/split"
	"github.com/lrsdl/lrsdl/stream"
)

func maxprocs() int { return runtime.GOMAXPROCS(0) }

// compare trains batch and minibatch LRSDL and FDDL with the same
// parameters and the same number of passes over AR gender's training set
// and reports their test accuracies.
func compare() error {
	ds, err := data.Load(filepath.Join(*testdata, "argender.mat"), data.LoadOptions{Normalize: true})
	if err != nil {
		return err
	}
	// The authors' AR gender settings (DESIGN.md): k=25, k0=10, λ1=0.001,
	// λ2=0.01, η=0.01; FDDL k=25, λ1=0.001, λ2=0.05.
	type setting struct {
		method                string
		k, k0                 int
		lambda1, lambda2, eta float64
	}
	for _, s := range []setting{{"LRSDL", 25, 10, 0.001, 0.01, 0.01}, {"FDDL", 25, 0, 0.001, 0.05, 0}} {
		passes := 30 // the batch methods' default outer iterations
		if *epochs > 0 {
			passes = *epochs
		}
		fo := methods.FDDLOptions{K: s.k, Lambda1: s.lambda1, Lambda2: s.lambda2, Iters: passes, Tol: methods.Off}
		start := time.Now()
		var bacc float64
		if s.method == "LRSDL" {
			bm := &methods.LRSDL{Options: methods.LRSDLOptions{FDDLOptions: fo, K0: s.k0, Eta: s.eta}}
			if err := bm.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
				return err
			}
			bacc, err = score(bm.Predict, ds.Test)
		} else {
			bm := &methods.FDDL{Options: fo}
			if err := bm.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
				return err
			}
			bacc, err = score(bm.Predict, ds.Test)
		}
		if err != nil {
			return err
		}
		bt := time.Since(start)
		o := online.Options{Method: s.method, K: s.k, K0: s.k0, Lambda1: s.lambda1, Lambda2: s.lambda2, Eta: s.eta,
			Batch: *batch, Epochs: passes}
		if s.k0 == 0 {
			o.K0, o.Eta = 0, 0
		}
		m, err := online.New(o)
		if err != nil {
			return err
		}
		start = time.Now()
		if err := m.Fit(context.Background(), &stream.Dense{Y: ds.Train.Y, Labels: ds.Train.Labels, Size: 4096}); err != nil {
			return err
		}
		c, err := m.Classifier()
		if err != nil {
			return err
		}
		oacc, err := score(c.Predict, ds.Test)
		if err != nil {
			return err
		}
		fmt.Printf("AR gender %s (k=%d k0=%d λ1=%g λ2=%g η=%g, %d passes): batch %.2f%% (%.1f s), minibatch %d %.2f%% (%.1f s)\n",
			s.method, s.k, s.k0, s.lambda1, s.lambda2, s.eta, passes, bacc, bt.Seconds(), *batch, oacc, time.Since(start).Seconds())
	}
	return nil
}

// score returns the percentage of the test samples predicted right.
func score(predict func(mat.Matrix) ([]int, error), s split.Set) (float64, error) {
	pred, err := predict(s.Y)
	if err != nil {
		return 0, err
	}
	ok := 0
	for i, p := range pred {
		if p == s.Labels[i] {
			ok++
		}
	}
	return 100 * float64(ok) / float64(len(pred)), nil
}
