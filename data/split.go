package data

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"
)

// Streams of random numbers, so that the same seed used for different
// purposes gives independent draws.
const (
	streamSplit     = 0x6c7273646c // "lrsdl"
	streamSynthetic = 0x73796e7468 // "synth"
)

// newRand returns the random source for a seed and a stream.
func newRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream))
}

// byClass returns the sample indices of each class present in labels, in
// increasing order of class and, within a class, of index.
func byClass(labels []int) (classes []int, members [][]int) {
	_, classes = MapLabels(labels)
	members = make([][]int, len(classes))
	for i, l := range labels {
		c, _ := slices.BinarySearch(classes, l)
		members[c] = append(members[c], i)
	}
	return classes, members
}

// SplitPerClass draws perClass samples of every class of s at random for
// train and puts the other samples in rest. Both keep the samples sorted
// by class and, within a class, in their order in s. rest is nil when no
// sample remains. The draw depends only on seed and the labels; the
// indices in s of the drawn samples are those of SplitPerClassIndices.
// It is an error if perClass < 1 or a class has fewer than perClass samples.
func SplitPerClass(s *Set, perClass int, seed uint64) (train, rest *Set, err error) {
	if s.Len() == 0 {
		return nil, nil, errors.New("data: split of an empty set")
	}
	tr, re, err := SplitPerClassIndices(s.Labels, perClass, seed)
	if err != nil {
		return nil, nil, err
	}
	train = Subset(s, tr)
	if len(re) > 0 {
		rest = Subset(s, re)
	}
	return train, rest, nil
}

// SplitPerClassIndices returns the indices into labels of the samples
// SplitPerClass draws for train and leaves for rest, in the order of its
// outputs: train[k] is the index in s of the k-th sample of train, so
// per-sample data such as groups can follow the split.
func SplitPerClassIndices(labels []int, perClass int, seed uint64) (train, rest []int, err error) {
	if perClass < 1 {
		return nil, nil, fmt.Errorf("data: %d samples per class requested, want at least 1", perClass)
	}
	if len(labels) == 0 {
		return nil, nil, errors.New("data: split of an empty set")
	}
	rng := newRand(seed, streamSplit)
	classes, members := byClass(labels)
	for c, m := range members {
		if len(m) < perClass {
			return nil, nil, fmt.Errorf("data: class %d has %d samples, fewer than the %d per class requested", classes[c], len(m), perClass)
		}
		perm := rng.Perm(len(m))
		pick := make([]int, perClass)
		for k := range pick {
			pick[k] = m[perm[k]]
		}
		slices.Sort(pick)
		train = append(train, pick...)
		other := make([]int, 0, len(m)-perClass)
		for _, k := range perm[perClass:] {
			other = append(other, m[k])
		}
		slices.Sort(other)
		rest = append(rest, other...)
	}
	return train, rest, nil
}

// Split draws perClass training samples per class from d.Train, as
// SplitPerClass does, and makes them the training set. If d has no test
// set, the other samples become the test set; otherwise they are dropped
// and the test set is kept (the paper's protocol for pre-split data such
// as AR gender). It is an error if no sample is left for testing.
func (d *Dataset) Split(perClass int, seed uint64) error {
	train, rest, err := SplitPerClass(d.Train, perClass, seed)
	if err != nil {
		return fmt.Errorf("%s: %w", d.Name, err)
	}
	if d.Test == nil {
		if rest == nil {
			return fmt.Errorf("data: %s: %d samples per class leave none for testing", d.Name, perClass)
		}
		d.Test = rest
	}
	d.Train = train
	return nil
}

// Subset returns the samples of s with the given indices, in that order.
// Y is copied into a matrix of the same kind: *sparse.CSC for a
// *sparse.CSC, *mat.Dense otherwise. Subset panics if idx is empty or
// holds an index out of range.
func Subset(s *Set, idx []int) *Set {
	if len(idx) == 0 {
		panic("data: empty subset")
	}
	labels := make([]int, len(idx))
	for k, j := range idx {
		labels[k] = s.Labels[j]
	}
	r, _ := s.Y.Dims()
	switch y := s.Y.(type) {
	case *sparse.CSC:
		raw := y.RawMatrix()
		indptr := make([]int, len(idx)+1)
		for k, j := range idx {
			indptr[k+1] = indptr[k] + raw.Indptr[j+1] - raw.Indptr[j]
		}
		ind := make([]int, 0, indptr[len(idx)])
		val := make([]float64, 0, indptr[len(idx)])
		for _, j := range idx {
			ind = append(ind, raw.Ind[raw.Indptr[j]:raw.Indptr[j+1]]...)
			val = append(val, raw.Data[raw.Indptr[j]:raw.Indptr[j+1]]...)
		}
		return &Set{Y: sparse.NewCSC(r, len(idx), indptr, ind, val), Labels: labels}
	case *mat.Dense:
		out := mat.NewDense(r, len(idx), nil)
		src, dst := y.RawMatrix(), out.RawMatrix()
		for i := 0; i < r; i++ {
			srow := src.Data[i*src.Stride : i*src.Stride+src.Cols]
			drow := dst.Data[i*dst.Stride : i*dst.Stride+dst.Cols]
			for k, j := range idx {
				drow[k] = srow[j]
			}
		}
		return &Set{Y: out, Labels: labels}
	}
	out := mat.NewDense(r, len(idx), nil)
	for k, j := range idx {
		for i := 0; i < r; i++ {
			out.Set(i, k, s.Y.At(i, j))
		}
	}
	return &Set{Y: out, Labels: labels}
}

