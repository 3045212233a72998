package data

import (
	"slices"
	"strings"
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"
)

// testSet returns a set whose column j is (j, j+0.5) with labels cycling
// through 0..c−1, so that every column identifies its origin.
func testSet(n, c int, sparseY bool) *Set {
	y := mat.NewDense(2, n, nil)
	labels := make([]int, n)
	for j := 0; j < n; j++ {
		y.Set(0, j, float64(j))
		y.Set(1, j, float64(j)+0.5)
		labels[j] = (j * 7 % n) % c
	}
	if sparseY {
		return &Set{Y: toCSC(y), Labels: labels}
	}
	return &Set{Y: y, Labels: labels}
}

// origins returns the original index of each column of a subset of a
// testSet, checking that its labels came along.
func origins(t *testing.T, parent, s *Set) []int {
	t.Helper()
	_, n := s.Y.Dims()
	idx := make([]int, n)
	for j := range idx {
		idx[j] = int(s.Y.At(0, j))
		if s.Y.At(1, j) != float64(idx[j])+0.5 || s.Labels[j] != parent.Labels[idx[j]] {
			t.Fatalf("column %d does not match sample %d", j, idx[j])
		}
	}
	return idx
}

func TestSplitPerClass(t *testing.T) {
	for _, sp := range []bool{false, true} {
		s := testSet(40, 3, sp) // class sizes 14, 13, 13
		train, rest, err := SplitPerClass(s, 5, 42)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := train.Y.(*sparse.CSC); ok != sp {
			t.Errorf("sparse %v: train Y is %T", sp, train.Y)
		}
		if c := labelCounts(train.Labels); !slices.Equal(c, []int{5, 5, 5}) {
			t.Errorf("train counts %v", c)
		}
		if c := labelCounts(rest.Labels); !slices.Equal(c, []int{9, 8, 8}) {
			t.Errorf("rest counts %v", c)
		}
		if !slices.IsSorted(train.Labels) || !slices.IsSorted(rest.Labels) {
			t.Errorf("not sorted by class: %v %v", train.Labels, rest.Labels)
		}
		a, b := origins(t, s, train), origins(t, s, rest)
		all := slices.Sorted(slices.Values(append(slices.Clone(a), b...)))
		for i, k := range all {
			if i != k {
				t.Fatalf("train and rest are not a partition: %v", all)
			}
		}
		// Deterministic for a seed, different for another.
		train2, _, _ := SplitPerClass(s, 5, 42)
		if !slices.Equal(origins(t, s, train2), a) {
			t.Error("same seed, different split")
		}
		train3, _, _ := SplitPerClass(s, 5, 43)
		if slices.Equal(origins(t, s, train3), a) {
			t.Error("different seeds, same split")
		}
	}
	s := testSet(6, 2, false)
	if _, rest, err := SplitPerClass(s, 3, 1); err != nil || rest != nil {
		t.Errorf("all samples drawn: rest %v, err %v", rest, err)
	}
	if _, _, err := SplitPerClass(s, 4, 1); err == nil || !strings.Contains(err.Error(), "class 0 has 3 samples, fewer than the 4") {
		t.Errorf("too many per class: %v", err)
	}
	if _, _, err := SplitPerClass(s, 0, 1); err == nil || !strings.Contains(err.Error(), "want at least 1") {
		t.Errorf("zero per class: %v", err)
	}
	if _, _, err := SplitPerClass(&Set{}, 1, 1); err == nil || !strings.Contains(err.Error(), "empty set") {
		t.Errorf("empty set: %v", err)
	}
}

func TestSubset(t *testing.T) {
	s := testSet(10, 2, false)
	idx := []int{7, 2, 2, 9}
	for _, y := range []mat.Matrix{s.Y, toCSC(s.Y), s.Y.T().T()} {
		sub := Subset(&Set{Y: y, Labels: s.Labels}, idx)
		if got := origins(t, s, sub); !slices.Equal(got, idx) {
			t.Errorf("%T: subset of %v", y, got)
		}
	}
}

func TestStratifiedKFold(t *testing.T) {
	labels := make([]int, 53)
	for i := range labels {
		labels[i] = i % 4
		if i > 40 {
			labels[i] = 3
		}
	}
	folds, err := StratifiedKFold(labels, 5, 7)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, len(labels))
	var perClass [][]int
	for _, f := range folds {
		if !slices.IsSorted(f) {
			t.Errorf("fold not sorted: %v", f)
		}
		var c []int
		for _, i := range f {
			seen[i]++
		}
		for _, i := range f {
			for len(c) <= labels[i] {
				c = append(c, 0)
			}
			c[labels[i]]++
		}
		perClass = append(perClass, c)
		if len(f) < 10 || len(f) > 11 {
			t.Errorf("fold size %d, want 10 or 11", len(f))
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("sample %d is in %d folds", i, n)
		}
	}
	for c := 0; c < 4; c++ {
		lo, hi := 1<<30, 0
		for _, pc := range perClass {
			lo, hi = min(lo, pc[c]), max(hi, pc[c])
		}
		if hi-lo > 1 {
			t.Errorf("class %d spread %d..%d over folds", c, lo, hi)
		}
	}
	again, _ := StratifiedKFold(labels, 5, 7)
	other, _ := StratifiedKFold(labels, 5, 8)
	if !slices.EqualFunc(folds, again, slices.Equal) || slices.EqualFunc(folds, other, slices.Equal) {
		t.Error("folds not determined by the seed")
	}
	if c := Complement(6, []int{4, 1}); !slices.Equal(c, []int{0, 2, 3, 5}) {
		t.Errorf("Complement = %v", c)
	}
	for _, k := range []int{1, 54} {
		if _, err := StratifiedKFold(labels, k, 1); err == nil || !strings.Contains(err.Error(), "folds") {
			t.Errorf("k=%d: %v", k, err)
		}
	}
}

