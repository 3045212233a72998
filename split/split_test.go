package split

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"
)

// Known answers below were produced by the generators this package
// replaced (eval.Folds, eval.SplitPerClass, eval.DrawPerClass,
// data.StratifiedGroupKFold, data.SplitPerClassIndices): the draws must
// not change, or every published split and fold would.
var (
	kaLabels = []int{7, 3, 3, 7, 9, 3, 7, 9, 9, 3, 7, 3, 9, 7, 3, 9, 7, 3}
	kaGroups = []int{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9}
)

// indexSet returns a set whose column j is (j, j+0.5), with labels and
// groups, so that every column identifies its origin.
func indexSet(labels, groups []int, sparseY bool) Set {
	n := len(labels)
	y := mat.NewDense(2, n, nil)
	for j := 0; j < n; j++ {
		y.Set(0, j, float64(j))
		y.Set(1, j, float64(j)+0.5)
	}
	s := Set{Y: y, Labels: labels, Groups: groups}
	if sparseY {
		var ptr, ind []int
		var val []float64
		ptr = append(ptr, 0)
		for j := 0; j < n; j++ {
			for i := 0; i < 2; i++ {
				if v := y.At(i, j); v != 0 {
					ind, val = append(ind, i), append(val, v)
				}
			}
			ptr = append(ptr, len(ind))
		}
		s.Y = sparse.NewCSC(2, n, ptr, ind, val)
	}
	return s
}

// origins returns the source index of each column of a subset of an
// indexSet, checking that labels and groups came along.
func origins(t *testing.T, parent, s Set) []int {
	t.Helper()
	idx := make([]int, s.Len())
	for j := range idx {
		idx[j] = int(s.Y.At(0, j))
		if s.Y.At(1, j) != float64(idx[j])+0.5 || s.Labels[j] != parent.Labels[idx[j]] ||
			parent.Groups != nil && s.Groups[j] != parent.Groups[idx[j]] {
			t.Fatalf("column %d does not match sample %d", j, idx[j])
		}
	}
	return idx
}

func TestSubset(t *testing.T) {
	idx := []int{5, 0, 17, 5}
	for _, sp := range []bool{false, true} {
		s := indexSet(kaLabels, kaGroups, sp)
		sub := Subset(s, idx)
		if _, ok := sub.Y.(*sparse.CSC); ok != sp {
			t.Errorf("sparse %v: Y is %T", sp, sub.Y)
		}
		if got := origins(t, s, sub); !slices.Equal(got, idx) {
			t.Errorf("sparse %v: origins %v, want %v", sp, got, idx)
		}
	}
	// Any other mat.Matrix becomes dense; nil groups stay nil.
	s := indexSet(kaLabels, nil, false)
	sub := Subset(Set{Y: s.Y.T().T(), Labels: s.Labels}, idx)
	if _, ok := sub.Y.(*mat.Dense); !ok || sub.Groups != nil {
		t.Errorf("Y %T groups %v", sub.Y, sub.Groups)
	}
	if got := origins(t, s, sub); !slices.Equal(got, idx) {
		t.Errorf("origins %v, want %v", got, idx)
	}
	if (Set{}).Len() != 0 || s.Len() != len(kaLabels) {
		t.Errorf("Len")
	}
}

func TestByClass(t *testing.T) {
	classes, idx := ByClass([]int{10, -3, 10, 0})
	if !slices.Equal(classes, []int{-3, 0, 10}) || len(idx) != 3 ||
		!slices.Equal(idx[0], []int{1}) || !slices.Equal(idx[1], []int{3}) || !slices.Equal(idx[2], []int{0, 2}) {
		t.Errorf("ByClass = %v %v", classes, idx)
	}
}