// StratifiedKFold partitions the indices 0..len(labels)−1 into k folds
// with the classes spread as evenly as possible: the number of samples of
// a class differs by at most one between folds, and so does the size of
// the folds. It returns the sorted test indices of each fold; the training
// indices of a fold are the others (see Complement). The partition depends
// only on seed and the labels. It is an error if k < 2 or k exceeds the
// number of samples.
func StratifiedKFold(labels []int, k int, seed uint64) ([][]int, error) {
	if k < 2 {
		return nil, fmt.Errorf("data: %d folds, want at least 2", k)
	}
	if k > len(labels) {
		return nil, fmt.Errorf("data: %d folds for %d samples", k, len(labels))
	}
	rng := newRand(seed, streamSplit)
	_, members := byClass(labels)
	folds := make([][]int, k)
	next := 0
	for _, m := range members {
		for _, p := range rng.Perm(len(m)) {
			folds[next] = append(folds[next], m[p])
			next = (next + 1) % k
		}
	}
	for _, f := range folds {
		slices.Sort(f)
	}
	return folds, nil
}

// StratifiedGroupKFold partitions the indices 0..len(labels)−1 into k
// folds that never split a group: samples i and j with groups[i] ==
// groups[j] are in the same fold (for example the images of one person,
// so that validation measures generalisation to new people). Groups are
// taken in random order, larger ones first, and each goes to the fold
// whose class counts n_fc it raises least in Σ_c n_fc·g_c (g_c: the
// group's samples of class c), then to the smallest fold, so classes are
// spread as evenly as whole groups allow; with one sample per group this
// is a stratified partition. It returns the sorted test indices of each
// fold. The partition depends only on seed, the labels and the groups.
// It is an error if k < 2, len(groups) != len(labels) or there are fewer
// than k groups.
func StratifiedGroupKFold(labels, groups []int, k int, seed uint64) ([][]int, error) {
	if k < 2 {
		return nil, fmt.Errorf("data: %d folds, want at least 2", k)
	}
	if len(groups) != len(labels) {
		return nil, fmt.Errorf("data: %d groups for %d labels", len(groups), len(labels))
	}
	ids, members := byClass(groups)
	if len(ids) < k {
		return nil, fmt.Errorf("data: %d folds for %d groups", k, len(ids))
	}
	lab, classes := MapLabels(labels)
	rng := newRand(seed, streamSplit)
	order := rng.Perm(len(ids))
	slices.SortStableFunc(order, func(a, b int) int { return len(members[b]) - len(members[a]) })
	count := make([][]int, k) // count[f][c]: samples of class c in fold f
	for f := range count {
		count[f] = make([]int, len(classes))
	}
	folds := make([][]int, k)
	gc := make([]int, len(classes))
	for _, g := range order {
		clear(gc)
		for _, i := range members[g] {
			gc[lab[i]]++
		}
		best, bestCost := 0, -1
		for f := range folds {
			cost := 0
			for c, v := range gc {
				cost += count[f][c] * v
			}
			if bestCost < 0 || cost < bestCost || cost == bestCost && len(folds[f]) < len(folds[best]) {
				best, bestCost = f, cost
			}
		}
		for c, v := range gc {
			count[best][c] += v
		}
		folds[best] = append(folds[best], members[g]...)
	}
	for _, f := range folds {
		slices.Sort(f)
	}
	return folds, nil
}

// Complement returns the indices in 0..n−1 that are not in idx, in
// increasing order.
func Complement(n int, idx []int) []int {
	in := make([]bool, n)
	for _, i := range idx {
		in[i] = true
	}
	out := make([]int, 0, max(0, n-len(idx)))
	for i, ok := range in {
		if !ok {
			out = append(out, i)
		}
	}
	return out
}
