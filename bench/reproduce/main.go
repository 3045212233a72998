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
// learns from the paper's simulated data). RESULTS.md is rewritten after every
// section, so an interrupted run keeps what it finished.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/eval"
	"github.com/lrsdl/lrsdl/internal/cputime"
	"github.com/lrsdl/lrsdl/internal/provenance"
	"github.com/lrsdl/lrsdl/methods"
	"github.com/lrsdl/lrsdl/split"
)

var allSections = []string{"complexity", "efficiency", "overall", "ntrain", "shared", "time", "scaling", "simulated"}

type run struct {
	cfg      config
	out      string
	dataDir  string
	seed     uint64
	ctx      context.Context
	start    time.Time
	steal    time.Duration // cputime.Steal at the start
	commit   string        // provenance.Commit at the start: the code that ran
	deadline time.Time     // zero: none; quick mode skips evaluations after it
	finished bool          // all sections ran
	datasets []string      // data sets of the accuracy sections
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
	blas.Setup()
	quickFlag := flag.Bool("quick", false, "reduced run (few splits and iterations, no cross-validation) for CI")
	out := flag.String("out", "bench/results", "output `directory`")
	dataDir := flag.String("data", "testdata", "`directory` of argender.mat, flower17-split1.mat and coil100-32x32.mat")
	secs := flag.String("sections", strings.Join(allSections, ","), "comma-separated `sections` to run")
	meths := flag.String("methods", "", "comma-separated methods (default: all registered)")
	seed := flag.Uint64("seed", 1, "seed of data, splits and initialisations")
	splits := flag.Int("splits", 0, "random splits of the overall table (0: the mode's)")
	folds := flag.Int("folds", -1, "cross-validation folds, 0 for none (-1: the mode's)")
	budget := flag.Duration("budget", 0, "time budget of one method on one data set (0: the mode's)")
	deadline := flag.Duration("deadline", -1, "skip evaluations starting after this run time, 0 for none (-1: the mode's)")
	dsets := flag.String("datasets", arGender+","+flower+","+coil, "comma-separated data sets of the accuracy sections")
	flag.Parse()

	r := &run{cfg: full(), out: *out, dataDir: *dataDir, seed: *seed, ctx: context.Background(),
		start: time.Now(), steal: cputime.Steal(), commit: provenance.Commit(*out), sections: map[string]bool{}, md: map[string]string{},
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
		{"simulated", r.simulated},
		{"scaling", r.scaling},
		{"overall", r.overall},
		{"time", r.timeTable},
		{"shared", r.shared},
		{"ntrain", r.ntrain}, // last: the deadline cuts the least needed
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
	rank := map[string]int{"SRC": 1, "LCKSVD1": 2, "LCKSVD2": 3, "DLSI": 4, "DLRD": 5, "FDDL": 6, "D2L2R2": 7, "COPAR": 8, "JDL": 9, "JDL*": 10, "SRRS": 11, "LRSDL": 12}
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

func log10(v float64) float64 { return math.Log10(v) }

func flagsBackend() string { return lrsdl.Backend() }
