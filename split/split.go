package split

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"
)

// Set is a set of samples, one per column of Y (d×N), with their labels.
type Set struct {
	// Y holds one sample per column: a *mat.Dense or, for sparse data, a
	// *sparse.CSC.
	Y mat.Matrix
	// Labels holds the class label of each column of Y, as in the source
	// data, or is nil for unlabelled samples.
	Labels []int
	// Groups, if not nil, holds the group of each sample, e.g. the person
	// in a face data set; GroupFolds keeps each group in one fold.
	// Subset carries it along.
	Groups []int
}

// Len returns the number of samples of s.
func (s Set) Len() int {
	if s.Y == nil {
		return 0
	}
	_, n := s.Y.Dims()
	return n
}

// Rand returns the random source that the seeded helpers of data and the
// command use for seed: PCG(seed, "lrsdl").
func Rand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x6c7273646c))
}

// Subset returns the samples of s at the column indices idx, in that order,
// with their labels and groups. Y is copied into a matrix of the same kind:
// a *sparse.CSC stays sparse, anything else becomes a *mat.Dense. Subset
// panics if idx is empty or holds an index out of range.
func Subset(s Set, idx []int) Set {
	if len(idx) == 0 {
		panic("split: empty subset")
	}
	out := Set{Labels: pick(s.Labels, idx), Groups: pick(s.Groups, idx)}
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
		out.Y = sparse.NewCSC(r, len(idx), indptr, ind, val)
	case *mat.Dense:
		d := mat.NewDense(r, len(idx), nil)
		src, dst := y.RawMatrix(), d.RawMatrix()
		for i := 0; i < r; i++ {
			srow := src.Data[i*src.Stride : i*src.Stride+src.Cols]
			drow := dst.Data[i*dst.Stride : i*dst.Stride+dst.Cols]
			for k, j := range idx {
				drow[k] = srow[j]
			}
		}
		out.Y = d
	default:
		d := mat.NewDense(r, len(idx), nil)
		for k, j := range idx {
			for i := 0; i < r; i++ {
				d.Set(i, k, s.Y.At(i, j))
			}
		}
		out.Y = d
	}
	return out
}

// pick returns v[idx[0]], v[idx[1]], …, or nil if v is nil.
func pick(v, idx []int) []int {
	if v == nil {
		return nil
	}
	out := make([]int, len(idx))
	for k, j := range idx {
		out[k] = v[j]
	}
	return out
}

// ByClass returns the distinct labels in increasing order and, for each,
// the indices of its samples in increasing order.
func ByClass(labels []int) (classes []int, idx [][]int) {
	classes = slices.Clone(labels)
	slices.Sort(classes)
	classes = slices.Compact(classes)
	idx = make([][]int, len(classes))
	for j, l := range labels {
		c, _ := slices.BinarySearch(classes, l)
		idx[c] = append(idx[c], j)
	}
	return classes, idx
}

// PerClass draws perClass samples of every class at random for train and
// puts up to restPerClass of the others (0 means all) in rest. For each
// class in increasing order of label it takes rng.Perm of the class's
// samples: the first perClass go to train, the next to rest. Both index
// lists are in increasing order. It is an error if perClass < 1 or a class
// has fewer than perClass samples.
func PerClass(labels []int, perClass, restPerClass int, rng *rand.Rand) (train, rest []int, err error) {
	if perClass < 1 {
		return nil, nil, fmt.Errorf("split: %d samples per class requested, want at least 1", perClass)
	}
	if len(labels) == 0 {
		return nil, nil, fmt.Errorf("split: no samples to draw from")
	}
	classes, idx := ByClass(labels)
	for c, ix := range idx {
		if len(ix) < perClass {
			return nil, nil, fmt.Errorf("split: class %d has %d samples, fewer than the %d per class requested", classes[c], len(ix), perClass)
		}
		for i, k := range rng.Perm(len(ix)) {
			switch {
			case i < perClass:
				train = append(train, ix[k])
			case restPerClass <= 0 || i < perClass+restPerClass:
				rest = append(rest, ix[k])
			}
		}
	}
	slices.Sort(train)
	slices.Sort(rest)
	return train, rest, nil
}

// Draw returns perClass samples of every class of s drawn at random, as
// the train part of PerClass. perClass 0 returns s.
func Draw(s Set, perClass int, rng *rand.Rand) (Set, error) {
	if perClass == 0 {
		return s, nil
	}
	tr, _, err := PerClass(s.Labels, perClass, 0, rng)
	if err != nil {
		return Set{}, err
	}
	return Subset(s, tr), nil
}

