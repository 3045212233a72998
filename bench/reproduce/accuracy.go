package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/plot"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/report"
	"github.com/lrsdl/lrsdl/split"
)

const (
	arGender = "argender"
	flower   = "flower17-split1"
	coil     = "coil100-32x32"
)

// titles names the data sets in tables and figures.
var titles = map[string]string{arGender: "AR gender", flower: "Oxford Flower", coil: "COIL-100"}

// perClass returns the training samples per class of dataset in the
// overall table.
func (r *run) perClass(dataset string) int {
	switch dataset {
	case flower:
		return r.cfg.FlPerClass
	case coil:
		return r.cfg.CoPerClass
	}
	return r.cfg.ArPerClass
}

// paperAcc is the paper's Table "overall results" (mean, std in %) for
// AR gender (250 per class), Oxford Flower (60 per class) and COIL-100 (10
// per class); "–" cells of the paper are missing here.
var paperAcc = map[string]map[string][2]float64{
	arGender: {"SRC": {92.57, 0.00}, "LCKSVD1": {88.42, 1.02}, "LCKSVD2": {90.14, 0.45}, "DLSI": {93.86, 0.27},
		"DLRD": {92.71, 0.43}, "FDDL": {93.70, 0.24}, "D2L2R2": {93.71, 0.87}, "COPAR": {95.14, 0.52},
		"JDL": {93.86, 0.43}, "JDL*": {92.83, 0.12}, "SRRS": {91.28, 0.15}, "LRSDL": {95.42, 0.48}},
	flower: {"SRC": {75.79, 0.23}, "LCKSVD1": {91.47, 1.04}, "LCKSVD2": {92.00, 0.73}, "DLSI": {85.29, 1.12},
		"FDDL": {91.17, 0.89}, "D2L2R2": {83.23, 1.34}, "COPAR": {85.29, 0.74}, "JDL": {80.29, 0.26},
		"JDL*": {80.29, 0.26}, "SRRS": {88.52, 0.64}, "LRSDL": {92.58, 0.62}},
	coil: {"SRC": {81.45, 0.80}, "LCKSVD1": {81.37, 0.31}, "LCKSVD2": {81.42, 0.33}, "DLSI": {80.67, 0.46},
		"FDDL": {77.45, 1.04}, "D2L2R2": {76.27, 0.98}, "COPAR": {80.46, 0.61}, "JDL": {80.77, 0.85},
		"JDL*": {80.30, 1.10}, "SRRS": {85.04, 0.45}, "LRSDL": {84.35, 0.37}},
}

// paperTime is the paper's running-time table on Oxford Flower: training
// time (its caption says per sample, but the text reads the row as the
// whole training: "LRSDL around half an hour" for 1.8e3) and test time per
// sample, in seconds. D2L2R2's training is "> 1 day".
var paperTime = map[string][2]string{
	"SRC": {"0", "3.2e-2"}, "LCKSVD1": {"1.53e3", "6.8e-3"}, "LCKSVD2": {"1.46e3", "6.1e-3"}, "DLSI": {"1.4e3", "4e-3"},
	"FDDL": {"9.2e2", "6.4e-3"}, "D2L2R2": {"> 1 day", "3.3e-2"}, "COPAR": {"1.8e4", "5.5e-3"}, "JDL": {"7.5e1", "3.6e-3"},
	"SRRS": {"3.2e3", "3.7e-3"}, "LRSDL": {"1.8e3", "2.4e-2"},
}

// budget bounds the work on one method and data set (cross-validation and
// the splits of the overall table each; half of it the training-size
// curve), so that a slow method cannot stall the run.
func (r *run) budget(dataset, method string) time.Duration {
	if b, ok := r.cfg.Budgets[dataset+"/"+method]; ok {
		return b
	}
	if b, ok := r.cfg.Budgets[dataset]; ok {
		return b
	}
	return r.cfg.Budget
}

// context returns a context ending after d or at the run's deadline, or an
// error when the deadline has passed.
func (r *run) context(d time.Duration) (context.Context, context.CancelFunc, error) {
	end := time.Now().Add(d)
	if !r.deadline.IsZero() {
		if time.Now().After(r.deadline) {
			return nil, nil, errSkipped
		}
		if r.deadline.Before(end) {
			end = r.deadline
		}
	}
	ctx, cancel := context.WithDeadline(r.ctx, end)
	return ctx, cancel, nil
}

var errSkipped = errors.New("skipped: the run's time budget is spent")

