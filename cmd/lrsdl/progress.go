package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lrsdl/lrsdl"
)

// progress reports training progress on stderr: one line per iteration
// when verbose, otherwise a bar redrawn in place on a terminal once the
// work has taken more than a second.
type progress struct {
	w       io.Writer
	label   string
	total   int // iterations expected, 0 if unknown
	verbose bool
	tty     bool
	start   time.Time
	last    time.Time
	drawn   bool
}

func newProgress(e *env, verbose bool, label string, total int) *progress {
	return &progress{w: e.stderr, label: label, total: total, verbose: verbose, tty: e.tty, start: time.Now()}
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

// iter reports one outer iteration.
func (p *progress) iter(it lrsdl.Progress) {
	if p.verbose {
		fmt.Fprintf(p.w, "%s: iter %d %s %.2fs\n", p.label, it.Iter, formatCost(it.Cost), it.Elapsed.Seconds())
		return
	}
	p.bar(it.Iter, fmt.Sprintf("cost %.4g", it.Cost.Total))
}

// bar redraws the progress bar at step done of total.
func (p *progress) bar(done int, note string) {
	now := time.Now()
	if !p.tty || now.Sub(p.start) < time.Second || now.Sub(p.last) < 100*time.Millisecond && done != p.total {
		return
	}
	p.last, p.drawn = now, true
	if p.total > 0 {
		const width = 30
		n := min(width, width*done/p.total)
		bar := strings.Repeat("=", n) + strings.Repeat(" ", width-n)
		fmt.Fprintf(p.w, "\r%s [%s] %d/%d %s %.1fs\x1b[K", p.label, bar, done, p.total, note, now.Sub(p.start).Seconds())
		return
	}
	fmt.Fprintf(p.w, "\r%s: iteration %d, %s, %.1fs\x1b[K", p.label, done, note, now.Sub(p.start).Seconds())
}

// done ends the bar's line.
func (p *progress) done() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
