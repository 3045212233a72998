package methods

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"gonum.org/v1/gonum/mat"
)

// TestFisherScoreEach checks that a fit of setScoreOnly is suspended, that
// scoreEach gives the labels of predictEach on the formed model, with the
// span reduction (d=100, N=40) and without it (d=20), and that Resume
// after setScoreOnly(false) forms the model of a plain Fit bit for bit.
func TestFisherScoreEach(t *testing.T) {
	ctx := context.Background()
	sets := []map[string]string{
		{"w": "0.25", "lc": "0"}, {"w": "0.5", "lc": "0"}, {"w": "0.25", "lc": "1"},
		{"w": "1", "lambda": "0.002"}, {"lc": "true", "lambda": "0.05"}, {"w": "0", "lc": "false"},
	}
	for _, d := range []int{100, 20} {
		Y, labels, _ := toy.Shared(4, 10, d, 3)
		Yt, _, _ := toy.Shared(4, 12, d, 4)
		for name, mk := range resumeModels(FDDLOptions{K: 5, Iters: 4, Seed: 7, Lambda1: 0.01}) {
			want := mk()
			must(t, want.Fit(ctx, Y, labels))
			wantLabels, err := want.predictEach(ctx, Yt, sets)
			must(t, err)
			distinct := map[string]bool{}
			for _, l := range wantLabels {
				distinct[fmt.Sprint(l)] = true
			}
			if len(distinct) < 2 {
				t.Fatalf("%s d=%d: every set predicts the same labels; the test cannot tell them apart", name, d)
			}

			m := mk()
			s := m.(interface {
				setScoreOnly(bool)
				scoreEach(context.Context, mat.Matrix, []map[string]string) ([][]int, error)
			})
			s.setScoreOnly(true)
			must(t, m.Fit(ctx, Y, labels))
			if _, err := m.Predict(Yt); err == nil {
				t.Errorf("%s d=%d: a score-only fit predicts", name, d)
			}
			got, err := s.scoreEach(ctx, Yt, sets)
			must(t, err)
			for i := range sets {
				if !slices.Equal(got[i], wantLabels[i]) {
					t.Errorf("%s d=%d: ScoreEach %v: %v, PredictEach %v", name, d, sets[i], got[i], wantLabels[i])
				}
			}
			if _, err := s.scoreEach(ctx, mat.NewDense(d+1, 2, nil), sets[:1]); err == nil {
				t.Errorf("%s d=%d: ScoreEach of %d-dimensional data", name, d, d+1)
			}
			s.setScoreOnly(false)
			must(t, m.Resume(ctx, Y, labels, 4))
			if diff := sameFit(m, want); diff != "" {
				t.Errorf("%s d=%d: score-only Fit + Resume: %s", name, d, diff)
			}
		}
	}
	if _, err := new(LRSDL).scoreEach(ctx, mat.NewDense(3, 2, nil), nil); err == nil {
		t.Error("ScoreEach without a training state")
	}
}
