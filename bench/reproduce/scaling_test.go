package main

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/lrsdl/lrsdl/eval"
)

// TestTimedIters checks the iterations of short scaling sizes: enough for
// minTimed of timed iterations, never fewer than asked, at most
// maxTimedIters.
func TestTimedIters(t *testing.T) {
	for _, c := range []struct {
		per   time.Duration
		iters int
		want  int
	}{
		{15 * time.Millisecond, 3, 21}, // 20 timed iterations make 300 ms
		{16 * time.Millisecond, 3, 20}, // 19 of 16 ms: 304 ms
		{200 * time.Millisecond, 3, 3}, // 2 of 200 ms already last 400 ms
		{150 * time.Millisecond, 3, 3}, // exactly 300 ms
		{time.Millisecond, 3, 30},      // capped
		{time.Millisecond, 40, 40},     // never fewer than asked
		{0, 3, 3},                      // no timing
	} {
		if got := timedIters(c.per, c.iters); got != c.want {
			t.Errorf("timedIters(%v, %d) = %d, want %d", c.per, c.iters, got, c.want)
		}
	}
}

// TestTimeAlternating checks that timeAlternating times iterations on both
// core counts, restores GOMAXPROCS, and reports a failed fit as zeros.
func TestTimeAlternating(t *testing.T) {
	r := &run{cfg: quick(), seed: 1, ctx: context.Background()}
	r.cfg.ScaleN, r.cfg.ScaleK, r.cfg.ScaleBudget = 5, 3, time.Minute
	m := &scaleMethod{name: "E-FDDL", method: "FDDL", params: eval.Params{}}
	procs := runtime.GOMAXPROCS(0)
	two, one := r.timeAlternating(m, 3, 40, 5)
	if two <= 0 || one <= 0 {
		t.Errorf("timeAlternating = %v, %v, want both positive", two, one)
	}
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS %d after timeAlternating, want %d", got, procs)
	}
	bad := &scaleMethod{name: "none", method: "NoSuchMethod", params: eval.Params{}}
	if two, one := r.timeAlternating(bad, 3, 40, 5); two != 0 || one != 0 {
		t.Errorf("timeAlternating of an unknown method = %v, %v, want zeros", two, one)
	}
}
