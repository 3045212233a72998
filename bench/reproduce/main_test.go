package main

import (
	"context"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/split"
)

func TestFaceLike(t *testing.T) {
	Y, labels := data.FaceLike(5, 30, 4, 1)
	if r, c := Y.Dims(); r != 30 || c != 20 || len(labels) != 20 {
		t.Fatalf("dims %d×%d, %d labels; want 30×20, 20", r, c, len(labels))
	}
	for j := range 20 {
		if n := mat.Norm(Y.ColView(j), 2); math.Abs(n-1) > 1e-12 {
			t.Errorf("column %d has norm %v", j, n)
		}
		if labels[j] != j/4 {
			t.Errorf("label %d = %d, want %d", j, labels[j], j/4)
		}
	}
	// Same seed, same data; another seed, other data.
	Y2, _ := data.FaceLike(5, 30, 4, 1)
	Y3, _ := data.FaceLike(5, 30, 4, 2)
	if !mat.Equal(Y, Y2) || mat.Equal(Y, Y3) {
		t.Error("data.FaceLike is not determined by its seed")
	}
	// Samples of one class lie closer to each other than to other classes'.
	var in, out float64
	for i := range 20 {
		for j := range 20 {
			if i != j {
				d := math.Abs(mat.Dot(Y.ColView(i), Y.ColView(j)))
				if labels[i] == labels[j] {
					in += d / 60
				} else {
					out += d / 320
				}
			}
		}
	}
	if in <= out {
		t.Errorf("mean |cos| within classes %.3f not above across classes %.3f", in, out)
	}
}

func TestPerIter(t *testing.T) {
	v := variant{Trace: []lrsdl.Progress{{Elapsed: 5e9}, {Elapsed: 7e9}, {Elapsed: 9e9}}}
	if got := v.perIter(); got != 2e9 {
		t.Errorf("perIter = %v, want 2s (initialisation excluded)", got)
	}
}

func TestPool(t *testing.T) {
	a := split.Set{Y: mat.NewDense(3, 2, []float64{1, 0, 0, 2, 3, 0}), Labels: []int{0, 1}}
	b := split.Set{Y: mat.NewDense(3, 1, []float64{0, 4, 5}), Labels: []int{1}}
	want := mat.NewDense(3, 3, []float64{1, 0, 0, 0, 2, 4, 3, 0, 5})
	for _, sp := range []bool{false, true} {
		x, y := a, b
		if sp {
			x.Y, y.Y = toCSC(a.Y), toCSC(b.Y)
		}
		p := pool(x, y)
		if _, ok := p.Y.(*sparse.CSC); ok != sp {
			t.Errorf("sparse inputs %v: pooled sparse %v", sp, ok)
		}
		if !mat.Equal(p.Y, want) || !slices.Equal(p.Labels, []int{0, 1, 1}) {
			t.Errorf("sparse %v: pool = %v %v, want %v [0 1 1]", sp, mat.Formatted(p.Y), p.Labels, mat.Formatted(want))
		}
	}
}

func toCSC(m mat.Matrix) *sparse.CSC {
	r, c := m.Dims()
	ptr := []int{0}
	var ind []int
	var val []float64
	for j := range c {
		for i := range r {
			if v := m.At(i, j); v != 0 {
				ind, val = append(ind, i), append(val, v)
			}
		}
		ptr = append(ptr, len(ind))
	}
	return sparse.NewCSC(r, c, ptr, ind, val)
}

