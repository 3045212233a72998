package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/report"
)

// scalePoint is one measurement of the scaling study.
type scalePoint struct {
	C, D    int
	perIter time.Duration // 0 when no timed iteration finished
	oneCore time.Duration // perIter on one core; 0 when not measured
	ops     float64       // the paper's multiplications of one iteration
	note    string        // why there is no time
}

// scaleMethod is one algorithm of the scaling study with its row of the
// paper's Table 2.
type scaleMethod struct {
	name, method string
	params       eval.Params
	ops          func(report.Sizes) float64
	byC, byD     []scalePoint
}

// scaling times one outer iteration of E-FDDL, LRSDL and E-COPAR as the
// number of classes grows at a fixed dimension, and as the dimension grows
// at a fixed number of classes, beside the paper's complexity formulas.
func (r *run) scaling() error {
	c := r.cfg
	row := map[string]func(report.Sizes) float64{}
	for _, x := range report.Table2() {
		row[x.Method] = x.Ops
	}
	k0 := float64(c.ScaleK)
	ms := []*scaleMethod{
		{name: "E-FDDL", method: "FDDL", params: eval.Params{}, ops: row["E-FDDL"]},
		{name: "LRSDL", method: "LRSDL", params: eval.Params{"k0": k0}, ops: row["LRSDL"]},
		{name: "E-COPAR", method: "COPAR", params: eval.Params{"k0": k0}, ops: row["E-COPAR"]},
	}
	sizes := func(C, d int) report.Sizes {
		return report.Sizes{C: float64(C), N: float64(c.ScaleN), K: float64(c.ScaleK), Q: 50, D: float64(d), Q2: 50}
	}
	for _, m := range ms {
		if !contains(r.methods, m.method) {
			continue
		}
		over := false
		for _, C := range c.ScaleC {
			p := scalePoint{C: C, D: c.ScaleDim, ops: m.ops(sizes(C, c.ScaleDim))}
			if over {
				p.note = "skipped: a smaller size exceeded the budget"
			} else {
				p.perIter, p.oneCore, p.note = r.timeBoth(m, C, c.ScaleDim)
				over = p.perIter == 0
			}
			m.byC = append(m.byC, p)
		}
		over = false
		for _, d := range c.ScaleDims {
			p := scalePoint{C: c.ScaleClasses, D: d, ops: m.ops(sizes(c.ScaleClasses, d))}
			if over {
				p.note = "skipped: a smaller size exceeded the budget"
			} else {
				p.perIter, p.oneCore, p.note = r.timeBoth(m, c.ScaleClasses, d)
				over = p.perIter == 0
			}
			m.byD = append(m.byD, p)
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "Time of one outer iteration (the mean over iterations 2 to %d, excluding the initialisation, or over as many "+
		"as last %v on two cores, at most %d, where those take less) on random-face-like "+
		"data (`data.FaceLike`, n=%d samples and k=%d atoms per class, k0=%d shared atoms for LRSDL and COPAR), first as the number of "+
		"classes C grows at d=%d, then as the dimension d grows at C=%d; each run stops after %v. \"ops\" is the paper's Table 2 "+
		"formula at those sizes (q=q2=50), and \"ns per 1000 ops\" the measured time over it: a flat column means the time grows as "+
		"the formula says. LRSDL and FDDL train in the span of the training samples, so above d = N = Cn their time stops "+
		"growing with d while the formula keeps growing. Times are on both cores (GOMAXPROCS=2); "+
		"where %d iterations of a first run took less than %v, \"1 core\" times the same iterations at GOMAXPROCS=1 and both columns "+
		"come from two more runs that switch between 2 and 1 after every iteration (one starting on each), so that machine noise "+
		"falls on both alike; \"2 cores / 1\" is their ratio. Sizes whose two runs take less than %v "+
		"are timed again, up to %d times, and both times are the medians.\n\n",
		c.ScaleIters, minTimed, maxTimedIters, c.ScaleN, c.ScaleK, c.ScaleK, c.ScaleDim, c.ScaleClasses, c.ScaleBudget, c.ScaleIters, oneCoreLimit, repeatFor, maxPairs)
	fmt.Fprintf(&b, "| method | C | d | s / iteration | ops | ns per 1000 ops | 1 core s / iteration | 2 cores / 1 |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range ms {
		for _, p := range append(append([]scalePoint(nil), m.byC...), m.byD...) {
			if p.perIter == 0 {
				fmt.Fprintf(&b, "| %s | %d | %d | %s | %.3g | | | |\n", m.name, p.C, p.D, p.note, p.ops)
				continue
			}
			one, ratio := "–", "–"
			if p.oneCore > 0 {
				one, ratio = fmt.Sprintf("%.3g", p.oneCore.Seconds()), fmt.Sprintf("%.2f", p.perIter.Seconds()/p.oneCore.Seconds())
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %.3g | %.3g | %.3g | %s | %s |\n", m.name, p.C, p.D, p.perIter.Seconds(), p.ops, 1e12*p.perIter.Seconds()/p.ops, one, ratio)
		}
	}
	b.WriteString("\n")
	// Each panel: log10 of the measured time and of the formula scaled by
	// the method's median time per operation.
	panel := func(title, x string, pts func(*scaleMethod) []scalePoint, xOf func(scalePoint) int) (*plot.Plot, error) {
		var ss []report.Series
		for i, m := range ms {
			meas := report.Series{Name: m.name, Color: i + 1}
			form := report.Series{Name: m.name + " formula", Color: i + 1, Dashed: true}
			var ratios []float64
			for _, p := range pts(m) {
				if p.perIter > 0 {
					ratios = append(ratios, p.perIter.Seconds()/p.ops)
				}
			}
			if len(ratios) == 0 {
				continue
			}
			scale := median(ratios)
			for _, p := range pts(m) {
				x := math.Log10(float64(xOf(p)))
				if p.perIter > 0 {
					meas.X, meas.Y = append(meas.X, x), append(meas.Y, math.Log10(p.perIter.Seconds()))
				}
				form.X, form.Y = append(form.X, x), append(form.Y, math.Log10(scale*p.ops))
			}
			ss = append(ss, meas, form)
		}
		if len(ss) == 0 {
			return nil, nil
		}
		return report.Lines(title, x, "log10 s / iteration", ss...)
	}
	pc, err := panel(fmt.Sprintf("classes (d=%d)", c.ScaleDim), "log10 C", func(m *scaleMethod) []scalePoint { return m.byC }, func(p scalePoint) int { return p.C })
	if err != nil {
		return err
	}
	pd, err := panel(fmt.Sprintf("dimension (C=%d)", c.ScaleClasses), "log10 d", func(m *scaleMethod) []scalePoint { return m.byD }, func(p scalePoint) int { return p.D })
	if err != nil {
		return err
	}
	if pc == nil || pd == nil {
		b.WriteString("No run finished a timed iteration: no figure.\n")
	} else {
		if err := report.SavePNG(filepath.Join(r.out, "scaling.png"), [][]*plot.Plot{{pc, pd}}, 1200, 450); err != nil {
			return err
		}
		b.WriteString("Measured time (lines with points) and the formula (dashed) scaled by the method's median time per operation:\n\n![scaling](scaling.png)\n")
	}
	r.md["scaling"] = b.String()
	return nil
}

// oneCoreLimit bounds the training time (ScaleIters iterations on two
// cores) of the sizes the scaling study also times on one core.
const oneCoreLimit = 10 * time.Second

// Sizes whose two timings take less than repeatFor are timed again, up to
// maxPairs pairs in all, alternating two cores and one, and each reported
// time is the median: an iteration of a few milliseconds timed once is
// mostly noise.
const (
	repeatFor = 2 * time.Second
	maxPairs  = 5
)

// Sizes whose timed iterations (2 to ScaleIters) take less than minTimed
// on two cores are trained for more iterations, as many as make minTimed
// and at most maxTimedIters, on both cores and on one: two short
// iterations timed once spread more than the ratio they are to measure
// (the scaling study at C = 20, d = 300; see bench/NOTES.md).
const (
	minTimed      = 300 * time.Millisecond
	maxTimedIters = 30
)

// timeBoth returns timeIteration of m at C and d on two cores and, if
// that run was shorter than oneCoreLimit, the times per iteration on two
// cores and on one of timeAlternating, as medians over the repeats of
// short sizes.
func (r *run) timeBoth(m *scaleMethod, C, d int) (two, one time.Duration, note string) {
	iters := r.cfg.ScaleIters
	two, note = r.timeIteration(m, C, d, iters)
	if two == 0 || time.Duration(iters)*two >= oneCoreLimit {
		return two, 0, note
	}
	iters = timedIters(two, iters)
	var twos, ones []float64
	var spent time.Duration
	for len(ones) < maxPairs && (len(ones) == 0 || spent < repeatFor) {
		t2, t1 := r.timeAlternating(m, C, d, iters)
		if t2 == 0 || t1 == 0 {
			break
		}
		twos, ones = append(twos, float64(t2)), append(ones, float64(t1))
		spent += time.Duration(iters) * (t2 + t1)
	}
	if len(ones) == 0 {
		return two, 0, note
	}
	return time.Duration(median(twos)), time.Duration(median(ones)), note
}

// timedIters returns the outer iterations that make the timed ones
// (all but the first) last minTimed at perIter each, at least iters and
// at most maxTimedIters.
func timedIters(perIter time.Duration, iters int) int {
	if perIter <= 0 || time.Duration(iters-1)*perIter >= minTimed {
		return iters
	}
	n := 1 + int((minTimed+perIter-1)/perIter)
	return max(iters, min(n, maxTimedIters))
}

// timeAlternating trains m at C and d twice for iters outer iterations,
// switching GOMAXPROCS between 2 and 1 after every iteration, the first
// fit starting on two cores and the second on one, so that every
// iteration after the first is timed once on each; it returns the mean
// time per iteration on two cores and on one, or zeros if a fit failed.
// Both fits compute the same iterates (the results do not depend on
// GOMAXPROCS), and a disturbance of the machine falls on both counts,
// where separate fits timed one after the other spread more than the
// effect measured (see bench/NOTES.md).
func (r *run) timeAlternating(m *scaleMethod, C, d, iters int) (two, one time.Duration) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var sum [3]time.Duration
	var n [3]int
	for _, first := range []int{2, 1} {
		procs, it := first, 0
		var prev time.Duration
		runtime.GOMAXPROCS(procs)
		var cb lrsdl.Progress
		n0 := n[1] + n[2]
		_, err := r.fitScale(m, C, d, iters, func(p lrsdl.Progress) {
			cb = p
			if it++; it > 1 {
				sum[procs] += p.Elapsed - prev
				n[procs]++
			}
			prev = p.Elapsed
			procs = 3 - procs
			runtime.GOMAXPROCS(procs)
		})
		logf("scaling %s C=%d d=%d alternating from GOMAXPROCS=%d: %d iterations, err %v", m.name, C, d, first, cb.Iter, err)
		if err != nil || n[1]+n[2]-n0 < 2 {
			return 0, 0
		}
	}
	return sum[2] / time.Duration(n[2]), sum[1] / time.Duration(n[1])
}

// timeIteration trains m on C classes in d dimensions for iters outer
// iterations and returns the mean time of iterations 2 and on, or 0 and
// the reason when the budget ran out first.
func (r *run) timeIteration(m *scaleMethod, C, d, iters int) (time.Duration, string) {
	v := variant{Name: m.name}
	note, err := r.fitScale(m, C, d, iters, func(p lrsdl.Progress) { v.Trace = append(v.Trace, p) })
	logf("scaling %s C=%d d=%d GOMAXPROCS=%d: %d iterations, %v/iteration, err %v", m.name, C, d, runtime.GOMAXPROCS(0), len(v.Trace), v.perIter().Round(time.Millisecond), err)
	switch {
	case note != "":
		return 0, note
	case err != nil && !errors.Is(err, context.DeadlineExceeded):
		return 0, "failed: " + err.Error()
	case len(v.Trace) < 2:
		return 0, fmt.Sprintf("> %v for two iterations", r.cfg.ScaleBudget)
	}
	return v.perIter(), ""
}

// fitScale trains m on random-face-like data of C classes in d dimensions
// for iters outer iterations within the scaling budget, calling progress
// after each. A non-empty note says why m could not be set up.
func (r *run) fitScale(m *scaleMethod, C, d, iters int, progress func(lrsdl.Progress)) (note string, err error) {
	c := r.cfg
	Y, labels := data.FaceLike(C, d, c.ScaleN, r.seed)
	cl, err := methods.New(m.method)
	if err != nil {
		return err.Error(), err
	}
	p := eval.Params{"k": float64(c.ScaleK), "iters": float64(iters), "tol": 0.0, "seed": float64(r.seed)}
	for k, v := range m.params {
		p[k] = v
	}
	if err := configure(cl, p); err != nil {
		return err.Error(), err
	}
	eval.SetProgress(cl, progress)
	ctx, cancel := context.WithTimeout(r.ctx, c.ScaleBudget)
	defer cancel()
	return "", cl.Fit(ctx, Y, labels)
}

// median returns the median of v (which it sorts).
func median(v []float64) float64 {
	slices.Sort(v)
	if n := len(v); n%2 == 1 {
		return v[n/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
