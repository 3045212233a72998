package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/lrsdl/lrsdl/eval"
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
