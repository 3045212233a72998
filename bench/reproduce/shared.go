package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"

	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/report"
)

// shared runs the shared-dictionary study: accuracy against k0 and η on AR
// gender.
func (r *run) shared() error {
	const perClass = 40
	var b strings.Builder
	fmt.Fprintf(&b, "AR gender, %d training samples per class, %d split(s) per point, other options at the methods' defaults.\n\n",
		perClass, r.cfg.SharedSplit)
	opts := eval.SplitOptions{Splits: r.cfg.SharedSplit, PerClass: perClass, Parallel: r.cfg.Parallel}
	type curve struct {
		name string
		p    eval.Params
		m    string
	}
	curves := []curve{
		{"COPAR", eval.Params{}, "COPAR"},
		{"JDL", eval.Params{}, "JDL"},
		{"LRSDL η=0", eval.Params{"eta": 0.0}, "LRSDL"},
		{"LRSDL η=0.01", eval.Params{"eta": 0.01}, "LRSDL"},
		{"LRSDL η=0.1", eval.Params{"eta": 0.1}, "LRSDL"},
	}
	b.WriteString("**Shared dictionary size k0** (η=0 means no low-rank term)\n\n| method |")
	for _, k0 := range r.cfg.SharedK0 {
		fmt.Fprintf(&b, " k0=%d |", k0)
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(r.cfg.SharedK0)) + "\n")
	var series []report.Series
	for _, c := range curves {
		if !contains(r.methods, c.m) {
			continue
		}
		s := report.Series{Name: c.name}
		fmt.Fprintf(&b, "| %s |", c.name)
		for _, k0 := range r.cfg.SharedK0 {
			p := eval.Params{"k0": float64(k0)}
			for k, v := range c.p {
				p[k] = v
			}
			sum, _, err := r.evaluate(nil, arGender, c.m, p, opts, false)
			if err != nil {
				fmt.Fprintf(&b, " – (%v) |", err)
				continue
			}
			fmt.Fprintf(&b, " %.2f |", 100*sum.MeanAcc)
			s.X, s.Y = append(s.X, float64(k0)), append(s.Y, 100*sum.MeanAcc)
		}
		b.WriteString("\n")
		if len(s.X) > 0 {
			series = append(series, s)
		}
	}
	var plots []*plot.Plot
	if len(series) > 0 {
		pl, err := report.Lines("AR gender: shared dictionary size", "k0", "accuracy (%)", series...)
		if err != nil {
			return err
		}
		plots = append(plots, pl)
	}

	// Parameter sensitivity: the paper varies λ1, λ2, η of LRSDL from 1e-4
	// to 0.3 on AR face (C=100) with the two others at 0.003; AR face is not
	// among our data, so AR gender stands in.
	if contains(r.methods, "LRSDL") {
		b.WriteString("\n**LRSDL parameter sensitivity** (the paper uses AR face, C=100, 20 per class; here AR gender, 40 per class, k0=10); " +
			"one of λ1, λ2, η varies, the other two are 0.003\n\n| parameter |")
		for _, v := range r.cfg.ParamValues {
			fmt.Fprintf(&b, " %g |", v)
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(r.cfg.ParamValues)) + "\n")
		var ps []report.Series
		for _, name := range []string{"lambda1", "lambda2", "eta"} {
			s := report.Series{Name: name}
			fmt.Fprintf(&b, "| %s |", name)
			for _, v := range r.cfg.ParamValues {
				p := eval.Params{"lambda1": 0.003, "lambda2": 0.003, "eta": 0.003, "k0": 10.0}
				p[name] = v
				sum, _, err := r.evaluate(nil, arGender, "LRSDL", p, opts, false)
				if err != nil {
					fmt.Fprintf(&b, " – (%v) |", err)
					continue
				}
				fmt.Fprintf(&b, " %.2f |", 100*sum.MeanAcc)
				s.X, s.Y = append(s.X, log10(v)), append(s.Y, 100*sum.MeanAcc)
			}
			b.WriteString("\n")
			if len(s.X) > 0 {
				ps = append(ps, s)
			}
		}
		if len(ps) > 0 {
			pl, err := report.Lines("LRSDL on AR gender: parameters", "log10(value)", "accuracy (%)", ps...)
			if err != nil {
				return err
			}
			plots = append(plots, pl)
		}
	}
	if len(plots) > 0 {
		if err := report.SavePNG(filepath.Join(r.out, "shared.png"), [][]*plot.Plot{plots}, 600*len(plots), 450); err != nil {
			return err
		}
		b.WriteString("\n![shared dictionary and parameters](shared.png)\n")
	}
	r.md["shared"] = b.String()
	return nil
}

// timeTable times training and testing of every method on each data set.
func (r *run) timeTable() error {
	if !r.sections["overall"] {
		return fmt.Errorf("needs section overall (it times the Flower runs)")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Mean over the Flower splits of section 3 (%d training samples per class, C=17 unless restricted above, d=10000, sparse features); "+
		"this machine, backend %s, %d splits trained at a time. The paper's training row reads as total seconds (its text: LRSDL \"around half an hour\" for 1.8e3).\n\n",
		r.cfg.FlPerClass, flagsBackend(), max(r.cfg.Parallel, 1))
	b.WriteString("| method | train s (ours) | train s/sample (ours) | train (paper) | test s/sample (ours) | test s/sample (paper) |\n|---|---:|---:|---:|---:|---:|\n")
	for _, m := range r.methods {
		pt := paperTime[m]
		if pt[0] == "" {
			pt = [2]string{"–", "–"}
		}
		s, ok := r.flower[m]
		if !ok {
			fmt.Fprintf(&b, "| %s | – | – | %s | – | %s |\n", m, pt[0], pt[1])
			continue
		}
		n := float64(17 * r.cfg.FlPerClass)
		if r.cfg.FlClasses > 0 {
			n = float64(r.cfg.FlClasses * r.cfg.FlPerClass)
		}
		fmt.Fprintf(&b, "| %s | %.3g | %.3g | %s | %.3g | %s |\n", m, s.TrainSeconds, s.TrainSeconds/n, pt[0], s.TestSecondsPerSample, pt[1])
	}
	r.md["time"] = b.String()
	return nil
}
