package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/online"
	"github.com/lrsdl/lrsdl/split"
	"github.com/lrsdl/lrsdl/stream"
)

func maxprocs() int { return runtime.GOMAXPROCS(0) }

// setting is one comparison: a data set and the parameters of both runs.
type setting struct {
	set, method           string
	k, k0                 int
	lambda1, lambda2, eta float64
}

// compare trains batch and minibatch LRSDL and FDDL with the same
// parameters and the same number of passes over the training set of each
// data set of -sets, and reports their test accuracies.
func compare() error {
	// AR gender: the authors' settings (DESIGN.md); COIL-100 and Flower:
	// the FDDL/LRSDL defaults with fewer atoms, to keep batch training short.
	all := []setting{
		{"argender", "LRSDL", 25, 10, 0.001, 0.01, 0.01},
		{"argender", "FDDL", 25, 0, 0.001, 0.05, 0},
		{"coil", "LRSDL", 5, 5, 0.01, 0.01, 0.1},
		{"coil", "FDDL", 5, 0, 0.01, 0.01, 0},
		{"flower", "LRSDL", 10, 5, 0.01, 0.01, 0.1},
		{"flower", "FDDL", 10, 0, 0.01, 0.01, 0},
	}
	want := map[string]bool{}
	for _, s := range strings.Split(*sets, ",") {
		want[strings.TrimSpace(s)] = true
	}
	for _, s := range all {
		if !want[s.set] {
			continue
		}
		train, test, err := load(s.set)
		if err != nil {
			return err
		}
		if err := compareOne(s, train, test); err != nil {
			return err
		}
	}
	return nil
}

// load returns the unit-norm training and test sets of a data set:
// AR gender and Flower as split in their files, COIL-100 with 10 views
// per object for training and 10 others for test.
func load(name string) (train, test split.Set, err error) {
	file := map[string]string{"argender": "argender.mat", "coil": "coil100-32x32.mat", "flower": "flower17-split1.mat"}[name]
	if file == "" {
		return train, test, fmt.Errorf("unknown data set %q", name)
	}
	ds, err := data.Load(filepath.Join(*testdata, file), data.LoadOptions{Normalize: true})
	if err != nil {
		return train, test, err
	}
	if ds.Test.Y == nil {
		return split.Split(ds.Train, 10, 10, rand.New(rand.NewPCG(1, 0)))
	}
	return ds.Train, ds.Test, nil
}

func compareOne(s setting, train, test split.Set) error {
	passes := 30 // the batch methods' default outer iterations
	if *epochs > 0 {
		passes = *epochs
	}
	fo := methods.FDDLOptions{K: s.k, Lambda1: s.lambda1, Lambda2: s.lambda2, Iters: passes, Tol: methods.Off}
	var c lrsdl.Classifier = &methods.FDDL{Options: fo}
	if s.method == "LRSDL" {
		c = &methods.LRSDL{Options: methods.LRSDLOptions{FDDLOptions: fo, K0: s.k0, Eta: s.eta}}
	}
	start := time.Now()
	if err := c.Fit(context.Background(), train.Y, train.Labels); err != nil {
		return err
	}
	bt := time.Since(start)
	bacc, err := score(c.Predict, test)
	if err != nil {
		return err
	}
	o := online.Options{Method: s.method, K: s.k, K0: s.k0, Lambda1: s.lambda1, Lambda2: s.lambda2, Eta: s.eta,
		Batch: *batch, Epochs: passes, OwnIters: *own}
	m, err := online.New(o)
	if err != nil {
		return err
	}
	start = time.Now()
	if err := m.Fit(context.Background(), &stream.Dense{Y: train.Y, Labels: train.Labels, Size: 4096}); err != nil {
		return err
	}
	ot := time.Since(start)
	oc, err := m.Classifier()
	if err != nil {
		return err
	}
	oacc, err := score(oc.Predict, test)
	if err != nil {
		return err
	}
	d, n := train.Y.Dims()
	fmt.Printf("%s %s (d=%d N=%d, k=%d k0=%d λ1=%g λ2=%g η=%g, %d passes): batch %.2f%% (%.1f s), minibatch of %d %.2f%% (%.1f s), difference %+.2f points\n",
		s.set, s.method, d, n, s.k, s.k0, s.lambda1, s.lambda2, s.eta, passes, bacc, bt.Seconds(), *batch, oacc, ot.Seconds(), oacc-bacc)
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
