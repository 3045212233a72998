package main

import (
	"testing"
	"time"
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
