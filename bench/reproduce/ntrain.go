package main

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"sync"

	"gonum.org/v1/plot"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/report"
	"github.com/lrsdl/lrsdl/split"
)

// testSize describes the test set of dataset.
func (r *run) testSize(dataset string) string {
	_, test, err := r.dataset(dataset)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	classes, _ := split.ByClass(test.Labels)
	return fmt.Sprintf("%d (%d classes)", test.Len(), len(classes))
}

// ntrainParams returns p for n training samples per class: a k above n,
// chosen or (below maxDefaultK) the default, becomes n.
func ntrainParams(p eval.Params, n int) eval.Params {
	q := eval.Params{}
	maps.Copy(q, p)
	if k, ok := p["k"].(float64); ok && k > float64(n) || !ok && n < maxDefaultK {
		q["k"] = float64(n)
	}
	return q
}

// maxDefaultK is the largest default number of atoms per class.
const maxDefaultK = 25

func (r *run) ntrain() error {
	var b strings.Builder
	fmt.Fprintf(&b, "Accuracy (%%) against training samples per class, %d split(s) per point, options as in section 3 "+
		"(cross-validated at the section-3 size, or defaults). The training samples are drawn from split 1's training set of "+
		"section 3 (AR gender: Y_train; Oxford Flower: the %d per class of split 1 of the pool) and tested on its test set; "+
		"the point at the section-3 size is split 1 of section 3 (the same training samples, options and seed). "+
		"Methods need k ≤ n atoms per class: a cross-validated k above n, or the default k (20 or 25) below %d samples per class, is lowered to n. "+
		"Half the method's time budget covers its curve. Points train %d at a time.\n\n", r.cfg.NTrainSplit, r.cfg.FlPerClass, maxDefaultK, max(r.cfg.Parallel, 1))
	var plots []*plot.Plot
	for _, ds := range []struct {
		name, title string
		sizes       []int
		perClass    int
	}{{arGender, "AR gender", r.cfg.ArSizes, r.cfg.ArPerClass}, {flower, "Oxford Flower", r.cfg.FlSizes, r.cfg.FlPerClass}} {
		if !contains(r.datasets, ds.name) {
			continue
		}
		fmt.Fprintf(&b, "**%s**\n\n| method |", ds.title)
		for _, n := range ds.sizes {
			fmt.Fprintf(&b, " %d |", n)
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(ds.sizes)) + "\n")
		cells := r.ntrainCells(ds.name, ds.sizes, ds.perClass)
		var series []report.Series
		for i, m := range r.methods {
			s := report.Series{Name: m}
			fmt.Fprintf(&b, "| %s |", m)
			for j, n := range ds.sizes {
				if c := cells[i][j]; c.err != nil {
					fmt.Fprintf(&b, " – (%v) |", c.err)
				} else {
					fmt.Fprintf(&b, " %.2f |", 100*c.acc)
					s.X, s.Y = append(s.X, float64(n)), append(s.Y, 100*c.acc)
				}
			}
			b.WriteString("\n")
			if len(s.X) > 0 {
				series = append(series, s)
			}
		}
		b.WriteString("\n")
		if len(series) > 0 {
			pl, err := report.Lines(ds.title, "training samples per class", "accuracy (%)", series...)
			if err != nil {
				return err
			}
			plots = append(plots, pl)
		}
	}
	if len(plots) > 0 {
		if err := report.SavePNG(filepath.Join(r.out, "ntrain.png"), [][]*plot.Plot{plots}, 600*len(plots), 450); err != nil {
			return err
		}
		b.WriteString("![accuracy vs training size](ntrain.png)\n")
	}
	r.md["ntrain"] = b.String()
	return nil
}

// ntrainCell is one point of the training-size curves: an accuracy or why
// there is none.
type ntrainCell struct {
	acc float64
	err error
}

// ntrainCells evaluates every method of r at every size on dataset, by
// method then size; the point at the section-3 size perClass is split 1
// of section 3. The evaluations train max(Parallel, 1) at a time, each a
// job on one core while the others run; a method's budget (half its
// section-3 budget) starts with its first evaluation.
func (r *run) ntrainCells(dataset string, sizes []int, perClass int) [][]ntrainCell {
	r.dataset(dataset) // load it before the workers read r's caches; an error is each evaluation's
	type task struct{ i, j int }
	type budget struct {
		once   sync.Once
		ctx    context.Context
		cancel context.CancelFunc
		err    error
	}
	cells := make([][]ntrainCell, len(r.methods))
	budgets := make([]budget, len(r.methods))
	params := make([]eval.Params, len(r.methods))
	var tasks []task
	for i, m := range r.methods {
		params[i], _ = r.chosenParams(dataset, m, perClass)
		cells[i] = make([]ntrainCell, len(sizes))
		for j, n := range sizes {
			if run, ok := r.split1[dataset+"/"+m]; ok && n == perClass && r.cfg.NTrainSplit == 1 {
				cells[i][j].acc = run.Accuracy
				continue
			}
			tasks = append(tasks, task{i, j})
		}
	}
	core.ForEach(len(tasks), max(r.cfg.Parallel, 1), func(_, q int) error {
		t := tasks[q]
		m, n, bu := r.methods[t.i], sizes[t.j], &budgets[t.i]
		bu.once.Do(func() { bu.ctx, bu.cancel, bu.err = r.context(r.budget(dataset, m) / 2) })
		c := &cells[t.i][t.j]
		if c.err = bu.err; c.err != nil {
			return nil
		}
		var sum *eval.Summary
		if sum, _, c.err = r.evaluate(bu.ctx, dataset, m, ntrainParams(params[t.i], n), eval.SplitOptions{Splits: r.cfg.NTrainSplit, PerClass: n}, false); c.err == nil {
			c.acc = sum.MeanAcc
		}
		return nil
	})
	for i := range budgets {
		if budgets[i].cancel != nil {
			budgets[i].cancel()
		}
	}
	return cells
}