// TestFlowerSplits checks that Oxford Flower's splits draw 60 training and
// 20 test samples per class from the 80 pooled, disjoint, and differ.
func TestFlowerSplits(t *testing.T) {
	r := &run{cfg: full(), dataDir: "../../testdata", seed: 1, sets: map[string][2]split.Set{}, pools: map[string]split.Set{}}
	train, test, err := r.dataset(flower)
	if err != nil {
		t.Fatal(err)
	}
	// count counts the samples of s by class and by a weighted sum of their
	// entries (the data holds exact duplicates, so a multiset).
	type key struct {
		h float64
		l int
	}
	count := func(s split.Set) (map[key]int, map[int]int) {
		f, c := map[key]int{}, map[int]int{}
		_, n := s.Y.Dims()
		for j := range n {
			var h float64
			s.Y.(*sparse.CSC).DoColNonZero(j, func(i, _ int, v float64) { h += float64(i+1) * v })
			f[key{h, s.Labels[j]}]++
			c[s.Labels[j]]++
		}
		return f, c
	}
	all, _ := count(r.pools[flower])
	ftr, ctr := count(train)
	fte, cte := count(test)
	for _, c := range []struct {
		n    map[int]int
		want int
	}{{ctr, 60}, {cte, 20}} {
		if len(c.n) != 17 {
			t.Errorf("%d classes, want 17", len(c.n))
		}
		for l, n := range c.n {
			if n != c.want {
				t.Errorf("class %d: %d samples, want %d", l, n, c.want)
			}
		}
	}
	for k, n := range ftr {
		if n+fte[k] > all[k] {
			t.Fatalf("a sample occurs %d+%d times in training and test, %d in the pool", n, fte[k], all[k])
		}
	}
	// Split 1 is not the file's split; split 2 of eval.RandomSplits draws
	// other training samples.
	ds, err := data.Load("../../testdata/"+flower+".mat", data.LoadOptions{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := count(ds.Train); maps.Equal(f, ftr) {
		t.Error("split 1 trains on the file's Y_train")
	}
	tr2, _, err := split.Split(r.pools[flower], 60, 20, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	f2, _ := count(tr2)
	if maps.Equal(f2, ftr) {
		t.Error("splits 1 and 2 train on the same samples")
	}
}

func TestSummarize(t *testing.T) {
	s := summarize([]eval.Run{{Accuracy: 0.5, TrainTime: time.Second, TestTime: time.Second, NTest: 10}, {Accuracy: 0.7, TrainTime: 3 * time.Second, TestTime: 3 * time.Second, NTest: 10}})
	if math.Abs(s.MeanAcc-0.6) > 1e-12 || math.Abs(s.StdAcc-math.Sqrt(0.02)) > 1e-12 || s.TrainSeconds != 2 || s.TestSecondsPerSample != 0.2 {
		t.Errorf("summarize = mean %v std %v train %v test %v; want 0.6 0.1414 2 0.2", s.MeanAcc, s.StdAcc, s.TrainSeconds, s.TestSecondsPerSample)
	}
}

// TestSplit1Reuse checks the claim of the ntrain section: a curve point at
// the overall table's size is split 1 of the overall table.
func TestSplit1Reuse(t *testing.T) {
	r := &run{cfg: quick(), dataDir: "../../testdata", seed: 1, ctx: context.Background(), datasets: []string{arGender, flower},
		sets: map[string][2]split.Set{}, pools: map[string]split.Set{}}
	r.cfg.FlClasses, r.cfg.FlPerClass, r.cfg.TestCap = 3, 10, 0
	for _, ds := range []struct {
		name     string
		perClass int
	}{{flower, r.cfg.FlPerClass}, {arGender, 20}} {
		all, _, err := r.evaluate(nil, ds.name, "SRC", nil, eval.SplitOptions{Splits: 2, PerClass: ds.perClass}, true)
		if err != nil {
			t.Fatal(err)
		}
		one, _, err := r.evaluate(nil, ds.name, "SRC", nil, eval.SplitOptions{Splits: 1, PerClass: ds.perClass}, false)
		if err != nil {
			t.Fatal(err)
		}
		if all.Runs[0].Accuracy != one.MeanAcc || all.Runs[0].NTest != one.Runs[0].NTest {
			t.Errorf("%s: split 1 accuracy %v on %d, curve point %v on %d", ds.name, all.Runs[0].Accuracy, all.Runs[0].NTest, one.MeanAcc, one.Runs[0].NTest)
		}
		if ds.name == flower && all.Runs[0].Accuracy == all.Runs[1].Accuracy {
			t.Logf("%s: splits 1 and 2 have the same accuracy", ds.name)
		}
	}
}

func TestStanding(t *testing.T) {
	means := map[string]map[string]scored{
		arGender: {"LRSDL": {91.69, 10}, "COPAR": {93.61, 10}, "DLSI": {93.21, 4}, "FDDL": {91.11, 10}},
		flower:   {"LRSDL": {86.26, 10}, "FDDL": {85.82, 10}, "SRC": {78.44, 10}},
		coil:     {"FDDL": {82.93, 6}},
	}
	got := standing([]string{arGender, flower, coil}, means, 10)
	want := "Where LRSDL stands in this table:\n\n" +
		"- AR gender: LRSDL (91.69) is not the most accurate; ahead of it: COPAR by 1.92 points (93.61), DLSI by 1.52 points (93.21, 4 of 10 splits).\n" +
		"- Oxford Flower: LRSDL is the most accurate (86.26), 0.44 points ahead of FDDL (85.82).\n" +
		"- COIL-100: no LRSDL result.\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestNtrainParams checks that the training-size curve lowers a k above
// the samples per class, chosen or default, and keeps the other options
// and the caller's map.
func TestNtrainParams(t *testing.T) {
	chosen := eval.Params{"k": 40.0, "lambda1": 0.001}
	for _, c := range []struct {
		p    eval.Params
		n    int
		want eval.Params
	}{
		{chosen, 15, eval.Params{"k": 15.0, "lambda1": 0.001}},
		{chosen, 30, eval.Params{"k": 30.0, "lambda1": 0.001}},
		{chosen, 45, eval.Params{"k": 40.0, "lambda1": 0.001}},
		{nil, 15, eval.Params{"k": 15.0}},
		{eval.Params{"lambda": 0.01}, 30, eval.Params{"lambda": 0.01}},
	} {
		if got := ntrainParams(c.p, c.n); !maps.Equal(got, c.want) {
			t.Errorf("ntrainParams(%v, %d) = %v, want %v", c.p, c.n, got, c.want)
		}
	}
	if chosen["k"] != 40.0 {
		t.Errorf("ntrainParams changed its argument: %v", chosen)
	}
}
