// Command reproduce reruns the experiments of Vu & Monga, "Fast Low-rank
// Shared Dictionary Learning for Image Classification", with lrsdl and writes
// RESULTS.md and PNG figures to a directory:
//
//	go run -tags openblas ./bench/reproduce            # full run, bench/results
//	go run ./bench/reproduce -quick -out /tmp/results  # reduced run (CI)
//
// Sections (-sections, comma-separated): complexity (Tables 1 and 2 with
// measured iteration times), efficiency (original vs efficient algorithms),
// overall (accuracy table), ntrain (accuracy vs training size), shared
// (shared-dictionary size and parameter sensitivity), time (training and test
// time on Oxford Flower), scaling (one iteration as classes and dimension
// grow, against the complexity formulas), simulated (the bases each method
// learns from the paper's simulated data). RESULTS.md is rewritten after every section, so an
// interrupted run keeps what it finished.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/james-bowman/sparse"
	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/internal/backend"
	"github.com/lrsdl/lrsdl/internal/provenance"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/split"
	"gonum.org/v1/gonum/mat"
)

var allSections = []string{"complexity", "efficiency", "overall", "ntrain", "shared", "time", "scaling", "simulated"}

// config holds the sizes of one run; quick() and full() give the two modes.
type config struct {
	Mode string

	// Efficiency experiment (section "Validation of efficient algorithms").
	EffC, EffD, EffN, EffK, EffIters int

	// Accuracy experiments.
	EffBudget   time.Duration                   // time budget of one algorithm of the efficiency experiment
	Budget      time.Duration                   // time budget of one method on one data set (CV, splits, curve each)
	Budgets     map[string]time.Duration        // Budget by data set or "data set/method"
	Splits      int                             // random splits of the overall table
	Folds       int                             // cross-validation folds (on split 1's training data); <2: no CV
	Iters       int                             // outer iterations of every method; 0: method defaults
	Deadline    time.Duration                   // evaluations starting after this run time are skipped; 0: none
	FlClasses   int                             // Oxford Flower restricted to its first classes; 0: all 17
	TestCap     int                             // test samples per class at most; 0: all
	ArPerClass  int                             // AR gender training samples per class
	FlPerClass  int                             // Oxford Flower training samples per class
	FlTest      int                             // Oxford Flower test samples per class (of the 80 pooled)
	Grids       map[string]map[string]eval.Grid // CV grids by data set and method; default eval.DefaultGrid
	ArSizes     []int                           // training sizes of the ntrain figure
	FlSizes     []int
	NTrainSplit int // splits per point of the ntrain figure
	SharedK0    []int
	SharedSplit int
	ParamValues []float64

	// Scaling study: one outer iteration as C grows (ScaleC at ScaleDim)
	// and as d grows (ScaleDims at ScaleClasses), n and k per class fixed.
	ScaleC, ScaleDims          []int
	ScaleDim, ScaleClasses     int
	ScaleN, ScaleK, ScaleIters int
	ScaleBudget                time.Duration

	// Simulated data: training and test samples per class.
	SimTrain, SimTest int
}

func full() config {
	return config{Mode: "full",
		EffC: 100, EffD: 300, EffN: 7, EffK: 7, EffIters: 15, EffBudget: 100 * time.Second,
		Budget: 6 * time.Minute, Splits: 10, Folds: 5, ArPerClass: 250, FlPerClass: 60, FlTest: 20,
		ArSizes: []int{50, 100, 150, 200, 250, 300, 350}, FlSizes: []int{15, 30, 45, 60}, NTrainSplit: 1,
		SharedK0: []int{10, 20, 30, 40, 50, 60, 70, 80}, SharedSplit: 2,
		ParamValues: []float64{1e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3},
		ScaleC:      []int{10, 25, 50, 100, 200, 400}, ScaleDim: 300, ScaleDims: []int{300, 1000, 3000, 10000}, ScaleClasses: 20,
		ScaleN: 7, ScaleK: 7, ScaleIters: 3, ScaleBudget: time.Minute,
		SimTrain: 200, SimTest: 800,
		// A fit on Oxford Flower (d = 10000, 1020 samples) takes 5 s (SRC,
		// ODL), 15 s (FDDL, LRSDL) or 30-50 s (LC-KSVD, DLSI, D2L2R2, COPAR)
		// on 2 idle cores: cross-validation over two points of the sparsity
		// weight for the fast ones, none for the slow ones, and budgets
		// that give the slow ones a few of the 10 splits.
		Deadline: 55 * time.Minute,
		Budgets: map[string]time.Duration{flower: 100 * time.Second,
			flower + "/FDDL": 3 * time.Minute, flower + "/LRSDL": 3 * time.Minute},
		Grids: map[string]map[string]eval.Grid{flower: {
			"LRSDL":   {"lambda1": {0.001, 0.01}},
			"FDDL":    {"lambda1": {0.001, 0.01}},
			"D2L2R2":  {},
			"DLSI":    {},
			"COPAR":   {},
			"LCKSVD1": {},
			"LCKSVD2": {},
		}},
	}
}

