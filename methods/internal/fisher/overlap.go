package fisher

import (
	"context"
	"sync"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// overlaps reports whether outerStep runs as outerStepOverlap: the
// efficient algorithms of FDDL and LRSDL, without a nuclear-norm D step
// and without a gradient hook.
func (t *train) overlaps() bool {
	p := t.p
	return !t.set.NoOverlap && !p.OrigX && !p.OrigD && !p.Plain && p.Alpha == 0 && t.hook == nil
}

// outerStepOverlap is outerStep with parts that do not depend on each
// other run on two goroutines, so that a second core has work while the
// first runs a serial step:
//
//   - solveX0 (X0, with X fixed) beside the D step's products of X
//     (dProblemX);
//   - the X step's keep-if-lower test, then the D0 step's products of X̄
//     (d0ProblemX), beside the D update, which assumes the new X̄ is kept
//     and is redone from the old X̄ when it is not;
//   - the D0 step beside the cost's products of the new D
//     (gramCache.updateD).
//
// Each part performs the operations it performs in outerStep, so the
// result is outerStep's bit for bit, whatever GOMAXPROCS is.
func (t *train) outerStepOverlap(ctx context.Context) (lrsdl.Cost, error) {
	t.saveX()
	t.d0X = false
	old, err := t.current(ctx)
	if err != nil {
		return lrsdl.Cost{}, err
	}
	if err := t.solveXJoint(ctx, t.Xb); err != nil {
		return lrsdl.Cost{}, err
	}
	var (
		wg         sync.WaitGroup
		errX, errK error
	)
	if t.exactX0() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errX = t.solveX0(ctx, t.Xb)
		}()
	}
	E, F := t.dProblemX()
	wg.Wait()
	if errX != nil {
		return lrsdl.Cost{}, errX
	}
	t.dProblemX0(E)
	D := t.D()
	Dn := dl.Reuse(&t.db.dn, D.RawMatrix().Rows, t.K)
	Dn.Copy(D)
	kept := true
	wg.Add(1)
	go func() {
		defer wg.Done()
		errK = t.keepIfLower(ctx, old, func() { t.Xb.Copy(&t.before); kept = false }) // FISTA is not monotone
		if errK == nil && t.k0 > 0 {
			t.d0ProblemX()
			t.d0X = true
		}
	}()
	err = t.du.UpdateContext(ctx, Dn, E, F, t.p.updateOpts())
	wg.Wait()
	if err == nil {
		err = errK
	}
	if err != nil {
		return lrsdl.Cost{}, err
	}
	if kept {
		D.Copy(Dn)
		t.curOK = false
	} else if err := t.stepD(ctx); err != nil {
		return lrsdl.Cost{}, err
	}
	if t.k0 > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errK = t.gc.updateD(ctx, t.Db, t.Y, t.K)
		}()
		err = t.stepD0(ctx)
		wg.Wait()
		if err == nil {
			err = errK
		}
		if err != nil {
			return lrsdl.Cost{}, err
		}
	}
	return t.current(ctx)
}
