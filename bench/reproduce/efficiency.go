package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/report"
)

// variant is one algorithm of the efficiency comparison.
type variant struct {
	Name, Method string
	Params       eval.Params
	Trace        []lrsdl.Progress
	Err          error
}

// perIter returns the mean time of an outer iteration, not counting the
// initialisation (the time before the first iteration ends is skipped
// when there are at least two).
func (v *variant) perIter() time.Duration {
	n := len(v.Trace)
	switch n {
	case 0:
		return 0
	case 1:
		return v.Trace[0].Elapsed
	}
	return (v.Trace[n-1].Elapsed - v.Trace[0].Elapsed) / time.Duration(n-1)
}

func (r *run) efficiency() error {
	c := r.cfg
	Y, labels := data.FaceLike(c.EffC, c.EffD, c.EffN, r.seed)
	common := eval.Params{"k": float64(c.EffK), "iters": float64(c.EffIters), "tol": 0.0, "seed": float64(r.seed)}
	with := func(kv ...any) eval.Params {
		p := eval.Params{}
		for k, v := range common {
			p[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			p[kv[i].(string)] = kv[i+1]
		}
		return p
	}
	r.variants = []*variant{
		{Name: "O-FDDL", Method: "FDDL", Params: with("original_x", true, "original_d", true)},
		{Name: "O-FDDL-X+E-FDDL-D", Method: "FDDL", Params: with("original_x", true)},
		{Name: "E-FDDL-X+O-FDDL-D", Method: "FDDL", Params: with("original_d", true)},
		{Name: "E-FDDL", Method: "FDDL", Params: with()},
		{Name: "O-DLSI", Method: "DLSI", Params: with("original_d", true)},
		{Name: "E-DLSI", Method: "DLSI", Params: with()},
		{Name: "O-COPAR", Method: "COPAR", Params: with("original_d", true, "k0", float64(c.EffK))},
		{Name: "E-COPAR", Method: "COPAR", Params: with("k0", float64(c.EffK))},
		{Name: "LRSDL", Method: "LRSDL", Params: with("k0", float64(c.EffK))},
		// Equal inner work: every X step runs 50 FISTA iterations (x_iters
		// 50, x_tol 0; LRSDL's default x_iters is 20), the q of the paper's
		// complexity tables.
		{Name: "E-FDDL (q=50)", Method: "FDDL", Params: with("x_iters", 50.0, "x_tol", 0.0)},
		{Name: "LRSDL (q=50)", Method: "LRSDL", Params: with("k0", float64(c.EffK), "x_iters", 50.0, "x_tol", 0.0)},
	}
	budget := c.EffBudget
	// The algorithms train max(Parallel, 1) at a time, each a whole job
	// (parallel.Job) and so on one core while the others run, as the
	// splits of section 3.
	workers := max(c.Parallel, 1)
	core.ForEach(len(r.variants), workers, func(_, i int) error {
		r.efficiencyFit(r.variants[i], Y, labels, budget)
		return nil
	})

	var b strings.Builder
	fmt.Fprintf(&b, "Data: C=%d classes, d=%d, n=%d samples per class, k=%d atoms per class (k0=%d shared for COPAR and LRSDL), "+
		"%d outer iterations, each algorithm stopped after %v at most; %d algorithms train at a time, each on one core while the others run. "+
		"The paper uses random-face features of AR (C=100, d=300, n=k=7, 100 iterations); here the samples are "+
		"random-face-like: unit-norm y = B_c·a + B_0·a0 + 0.1·e with Gaussian class bases B_c (d×4), a shared Gaussian basis B_0 (d×2) "+
		"and Gaussian coefficients and noise (seed %d; `data.FaceLike`). "+
		"Costs are each method's own cost function (Progress after every outer iteration); times include the initialisation.\n\n",
		c.EffC, c.EffD, c.EffN, c.EffK, c.EffK, c.EffIters, budget, workers, r.seed)
	fmt.Fprintf(&b, "| algorithm | iterations | final cost | total time (s) | time / iteration (s) |\n|---|---:|---:|---:|---:|\n")
	for _, v := range r.variants {
		if v.Err != nil {
			fmt.Fprintf(&b, "| %s | failed: %v | | | |\n", v.Name, v.Err)
			continue
		}
		if len(v.Trace) == 0 {
			fmt.Fprintf(&b, "| %s | 0 (budget exhausted in the initialisation) | | | |\n", v.Name)
			continue
		}
		last := v.Trace[len(v.Trace)-1]
		fmt.Fprintf(&b, "| %s | %d | %.6g | %.3g | %.3g |\n", v.Name, len(v.Trace), last.Cost.Total, last.Elapsed.Seconds(), v.perIter().Seconds())
	}
	b.WriteString("\n")
	byName := map[string]*variant{}
	for _, v := range r.variants {
		if v.Err == nil && len(v.Trace) > 1 {
			byName[v.Name] = v
		}
	}
	var ratios []string
	for _, q := range []struct{ lr, fd, what string }{
		{"LRSDL", "E-FDDL", "default tolerances (FISTA and ODL stop on their own tests)"},
		{"LRSDL (q=50)", "E-FDDL (q=50)", "equal inner work (50 FISTA iterations in every X step, as the paper's complexity counts)"},
	} {
		l, f := byName[q.lr], byName[q.fd]
		if l != nil && f != nil && f.perIter() > 0 {
			ratios = append(ratios, fmt.Sprintf("%.2f× at %s", l.perIter().Seconds()/f.perIter().Seconds(), q.what))
		}
	}
	if len(ratios) > 0 {
		fmt.Fprintf(&b, "LRSDL's time per outer iteration over E-FDDL's: %s.\n\n", strings.Join(ratios, "; "))
	}
	for _, g := range []struct{ file, title, method string }{
		{"efficiency_fddl.png", "FDDL", "FDDL"},
		{"efficiency_dlsi.png", "DLSI", "DLSI"},
		{"efficiency_copar.png", "COPAR", "COPAR"},
	} {
		var byIter, byTime []report.Series
		for _, v := range r.variants {
			if v.Method != g.method || len(v.Trace) == 0 {
				continue
			}
			si, st := report.Series{Name: v.Name}, report.Series{Name: v.Name}
			for _, p := range v.Trace {
				si.X, si.Y = append(si.X, float64(p.Iter)), append(si.Y, p.Cost.Total)
				st.X, st.Y = append(st.X, p.Elapsed.Seconds()), append(st.Y, p.Cost.Total)
			}
			byIter, byTime = append(byIter, si), append(byTime, st)
		}
		if len(byIter) == 0 {
			fmt.Fprintf(&b, "%s: no run finished an iteration, no figure.\n\n", g.title)
			continue
		}
		p1, err := report.Lines(g.title+": cost vs iteration", "iteration", "cost", byIter...)
		if err != nil {
			return err
		}
		p2, err := report.Lines(g.title+": cost vs time", "time (s)", "cost", byTime...)
		if err != nil {
			return err
		}
		if err := report.SavePNG(filepath.Join(r.out, g.file), [][]*plot.Plot{{p1, p2}}, 1200, 450); err != nil {
			return err
		}
		fmt.Fprintf(&b, "![%s](%s)\n\n", g.title, g.file)
	}
	r.md["efficiency"] = b.String()
	return nil
}

// complexity prints Tables 1 and 2 with the paper's numbers, the formulas
// recomputed at the paper's sizes, and the measured iteration times of the
// efficiency experiment.
func (r *run) complexity() error {
	measured := map[string]*variant{}
	for _, v := range r.variants {
		if v.Err == nil && len(v.Trace) > 0 {
			measured[v.Name] = v
		}
	}
	// Table 1's rows are sub-problems: the measured run uses that solver
	// and the efficient one for the other step.
	runOf := map[string]string{
		"O-DLSI-D": "O-DLSI", "E-DLSI-D": "E-DLSI",
		"O-FDDL-X": "O-FDDL-X+E-FDDL-D", "E-FDDL-X": "E-FDDL",
		"O-FDDL-D": "E-FDDL-X+O-FDDL-D", "E-FDDL-D": "E-FDDL",
	}
	ps := report.PaperSizes()
	c := r.cfg
	ours := report.Sizes{C: float64(c.EffC), N: float64(c.EffN), K: float64(c.EffK), Q: 50, D: float64(c.EffD), Q2: 50}
	var b strings.Builder
	fmt.Fprintf(&b, "Multiplications of one outer iteration by the paper's formulas: \"paper\" is its plugging-numbers column, "+
		"\"recomputed\" the formula at the same sizes (C=%g, n=%g, k=%g, q=%g, d=%g, q2=%g), \"at our sizes\" the formula at the sizes of "+
		"the efficiency experiment (C=%d, n=%d, k=%d, d=%d, q=50). \"measured\" is the mean time of one outer iteration in that "+
		"experiment on this machine (section 2); for Table 1's sub-problems it is the run using that solver with the efficient "+
		"solver for the other step. The ratio columns compare each original algorithm with its efficient version: formula "+
		"(at our sizes) against clock.\n\n", ps.C, ps.N, ps.K, ps.Q, ps.D, ps.Q2, c.EffC, c.EffN, c.EffK, c.EffD)
	table := func(title string, rows []report.Complexity, runName func(string) string) {
		fmt.Fprintf(&b, "**%s**\n\n| method | complexity | paper | recomputed | at our sizes | measured s/iter | O/E formula | O/E clock |\n|---|---|---:|---:|---:|---:|---:|---:|\n", title)
		byName := map[string]report.Complexity{}
		for _, row := range rows {
			byName[row.Method] = row
		}
		var notes []string
		for _, row := range rows {
			t := "-"
			if v, ok := measured[runName(row.Method)]; ok {
				t = fmt.Sprintf("%.3g", v.perIter().Seconds())
			}
			ratioF, ratioC := "", ""
			if strings.HasPrefix(row.Method, "O-") {
				e := "E-" + row.Method[2:]
				if er, ok := byName[e]; ok {
					ratioF = fmt.Sprintf("%.3g", row.Ops(ours)/er.Ops(ours))
					vo, ok1 := measured[runName(row.Method)]
					ve, ok2 := measured[runName(e)]
					if ok1 && ok2 && ve.perIter() > 0 {
						ratioC = fmt.Sprintf("%.3g", vo.perIter().Seconds()/ve.perIter().Seconds())
					}
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %.3g | %.3g | %.3g | %s | %s | %s |\n", row.Method, row.Formula, row.Paper, row.Ops(ps), row.Ops(ours), t, ratioF, ratioC)
			if row.Note != "" {
				notes = append(notes, fmt.Sprintf("%s: %s.", row.Method, row.Note))
			}
			if rel := math.Abs(row.Ops(ps)-row.Paper) / row.Paper; rel > 0.05 && row.Note == "" {
				notes = append(notes, fmt.Sprintf("%s: recomputed %.3g differs from the paper's %.3g by %.0f%%.", row.Method, row.Ops(ps), row.Paper, 100*rel))
			}
		}
		b.WriteString("\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
		b.WriteString("\n")
	}
	table("Table 1: sub-problems", report.Table1(), func(m string) string { return runOf[m] })
	table("Table 2: one iteration of each method", report.Table2(), func(m string) string { return m })
	r.md["complexity"] = b.String()
	return nil
}

// efficiencyFit trains variant v on Y for at most budget, recording its
// progress in v.Trace, as one job (parallel.Job).
func (r *run) efficiencyFit(v *variant, Y *mat.Dense, labels []int, budget time.Duration) {
	m, err := methods.New(v.Method)
	if err != nil {
		v.Err = err
		return
	}
	if err := configure(m, v.Params); err != nil {
		v.Err = err
		return
	}
	eval.SetProgress(m, func(p lrsdl.Progress) { v.Trace = append(v.Trace, p) })
	ctx, cancel := context.WithTimeout(r.ctx, budget)
	parallel.Job(func() { err = m.Fit(ctx, Y, labels) })
	cancel()
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		v.Err = err
	}
	logf("efficiency %s: %d iterations, %v/iteration, err %v", v.Name, len(v.Trace), v.perIter().Round(time.Millisecond), err)
}