// Split divides s with PerClass into perClass training samples per class
// and up to testPerClass test samples per class from the rest (0 means
// all). It is an error if a class has no sample left for the test set.
func Split(s Set, perClass, testPerClass int, rng *rand.Rand) (train, test Set, err error) {
	classes, idx := ByClass(s.Labels)
	for c, ix := range idx {
		if len(ix) <= perClass {
			return Set{}, Set{}, fmt.Errorf("split: class %d has %d samples, need more than %d to leave a test sample", classes[c], len(ix), perClass)
		}
	}
	tr, te, err := PerClass(s.Labels, perClass, testPerClass, rng)
	if err != nil {
		return Set{}, Set{}, err
	}
	return Subset(s, tr), Subset(s, te), nil
}

// Folds assigns each sample to one of k folds, stratified: the samples of
// each class, in increasing order of label, are shuffled by rng.Perm and
// dealt round-robin, the deal continuing across classes, so class counts
// and fold sizes differ by at most one between folds. It returns the fold
// of each sample. It is an error if k < 2 or a class has fewer than k
// samples.
func Folds(labels []int, k int, rng *rand.Rand) ([]int, error) {
	if k < 2 {
		return nil, fmt.Errorf("split: %d folds, want at least 2", k)
	}
	classes, idx := ByClass(labels)
	for c, ix := range idx {
		if len(ix) < k {
			return nil, fmt.Errorf("split: class %d has %d samples, fewer than %d folds", classes[c], len(ix), k)
		}
	}
	fold := make([]int, len(labels))
	f := 0
	for _, ix := range idx {
		for _, i := range rng.Perm(len(ix)) {
			fold[ix[i]] = f
			f = (f + 1) % k
		}
	}
	return fold, nil
}

// RunGroups returns a group for every sample in which each run of n
// consecutive samples of one class, in the order given, is one group: sample
// i is in group (labels[i], ⌊r/n⌋), r the number of earlier samples of its
// class, numbered in order of first appearance. It fits files that list
// each subject's n samples together, such as the 14 images of each person
// in AR gender's Y_train. It is an error if n < 1.
func RunGroups(labels []int, n int) ([]int, error) {
	if n < 1 {
		return nil, fmt.Errorf("split: group size %d, want at least 1", n)
	}
	type key struct{ label, run int }
	seen := map[int]int{} // samples so far by label
	id := map[key]int{}
	groups := make([]int, len(labels))
	for i, l := range labels {
		k := key{l, seen[l] / n}
		seen[l]++
		g, ok := id[k]
		if !ok {
			g = len(id)
			id[k] = g
		}
		groups[i] = g
	}
	return groups, nil
}

// GroupFolds assigns each sample to one of k folds without splitting a
// group: samples i and j with groups[i] == groups[j] share a fold (for
// example the images of one person, so that validation measures
// generalisation to new people). Groups are taken in the order of
// rng.Perm, then stably larger ones first, and each goes to the fold whose
// class counts n_fc it raises least in Σ_c n_fc·g_c (g_c: the group's
// samples of class c), ties to the smallest fold, then the first; so
// classes are spread as evenly as whole groups allow, and with one sample
// per group this is a stratified partition. It returns the fold of each
// sample. It is an error if k < 2, len(groups) != len(labels) or there are
// fewer than k groups.
func GroupFolds(labels, groups []int, k int, rng *rand.Rand) ([]int, error) {
	if k < 2 {
		return nil, fmt.Errorf("split: %d folds, want at least 2", k)
	}
	if len(groups) != len(labels) {
		return nil, fmt.Errorf("split: %d groups for %d labels", len(groups), len(labels))
	}
	ids, members := ByClass(groups)
	if len(ids) < k {
		return nil, fmt.Errorf("split: %d folds for %d groups", k, len(ids))
	}
	classes, byClass := ByClass(labels)
	lab := make([]int, len(labels))
	for c, ix := range byClass {
		for _, i := range ix {
			lab[i] = c
		}
	}
	order := rng.Perm(len(ids))
	slices.SortStableFunc(order, func(a, b int) int { return len(members[b]) - len(members[a]) })
	count := make([][]int, k) // count[f][c]: samples of class c in fold f
	for f := range count {
		count[f] = make([]int, len(classes))
	}
	size := make([]int, k)
	fold := make([]int, len(labels))
	gc := make([]int, len(classes))
	for _, g := range order {
		clear(gc)
		for _, i := range members[g] {
			gc[lab[i]]++
		}
		best, bestCost := 0, -1
		for f := range k {
			cost := 0
			for c, v := range gc {
				cost += count[f][c] * v
			}
			if bestCost < 0 || cost < bestCost || cost == bestCost && size[f] < size[best] {
				best, bestCost = f, cost
			}
		}
		for c, v := range gc {
			count[best][c] += v
		}
		size[best] += len(members[g])
		for _, i := range members[g] {
			fold[i] = best
		}
	}
	return fold, nil
}

// Fold returns the indices of the samples outside fold f (train) and in
// it (val), in increasing order, for the fold assignment of Folds or
// GroupFolds.
func Fold(fold []int, f int) (train, val []int) {
	for i, g := range fold {
		if g == f {
			val = append(val, i)
		} else {
			train = append(train, i)
		}
	}
	return train, val
}
