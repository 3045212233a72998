package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/eval"
)

// fakeClock is a settable clock for reporters.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func newTestReporter(tty bool) (*reporter, *bytes.Buffer, *fakeClock) {
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(1e9, 0)}
	r := newReporter(&b, tty, func() int { return 100 })
	r.now, r.tick = clk.now, false
	return r, &b, clk
}

func TestProgressTerminal(t *testing.T) {
	r, b, clk := newTestReporter(true)
	j := r.job("LRSDL", 2)
	it := j.fit("split 1/2", 10)
	it(lrsdl.Progress{Iter: 1, Cost: lrsdl.Cost{Total: 3}})
	if b.Len() != 0 {
		t.Errorf("bar drawn at once: %q", b.String())
	}
	// Half of the first of two fits after 10 s: 25 % done, 30 s to go.
	clk.add(10 * time.Second)
	it(lrsdl.Progress{Iter: 5, Cost: lrsdl.Cost{Total: 2}})
	want := "\rLRSDL  25% [=====               ] split 1/2 · iter 5/10 · cost 2 · 10s, ETA 30s\x1b[K"
	if b.String() != want {
		t.Errorf("bar\n%q, want\n%q", b.String(), want)
	}
	// Redrawn at most every redrawEvery.
	b.Reset()
	it(lrsdl.Progress{Iter: 6, Cost: lrsdl.Cost{Total: 2}})
	if b.Len() != 0 {
		t.Errorf("redrawn at once: %q", b.String())
	}
	// An event clears the bar and prints above it; the next fit counts the
	// first as done.
	r.event("split 1 done")
	if b.String() != "\r\x1b[Ksplit 1 done\n" {
		t.Errorf("event %q", b.String())
	}
	b.Reset()
	clk.add(time.Second)
	j.fit("split 2/2", 10)
	if s := b.String(); !strings.Contains(s, " 50% [==========          ] split 2/2 · 11s, ETA 11s") {
		t.Errorf("second fit %q", s)
	}
	// A long line fits the terminal's width and keeps the ETA.
	it = j.fit(strings.Repeat("x", 200), 10)
	clk.add(time.Second)
	it(lrsdl.Progress{Iter: 1})
	line := strings.TrimSuffix(b.String()[strings.LastIndex(b.String(), "\r")+1:], "\x1b[K")
	if n := len([]rune(line)); n != 99 || !strings.HasSuffix(line, "x… · 12s") || !strings.HasPrefix(line, "LRSDL 100% xxx") {
		t.Errorf("line of %d runes on a 100-column terminal: %q", n, line)
	}
	b.Reset()
	j.finish()
	if b.String() != "\r\x1b[K" {
		t.Errorf("finish %q", b.String())
	}
}