func quick() config {
	return config{Mode: "quick",
		EffC: 20, EffD: 100, EffN: 7, EffK: 7, EffIters: 4, EffBudget: 15 * time.Second,
		Budget: 20 * time.Second, Deadline: 4 * time.Minute, Splits: 2, Folds: 0, Iters: 3,
		FlClasses: 4, TestCap: 50, ArPerClass: 250, FlPerClass: 25, FlTest: 20,
		ArSizes: []int{50, 150, 350}, FlSizes: []int{15, 25}, NTrainSplit: 1,
		SharedK0: []int{10, 40, 80}, SharedSplit: 1,
		ParamValues: []float64{1e-4, 3e-3, 0.3},
		ScaleC:      []int{5, 10, 20}, ScaleDim: 100, ScaleDims: []int{50, 100, 200}, ScaleClasses: 5,
		ScaleN: 7, ScaleK: 7, ScaleIters: 3, ScaleBudget: 10 * time.Second,
		SimTrain: 50, SimTest: 50,
	}
}

type run struct {
	cfg      config
	out      string
	dataDir  string
	seed     uint64
	ctx      context.Context
	start    time.Time
	deadline time.Time // zero: none; quick mode skips evaluations after it
	finished bool      // all sections ran
	datasets []string  // data sets of the accuracy sections
	sections map[string]bool
	md       map[string]string        // rendered markdown by section
	took     map[string]time.Duration // wall time by section
	methods  []string
	chosen   map[string]eval.Params  // CV-chosen options by dataset/method
	sets     map[string][2]split.Set // train, test of split 1 by dataset
	pools    map[string]split.Set    // all samples of data sets split anew every time (Oxford Flower)
	flower   map[string]*eval.Summary
	split1   map[string]eval.Run // split 1 of the overall table by dataset/method
	variants []*variant
}

