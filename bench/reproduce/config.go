package main

import (
	"time"
)

// config holds the sizes of one run; quick() and full() give the two modes.
type config struct {
	Mode string

	// Efficiency experiment (section "Validation of efficient algorithms").
	EffC, EffD, EffN, EffK, EffIters int

	// Accuracy experiments.
	EffBudget   time.Duration            // time budget of one algorithm of the efficiency experiment
	Budget      time.Duration            // time budget of one method on one data set (CV, splits, curve each)
	Budgets     map[string]time.Duration // Budget by data set or "data set/method"
	Splits      int                      // random splits of the overall table
	Parallel    int                      // splits of the overall table trained at once
	Folds       int                      // cross-validation folds (on split 1's training data); <2: no CV
	Iters       int                      // outer iterations of every method; 0: method defaults
	Deadline    time.Duration            // evaluations starting after this run time are skipped; 0: none
	FlClasses   int                      // Oxford Flower restricted to its first classes; 0: all 17
	TestCap     int                      // test samples per class at most; 0: all
	ArPerClass  int                      // AR gender training samples per class
	FlPerClass  int                      // Oxford Flower training samples per class
	FlTest      int                      // Oxford Flower test samples per class (of the 80 pooled)
	CoPerClass  int                      // COIL-100 training views per object (the rest test)
	CoClasses   int                      // COIL-100 restricted to its first objects; 0: all 100
	ArSizes     []int                    // training sizes of the ntrain figure
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
	// Every method has a time budget per data set, sized so that none
	// stops on it: it catches a run that went wrong, not a slow one.
	return config{Mode: "full",
		EffC: 100, EffD: 300, EffN: 7, EffK: 7, EffIters: 15, EffBudget: 40 * time.Second,
		Budget: 2 * time.Minute, Splits: 10, Parallel: 2, Folds: 3, ArPerClass: 250, FlPerClass: 60, FlTest: 20, CoPerClass: 10,
		ArSizes: []int{50, 150, 250, 350}, FlSizes: []int{15, 30, 45, 60}, NTrainSplit: 1,
		SharedK0: []int{10, 20, 30, 40, 50, 60, 70, 80}, SharedSplit: 2,
		ParamValues: []float64{1e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3},
		ScaleC:      []int{10, 25, 50, 100, 200}, ScaleDim: 300, ScaleDims: []int{300, 1000, 3000, 10000}, ScaleClasses: 20,
		ScaleN: 7, ScaleK: 7, ScaleIters: 3, ScaleBudget: 40 * time.Second,
		SimTrain: 200, SimTest: 800,
		// The deadline and budgets are about twice the run's times on
		// an AVX-512 machine, so that a slower machine class stops no cell.
		Deadline: 150 * time.Minute,
		Budgets: map[string]time.Duration{flower: 5 * time.Minute, coil: 5 * time.Minute,
			flower + "/FDDL": 8 * time.Minute, flower + "/D2L2R2": 9 * time.Minute,
			coil + "/LRSDL": 6 * time.Minute, coil + "/FDDL": 9 * time.Minute, coil + "/D2L2R2": 15 * time.Minute,
			coil + "/COPAR": 15 * time.Minute},
	}
}

func quick() config {
	return config{Mode: "quick",
		EffC: 20, EffD: 100, EffN: 7, EffK: 7, EffIters: 4, EffBudget: 15 * time.Second,
		Budget: 20 * time.Second, Deadline: 4 * time.Minute, Splits: 2, Parallel: 2, Folds: 0, Iters: 3,
		FlClasses: 4, TestCap: 50, ArPerClass: 250, FlPerClass: 25, FlTest: 20, CoPerClass: 10, CoClasses: 10,
		ArSizes: []int{50, 150, 350}, FlSizes: []int{15, 25}, NTrainSplit: 1,
		SharedK0: []int{10, 40, 80}, SharedSplit: 1,
		ParamValues: []float64{1e-4, 3e-3, 0.3},
		ScaleC:      []int{5, 10, 20}, ScaleDim: 100, ScaleDims: []int{50, 100, 200}, ScaleClasses: 5,
		ScaleN: 7, ScaleK: 7, ScaleIters: 3, ScaleBudget: 10 * time.Second,
		SimTrain: 50, SimTest: 50,
	}
}
