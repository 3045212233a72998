package eval_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/internal/cvhook"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/split"
	"gonum.org/v1/gonum/mat"
)

// plainClassifier hides the cross-validation plumbing of the classifier
// it holds (cvhook.Of finds none), so that eval.CrossValidateSet retrains and
// predicts point by point.
type plainClassifier struct {
	c interface {
		lrsdl.Classifier
		lrsdl.Configurable
	}
}

func (p plainClassifier) Name() string { return p.c.Name() }

func (p plainClassifier) Params() []lrsdl.Param { return p.c.Params() }

func (p plainClassifier) SetParam(name, value string) error { return p.c.SetParam(name, value) }

func (p plainClassifier) Predict(Y mat.Matrix) ([]int, error) { return p.c.Predict(Y) }

func (p plainClassifier) SetProgress(f lrsdl.ProgressFunc) { p.c.SetProgress(f) }

func (p plainClassifier) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	return p.c.Fit(ctx, Y, labels)
}

// countingResumer counts the Fit, Resume and ScoreEach calls of LRSDL, whose
// cross-validation plumbing it shows as its own.
type countingResumer struct {
	*methods.LRSDL
	fits, resumes, eaches *atomic.Int64
}

func (c countingResumer) hook() cvhook.Model { return cvhook.Of(c.LRSDL) }

func (c countingResumer) Fit(ctx context.Context, Y mat.Matrix, labels []int) error {
	c.fits.Add(1)
	return c.LRSDL.Fit(ctx, Y, labels)
}

func (c countingResumer) Resume(ctx context.Context, Y mat.Matrix, labels []int, iters int) error {
	c.resumes.Add(1)
	return c.LRSDL.Resume(ctx, Y, labels, iters)
}

func (c countingResumer) SetScoreOnly(on bool) { c.hook().SetScoreOnly(on) }

func (c countingResumer) ScoreEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error) {
	c.eaches.Add(1)
	return c.hook().ScoreEach(ctx, Y, sets)
}

// TestCrossValidateResumeSameScores checks that cross-validating LRSDL by
// resumed fits and ScoreEach gives the scores of retraining every round
// and predicting point by point, whatever GOMAXPROCS, with the work cut as
// planned: 8 fits per fold, never retrained, and one ScoreEach per fit or
// resume, the chosen point resumed to the end. The
// training folds (40×32) are reduced to their span, so ScoreEach scores in
// reduced coordinates.
func TestCrossValidateResumeSameScores(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := eval.Blobs([]int{1, 2, 3}, 16, 40, 0, rng)
	addNoise(s, 0.8, rng) // so that the points score differently
	grid := eval.Grid{"k": {2, 4}, "lambda1": {0.001, 0.01}, "eta": {0.01, 0.1}, "w": {0.25, 0.5}, "lc": {0, 1}}
	base := func() *methods.LRSDL {
		return &methods.LRSDL{Options: methods.LRSDLOptions{K0: 2, FDDLOptions: methods.FDDLOptions{Iters: 8, Seed: 5, NoNormalize: true}}}
	}
	plain := func() (lrsdl.Classifier, error) { return plainClassifier{base()}, nil }
	want, err := eval.CrossValidateSet(context.Background(), plain, s, 3, grid, 9)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[float64]bool{}
	for _, sc := range want.Scores {
		distinct[sc.Accuracy] = true
	}
	if len(distinct) < 3 {
		t.Fatalf("only %d distinct scores; the test cannot tell points apart", len(distinct))
	}
	for _, procs := range []int{1, 2} {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var fits, resumes, eaches atomic.Int64
		res, err := eval.CrossValidateSet(context.Background(), func() (lrsdl.Classifier, error) {
			return countingResumer{base(), &fits, &resumes, &eaches}, nil
		}, s, 3, grid, 9)
		if err != nil {
			t.Fatal(err)
		}
		if res.Best.String() != want.Best.String() {
			t.Errorf("GOMAXPROCS %d: best %v, retraining %v", procs, res.Best, want.Best)
		}
		for i, sc := range res.Scores {
			if w := want.Scores[i]; sc.Accuracy != w.Accuracy || sc.Iters != w.Iters || sc.Params.String() != w.Params.String() {
				t.Errorf("GOMAXPROCS %d: %v scored %v at %d iterations, retraining %v at %d", procs, sc.Params, sc.Accuracy, sc.Iters, w.Accuracy, w.Iters)
			}
		}
		if f, r, e := fits.Load(), resumes.Load(), eaches.Load(); f != 8*3 || r < 3*3 || r%3 != 0 || e != f+r {
			t.Errorf("GOMAXPROCS %d: %d fits, %d resumes, %d ScoreEach; want 24 fits, at least 9 resumes by whole candidates, one ScoreEach each", procs, f, r, e)
		}
		if sc := res.Scores[res.Chosen]; sc.Iters != 8 || res.Iters != 8 {
			t.Errorf("GOMAXPROCS %d: chosen %v scored at %d of %d iterations", procs, sc.Params, sc.Iters, res.Iters)
		}
	}
}

// TestCrossValidateChoice cross-validates SRRS over its prediction rule, a
// text choice: one fit per fold scores both rules, each as SetParam and
// Predict would, and the grid's text reaches the model.
func TestCrossValidateChoice(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s := eval.Blobs([]int{1, 2, 3}, 16, 30, 0, rng)
	addNoise(s, 3, rng)
	newSRRS := func() (lrsdl.Classifier, error) { return methods.New("SRRS") }
	res, err := eval.CrossValidateSet(context.Background(), newSRRS, s, 3, eval.Grid{"rule": {"mean", "nn"}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Scores) != 2 || res.Scores[0].Params["rule"] != "mean" || res.Scores[1].Params["rule"] != "nn" {
		t.Fatalf("scores %v", res.Scores)
	}
	for _, sc := range res.Scores {
		one, err := eval.CrossValidateSet(context.Background(), newSRRS, s, 3, eval.Grid{"rule": {sc.Params["rule"]}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if one.Scores[0].Accuracy != sc.Accuracy {
			t.Errorf("rule=%v: %v in the grid, %v alone", sc.Params["rule"], sc.Accuracy, one.Scores[0].Accuracy)
		}
	}
	if res.Scores[0].Accuracy == res.Scores[1].Accuracy {
		t.Fatalf("both rules score %v; the test cannot tell them apart", res.Scores[0].Accuracy)
	}
	if _, err := eval.CrossValidateSet(context.Background(), newSRRS, s, 3, eval.Grid{"rule": {"median"}}, 1); err == nil || !strings.Contains(err.Error(), "rule") {
		t.Errorf("rule=median: error %v, want it to name rule", err)
	}
}

// addNoise adds Gaussian noise of standard deviation sd to every entry of s.Y.
func addNoise(s split.Set, sd float64, rng *rand.Rand) {
	Y := s.Y.(*mat.Dense)
	r, c := Y.Dims()
	for i := range r {
		for j := range c {
			Y.Set(i, j, Y.At(i, j)+sd*rng.NormFloat64())
		}
	}
}