func main() {
	backend.Setup()
	quickFlag := flag.Bool("quick", false, "reduced run (few splits and iterations, no cross-validation) for CI")
	out := flag.String("out", "bench/results", "output `directory`")
	dataDir := flag.String("data", "testdata", "`directory` of argender.mat and flower17-split1.mat")
	secs := flag.String("sections", strings.Join(allSections, ","), "comma-separated `sections` to run")
	meths := flag.String("methods", "", "comma-separated methods (default: all registered)")
	seed := flag.Uint64("seed", 1, "seed of data, splits and initialisations")
	splits := flag.Int("splits", 0, "random splits of the overall table (0: the mode's)")
	folds := flag.Int("folds", -1, "cross-validation folds, 0 for none (-1: the mode's)")
	budget := flag.Duration("budget", 0, "time budget of one method on one data set (0: the mode's)")
	deadline := flag.Duration("deadline", -1, "skip evaluations starting after this run time, 0 for none (-1: the mode's)")
	dsets := flag.String("datasets", arGender+","+flower, "comma-separated data sets of the accuracy sections")
	flag.Parse()

	r := &run{cfg: full(), out: *out, dataDir: *dataDir, seed: *seed, ctx: context.Background(),
		start: time.Now(), sections: map[string]bool{}, md: map[string]string{},
		took: map[string]time.Duration{}, chosen: map[string]eval.Params{},
		sets: map[string][2]split.Set{}, pools: map[string]split.Set{}, flower: map[string]*eval.Summary{},
		split1: map[string]eval.Run{}}
	if *quickFlag {
		r.cfg = quick()
	}
	if *deadline >= 0 {
		r.cfg.Deadline = *deadline
	}
	if r.cfg.Deadline > 0 {
		r.deadline = r.start.Add(r.cfg.Deadline)
	}
	if *splits > 0 {
		r.cfg.Splits = *splits
	}
	if *folds >= 0 {
		r.cfg.Folds = *folds
	}
	if *budget > 0 {
		r.cfg.Budget, r.cfg.Budgets = *budget, nil
	}
	r.datasets = strings.Split(*dsets, ",")
	for _, s := range strings.Split(*secs, ",") {
		s = strings.TrimSpace(s)
		if !contains(allSections, s) {
			fatalf("unknown section %q (want some of %s)", s, strings.Join(allSections, ","))
		}
		r.sections[s] = true
	}
	r.methods = paperOrder(methods.Names())
	if *meths != "" {
		r.methods = strings.Split(*meths, ",")
		for _, m := range r.methods {
			if _, err := methods.New(m); err != nil {
				fatalf("%v", err)
			}
		}
	}
	if err := os.MkdirAll(r.out, 0o755); err != nil {
		fatalf("%v", err)
	}
	steps := []struct {
		name string
		f    func() error
	}{
		{"efficiency", r.efficiency}, // before complexity: it measures the iterations
		{"complexity", r.complexity},
		{"overall", r.overall},
		{"shared", r.shared},
		{"ntrain", r.ntrain}, // last: the deadline cuts the least needed
		{"time", r.timeTable},
		{"scaling", r.scaling},
		{"simulated", r.simulated},
	}
	for _, s := range steps {
		if !r.sections[s.name] && !(s.name == "efficiency" && r.sections["complexity"]) {
			continue
		}
		logf("== %s", s.name)
		t := time.Now()
		if err := s.f(); err != nil {
			r.md[s.name] = fmt.Sprintf("**Failed:** %v\n", err)
			logf("%s: %v", s.name, err)
		}
		r.took[s.name] = time.Since(t)
		if err := r.write(); err != nil {
			fatalf("%v", err)
		}
	}
	r.finished = true
	if err := r.write(); err != nil {
		fatalf("%v", err)
	}
	logf("done in %v; wrote %s", time.Since(r.start).Round(time.Second), filepath.Join(r.out, "RESULTS.md"))
}

// paperOrder sorts method names in the order of the paper's tables, others
// after them.
func paperOrder(names []string) []string {
	rank := map[string]int{"SRC": 1, "LCKSVD1": 2, "LCKSVD2": 3, "DLSI": 4, "FDDL": 5, "D2L2R2": 6, "COPAR": 7, "LRSDL": 8}
	sort.SliceStable(names, func(i, j int) bool {
		ri, rj := rank[names[i]], rank[names[j]]
		if ri == 0 {
			ri = 100
		}
		if rj == 0 {
			rj = 100
		}
		return ri < rj
	})
	return names
}

