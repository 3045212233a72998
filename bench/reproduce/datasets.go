package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/split"
)

// newFunc returns a constructor of method name configured with p (options
// the method lacks are skipped) and the seed.
func (r *run) newFunc(name string, p eval.Params) eval.NewFunc {
	return func() (lrsdl.Classifier, error) {
		c, err := methods.New(name)
		if err != nil {
			return nil, err
		}
		q := eval.Params{"seed": float64(r.seed)}
		if r.cfg.Iters > 0 {
			q["iters"] = float64(r.cfg.Iters)
		}
		for k, v := range p {
			q[k] = v
		}
		return c, configure(c, q)
	}
}

// configure sets the options of p that c has.
func configure(c lrsdl.Classifier, p eval.Params) error {
	names := eval.ParamNames(c)
	q := eval.Params{}
	for k, v := range p {
		if contains(names, k) {
			q[k] = v
		}
	}
	return eval.Configure(c, q)
}

// dataset loads name.mat from the data directory as user-labelled sets,
// samples scaled to unit norm, the test set capped per class. It returns the
// sets of split 1. Oxford Flower's Y_train and Y_test are pooled (80 per
// class, as the paper describes the data set) and every split draws FlPerClass
// training and FlTest test samples per class from the pool: split 1 is split 0
// of eval.RandomSplits on the pool. COIL-100 is one pool of 72 views per
// object, split into CoPerClass training views and the rest.
func (r *run) dataset(name string) (train, test split.Set, err error) {
	if s, ok := r.sets[name]; ok {
		return s[0], s[1], nil
	}
	ds, err := data.Load(filepath.Join(r.dataDir, name+".mat"), data.LoadOptions{Normalize: true})
	if err != nil {
		return train, test, err
	}
	if ds.Test.Y == nil && name != coil {
		return train, test, fmt.Errorf("%s: no test set in the file", name)
	}
	train, test = ds.Train, ds.Test
	if name == arGender {
		// Y_train holds 14 consecutive images per person; folds keep a
		// person together so cross-validation measures gender, not identity.
		if train.Groups, err = split.RunGroups(train.Labels, 14); err != nil {
			return train, test, err
		}
	}
	if name == flower {
		p := pool(train, test)
		if r.cfg.FlClasses > 0 {
			p = firstClasses(p, r.cfg.FlClasses)
		}
		r.pools[name] = p
		if train, test, err = split.Split(p, r.cfg.FlPerClass, r.cfg.FlTest, rand.New(rand.NewPCG(r.seed, 0))); err != nil {
			return train, test, err
		}
	}
	if name == coil {
		// One file of 72 views per object: every split draws CoPerClass
		// views for training and tests on the others.
		p := train
		if r.cfg.CoClasses > 0 {
			p = firstClasses(p, r.cfg.CoClasses)
		}
		r.pools[name] = p
		if train, test, err = split.Split(p, r.cfg.CoPerClass, 0, rand.New(rand.NewPCG(r.seed, 0))); err != nil {
			return train, test, err
		}
	}
	if r.cfg.TestCap > 0 {
		if test, err = capPerClass(test, r.cfg.TestCap, r.seed); err != nil {
			return train, test, err
		}
	}
	r.sets[name] = [2]split.Set{train, test}
	return train, test, nil
}

// pool returns the samples of a followed by those of b, sparse if both are.
func pool(a, b split.Set) split.Set {
	labels := append(slices.Clone(a.Labels), b.Labels...)
	d, na := a.Y.Dims()
	_, nb := b.Y.Dims()
	sa, okA := a.Y.(*sparse.CSC)
	sb, okB := b.Y.(*sparse.CSC)
	if okA && okB {
		ptr := []int{0}
		var ind []int
		var val []float64
		for _, s := range []*sparse.CSC{sa, sb} {
			_, n := s.Dims()
			for j := range n {
				s.DoColNonZero(j, func(i, _ int, v float64) {
					ind = append(ind, i)
					val = append(val, v)
				})
				ptr = append(ptr, len(ind))
			}
		}
		return split.Set{Y: sparse.NewCSC(d, na+nb, ptr, ind, val), Labels: labels}
	}
	var y mat.Dense
	y.Augment(a.Y, b.Y)
	return split.Set{Y: &y, Labels: labels}
}

// firstClasses keeps the samples of the n smallest labels.
func firstClasses(s split.Set, n int) split.Set {
	classes, _ := split.ByClass(s.Labels)
	var idx []int
	for i, l := range s.Labels {
		if n >= len(classes) || l < classes[n] {
			idx = append(idx, i)
		}
	}
	return split.Subset(s, idx)
}

// capPerClass keeps at most n random samples of every class of s.
func capPerClass(s split.Set, n int, seed uint64) (split.Set, error) {
	_, idx := split.ByClass(s.Labels)
	for _, ix := range idx {
		if len(ix) < n {
			n = len(ix)
		}
	}
	return split.Draw(s, n, rand.New(rand.NewPCG(seed, 99)))
}

// paramsFor returns the options chosen for method on dataset by
// cross-validation on the training samples of split 1, computing them once.
func (r *run) paramsFor(dataset, method string, train split.Set, perClass int) (eval.Params, error) {
	key := dataset + "/" + method
	if p, ok := r.chosen[key]; ok {
		return p, nil
	}
	p := eval.Params{}
	c, err := methods.New(method)
	if err != nil {
		return nil, err
	}
	grid := eval.DefaultGrid(c)
	if folds := r.cfg.Folds; folds >= 2 && len(grid) > 0 {
		tr, err := split.Draw(train, perClass, rand.New(rand.NewPCG(r.seed, 0)))
		if err != nil {
			return nil, err
		}
		t := time.Now()
		cv, err := eval.CrossValidateSet(r.ctx, r.newFunc(method, nil), tr, folds, grid, r.seed)
		if err != nil {
			return nil, fmt.Errorf("cross-validation of %s on %s: %w", method, dataset, err)
		}
		p = cv.Best
		logf("%s %s: CV chose %s in %v", dataset, method, p, time.Since(t).Round(time.Second))
	}
	r.chosen[key] = p
	return p, nil
}
