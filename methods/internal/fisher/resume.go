package fisher

import (
	"context"
	"fmt"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// fitState is what Resume needs to continue the last Fit: the training
// state in the coordinates it trains in, without its workspaces, a
// fingerprint of the training set and its span factors (shared by every
// fit of the same data, see dl.Prepare).
type fitState struct {
	t      *train // Y and the workspaces dropped (compact)
	info   lrsdl.FitInfo
	d      int
	labels []int
	key    dl.DataKey // of the class-ordered training set
	span   *dl.Span   // held so that fits of the same data share it
}

// compact returns the part of t that carries from one outer iteration to
// the next: the iterates, the cached cost and the warm starts of the power
// iterations. Everything else is a workspace, or a cache keyed on D̄ and Y
// (gramCache) that the next iteration recomputes to the same values.
func (t *train) compact() *train {
	return &train{p: t.p, set: t.set, sp: t.sp, ap: t.ap, Db: t.Db, Xb: t.Xb, K: t.K, k0: t.k0,
		lip: t.lip.warmStarts(), x0: x0step{lip: t.x0.lip}, cur: t.cur, curOK: t.curOK}
}

// outerStep is one outer iteration of Algorithm 2: X̄, D, then D0. It
// returns J̄ at the new point.
func (t *train) outerStep(ctx context.Context) (lrsdl.Cost, error) {
	if t.overlaps() {
		return t.outerStepOverlap(ctx)
	}
	if err := t.stepX(ctx); err != nil {
		return lrsdl.Cost{}, err
	}
	if err := t.stepD(ctx); err != nil {
		return lrsdl.Cost{}, err
	}
	if err := t.stepD0(ctx); err != nil {
		return lrsdl.Cost{}, err
	}
	return t.current(ctx)
}

// Resume continues the last Fit, which SetResumable(true) preceded, on
// the same training set up to iters outer iterations in total; name is
// the method's, for errors, and progress is called after each iteration.
func (f *Model) Resume(ctx context.Context, name string, Y mat.Matrix, labels []int, iters int, progress lrsdl.ProgressFunc) error {
	rs := f.rs
	if rs == nil {
		return fmt.Errorf("methods: %s: nothing to Resume; Fit after SetResumable(true) first", name)
	}
	if iters < rs.info.Iters {
		return fmt.Errorf("methods: %s: cannot Resume to %d outer iterations, %d already run", name, iters, rs.info.Iters)
	}
	if (f.Db != nil || f.score) && (iters == rs.info.Iters || rs.info.Stop == lrsdl.StopConverged) {
		rs.t.p.Iters = iters
		return nil // nothing to run
	}
	s, err := dl.Prepare(ctx, Y, labels, f.Set, true, func(s *dl.Prepared) error {
		if !slices.Equal(labels, rs.labels) || s.Key != rs.key {
			return fmt.Errorf("methods: %s: Resume needs the training set of the last Fit", name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	t := rs.t
	t.Y = s.Train
	t.p.Iters, t.p.Progress = iters, progress
	f.rs, f.Db = nil, nil // until it succeeds
	info := rs.info
	start := time.Now().Add(-info.Elapsed)
	if info.Stop != lrsdl.StopConverged {
		info, err = dl.ContinueOuter(ctx, dl.Loop{Iters: iters, Tol: t.p.Tol, Progress: progress, Start: start}, info,
			func(int, bool) (lrsdl.Cost, error) { return t.outerStep(ctx) })
	}
	f.Info = info
	if err != nil {
		return err
	}
	f.finish(s, t, labels, start)
	return nil
}

// Suspend drops the trained model (D̄ and the means), keeping what Resume
// needs.
func (f *Model) Suspend() {
	f.Db, f.Mc, f.M0 = nil, nil, nil
}

// SetResumable sets whether Fit keeps the state Resume continues from;
// false drops it (and SetScoreOnly).
func (f *Model) SetResumable(on bool) {
	f.keep = on
	if !on {
		f.rs = nil
		f.score = false
	}
}
