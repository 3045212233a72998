package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/lrsdl/lrsdl"
)

// reporter writes progress to stderr. On a terminal it redraws one status
// line in place (a bar with the context, iteration, cost and ETA) and
// prints events above it; elsewhere it prints events and, at most every
// heartbeat, the status as plain lines. Quiet prints nothing; verbose adds
// a line per iteration. It is safe for concurrent use.
type reporter struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	quiet   bool
	verbose bool
	width   func() int       // terminal columns
	now     func() time.Time // the clock, replaceable in tests
	tick    bool             // jobs refresh their status between iterations

	drawn    bool      // a status line is on screen
	lastDraw time.Time // last status drawn or printed
}

const (
	redrawEvery = 100 * time.Millisecond // terminal
	heartbeat   = 10 * time.Second       // not a terminal
	barDelay    = 500 * time.Millisecond // no bar for work shorter than this
	barWidth    = 20
)

// isTerminal reports whether w is a terminal, and its width.
func isTerminal(w io.Writer) (bool, func() int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, nil
	}
	return true, func() int {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
		return 80
	}
}

func newReporter(w io.Writer, tty bool, width func() int) *reporter {
	if width == nil {
		width = func() int { return 80 }
	}
	return &reporter{w: w, tty: tty, width: width, now: time.Now, tick: true}
}

// clearLocked erases the status line.
func (r *reporter) clearLocked() {
	if r.drawn {
		fmt.Fprint(r.w, "\r\x1b[K")
		r.drawn = false
	}
}

