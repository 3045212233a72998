package eval

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/split"
)

// blobs returns perClass samples of each class label in labels around
// well-separated centres; feature 0 is offset by off (to mark sets).
func blobs(labels []int, perClass, d int, off float64, rng *rand.Rand) split.Set {
	n := perClass * len(labels)
	Y := mat.NewDense(d, n, nil)
	ls := make([]int, n)
	for j := range n {
		c := j % len(labels)
		ls[j] = labels[c]
		for i := range d {
			v := 0.3 * rng.NormFloat64()
			if i%len(labels) == c {
				v += 3
			}
			Y.Set(i, j, v)
		}
		Y.Set(0, j, Y.At(0, j)+off)
	}
	return split.Set{Y: Y, Labels: ls}
}

func newFake() (lrsdl.Classifier, error) { return &fake{}, nil }

func TestAccuracyConfusion(t *testing.T) {
	truth := []int{5, 5, 7, 7, 9}
	pred := []int{5, 7, 7, 7, 5}
	if a := Accuracy(pred, truth); a != 0.6 {
		t.Errorf("accuracy %v, want 0.6", a)
	}
	c := NewConfusion(truth, pred)
	want := [][]int{{1, 1, 0}, {0, 2, 0}, {1, 0, 0}}
	if !slices.Equal(c.Labels, []int{5, 7, 9}) {
		t.Fatalf("labels %v", c.Labels)
	}
	for i := range want {
		if !slices.Equal(c.Counts[i], want[i]) {
			t.Errorf("row %d: %v, want %v", i, c.Counts[i], want[i])
		}
	}
	if s := c.String(); !strings.Contains(s, "true\\") || strings.Count(s, "\n") != 4 {
		t.Errorf("table:\n%s", s)
	}
}

func TestGridPoints(t *testing.T) {
	g := Grid{"b": {1, 2, 3}, "a": {10, 20}}
	pts := g.Points()
	if len(pts) != 6 {
		t.Fatalf("%d points", len(pts))
	}
	seen := map[string]bool{}
	for _, p := range pts {
		seen[p.String()] = true
	}
	if len(seen) != 6 || pts[0].String() != "a=10,b=1" || pts[1].String() != "a=10,b=2" {
		t.Errorf("points %v", pts)
	}
}

