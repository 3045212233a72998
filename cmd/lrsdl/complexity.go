package main

import (
	"context"
	"fmt"
	"math"
	"text/tabwriter"

	"github.com/lrsdl/lrsdl/report"
)

func runComplexity(ctx context.Context, e *env, args []string) error {
	fs := flagSet(e, "complexity")
	s := report.PaperSizes()
	fs.Float64Var(&s.C, "C", s.C, "number of classes")
	fs.Float64Var(&s.N, "n", s.N, "training samples per class")
	fs.Float64Var(&s.K, "k", s.K, "atoms per class dictionary (and shared)")
	fs.Float64Var(&s.Q, "q", s.Q, "iterations of each iterative solver")
	fs.Float64Var(&s.D, "d", s.D, "signal dimension")
	fs.Float64Var(&s.Q2, "q2", s.Q2, "iterations of the SVD in LRSDL-D0")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	for _, v := range []struct {
		flag string
		v    float64
	}{{"C", s.C}, {"n", s.N}, {"k", s.K}, {"q", s.Q}, {"d", s.D}, {"q2", s.Q2}} {
		if !(v.v >= 0) || math.IsInf(v.v, 1) {
			return usagef("-%s %g: want a finite size ≥ 0", v.flag, v.v)
		}
	}
	tabs := [][]report.Complexity{report.Table1(), report.Table2()}
	for _, tab := range tabs {
		for _, r := range tab {
			if ops := r.Ops(s); math.IsInf(ops, 0) || math.IsNaN(ops) {
				return usagef("sizes too large: the count of %s (%s) overflows", r.Method, r.Formula)
			}
		}
	}
	paper := s == report.PaperSizes()
	fmt.Fprintf(e.stdout, "Multiplications per iteration at C=%g n=%g k=%g q=%g d=%g q2=%g\n", s.C, s.N, s.K, s.Q, s.D, s.Q2)
	var notes []string
	for i, tab := range tabs {
		title := []string{"Table 1: efficient algorithms and their original versions", "Table 2: dictionary learning methods"}[i]
		fmt.Fprintf(e.stdout, "\n%s\n", title)
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		if paper {
			fmt.Fprintf(tw, "method\tcomplexity\tnumber\tpaper\t\n")
		} else {
			fmt.Fprintf(tw, "method\tcomplexity\tnumber\t\n")
		}
		for _, r := range tab {
			mark := ""
			if r.Note != "" {
				notes = append(notes, r.Method+": "+r.Note)
				mark = " *"
			}
			if paper {
				fmt.Fprintf(tw, "%s\t%s\t%.3g\t%.3g%s\t\n", r.Method, r.Formula, r.Ops(s), r.Paper, mark)
			} else {
				fmt.Fprintf(tw, "%s%s\t%s\t%.3g\t\n", r.Method, mark, r.Formula, r.Ops(s))
			}
		}
		tw.Flush()
	}
	for _, n := range notes {
		fmt.Fprintf(e.stdout, "\n* %s\n", n)
	}
	return nil
}