func fatalf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "reproduce: "+format+"\n", a...)
	os.Exit(1)
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05")}, a...)...)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// write renders RESULTS.md from the sections finished so far.
func (r *run) write() error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Reproduction of Vu & Monga, \"Fast Low-rank Shared Dictionary Learning for Image Classification\"\n\n")
	fmt.Fprintf(&b, "Generated by `bench/reproduce`; do not edit by hand.\n\n")
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| mode | **%s** |\n", r.cfg.Mode)
	status := "finished"
	if !r.finished {
		status = "**incomplete**: still running or interrupted; the sections below are those finished"
	}
	fmt.Fprintf(&b, "| status | %s |\n", status)
	fmt.Fprintf(&b, "| command | %s |\n", commandLine())
	fmt.Fprintf(&b, "| wall time | %v (by section: %s) |\n", time.Since(r.start).Round(time.Second), r.tookList())
	fmt.Fprintf(&b, "| date (UTC) | %s |\n", r.start.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "| machine | %s, %d CPUs, %s/%s |\n", provenance.CPUModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "| backend | `%s` (lrsdl.Backend()): %s |\n", lrsdl.Backend(), lrsdl.BackendDetail())
	fmt.Fprintf(&b, "| GOMAXPROCS | %d |\n", runtime.GOMAXPROCS(0))
	fmt.Fprintf(&b, "| Go | %s |\n", runtime.Version())
	fmt.Fprintf(&b, "| commit | `%s` |\n", provenance.Commit(r.out))
	fmt.Fprintf(&b, "| seed | %d |\n", r.seed)
	fmt.Fprintf(&b, "| methods | %s |\n", strings.Join(r.methods, ", "))
	fmt.Fprintf(&b, "| data sets | %s (from %s) |\n\n", strings.Join(r.datasets, ", "), r.dataDir)
	fmt.Fprintf(&b, "%s\n", r.protocol())
	titles := map[string]string{
		"complexity": "1. Complexity: the paper's Tables 1 and 2 against the clock",
		"efficiency": "2. Efficient vs original algorithms",
		"overall":    "3. Overall accuracy",
		"ntrain":     "4. Accuracy versus training samples per class",
		"shared":     "5. Shared dictionary size and parameter sensitivity",
		"time":       "6. Training and test time on Oxford Flower",
		"scaling":    "7. How the time of an iteration grows with classes and dimension",
		"simulated":  "8. Bases learned from simulated data",
	}
	for _, s := range allSections {
		if md, ok := r.md[s]; ok {
			fmt.Fprintf(&b, "## %s\n\n%s\n", titles[s], md)
		}
	}
	tmp := filepath.Join(r.out, "RESULTS.md.tmp")
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(r.out, "RESULTS.md"))
}

// gridList describes the grids replacing eval.DefaultGrids.
func (r *run) gridList() string {
	var s []string
	for _, ds := range r.datasets {
		var g []string
		for _, m := range r.methods {
			if grid, ok := r.cfg.Grids[ds][m]; ok && len(grid) == 0 {
				g = append(g, m+" no CV (defaults)")
			} else if ok {
				g = append(g, m+" "+grid.String())
			}
		}
		if len(g) > 0 {
			s = append(s, ds+": "+strings.Join(g, ", "))
		}
	}
	if len(s) == 0 {
		return ""
	}
	return " (except " + strings.Join(s, "; ") + ", other options at the defaults)"
}

// budgetList describes the time budgets.
func (r *run) budgetList() string {
	var s []string
	for _, ds := range r.datasets {
		s = append(s, fmt.Sprintf("%s %v", ds, r.budget(ds, "")))
		for _, m := range r.methods {
			if b, ok := r.cfg.Budgets[ds+"/"+m]; ok {
				s = append(s, fmt.Sprintf("%s on %s %v", m, ds, b))
			}
		}
	}
	return strings.Join(s, ", ")
}

func (r *run) tookList() string {
	var s []string
	for _, k := range allSections {
		if d, ok := r.took[k]; ok {
			s = append(s, fmt.Sprintf("%s %v", k, d.Round(time.Second)))
		}
	}
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ", ")
}

