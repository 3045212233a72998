package fisher

import (
	"context"
	"fmt"

	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"gonum.org/v1/gonum/mat"
)

// SetScoreOnly sets whether Fit and Resume stop at the training state
// (ScoreEach scores from it); true implies SetResumable(true).
func (f *Model) SetScoreOnly(on bool) {
	f.score = on
	if on {
		f.keep = true
	}
}

// ScoreEach returns the labels PredictEach(ctx, Y, ps) gives for the model
// of the training state kept by the last Fit or Resume, computed in the
// coordinates of training: with the span basis Q of the training set
// (dl.Prepare), D̄ = Q·D̄_r and the columns of Y enter as P = QᵀY. The codes depend
// on D̄ only through D̄ᵀD̄ = D̄_rᵀD̄_r and D̄ᵀY = D̄_rᵀP, and every residual
// of a sample y, ‖ȳ − D̄x‖² with ȳ − D̄x in y + range(Q), exceeds its
// reduced form by the same ‖(I − QQᵀ)y‖²: the GC scores of y move by w
// times it, the LC scores by half of it, for every class alike, so the
// labels are the same up to rounding.
func (f *Model) ScoreEach(ctx context.Context, name string, Y mat.Matrix, ps []Params) ([][]int, error) {
	rs := f.rs
	if rs == nil {
		return nil, fmt.Errorf("methods: %s: no training state to score; Fit after SetScoreOnly(true) first", name)
	}
	if err := dl.TestSet(Y, rs.d); err != nil {
		return nil, err
	}
	P, ok := Y.(*mat.Dense)
	if !ok {
		P = dl.DenseCopy(Y)
	}
	if e := rs.span; e != nil && e.Q != nil {
		var err error
		if P, err = e.Project(ctx, P); err != nil {
			return nil, err
		}
	}
	t := rs.t
	r, _ := t.Db.Dims()
	g := &Model{Classes: f.Classes, Dim: r, Part: t.ap, Db: t.Db}
	g.Mc, g.M0 = t.means()
	return g.PredictEach(ctx, P, ps)
}
