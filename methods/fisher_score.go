package methods

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// maxProjections is the number of projected sets a spanEntry keeps: a
// cross-validation fold scores one validation set.
const maxProjections = 2

// projection is P = QᵀY of a set Y of key key.
type projection struct {
	key dataKey
	P   *mat.Dense
}

// project returns P = QᵀY (r×n, r the rows of Yr) for the d×n matrix Y,
// computed once per Y (by key) and kept in e; P is read only.
func (e *spanEntry) project(ctx context.Context, Y *mat.Dense) (*mat.Dense, error) {
	k := keyOf(Y)
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range e.proj {
		if p.key == k {
			return p.P, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	P := e.Q.project(Y)
	if len(e.proj) == maxProjections {
		e.proj = e.proj[1:]
	}
	e.proj = append(e.proj, projection{key: k, P: P})
	return P, nil
}

// setScoreOnly sets f.score; on also sets f.keep.
func (f *fisherDL) setScoreOnly(on bool) {
	f.score = on
	if on {
		f.keep = true
	}
}

// scoreEach returns the labels predictEach(ctx, Y, ps) gives for the model
// of the training state f.rs, computed in the coordinates of training:
// with the span basis Q of the training set (reduceSpan), D̄ = Q·D̄_r and
// the columns of Y enter as P = QᵀY (spanEntry.project). The codes depend
// on D̄ only through D̄ᵀD̄ = D̄_rᵀD̄_r and D̄ᵀY = D̄_rᵀP, and every residual
// of a sample y, ‖ȳ − D̄x‖² with ȳ − D̄x in y + range(Q), exceeds its
// reduced form by the same ‖(I − QQᵀ)y‖²: the GC scores of y move by w
// times it, the LC scores by half of it, for every class alike, so the
// labels are the same up to rounding.
func (f *fisherDL) scoreEach(ctx context.Context, name string, Y mat.Matrix, ps []dlParams) ([][]int, error) {
	rs := f.rs
	if rs == nil {
		return nil, fmt.Errorf("methods: %s: no training state to score; Fit after SetScoreOnly(true) first", name)
	}
	if err := testSet(Y, rs.d); err != nil {
		return nil, err
	}
	P, ok := Y.(*mat.Dense)
	if !ok {
		P = denseCopy(Y)
	}
	if e := rs.span; e != nil && e.Q != nil {
		var err error
		if P, err = e.project(ctx, P); err != nil {
			return nil, err
		}
	}
	t := rs.t
	r, _ := t.Db.Dims()
	g := &fisherDL{classes: f.classes, d: r, part: t.ap, Db: t.Db}
	g.mc, g.m0 = t.means()
	return g.predictEach(ctx, P, ps)
}

// scoreSets is ScoreEach for a model f with options o (a copy of them);
// opts returns a fresh copy of o for each set.
func (f *fisherDL) scoreSets(ctx context.Context, name string, Y mat.Matrix, sets []map[string]string, opts func() fisherOptions) ([][]int, error) {
	ps, err := setsParams(sets, opts)
	if err != nil {
		return nil, err
	}
	return f.scoreEach(ctx, name, Y, ps)
}

// SetScoreOnly sets whether Fit and Resume stop at the training state, as
// cross-validation wants: they keep it (SetScoreOnly(true) implies
// SetResumable(true)) but leave the model suspended (see Suspend), without
// forming D̄ = Q·D̄_r in the data space; ScoreEach predicts from the state.
// After SetScoreOnly(false), Resume to the iterations already run forms
// the model.
func (m *LRSDL) SetScoreOnly(on bool) { m.dl.setScoreOnly(on) }

// ScoreEach returns the labels PredictEach(ctx, Y, sets) would give for
// the model of the training state that Fit or Resume kept (SetScoreOnly or
// SetResumable), without forming it: Y is projected once on the span of
// the training set (an r×n matrix, r ≤ N its rank, kept while fits of
// that training set hold their state) and scored against D̄_r (r×K̄) as in
// training; the labels are those of PredictEach up to rounding.
func (m *LRSDL) ScoreEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error) {
	return m.dl.scoreSets(ctx, m.Name(), Y, sets, func() fisherOptions { o := m.Options; return &o })
}

// SetScoreOnly is LRSDL.SetScoreOnly.
func (m *FDDL) SetScoreOnly(on bool) { m.dl.setScoreOnly(on) }

// ScoreEach is LRSDL.ScoreEach.
func (m *FDDL) ScoreEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error) {
	return m.dl.scoreSets(ctx, m.Name(), Y, sets, func() fisherOptions { o := m.Options; return &o })
}

// SetScoreOnly is LRSDL.SetScoreOnly.
func (m *D2L2R2) SetScoreOnly(on bool) { m.dl.setScoreOnly(on) }

// ScoreEach is LRSDL.ScoreEach.
func (m *D2L2R2) ScoreEach(ctx context.Context, Y mat.Matrix, sets []map[string]string) ([][]int, error) {
	return m.dl.scoreSets(ctx, m.Name(), Y, sets, func() fisherOptions { o := m.Options; return &o })
}