func (r *run) protocol() string {
	c := r.cfg
	var b strings.Builder
	fmt.Fprintf(&b, "Protocol of this run: %d random splits for the overall table; a time budget for each method on each data set (%s) "+
		"for its cross-validation and for its splits of the overall table each, half of it for its training-size curve (runs stopped by it are marked); ", c.Splits, r.budgetList())
	if c.Folds >= 2 {
		fmt.Fprintf(&b, "options chosen by %d-fold cross-validation over `eval.DefaultGrids`%s on the training samples of split 1 only "+
			"(the paper cross-validates every split; one CV per method and data set keeps the run within the hour) and reused for all splits and sections; "+
			"AR gender folds keep each person's 14 images together (Y_train's column order), since its test set holds other people; ",
			c.Folds, r.gridList())
	} else {
		fmt.Fprintf(&b, "no cross-validation (each method's default options); ")
	}
	if c.Iters > 0 {
		fmt.Fprintf(&b, "every method limited to %d outer iterations; ", c.Iters)
	} else {
		fmt.Fprintf(&b, "methods run their default number of outer iterations; ")
	}
	if c.TestCap > 0 {
		fmt.Fprintf(&b, "at most %d test samples per class; ", c.TestCap)
	} else {
		fmt.Fprintf(&b, "all test samples; ")
	}
	fmt.Fprintf(&b, "AR gender trains on samples drawn from Y_train (25 men, 25 women) and tests on Y_test (the other 25 and 25); "+
		"Oxford Flower pools Y_train and Y_test of flower17-split1 (80 images per class, the paper's 60 training + 20 test) and draws "+
		"%d training and %d test samples per class at random in every split (seeded: split i uses PCG(seed, i)), since the file's "+
		"fixed split has exactly 60 training samples per class and would make all splits identical", c.FlPerClass, c.FlTest)
	if c.FlClasses > 0 {
		fmt.Fprintf(&b, "; Oxford Flower restricted to its first %d of 17 classes", c.FlClasses)
	}
	b.WriteString(".\n")
	if !r.deadline.IsZero() {
		fmt.Fprintf(&b, "Evaluations starting after %v of run time are skipped (marked so). ", r.deadline.Sub(r.start))
	}
	if c.Mode == "quick" {
		fmt.Fprintf(&b, "\n**Quick mode: the numbers below check that the pipeline runs; they are not the paper's protocol and not comparable to its numbers.**\n")
	}
	return b.String()
}

// commandLine returns the command that reran this program, and the make
// target that ran it if make did.
func commandLine() string {
	c := "`" + strings.Join(append([]string{"go run"}, flagsOf()...), " ") + "`"
	if os.Getenv("MAKELEVEL") == "" {
		return c
	}
	m := "make reproduce"
	if contains(os.Args[1:], "-quick") {
		m += " QUICK=1"
	}
	return "`" + m + "`, which runs " + c
}

// flagsOf reconstructs the command: the build tag from the backend and the
// program's arguments.
func flagsOf() []string {
	var s []string
	if lrsdl.Backend() == "openblas" {
		s = append(s, "-tags openblas")
	}
	s = append(s, "./bench/reproduce")
	return append(s, os.Args[1:]...)
}

// newFunc returns a constructor of method name configured with p (options
// the method lacks are skipped) and the seed.
func (r *run) newFunc(name string, p eval.Params) eval.NewFunc {
	return func() (lrsdl.Classifier, error) {
		c, err := methods.New(name)
		if err != nil {
			return nil, err
		}
		q := eval.Params{"seed": float64(r.seed)}
		if r.cfg.Iters > 0 {
			q["iters"] = float64(r.cfg.Iters)
		}
		for k, v := range p {
			q[k] = v
		}
		return c, configure(c, q)
	}
}

// configure sets the options of p that c has.
func configure(c lrsdl.Classifier, p eval.Params) error {
	names := eval.ParamNames(c)
	q := eval.Params{}
	for k, v := range p {
		if contains(names, k) {
			q[k] = v
		}
	}
	return eval.Configure(c, q)
}