// evaluate runs method on the random splits of opts within ctx, or within
// the budget if ctx is nil. pooled draws every split's training and test
// samples from the pooled data set (Oxford Flower), else the training
// samples from split 1's training set and the test set is split 1's. When
// the budget stops it after some splits, the summary covers those and note
// says so.
func (r *run) evaluate(ctx context.Context, dataset, method string, p eval.Params, opts eval.SplitOptions, pooled bool) (s *eval.Summary, note string, err error) {
	if !contains(r.datasets, dataset) {
		return nil, "", errors.New("not run: not in -datasets")
	}
	train, test, err := r.dataset(dataset)
	if err != nil {
		return nil, "", err
	}
	if pool, ok := r.pools[dataset]; ok && pooled {
		train, test = pool, split.Set{}
		opts.TestPerClass = 0 // COIL-100: every other view
		if dataset == flower {
			opts.TestPerClass = r.cfg.FlTest
		}
	}
	if ctx == nil {
		c, cancel, err := r.context(r.budget(dataset, method))
		if err != nil {
			return nil, "", err
		}
		defer cancel()
		ctx = c
	} else if !r.deadline.IsZero() && time.Now().After(r.deadline) {
		return nil, "", errSkipped
	}
	opts.Seed = r.seed
	var runs []eval.Run
	var index []int
	opts.Progress = func(i int, run eval.Run) { runs, index = append(runs, run), append(index, i) }
	t := time.Now()
	s, err = eval.RandomSplits(ctx, r.newFunc(method, p), train, test, opts)
	if errors.Is(err, context.DeadlineExceeded) {
		if len(runs) == 0 {
			err = errors.New("stopped by the time budget")
		} else {
			// in split order: parallel splits end in any order
			sort.Sort(byIndex{index, runs})
			s, err = summarize(runs), nil
			note = fmt.Sprintf("%d of %d splits: the time budget stopped the rest", len(runs), max(opts.Splits, 1))
		}
	}
	if err != nil {
		logf("%s %s %d/class: %v", dataset, method, opts.PerClass, err)
		return nil, "", err
	}
	logf("%s %s %d/class %s: %.2f%% ± %.2f in %v %s", dataset, method, opts.PerClass, p, 100*s.MeanAcc, 100*s.StdAcc, time.Since(t).Round(time.Millisecond), note)
	return s, note, nil
}

// byIndex sorts runs by their split index.
type byIndex struct {
	i []int
	r []eval.Run
}

func (b byIndex) Len() int           { return len(b.i) }
func (b byIndex) Less(i, j int) bool { return b.i[i] < b.i[j] }
func (b byIndex) Swap(i, j int) {
	b.i[i], b.i[j] = b.i[j], b.i[i]
	b.r[i], b.r[j] = b.r[j], b.r[i]
}

// summarize aggregates runs as eval.RandomSplits does.
func summarize(runs []eval.Run) *eval.Summary {
	s := &eval.Summary{Runs: runs}
	n := float64(len(runs))
	var test time.Duration
	var nTest int
	for _, r := range runs {
		s.MeanAcc += r.Accuracy / n
		s.TrainSeconds += r.TrainTime.Seconds() / n
		test += r.TestTime
		nTest += r.NTest
	}
	if nTest > 0 {
		s.TestSecondsPerSample = test.Seconds() / float64(nTest)
	}
	if len(runs) > 1 {
		for _, r := range runs {
			s.StdAcc += (r.Accuracy - s.MeanAcc) * (r.Accuracy - s.MeanAcc)
		}
		s.StdAcc = math.Sqrt(s.StdAcc / (n - 1))
	}
	return s
}

// chosenParams returns the cross-validated options of method on dataset, or
// the defaults when cross-validation fails or runs out of budget.
func (r *run) chosenParams(dataset, method string, perClass int) (eval.Params, string) {
	if !contains(r.datasets, dataset) {
		return eval.Params{}, ""
	}
	train, _, err := r.dataset(dataset)
	if err != nil {
		return nil, err.Error()
	}
	ctx, cancel, err := r.context(r.budget(dataset, method))
	if err != nil {
		return eval.Params{}, err.Error()
	}
	defer cancel()
	saved := r.ctx
	r.ctx = ctx
	p, err := r.paramsFor(dataset, method, train, perClass)
	r.ctx = saved
	if err != nil {
		r.chosen[dataset+"/"+method] = eval.Params{}
		return eval.Params{}, "CV failed, defaults: " + err.Error()
	}
	return p, ""
}