func TestProgressLog(t *testing.T) {
	// Not a terminal: the status at most every heartbeat, as plain lines.
	r, b, clk := newTestReporter(false)
	j := r.job("X", 1)
	it := j.fit("", 0)
	for range 25 {
		clk.add(time.Second)
		it(lrsdl.Progress{Iter: 1, Cost: lrsdl.Cost{Total: 1}})
	}
	if lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"); len(lines) != 2 || strings.Contains(b.String(), "\r") ||
		lines[0] != "X   0% [                    ] · iter 1 · cost 1 · 10s" {
		t.Errorf("log %q", b.String())
	}
	// Verbose: one line per iteration with the cost terms.
	b.Reset()
	r.verbose = true
	it = j.fit("fold 2/3", 0)
	it(lrsdl.Progress{Iter: 2, Cost: lrsdl.Cost{Total: 3, Terms: []lrsdl.Term{{Name: "fidelity", Value: 1}, {Name: "sparsity", Value: 2}}}, Elapsed: time.Second})
	if s := b.String(); s != "X: fold 2/3 · iter 2 cost 3 (fidelity 1, sparsity 2) 1.00s\n" {
		t.Errorf("verbose line %q", s)
	}
	// Quiet: nothing at all.
	b.Reset()
	r.quiet = true
	it(lrsdl.Progress{Iter: 3})
	r.event("x")
	clk.add(time.Minute)
	j.fit("", 1)
	if b.Len() != 0 {
		t.Errorf("quiet wrote %q", b.String())
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		1500 * time.Millisecond: "1.5s", 42 * time.Second: "42s", 184 * time.Second: "3m04s", 3720 * time.Second: "1h02m",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}

// On a narrow terminal the status drops the cost, then the bar and the
// iteration, and keeps the elapsed time and the ETA.
func TestProgressNarrow(t *testing.T) {
	for _, c := range []struct {
		cols int
		want string
	}{
		{121, "LRSDL  25% [=====               ] split 1/5 · cv 3/9 k=40 lambda1=0.001 · fold 2/5 · iter 5/10 · cost 2.5 · 10s, ETA 30s"},
		{120, "LRSDL  25% [=====               ] split 1/5 · cv 3/9 k=40 lambda1=0.001 · fold 2/5 · iter 5/10 · 10s, ETA 30s"},
		{109, "LRSDL  25% split 1/5 · cv 3/9 k=40 lambda1=0.001 · fold 2/5 · iter 5/10 · 10s, ETA 30s"},
		{86, "LRSDL  25% split 1/5 · cv 3/9 k=40 lambda1=0.001 · fold 2/5 · 10s, ETA 30s"},
		{50, "LRSDL  25% split 1/5 · cv 3/9 k=4… · 10s, ETA 30s"},
		{20, "LRSDL  25% · 10s, …"},
	} {
		r, b, clk := newTestReporter(true)
		r.width = func() int { return c.cols }
		j := r.job("LRSDL", 2)
		it := j.fit("split 1/5 · cv 3/9 k=40 lambda1=0.001 · fold 2/5", 10)
		clk.add(10 * time.Second)
		it(lrsdl.Progress{Iter: 5, Cost: lrsdl.Cost{Total: 2.5}})
		got := strings.TrimSuffix(strings.TrimPrefix(b.String(), "\r"), "\x1b[K")
		if got != c.want || len([]rune(got)) >= c.cols {
			t.Errorf("%d columns:\n%q, want\n%q", c.cols, got, c.want)
		}
	}
}

// Under successive halving a fit resumed from an earlier round counts to
// the iterations of its own round, not to those its model was made with.
func TestEvalTrackerIterations(t *testing.T) {
	r, _, _ := newTestReporter(true)
	newC := func() (lrsdl.Classifier, error) {
		f := &fake{name: "FAKE"}
		f.Options.Iters = 30
		return f, nil
	}
	tr := newEvalTracker(r, "FAKE", eval.SplitOptions{Splits: 1, Folds: 2}, newC)
	resumed := &fake{name: "FAKE"}
	resumed.Options.Iters = 3 // made for the first round
	for _, c := range []struct {
		params eval.Params
		want   int
	}{{eval.Params{"iters": 10.0, "lambda": 0.1}, 10}, {eval.Params{"lambda": 0.1}, 30}} {
		tr.fit(resumed, eval.Stage{Split: 1, Splits: 1, Fold: 1, Folds: 2, Cand: 1, Cands: 2, Round: 2, Rounds: 3, Params: c.params})
		if got := tr.j.cur.iters; got != c.want {
			t.Errorf("stage options %v: counts to %d iterations, want %d", c.params, got, c.want)
		}
	}
}

// The final fit of a cross-validated split gets the share of the work its
// iterations on all the training samples take: with 5 folds, 27
// candidates in 3 rounds whose first runs 3 of 30 iterations, the
// cross-validation does 3·27·4·0.1 = 32.4 final fits' worth.
func TestEvalTrackerFinalShare(t *testing.T) {
	r, _, _ := newTestReporter(true)
	newC := func() (lrsdl.Classifier, error) {
		f := &fake{name: "FAKE"}
		f.Options.Iters = 30
		return f, nil
	}
	tr := newEvalTracker(r, "FAKE", eval.SplitOptions{Splits: 1, Folds: 5}, newC)
	c, _ := newC()
	tr.fit(c, eval.Stage{Split: 1, Splits: 1, Fold: 1, Folds: 5, Cand: 1, Cands: 27, Round: 1, Rounds: 3, Params: eval.Params{"iters": 3.0, "lambda": 0.1}})
	tr.fit(c, eval.Stage{Split: 1, Splits: 1, Folds: 5, Params: eval.Params{"lambda": 0.1}})
	if want := 1 / 33.4; math.Abs(tr.j.cur.width-want) > 1e-12 || math.Abs(tr.j.cur.from+want-1) > 1e-12 {
		t.Errorf("final fit does [%g, %g) of the work, want the last %g", tr.j.cur.from, tr.j.cur.from+tr.j.cur.width, want)
	}
}