// dataset loads name.mat from the data directory as user-labelled sets,
// samples scaled to unit norm, the test set capped per class. It returns the
// sets of split 1. Oxford Flower's Y_train and Y_test are pooled (80 per
// class, as the paper describes the data set) and every split draws FlPerClass
// training and FlTest test samples per class from the pool: split 1 is split 0
// of eval.RandomSplits on the pool.
func (r *run) dataset(name string) (train, test split.Set, err error) {
	if s, ok := r.sets[name]; ok {
		return s[0], s[1], nil
	}
	ds, err := data.Load(filepath.Join(r.dataDir, name+".mat"), data.LoadOptions{Normalize: true})
	if err != nil {
		return train, test, err
	}
	if ds.Test.Y == nil {
		return train, test, fmt.Errorf("%s: no test set in the file", name)
	}
	train, test = ds.Train, ds.Test
	if name == arGender {
		// Y_train holds 14 consecutive images per person; folds keep a
		// person together so cross-validation measures gender, not identity.
		train.Groups = make([]int, train.Len())
		for i := range train.Groups {
			train.Groups[i] = i / 14
		}
	}
	if name == flower {
		p := pool(train, test)
		if r.cfg.FlClasses > 0 {
			p = firstClasses(p, r.cfg.FlClasses)
		}
		r.pools[name] = p
		if train, test, err = split.Split(p, r.cfg.FlPerClass, r.cfg.FlTest, rand.New(rand.NewPCG(r.seed, 0))); err != nil {
			return train, test, err
		}
	}
	if r.cfg.TestCap > 0 {
		if test, err = capPerClass(test, r.cfg.TestCap, r.seed); err != nil {
			return train, test, err
		}
	}
	r.sets[name] = [2]split.Set{train, test}
	return train, test, nil
}

// pool returns the samples of a followed by those of b, sparse if both are.
func pool(a, b split.Set) split.Set {
	labels := append(slices.Clone(a.Labels), b.Labels...)
	d, na := a.Y.Dims()
	_, nb := b.Y.Dims()
	sa, okA := a.Y.(*sparse.CSC)
	sb, okB := b.Y.(*sparse.CSC)
	if okA && okB {
		ptr := []int{0}
		var ind []int
		var val []float64
		for _, s := range []*sparse.CSC{sa, sb} {
			_, n := s.Dims()
			for j := range n {
				s.DoColNonZero(j, func(i, _ int, v float64) {
					ind = append(ind, i)
					val = append(val, v)
				})
				ptr = append(ptr, len(ind))
			}
		}
		return split.Set{Y: sparse.NewCSC(d, na+nb, ptr, ind, val), Labels: labels}
	}
	var y mat.Dense
	y.Augment(a.Y, b.Y)
	return split.Set{Y: &y, Labels: labels}
}

// firstClasses keeps the samples of the n smallest labels.
func firstClasses(s split.Set, n int) split.Set {
	classes, _ := split.ByClass(s.Labels)
	var idx []int
	for i, l := range s.Labels {
		if n >= len(classes) || l < classes[n] {
			idx = append(idx, i)
		}
	}
	return split.Subset(s, idx)
}

// capPerClass keeps at most n random samples of every class of s.
func capPerClass(s split.Set, n int, seed uint64) (split.Set, error) {
	_, idx := split.ByClass(s.Labels)
	for _, ix := range idx {
		if len(ix) < n {
			n = len(ix)
		}
	}
	return split.Draw(s, n, rand.New(rand.NewPCG(seed, 99)))
}

// paramsFor returns the options chosen for method on dataset by
// cross-validation on the training samples of split 1, computing them once.
func (r *run) paramsFor(dataset, method string, train split.Set, perClass int) (eval.Params, error) {
	key := dataset + "/" + method
	if p, ok := r.chosen[key]; ok {
		return p, nil
	}
	p := eval.Params{}
	c, err := methods.New(method)
	if err != nil {
		return nil, err
	}
	grid := eval.DefaultGrid(c)
	if g, ok := r.cfg.Grids[dataset][method]; ok {
		grid = g
	}
	if r.cfg.Folds >= 2 && len(grid) > 0 {
		tr, err := split.Draw(train, perClass, rand.New(rand.NewPCG(r.seed, 0)))
		if err != nil {
			return nil, err
		}
		t := time.Now()
		cv, err := eval.CrossValidateSet(r.ctx, r.newFunc(method, nil), tr, r.cfg.Folds, grid, r.seed)
		if err != nil {
			return nil, fmt.Errorf("cross-validation of %s on %s: %w", method, dataset, err)
		}
		p = cv.Best
		logf("%s %s: CV chose %s in %v", dataset, method, p, time.Since(t).Round(time.Second))
	}
	r.chosen[key] = p
	return p, nil
}

func log10(v float64) float64 { return math.Log10(v) }

func flagsBackend() string { return lrsdl.Backend() }