func (r *run) overall() error {
	var b strings.Builder
	fmt.Fprintf(&b, "Accuracy (%%, mean ± std over %d random splits), features scaled to unit norm. AR gender: %d training samples "+
		"per class drawn from the 350 of Y_train (25 men, 25 women) in every split, tested on all of Y_test (%s, the other 50 people). "+
		"Oxford Flower: Y_train and Y_test of flower17-split1 pooled (80 per class, as in the paper) and split at random per class "+
		"into %d training and %d test samples in every split (%s test samples). "+
		"COIL-100: %d random views of every object for training and the other views for test in every split (%s test samples), "+
		"the paper's protocol. Splits train %d at a time (eval.SplitOptions.Parallel). Paper: its Table \"overall results\". A cell without a number says why.\n\n",
		r.cfg.Splits, r.cfg.ArPerClass, r.testSize(arGender), r.cfg.FlPerClass, r.cfg.FlTest, r.testSize(flower),
		r.cfg.CoPerClass, r.testSize(coil), max(r.cfg.Parallel, 1))
	var sets []string
	for _, ds := range []string{arGender, flower, coil} {
		if contains(r.datasets, ds) {
			sets = append(sets, ds)
		}
	}
	b.WriteString("| method |")
	for _, ds := range sets {
		fmt.Fprintf(&b, " %s (ours) | %s (paper) |", titles[ds], titles[ds])
	}
	var short []string
	for _, ds := range sets {
		short = append(short, titles[ds])
	}
	fmt.Fprintf(&b, " CV + splits s (%s) | options (%[1]s) |\n|---|%s---|---|\n", strings.Join(short, "; "), strings.Repeat("---:|---:|", len(sets)))
	// The paper's method runs first, so that the run's deadline cannot
	// skip it; rows stay in the paper's order.
	order := slices.Clone(r.methods)
	if i := slices.Index(order, "LRSDL"); i > 0 {
		order = append(append([]string{"LRSDL"}, order[:i]...), order[i+1:]...)
	}
	rows := map[string]string{}
	means := map[string]map[string]scored{}
	render := func() string {
		t := b.String()
		for _, m := range r.methods {
			t += rows[m]
		}
		return t
	}
	for _, m := range order {
		row := []string{m}
		var opts, times []string
		for _, ds := range sets {
			t := time.Now()
			p, cvNote := r.chosenParams(ds, m, r.perClass(ds))
			tCV := time.Since(t)
			s, note, err := r.evaluate(nil, ds, m, p, eval.SplitOptions{Splits: r.cfg.Splits, PerClass: r.perClass(ds), Parallel: r.cfg.Parallel}, true)
			cell := ""
			if err != nil {
				cell = "– (" + err.Error() + ")"
			} else {
				cell = fmt.Sprintf("%.2f ± %.2f", 100*s.MeanAcc, 100*s.StdAcc)
				if means[ds] == nil {
					means[ds] = map[string]scored{}
				}
				means[ds][m] = scored{100 * s.MeanAcc, len(s.Runs)}
				if note != "" {
					cell += " (" + note + ")"
				}
				if ds == flower {
					r.flower[m] = s
				}
				r.split1[ds+"/"+m] = s.Runs[0]
			}
			paper := "–"
			if a, ok := paperAcc[ds][m]; ok {
				paper = fmt.Sprintf("%.2f ± %.2f", a[0], a[1])
			}
			row = append(row, cell, paper)
			o := p.String()
			if o == "" {
				o = "defaults"
			}
			if cvNote != "" {
				o += " (" + cvNote + ")"
			}
			opts = append(opts, o)
			times = append(times, fmt.Sprintf("%.0f + %.0f", tCV.Seconds(), (time.Since(t)-tCV).Seconds()))
		}
		row = append(row, strings.Join(times, "; "))
		row = append(row, strings.Join(opts, "; "))
		rows[m] = fmt.Sprintf("| %s |\n", strings.Join(row, " | "))
		r.md["overall"] = render() + "\n(section still running: rows so far)\n"
		if err := r.write(); err != nil {
			return err
		}
	}
	r.md["overall"] = render() + "\n" + standing(sets, means, r.cfg.Splits)
	return nil
}

// scored is a cell of the overall table: mean accuracy (%) over splits.
type scored struct {
	acc    float64
	splits int
}

// standing says, for each data set, whether LRSDL is the most accurate
// method of the table and otherwise which methods lead it and by how much.
func standing(sets []string, means map[string]map[string]scored, splits int) string {
	var b strings.Builder
	b.WriteString("Where LRSDL stands in this table:\n\n")
	for _, ds := range sets {
		fmt.Fprintf(&b, "- %s: ", titles[ds])
		l, ok := means[ds]["LRSDL"]
		if !ok {
			b.WriteString("no LRSDL result.\n")
			continue
		}
		var ahead []string
		best, second := "LRSDL", ""
		for m, s := range means[ds] {
			if m == "LRSDL" {
				continue
			}
			if s.acc > l.acc {
				ahead = append(ahead, m)
			} else if second == "" || s.acc > means[ds][second].acc || s.acc == means[ds][second].acc && m < second {
				second = m
			}
		}
		slices.SortFunc(ahead, func(a, c string) int {
			if d := cmp.Compare(means[ds][c].acc, means[ds][a].acc); d != 0 {
				return d
			}
			return strings.Compare(a, c)
		})
		partial := func(m string) string {
			if n := means[ds][m].splits; n < splits {
				return fmt.Sprintf(", %d of %d splits", n, splits)
			}
			return ""
		}
		if len(ahead) == 0 {
			fmt.Fprintf(&b, "LRSDL is the most accurate (%.2f%s)", l.acc, partial(best))
			if second != "" {
				fmt.Fprintf(&b, ", %.2f points ahead of %s (%.2f%s)", l.acc-means[ds][second].acc, second, means[ds][second].acc, partial(second))
			}
			b.WriteString(".\n")
			continue
		}
		var parts []string
		for _, m := range ahead {
			parts = append(parts, fmt.Sprintf("%s by %.2f points (%.2f%s)", m, means[ds][m].acc-l.acc, means[ds][m].acc, partial(m)))
		}
		fmt.Fprintf(&b, "LRSDL (%.2f%s) is not the most accurate; ahead of it: %s.\n", l.acc, partial("LRSDL"), strings.Join(parts, ", "))
	}
	return b.String()
}

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