// event prints one permanent line.
func (r *reporter) event(format string, a ...any) {
	if r == nil || r.quiet {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLocked()
	fmt.Fprintf(r.w, format+"\n", a...)
}

// status shows line as the current state of work started at start: on a
// terminal redrawn in place (not before barDelay, at most every
// redrawEvery unless force), elsewhere printed at most every heartbeat.
func (r *reporter) status(start time.Time, line string, force bool) {
	if r == nil || r.quiet {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if r.tty {
		if now.Sub(start) < barDelay || !force && now.Sub(r.lastDraw) < redrawEvery {
			return
		}
		r.lastDraw, r.drawn = now, true
		fmt.Fprintf(r.w, "\r%s\x1b[K", truncate(line, r.width()-1))
		return
	}
	if now.Sub(r.lastDraw) < heartbeat || now.Sub(start) < heartbeat {
		return
	}
	r.lastDraw = now
	fmt.Fprintln(r.w, line)
}

// columns returns the width a status line may have: the terminal's less
// one, or 0 (any) elsewhere.
func (r *reporter) columns() int {
	if !r.tty {
		return 0
	}
	return r.width() - 1
}

// done erases the status line.
func (r *reporter) done() {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.clearLocked()
	r.mu.Unlock()
}

// truncate shortens s to at most n runes.
func truncate(s string, n int) string {
	if n < 1 || utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// job follows a piece of work made of fits (a training run, a split, a
// cross-validation) and reports its progress and the time it still needs,
// estimated from the fraction of fits and iterations done.
type job struct {
	r     *reporter
	label string
	start time.Time
	fits  int // fits expected in all

	quit chan struct{} // stops the refresh, if any

	mu      sync.Mutex
	started int      // fits started by fit
	cur     fitState // the fit that reported last
	last    lrsdl.Progress
}

// job starts following work made of fits. Unless r is quiet, the status
// is refreshed between iterations too, so that the time and ETA move and a
// long iteration is never silent; finish stops it.
func (r *reporter) job(label string, fits int) *job {
	j := &job{r: r, label: label, start: r.now(), fits: max(fits, 1)}
	if r.tick && !r.quiet {
		j.quit = make(chan struct{})
		every := redrawEvery
		if !r.tty {
			every = time.Second
		}
		quit := j.quit
		go func() {
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-quit:
					return
				case <-t.C:
					r.status(j.start, j.line(r.columns()), false)
				}
			}
		}()
	}
	return j
}

// fit starts the next of the job's fits, described by where, expecting
// iters iterations (0: unknown), and returns its progress function. The
// fit before it, if any, is finished.
func (j *job) fit(where string, iters int) lrsdl.ProgressFunc {
	j.mu.Lock()
	n := j.started
	j.started++
	j.mu.Unlock()
	return j.fitAt(where, iters, float64(n)/float64(j.fits), 1/float64(j.fits))
}

// fitState describes one fit of a job.
type fitState struct {
	where       string  // context, e.g. "split 2/5 · fold 3/5"
	iters       int     // iterations expected; 0: unknown
	from, width float64 // the part of the job the fit does
}

// fitAt starts a fit, described by where, expecting iters iterations,
// which does the part [from, from+width) of the job, and returns its
// progress function. Fits may run at once: the status shows the one that
// reported last.
func (j *job) fitAt(where string, iters int, from, width float64) lrsdl.ProgressFunc {
	f := fitState{where, iters, from, width}
	j.mu.Lock()
	j.cur, j.last = f, lrsdl.Progress{}
	j.mu.Unlock()
	j.r.status(j.start, j.line(j.r.columns()), false)
	return func(p lrsdl.Progress) {
		j.mu.Lock()
		j.cur, j.last = f, p
		j.mu.Unlock()
		if j.r.verbose {
			where := f.where
			if where != "" {
				where += " · "
			}
			j.r.event("%s: %siter %d %s %.2fs", j.label, where, p.Iter, formatCost(p.Cost), p.Elapsed.Seconds())
			return
		}
		j.r.status(j.start, j.line(j.r.columns()), p.Stop != "" || p.Iter == f.iters)
	}
}

// line formats the status in at most n runes (any if n is 0): label,
// percentage and bar, context, iteration, cost, elapsed time and ETA. A
// line too long loses the cost, then the bar and the iteration, then the
// end of the context; the elapsed time and ETA stay.
func (j *job) line(n int) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	frac := j.cur.from
	if j.cur.iters > 0 {
		frac += j.cur.width * min(1, float64(j.last.Iter)/float64(j.cur.iters))
	}
	frac = min(1, frac)
	done := int(frac * barWidth)
	head := fmt.Sprintf("%s %3.0f%%", j.label, 100*frac)
	bar := fmt.Sprintf(" [%s%s]", strings.Repeat("=", done), strings.Repeat(" ", barWidth-done))
	var where, iter, cost string
	if j.cur.where != "" {
		where = " " + j.cur.where
	}
	if j.last.Iter > 0 {
		iter = fmt.Sprintf(" · iter %d", j.last.Iter)
		if j.cur.iters > 0 {
			iter += fmt.Sprintf("/%d", j.cur.iters)
		}
		cost = fmt.Sprintf(" · cost %.4g", j.last.Cost.Total)
	}
	el := j.r.now().Sub(j.start)
	tail := " · " + formatDuration(el)
	if frac > 0 && frac < 1 {
		tail += ", ETA " + formatDuration(time.Duration(float64(el)*(1-frac)/frac))
	}
	for _, drop := range []*string{nil, &cost, &bar, &iter} {
		if drop != nil {
			*drop = ""
		}
		if line := head + bar + where + iter + cost + tail; n <= 0 || utf8.RuneCountInString(line) <= n {
			return line
		}
	}
	if room := n - utf8.RuneCountInString(head+tail); room > 1 {
		return head + truncate(where, room) + tail
	}
	return truncate(head+tail, n)
}

// finish stops the job's refresh and erases its status line.
func (j *job) finish() {
	if j.quit != nil {
		close(j.quit)
		j.quit = nil
	}
	j.r.done()
}

// formatDuration formats d in seconds (tenths below ten), minutes and
// seconds from a minute, hours and minutes from an hour.
func formatDuration(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}

func formatCost(c lrsdl.Cost) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cost %.6g", c.Total)
	if len(c.Terms) > 1 {
		b.WriteString(" (")
		for i, t := range c.Terms {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %.4g", t.Name, t.Value)
		}
		b.WriteString(")")
	}
	return b.String()
}

// ticker shows label and the elapsed time until the returned function is
// called, for work that reports no progress of its own.
func (r *reporter) ticker(label string) (stop func()) {
	if r.quiet {
		return func() {}
	}
	start := r.now()
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(redrawEvery)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				r.status(start, fmt.Sprintf("%s · %s", label, formatDuration(r.now().Sub(start))), false)
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		r.done()
	}
}
