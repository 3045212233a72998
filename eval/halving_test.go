package eval

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
)

// curves are the validation accuracies of curveFake by its option "curve",
// as functions of the outer iterations: four that are flat from the
// start, and one that rises slowly and ends above them all at 40.
var curves = []func(iters int) float64{
	func(int) float64 { return 0.70 },
	func(int) float64 { return 0.68 },
	func(int) float64 { return 0.66 },
	func(int) float64 { return 0.64 },
	func(it int) float64 { return 0.30 + 0.015*float64(it) },
}

// curveFake labels the first curves[curve](iters)·n validation samples
// right (feature 0 holds the label) and the rest wrong. It counts its fits.
type curveFake struct {
	curve, iters int
	fits         *atomic.Int64
}

func (f *curveFake) Name() string { return "CURVEFAKE" }

func (f *curveFake) Params() []lrsdl.Param {
	return []lrsdl.Param{{Name: "curve", Type: "int"}, {Name: "iters", Type: "int", Value: strconv.Itoa(f.iters)}}
}

func (f *curveFake) SetParam(name, v string) error {
	x, err := strconv.Atoi(v)
	if err != nil {
		return err
	}
	switch name {
	case "curve":
		f.curve = x
	case "iters":
		f.iters = x
	default:
		return fmt.Errorf("no option %q", name)
	}
	return nil
}

func (f *curveFake) SetProgress(lrsdl.ProgressFunc) {}

func (f *curveFake) Fit(context.Context, mat.Matrix, []int) error {
	f.fits.Add(1)
	return nil
}

func (f *curveFake) Predict(Y mat.Matrix) ([]int, error) {
	return qualityLabels(Y, curves[f.curve](f.iters)), nil
}

