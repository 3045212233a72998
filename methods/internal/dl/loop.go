package dl

import (
	"context"
	"math"
	"time"

	"github.com/lrsdl/lrsdl"
)

// Loop configures RunOuter.
type Loop struct {
	Iters    int                // outer iterations
	Tol      float64            // relative change of the cost that stops; 0 never stops early
	Progress lrsdl.ProgressFunc // called after every iteration, or nil
	Start    time.Time          // start of Fit
}

// RunOuter runs step for the outer iterations it = 1..l.Iters. step
// returns the cost after its iteration, which it may skip computing (and
// return zero) when wantCost is false. RunOuter checks ctx before every
// iteration, reports Progress, and stops once the cost changes by at most
// tol relative to the previous iteration's, from iteration 2 on.
func RunOuter(ctx context.Context, l Loop, step func(it int, wantCost bool) (lrsdl.Cost, error)) (lrsdl.FitInfo, error) {
	return ContinueOuter(ctx, l, lrsdl.FitInfo{}, step)
}

// ContinueOuter is RunOuter from after iteration info.Iters, whose cost is
// info.Cost (Resume): the same iterations, tolerance test, progress and
// FitInfo as one RunOuter over l.Iters, l.Start set back by the time
// already spent.
func ContinueOuter(ctx context.Context, l Loop, info lrsdl.FitInfo, step func(it int, wantCost bool) (lrsdl.Cost, error)) (lrsdl.FitInfo, error) {
	info.Stop = lrsdl.StopMaxIters
	want := l.Tol > 0 || l.Progress != nil
	prev := info.Cost.Total
	for it := info.Iters + 1; it <= l.Iters; it++ {
		if err := ctx.Err(); err != nil {
			info.Stop, info.Elapsed = lrsdl.StopCancelled, time.Since(l.Start)
			return info, err
		}
		cost, err := step(it, want)
		if err != nil {
			if ctx.Err() != nil {
				info.Stop = lrsdl.StopCancelled
			}
			info.Elapsed = time.Since(l.Start)
			return info, err
		}
		info.Iters, info.Cost, info.Elapsed = it, cost, time.Since(l.Start)
		converged := it >= 2 && l.Tol > 0 && math.Abs(prev-cost.Total) <= l.Tol*math.Abs(prev)
		if converged {
			info.Stop = lrsdl.StopConverged
		}
		if l.Progress != nil {
			p := lrsdl.Progress{Iter: it, Cost: cost, Elapsed: info.Elapsed}
			if converged || it == l.Iters {
				p.Stop = info.Stop
			}
			l.Progress(p)
		}
		if converged {
			break
		}
		prev = cost.Total
	}
	return info, nil
}