func TestSplitPerClassIndices(t *testing.T) {
	s := testSet(40, 3, false) // class sizes 14, 13, 13
	for seed := uint64(1); seed <= 3; seed++ {
		tr, re, err := SplitPerClassIndices(s.Labels, 4, seed)
		if err != nil {
			t.Fatal(err)
		}
		train, rest, _ := SplitPerClass(s, 4, seed)
		if got := origins(t, s, train); !slices.Equal(got, tr) {
			t.Errorf("seed %d: train indices %v, SplitPerClass drew %v", seed, tr, got)
		}
		if got := origins(t, s, rest); !slices.Equal(got, re) {
			t.Errorf("seed %d: rest indices %v, SplitPerClass left %v", seed, re, got)
		}
	}
	if _, _, err := SplitPerClassIndices(s.Labels, 14, 1); err == nil || !strings.Contains(err.Error(), "fewer than the 14") {
		t.Errorf("too many per class: %v", err)
	}
}

// checkGroupFolds checks that folds partition 0..len(labels)−1, never split
// a group, and returns the number of samples of each class in each fold.
func checkGroupFolds(t *testing.T, folds [][]int, labels, groups []int, nclass int) [][]int {
	t.Helper()
	seen := make([]int, len(labels))
	foldOf := map[int]int{}
	count := make([][]int, len(folds))
	for f, idx := range folds {
		if len(idx) == 0 || !slices.IsSorted(idx) {
			t.Errorf("fold %d empty or not sorted: %v", f, idx)
		}
		count[f] = make([]int, nclass)
		for _, i := range idx {
			seen[i]++
			count[f][labels[i]]++
			if g, ok := foldOf[groups[i]]; ok && g != f {
				t.Errorf("group %d in folds %d and %d", groups[i], g, f)
			}
			foldOf[groups[i]] = f
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("sample %d is in %d folds", i, n)
		}
	}
	return count
}

func TestStratifiedGroupKFold(t *testing.T) {
	// Two classes of 12 and 8 "people" with 5 samples each, stored
	// interleaved; people have scattered ids.
	var labels, groups []int
	for i := 0; i < 20*5; i++ {
		p := i % 20
		labels = append(labels, min(p/12, 1))
		groups = append(groups, 1000-7*p)
	}
	for _, k := range []int{2, 3, 4, 5} {
		folds, err := StratifiedGroupKFold(labels, groups, k, 7)
		if err != nil {
			t.Fatal(err)
		}
		count := checkGroupFolds(t, folds, labels, groups, 2)
		for c := 0; c < 2; c++ {
			lo, hi := 1<<30, 0
			for _, n := range count {
				lo, hi = min(lo, n[c]), max(hi, n[c])
			}
			if hi-lo > 5 { // one person
				t.Errorf("k=%d: class %d spread %d..%d over folds", k, c, lo, hi)
			}
		}
	}
	a, _ := StratifiedGroupKFold(labels, groups, 4, 7)
	b, _ := StratifiedGroupKFold(labels, groups, 4, 7)
	c, _ := StratifiedGroupKFold(labels, groups, 4, 8)
	if !slices.EqualFunc(a, b, slices.Equal) || slices.EqualFunc(a, c, slices.Equal) {
		t.Error("folds not determined by the seed")
	}

	// One sample per group: stratified as StratifiedKFold is.
	labels = make([]int, 53)
	groups = make([]int, 53)
	for i := range labels {
		labels[i], groups[i] = i%4, i
		if i > 40 {
			labels[i] = 3
		}
	}
	folds, err := StratifiedGroupKFold(labels, groups, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	count := checkGroupFolds(t, folds, labels, groups, 4)
	for c := 0; c < 4; c++ {
		lo, hi := 1<<30, 0
		for _, n := range count {
			lo, hi = min(lo, n[c]), max(hi, n[c])
		}
		if hi-lo > 1 {
			t.Errorf("singleton groups: class %d spread %d..%d over folds", c, lo, hi)
		}
	}
	for _, f := range folds {
		if len(f) < 10 || len(f) > 11 {
			t.Errorf("singleton groups: fold size %d, want 10 or 11", len(f))
		}
	}

	for _, tc := range []struct {
		labels, groups []int
		k              int
		want           string
	}{
		{[]int{0, 0, 1}, []int{0, 1}, 2, "2 groups for 3 labels"},
		{[]int{0, 0, 1, 1}, []int{5, 5, 6, 6}, 3, "3 folds for 2 groups"},
		{[]int{0, 1}, []int{0, 1}, 1, "want at least 2"},
	} {
		if _, err := StratifiedGroupKFold(tc.labels, tc.groups, tc.k, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v k=%d: error %v, want %q", tc.labels, tc.groups, tc.k, err, tc.want)
		}
	}
}