// TestFairHalvingKeepsSlowPoint checks that successive halving carries on
// a point whose score still rises and lets it win at full length, where
// dropping all but the best third at equal iterations would have cut it;
// that every score comes with its iterations; and that HalvingOff trains
// every point to the end.
func TestFairHalvingKeepsSlowPoint(t *testing.T) {
	var fits atomic.Int64
	newFake := func() (lrsdl.Classifier, error) { return &curveFake{iters: 40, fits: &fits}, nil }
	all := Grid{"curve": {0, 1, 2, 3, 4}}
	ctx := context.Background()

	// At the first cut (10 of 40 iterations) the slow point is last of
	// five: the best third alone would drop it.
	at10, err := CrossValidateSet(ctx, newFake, cvData(), 4, Grid{"curve": all["curve"], "iters": {10}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	slow := at10.Scores[4]
	for _, sc := range at10.Scores[:2] {
		if sc.Accuracy <= slow.Accuracy || sc.Iters != 10 || slow.Iters != 10 {
			t.Fatalf("at 10 iterations: %v scored %v, slow point %v; the slow point should be outside the best third", sc.Params, sc.Accuracy, slow.Accuracy)
		}
	}

	// Rounds at 5 and 10 (all five), 20 (curves 0, 1 and 4: the slow
	// point projects to 0.9), 40 (curves 0 and 4) on 4 folds.
	fits.Store(0)
	res, err := CrossValidateSet(ctx, newFake, cvData(), 4, all, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Best["curve"] != 4.0 || res.Chosen != 4 {
		t.Errorf("chose %v (index %d), want the slow point curve=4", res.Best, res.Chosen)
	}
	if n := fits.Load(); n != (5+5+3+2)*4 {
		t.Errorf("%d fits, want %d", n, (5+5+3+2)*4)
	}
	wantIters := []int{40, 20, 10, 10, 40}
	for i, sc := range res.Scores {
		if sc.Iters != wantIters[i] {
			t.Errorf("%v scored at %d iterations, want %d", sc.Params, sc.Iters, wantIters[i])
		}
		if want := curves[i](sc.Iters); sc.Accuracy < want-0.01 || sc.Accuracy > want+0.01 {
			t.Errorf("%v scored %v, want %v at %d iterations", sc.Params, sc.Accuracy, want, sc.Iters)
		}
	}
	if res.Scores[res.Chosen].Iters != res.Iters || res.Iters != 40 {
		t.Errorf("chosen point scored at %d iterations of %d, want 40", res.Scores[res.Chosen].Iters, res.Iters)
	}

	// Flat points only: the best third goes on, and the last one left is
	// trained to the end rather than chosen at 20 iterations.
	fits.Store(0)
	res, err = CrossValidateSet(ctx, newFake, cvData(), 4, Grid{"curve": {0, 1, 2, 3}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Best["curve"] != 0.0 || res.Scores[res.Chosen].Iters != 40 || fits.Load() != (4+4+2+1)*4 {
		t.Errorf("flat points: chose %v at %d iterations after %d fits; want curve=0 at 40 after %d", res.Best, res.Scores[res.Chosen].Iters, fits.Load(), (4+4+2+1)*4)
	}

	// Without halving every point trains once per fold, to the end.
	fits.Store(0)
	res, err = CrossValidateWith(ctx, newFake, cvData(), 4, all, 1, CVOptions{Halving: HalvingOff})
	if err != nil {
		t.Fatal(err)
	}
	if fits.Load() != 5*4 || res.Best["curve"] != 4.0 {
		t.Errorf("no halving: %d fits, chose %v; want 20, curve=4", fits.Load(), res.Best)
	}
	for _, sc := range res.Scores {
		if sc.Iters != 40 {
			t.Errorf("no halving: %v scored at %d iterations", sc.Params, sc.Iters)
		}
	}
	if _, err := CrossValidateWith(ctx, newFake, cvData(), 4, all, 1, CVOptions{Halving: 7}); err == nil {
		t.Error("halving mode 7 accepted")
	}
}

// TestProjectAndSurvivors checks the cut of fair halving on numbers: the
// best third stays, a point rising enough to reach it stays, a flat or
// falling point below it goes.
func TestProjectAndSurvivors(t *testing.T) {
	if p := project(0.4, 0.5, 5, 10, 20); p < 0.7-1e-12 || p > 0.7+1e-12 {
		t.Errorf("project rising 0.4→0.5 over 5 iterations to 20 = %v, want 0.7", p)
	}
	if p := project(0.5, 0.4, 5, 10, 40); p != 0.4 {
		t.Errorf("project falling = %v, want 0.4", p)
	}
	if p := project(0.2, 0.9, 5, 10, 40); p != 1 {
		t.Errorf("project steep = %v, want capped at 1", p)
	}
	now := []float64{0.9, 0.5, 0.8, 0.6, 0.7, 0.55}
	proj := []float64{0.9, 0.81, 0.8, 0.6, 0.79, 0.55}
	want := []bool{true, true, true, false, false, false}
	got := survivors(now, proj)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("survivors(%v, %v) = %v, want %v", now, proj, got, want)
			break
		}
	}
}

// TestChooseTieRule checks how ties are broken: fewer atoms, then the
// larger sparsity weight, then the grid's order; and that a point not
// eligible (not scored at full length) is never chosen.
func TestChooseTieRule(t *testing.T) {
	sc := func(acc float64, p Params) CVScore { return CVScore{Params: p, Accuracy: acc} }
	scores := []CVScore{
		sc(0.9, Params{"k": 40.0, "lambda1": 0.01}),
		sc(0.9, Params{"k": 20.0, "lambda1": 0.001}),
		sc(0.9, Params{"k": 20.0, "lambda1": 0.01}),
		sc(0.9, Params{"k": 20.0, "lambda1": 0.01, "w": 0.5}),
		sc(0.95, Params{"k": 40.0, "lambda1": 0.001}),
		sc(0.9, Params{"lambda": 0.1}),
		sc(0.9, Params{"lambda": 0.01}),
	}
	for _, c := range []struct {
		eligible []int
		want     int
	}{
		{[]int{0, 1, 2, 3}, 2}, // k=20 over 40, then λ1=0.01 over 0.001, then the first
		{[]int{0, 1}, 1},       // fewer atoms before larger λ
		{[]int{0, 1, 2, 3, 4}, 4},
		{[]int{5, 6}, 5}, // λ when there is no λ1
		{[]int{6, 5}, 5},
	} {
		if got := choose(scores, c.eligible); got != c.want {
			t.Errorf("choose among %v = %d, want %d", c.eligible, got, c.want)
		}
	}
}

// TestCVMergesCappedK checks that grid values of k made equal by the cap
// at the folds' smallest class are one point, that the choice is the value
// scored, and that ties go to fewer atoms.
func TestCVMergesCappedK(t *testing.T) {
	var fits atomic.Int64
	newFake := func() (lrsdl.Classifier, error) { return &cvFake{iters: 40, fits: &fits}, nil }
	// 200 samples per class; 150 in a training fold of 4.
	res, err := CrossValidateSet(context.Background(), newFake, cvData(), 4, Grid{"k": {400, 100, 200, 150}, "a": {1}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Points != 4 || len(res.Scores) != 2 || res.Distinct() != 2 || res.KCap != 150 {
		t.Fatalf("%d points, %d scores (%d distinct), k capped at %d; want 4, 2, 2, 150", res.Points, len(res.Scores), res.Distinct(), res.KCap)
	}
	if res.Scores[0].Params["k"] != 150.0 || res.Scores[1].Params["k"] != 100.0 {
		t.Errorf("scores %v, want k=150 then k=100", res.Scores)
	}
	// cvFake's accuracy does not depend on k: a tie, to fewer atoms.
	if res.Scores[0].Accuracy != res.Scores[1].Accuracy || res.Best["k"] != 100.0 || res.Chosen != 1 {
		t.Errorf("chose %v (index %d) of %v; want k=100", res.Best, res.Chosen, res.Scores)
	}
	if fits.Load() != 2*4 {
		t.Errorf("%d fits, want 8", fits.Load())
	}
	// Without a cap, KCap is 0 and the choice keeps its k.
	res, err = CrossValidateSet(context.Background(), newFake, cvData(), 4, Grid{"k": {100, 150}, "a": {1}}, 1)
	if err != nil || res.KCap != 0 || res.Best["k"] != 100.0 {
		t.Errorf("no cap: k capped at %d, chose %v, %v", res.KCap, res.Best, err)
	}
}

// TestCVSameMarksNoEffectOptions checks that points whose predictions are
// equal on every fold, because a prediction option has no effect under
// another (p under lc), are marked the same and not counted as distinct.
func TestCVSameMarksNoEffectOptions(t *testing.T) {
	var fits atomic.Int64
	newFake := func() (lrsdl.Classifier, error) { return &lcFake{cvFake{iters: 40, fits: &fits}, false}, nil }
	res, err := CrossValidateSet(context.Background(), newFake, cvData(), 4, Grid{"a": {1}, "lc": {false, true}, "p": {1.5, 2, 3}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Points: lc=false with p=1.5, 2, 3 (three scores), then lc=true with
	// the same p, which has no effect there.
	want := []int{0, 1, 2, 3, 3, 3}
	for i, sc := range res.Scores {
		if sc.Same != want[i] {
			t.Errorf("%v same as %d, want %d", sc.Params, sc.Same, want[i])
		}
	}
	if res.Distinct() != 4 || res.Points != 6 || res.Best["p"] != 2.0 || res.Best["lc"] != false {
		t.Errorf("%d distinct of %d points, chose %v; want 4 of 6, lc=false p=2", res.Distinct(), res.Points, res.Best)
	}
}

// lcFake is cvFake with a prediction option lc under which p has no
// effect: quality a·iters/40·0.8.
type lcFake struct {
	cvFake
	lc bool
}

func (f *lcFake) Params() []lrsdl.Param {
	return append(f.cvFake.Params(), lrsdl.Param{Name: "lc", Type: "bool", Predict: true})
}

func (f *lcFake) SetParam(name, v string) error {
	if name == "lc" {
		b, err := strconv.ParseBool(v)
		f.lc = b
		return err
	}
	return f.cvFake.SetParam(name, v)
}

func (f *lcFake) Predict(Y mat.Matrix) ([]int, error) {
	if !f.lc {
		return f.cvFake.Predict(Y)
	}
	g := f.cvFake
	g.a *= 0.8
	g.p = 2
	return g.Predict(Y)
}