func TestPerClassKnownAnswer(t *testing.T) {
	tr, rest, err := PerClass(kaLabels, 4, 0, Rand(5))
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 14, 15}; !slices.Equal(tr, want) {
		t.Errorf("train %v, want %v", tr, want)
	}
	if want := []int{9, 11, 12, 13, 16, 17}; !slices.Equal(rest, want) {
		t.Errorf("rest %v, want %v", rest, want)
	}

	s := indexSet(kaLabels, kaGroups, false)
	a, b, err := Split(s, 2, 2, rand.New(rand.NewPCG(5, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := origins(t, s, a), []int{6, 11, 12, 15, 16, 17}; !slices.Equal(got, want) {
		t.Errorf("Split train %v, want %v", got, want)
	}
	if got, want := origins(t, s, b), []int{1, 2, 4, 7, 10, 13}; !slices.Equal(got, want) {
		t.Errorf("Split test %v, want %v", got, want)
	}
	d, err := Draw(s, 3, rand.New(rand.NewPCG(5, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := origins(t, s, d), []int{1, 2, 3, 4, 5, 6, 7, 10, 15}; !slices.Equal(got, want) {
		t.Errorf("Draw %v, want %v", got, want)
	}
	if d, err := Draw(s, 0, nil); err != nil || d.Y != s.Y {
		t.Errorf("Draw 0 = %v, %v; want s", d, err)
	}
}

func TestPerClassProperties(t *testing.T) {
	labels := make([]int, 40)
	for j := range labels {
		labels[j] = (j * 7 % 40) % 3 // class sizes 14, 13, 13
	}
	for _, rest := range []int{0, 4} {
		tr, re, err := PerClass(labels, 5, rest, Rand(42))
		if err != nil {
			t.Fatal(err)
		}
		wantRest := []int{9, 8, 8}
		if rest > 0 {
			wantRest = []int{4, 4, 4}
		}
		if c := counts(labels, tr); !slices.Equal(c, []int{5, 5, 5}) {
			t.Errorf("train counts %v", c)
		}
		if c := counts(labels, re); !slices.Equal(c, wantRest) {
			t.Errorf("rest counts %v, want %v", c, wantRest)
		}
		all := append(slices.Clone(tr), re...)
		slices.Sort(all)
		if !slices.IsSorted(tr) || !slices.IsSorted(re) || len(slices.Compact(all)) != len(tr)+len(re) {
			t.Errorf("not sorted or not disjoint: %v %v", tr, re)
		}
		tr2, re2, _ := PerClass(labels, 5, rest, Rand(42))
		tr3, _, _ := PerClass(labels, 5, rest, Rand(43))
		if !slices.Equal(tr, tr2) || !slices.Equal(re, re2) || slices.Equal(tr, tr3) {
			t.Errorf("draw is not a function of the seed")
		}
	}
}

func counts(labels, idx []int) []int {
	c := make([]int, 3)
	for _, i := range idx {
		c[labels[i]]++
	}
	return c
}

func TestPerClassErrors(t *testing.T) {
	s := indexSet(kaLabels, nil, false) // 7 samples of class 3, 6 of 7, 5 of 9
	for _, c := range []struct {
		err  error
		want string
	}{
		{third(PerClass(kaLabels, 0, 0, Rand(1))), "0 samples per class requested"},
		{third(PerClass(nil, 1, 0, Rand(1))), "no samples"},
		{third(PerClass(kaLabels, 6, 0, Rand(1))), "class 9 has 5 samples, fewer than the 6"},
		{third(Split(s, 5, 0, Rand(1))), "class 9 has 5 samples, need more than 5"},
		{third(Split(s, 0, 0, Rand(1))), "0 samples per class"},
		{second(Draw(s, 6, Rand(1))), "class 9 has 5 samples"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want %q", c.err, c.want)
		}
	}
}

func second[A, B any](_ A, b B) B        { return b }
func third[A, B, C any](_ A, _ B, c C) C { return c }

func TestFoldsKnownAnswer(t *testing.T) {
	got, err := Folds(kaLabels, 3, rand.New(rand.NewPCG(5, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 0, 1, 2, 2, 2, 1, 0, 1, 0, 2, 0, 1, 0, 1, 2, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("Folds = %v, want %v", got, want)
	}
	// Stratified: class counts and fold sizes differ by at most one.
	for seed := range uint64(20) {
		fold, _ := Folds(kaLabels, 4, Rand(seed))
		classes, idx := ByClass(kaLabels)
		size := make([]int, 4)
		for c, ix := range idx {
			n := make([]int, 4)
			for _, i := range ix {
				n[fold[i]]++
				size[fold[i]]++
			}
			if slices.Max(n)-slices.Min(n) > 1 {
				t.Errorf("seed %d: class %d counts %v", seed, classes[c], n)
			}
		}
		if slices.Max(size)-slices.Min(size) > 1 {
			t.Errorf("seed %d: fold sizes %v", seed, size)
		}
	}
	for _, c := range []struct {
		k    int
		want string
	}{{1, "1 folds, want at least 2"}, {6, "class 9 has 5 samples, fewer than 6 folds"}} {
		if _, err := Folds(kaLabels, c.k, Rand(1)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("k=%d: %v, want %q", c.k, err, c.want)
		}
	}
}

func TestGroupFoldsKnownAnswer(t *testing.T) {
	fold, err := GroupFolds(kaLabels, kaGroups, 3, Rand(5))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{2, 3, 4, 5, 12, 13}, {6, 7, 8, 9, 16, 17}, {0, 1, 10, 11, 14, 15}}
	for f := range want {
		if _, val := Fold(fold, f); !slices.Equal(val, want[f]) {
			t.Errorf("fold %d = %v, want %v", f, val, want[f])
		}
	}
	// No group is split, whatever the seed.
	for seed := range uint64(20) {
		fold, _ := GroupFolds(kaLabels, kaGroups, 4, Rand(seed))
		at := map[int]int{}
		for i, g := range kaGroups {
			if f, ok := at[g]; ok && f != fold[i] {
				t.Fatalf("seed %d: group %d in folds %d and %d", seed, g, f, fold[i])
			}
			at[g] = fold[i]
		}
	}
	// With one sample per group it is stratified.
	one := make([]int, len(kaLabels))
	for i := range one {
		one[i] = 100 - i
	}
	fold, _ = GroupFolds(kaLabels, one, 3, Rand(2))
	_, idx := ByClass(kaLabels)
	for _, ix := range idx {
		n := make([]int, 3)
		for _, i := range ix {
			n[fold[i]]++
		}
		if slices.Max(n)-slices.Min(n) > 1 {
			t.Errorf("one per group: class counts %v", n)
		}
	}
	for _, c := range []struct {
		groups []int
		k      int
		want   string
	}{
		{kaGroups, 1, "1 folds"},
		{kaGroups[:3], 2, "3 groups for 18 labels"},
		{kaGroups, 10, "10 folds for 9 groups"},
	} {
		if _, err := GroupFolds(kaLabels, c.groups, c.k, Rand(1)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
}

func TestFold(t *testing.T) {
	tr, va := Fold([]int{1, 0, 1, 2}, 1)
	if !slices.Equal(tr, []int{1, 3}) || !slices.Equal(va, []int{0, 2}) {
		t.Errorf("Fold = %v %v", tr, va)
	}
}

func TestRunGroups(t *testing.T) {
	// Two classes interleaved, runs of 2 per class.
	labels := []int{5, 5, 7, 5, 7, 7, 5, 7}
	got, err := RunGroups(labels, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{0, 0, 1, 2, 1, 3, 2, 3}
	if !slices.Equal(got, want) {
		t.Errorf("RunGroups = %v, want %v", got, want)
	}
	// Sorted by class with 14 per person, as AR gender's Y_train: i/14.
	ar := make([]int, 700)
	for i := range ar {
		ar[i] = 1 + i/350
	}
	got, _ = RunGroups(ar, 14)
	for i, g := range got {
		if g != i/14 {
			t.Fatalf("AR-like sample %d in group %d, want %d", i, g, i/14)
		}
	}
	for _, n := range []int{0, -3} {
		if _, err := RunGroups(labels, n); err == nil || !strings.Contains(err.Error(), "group size") {
			t.Errorf("RunGroups(n=%d) error %v, want one naming the group size", n, err)
		}
	}
}