func TestConfigure(t *testing.T) {
	c := &fake{}
	p, err := ParseParams("lambda=0.25, iters=3,original_x=true")
	if err != nil {
		t.Fatal(err)
	}
	if err := Configure(c, p); err != nil {
		t.Fatal(err)
	}
	if c.Options.Lambda != 0.25 || c.Options.Iters != 3 || !c.Options.Original {
		t.Errorf("options %+v", c.Options)
	}
	err = Configure(c, Params{"lambda9": 1.0})
	if err == nil || !strings.Contains(err.Error(), `"lambda9"`) || !strings.Contains(err.Error(), "lambda, original_x") {
		t.Errorf("unknown option: %v", err)
	}
	err = Configure(c, Params{"iters": "many"})
	if err == nil || !strings.Contains(err.Error(), "iters") {
		t.Errorf("wrong type: %v", err)
	}
	if _, err := ParseParams("lambda"); err == nil {
		t.Error("no error for missing =")
	}
	if got := ParamNames(c); !slices.Equal(got, []string{"iters", "lambda", "original_x", "seed"}) {
		t.Errorf("names %v", got)
	}
	var iters []int
	if !SetProgress(c, func(p lrsdl.Progress) { iters = append(iters, p.Iter) }) {
		t.Fatal("SetProgress failed")
	}
	if err := c.Fit(context.Background(), mat.NewDense(1, 2, []float64{1, 2}), []int{0, 1}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(iters, []int{1, 2, 3}) {
		t.Errorf("progress iterations %v", iters)
	}
	if p := CurrentParams(c); p["lambda"] != 0.25 {
		t.Errorf("current params %v", p)
	}
}

func TestCrossValidateChoosesOnTrainingData(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	tr := blobs([]int{0, 1, 2}, 12, 5, 0, rng)
	res, err := CrossValidate(context.Background(), newFake, tr.Y, tr.Labels, 3, Grid{"lambda": {1, 0.1}}, 9)
	if err != nil {
		t.Fatal(err)
	}
	if res.Best["lambda"] != 0.1 || len(res.Scores) != 2 {
		t.Errorf("best %v, scores %v", res.Best, res.Scores)
	}
	if a := res.Scores[0].Accuracy; math.Abs(a-1.0/3) > 1e-12 {
		t.Errorf("lambda=1 predicts class 0 only: accuracy %v, want 1/3", a)
	}
	if _, err := CrossValidate(context.Background(), newFake, tr.Y, tr.Labels, 13, Grid{"lambda": {1}}, 9); err == nil {
		t.Error("no error for more folds than samples per class")
	}
}

func TestRandomSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	train := blobs([]int{4, 8}, 20, 6, 0, rng)
	test := blobs([]int{4, 8}, 15, 6, 1000, rng) // feature 0 ≥ ~997 marks test data
	var (
		mu   sync.Mutex
		fits []*fake
	)
	newC := func() (lrsdl.Classifier, error) {
		f := &fake{}
		mu.Lock()
		fits = append(fits, f)
		mu.Unlock()
		return f, nil
	}
	opts := SplitOptions{Splits: 3, PerClass: 5, Seed: 11, Folds: 2, Grid: Grid{"lambda": {0.9, 0.2}}}
	s, err := RandomSplits(context.Background(), newC, train, test, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 3 {
		t.Fatalf("%d runs", len(s.Runs))
	}
	for _, f := range fits {
		if f.maxY0 > 500 {
			t.Fatal("a classifier was trained on test data")
		}
	}
	mean, ss := 0.0, 0.0
	for _, r := range s.Runs {
		mean += r.Accuracy / 3
		if r.NTest != 30 || r.Params["lambda"] != 0.2 {
			t.Errorf("run %+v", r)
		}
	}
	for _, r := range s.Runs {
		ss += (r.Accuracy - mean) * (r.Accuracy - mean)
	}
	if math.Abs(s.MeanAcc-mean) > 1e-12 || math.Abs(s.StdAcc-math.Sqrt(ss/2)) > 1e-12 {
		t.Errorf("mean %v std %v, want %v %v", s.MeanAcc, s.StdAcc, mean, math.Sqrt(ss/2))
	}
	s2, err := RandomSplits(context.Background(), newFake, train, test, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Runs {
		if s.Runs[i].Accuracy != s2.Runs[i].Accuracy {
			t.Errorf("split %d not deterministic", i)
		}
	}
	// Splits in parallel give the same runs, in split order, and report
	// each split once, never two at a time.
	var busy, calls atomic.Int32
	par := opts
	par.Splits, par.Parallel = 5, 3
	par.Progress = func(int, Run) {
		if busy.Add(1) != 1 {
			t.Error("Progress calls overlap")
		}
		calls.Add(1)
		busy.Add(-1)
	}
	sp, err := RandomSplits(context.Background(), newFake, train, test, par)
	if err != nil || calls.Load() != 5 {
		t.Fatalf("parallel: %v, %d progress calls", err, calls.Load())
	}
	seq := opts
	seq.Splits = 5
	ss5, _ := RandomSplits(context.Background(), newFake, train, test, seq)
	for i := range sp.Runs {
		if sp.Runs[i].Accuracy != ss5.Runs[i].Accuracy || sp.Runs[i].Params.String() != ss5.Runs[i].Params.String() {
			t.Errorf("split %d: parallel %+v, sequential %+v", i, sp.Runs[i], ss5.Runs[i])
		}
	}
	// A failing split ends the others and its error is returned.
	boom := errors.New("boom")
	n := 0
	var nmu sync.Mutex
	failing := func() (lrsdl.Classifier, error) {
		nmu.Lock()
		defer nmu.Unlock()
		if n++; n == 4 {
			return nil, boom
		}
		return &fake{}, nil
	}
	if _, err := RandomSplits(context.Background(), failing, train, test, SplitOptions{Splits: 6, PerClass: 5, Parallel: 2}); !errors.Is(err, boom) {
		t.Errorf("failing split: %v, want boom", err)
	}
	// Without a test set the rest of each class is tested.
	s3, err := RandomSplits(context.Background(), newFake, train, split.Set{}, SplitOptions{Splits: 2, PerClass: 5, Seed: 1})
	if err != nil || s3.Runs[0].NTest != 30 {
		t.Errorf("no test set: %+v, %v", s3, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RandomSplits(ctx, newFake, train, test, opts); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// SplitOptions.Fit sees every classifier trained, once, before its Fit,
// with its split, candidate and fold.
func TestRandomSplitsStages(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	train := blobs([]int{4, 8}, 20, 6, 0, rng)
	test := blobs([]int{4, 8}, 15, 6, 1000, rng)
	var mu sync.Mutex
	seen := map[string]int{}
	var made, fitted []*fake
	newC := func() (lrsdl.Classifier, error) {
		f := &fake{}
		mu.Lock()
		made = append(made, f)
		mu.Unlock()
		return f, nil
	}
	opts := SplitOptions{Splits: 2, PerClass: 5, Seed: 11, Folds: 3, Grid: Grid{"lambda": {0.9, 0.2}}}
	opts.Fit = func(c lrsdl.Classifier, s Stage) {
		mu.Lock()
		defer mu.Unlock()
		if c.(*fake).means != nil {
			t.Error("Fit hook called after Fit")
		}
		fitted = append(fitted, c.(*fake))
		seen[fmt.Sprintf("%d/%d %d/%d %d/%d %d/%d %v", s.Split, s.Splits, s.Cand, s.Cands, s.Round, s.Rounds, s.Fold, s.Folds, s.Params.String())]++
	}
	if _, err := RandomSplits(context.Background(), newC, train, test, opts); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for sp := 1; sp <= 2; sp++ {
		for c, p := range []string{"lambda=0.9", "lambda=0.2"} {
			for f := 1; f <= 3; f++ {
				want[fmt.Sprintf("%d/2 %d/2 1/1 %d/3 %s", sp, c+1, f, p)] = 1
			}
		}
		want[fmt.Sprintf("%d/2 0/0 0/0 0/3 lambda=0.2", sp)] = 1
	}
	if !maps.Equal(seen, want) {
		t.Errorf("stages\n%v, want\n%v", seen, want)
	}
	// Every fitted classifier was seen; the others are cross-validation's probes.
	for _, f := range made {
		if f.means != nil && !slices.Contains(fitted, f) {
			t.Error("a classifier was trained unseen")
		}
	}
}

// Every default grid names options of the method when it is registered
// under that name; DefaultGrid drops the others.
func TestDefaultGridFilters(t *testing.T) {
	c := &fake{}
	DefaultGrids["FAKE"] = Grid{"lambda": {1, 2}, "nosuch": {3}}
	defer delete(DefaultGrids, "FAKE")
	g := DefaultGrid(c)
	if len(g) != 1 || len(g["lambda"]) != 2 {
		t.Errorf("grid %v", g)
	}
	delete(DefaultGrids, "FAKE")
	if g := DefaultGrid(c); g != nil {
		t.Errorf("no grid: %v", g)
	}
}

func TestFitTrace(t *testing.T) {
	c := &fake{}
	c.Options.Iters = 4
	var n int
	tr, err := FitTrace(context.Background(), c, mat.NewDense(1, 2, []float64{1, 2}), []int{0, 1}, func(lrsdl.Progress) { n++ })
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) != 4 || n != 4 || tr[3].Iter != 4 || tr[3].Cost.Total != 0.25 {
		t.Errorf("trace %+v, %d calls", tr, n)
	}
	if c.Options.Progress != nil {
		t.Error("progress function left set")
	}
	c.Options.Iters = 0
	if _, err := FitTrace(context.Background(), c, mat.NewDense(1, 2, []float64{1, 2}), []int{0, 1}, nil); err == nil {
		t.Error("no error without iterations")
	}
}

// memo predicts the label it saw in training for the group stored in
// feature 0 of a sample, and −1 for an unseen group.
type memo struct {
	Options struct {
		X float64 `json:"x"`
	}
	seen map[float64]int
}

func (m *memo) Name() string                      { return "MEMO" }
func (m *memo) Params() []lrsdl.Param             { return []lrsdl.Param{{Name: "x", Type: "float"}} }
func (m *memo) SetParam(name, value string) error { return nil }
func (m *memo) SetProgress(lrsdl.ProgressFunc)    {}
func (m *memo) Fit(_ context.Context, Y mat.Matrix, labels []int) error {
	m.seen = map[float64]int{}
	for j, l := range labels {
		m.seen[Y.At(0, j)] = l
	}
	return nil
}
func (m *memo) Predict(Y mat.Matrix) ([]int, error) {
	_, n := Y.Dims()
	out := make([]int, n)
	for j := range out {
		l, ok := m.seen[Y.At(0, j)]
		out[j] = -1
		if ok {
			out[j] = l
		}
	}
	return out, nil
}

// groupedSet has 8 groups per class of 3 samples each; feature 0 holds
// the group, so a memorising classifier is right only on groups it saw.
func groupedSet() split.Set {
	var s split.Set
	Y := mat.NewDense(2, 48, nil)
	for j := range 48 {
		g := j % 16
		Y.Set(0, j, float64(g))
		Y.Set(1, j, float64(j))
		s.Labels = append(s.Labels, g%2)
		s.Groups = append(s.Groups, g)
	}
	s.Y = Y
	return s
}

func TestCrossValidateSetGroups(t *testing.T) {
	s := groupedSet()
	newMemo := func() (lrsdl.Classifier, error) { return &memo{}, nil }
	res, err := CrossValidateSet(context.Background(), newMemo, s, 4, Grid{"x": {1}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if a := res.Scores[0].Accuracy; a != 0 {
		t.Errorf("grouped CV: accuracy %v, want 0 (a group in training and validation)", a)
	}
	s.Groups = nil
	res, err = CrossValidateSet(context.Background(), newMemo, s, 4, Grid{"x": {1}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if a := res.Scores[0].Accuracy; a < 0.9 {
		t.Errorf("ungrouped CV: accuracy %v, want ≥ 0.9 (groups shared between folds)", a)
	}
	for _, tc := range []struct {
		groups []int
		want   string
	}{
		{make([]int, 47), "groups for 48 labels"},
		{make([]int, 48), "4 folds for 1 groups"},
	} {
		s.Groups = tc.groups
		if _, err := CrossValidateSet(context.Background(), newMemo, s, 4, Grid{"x": {1}}, 3); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// TestRandomSplitsGroups: the cross-validation inside RandomSplits keeps
// the training set's groups apart and reports its scores.
func TestRandomSplitsGroups(t *testing.T) {
	s := groupedSet()
	newMemo := func() (lrsdl.Classifier, error) { return &memo{}, nil }
	sum, err := RandomSplits(context.Background(), newMemo, s, s, SplitOptions{Splits: 1, Folds: 4, Grid: Grid{"x": {1, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	cv := sum.Runs[0].CV
	if len(cv) != 2 || cv[0].Params.String() != "x=1" || cv[1].Params.String() != "x=2" {
		t.Fatalf("scores %+v, want one per grid point in order", cv)
	}
	if cv[0].Accuracy != 0 {
		t.Errorf("accuracy %v, want 0 (folds grouped)", cv[0].Accuracy)
	}
}
