package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/internal/testutil"
)

// TestDLRDSynthetic trains DLRD on the simulated data and checks monotone
// progress, FitInfo, accuracy, Atoms, sparse input and the state round trip.
func TestDLRDSynthetic(t *testing.T) {
	ds := dlsiSynthetic(t, 20, 120, 40)
	var costs []float64
	m := &DLRD{Options: DLRDOptions{K: 5, Beta: 0.1, Iters: 5, Tol: Off, Seed: 4,
		Progress: func(p lrsdl.Progress) { costs = append(costs, p.Cost.Total) }}}
	if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
		t.Fatal(err)
	}
	dlsiCheckMonotone(t, "DLRD", costs, 5)
	if fi := m.FitInfo(); fi.Iters != 5 || fi.Stop != lrsdl.StopMaxIters || fi.Cost.Total != costs[4] {
		t.Errorf("FitInfo %+v, want 5 iterations to the maximum at cost %v", fi, costs[4])
	}
	D, part, D0 := m.Atoms()
	if _, k := D.Dims(); k != 20 || part.Blocks() != 4 || D0 != nil {
		t.Fatalf("Atoms: D with %d atoms, part %v, D0 %v", k, part, D0)
	}
	acc := dlsiAccuracy(t, m, ds.Test)
	t.Logf("DLRD synthetic accuracy %.3f", acc)
	if acc < 0.85 {
		t.Errorf("accuracy %.3f on 4-class synthetic data, want ≥ 0.85", acc)
	}
	fresh := &DLRD{}
	dlsiCheckRoundTrip(t, m, fresh, ds.Test.Y)
	if a, b := fmt.Sprint(m.Params()), fmt.Sprint(fresh.Params()); a != b {
		t.Errorf("options after SetState %s, want %s", b, a)
	}
	dlsiCheckSparse(t, m, ds.Test.Y)
	c, err := m.Cost(ds.Test.Y, ds.Test.Labels)
	if err != nil || c.Term("error") == 0 || c.Term("nuclear") == 0 {
		t.Errorf("Cost %+v, %v: want non-zero error and nuclear terms", c, err)
	}
}

// TestDLRDSparseTraining checks that training on a *sparse.CSC gives the
// model dense training gives.
func TestDLRDSparseTraining(t *testing.T) {
	ds := dlsiSynthetic(t, 0, 30, 15)
	var Ds []*mat.Dense
	for _, Y := range []mat.Matrix{ds.Train.Y, data.Store(ds.Train.Y, 2)} {
		m := &DLRD{Options: DLRDOptions{K: 4, Iters: 3, Seed: 2}}
		if err := m.Fit(context.Background(), Y, ds.Train.Labels); err != nil {
			t.Fatal(err)
		}
		Ds = append(Ds, m.D)
	}
	if !mat.EqualApprox(Ds[0], Ds[1], 1e-9) {
		t.Error("sparse and dense training give different dictionaries")
	}
}

// TestDLRDBadInput checks descriptive errors for bad input.
func TestDLRDBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	Y := testutil.RandDense(rng, 5, 8)
	labels := []int{1, 1, 1, 1, 2, 2, 2, 2}
	inf := mat.DenseCopyOf(Y)
	inf.Set(1, 1, math.Inf(-1))
	cases := []struct {
		name   string
		o      DLRDOptions
		Y      mat.Matrix
		labels []int
		want   string
	}{
		{"label count", DLRDOptions{K: 2}, Y, labels[:3], "labels"},
		{"Inf", DLRDOptions{K: 2}, inf, labels, "non-finite"},
		{"too few samples", DLRDOptions{K: 5}, Y, labels, "DLRD option k=5: k must be at most 4"},
		{"beta", DLRDOptions{K: 2, Beta: -1}, Y, labels, "beta=-1"},
		{"alpha", DLRDOptions{K: 2, Alpha: math.Inf(1)}, Y, labels, "alpha=+Inf"},
		{"one class", DLRDOptions{K: 2}, Y, []int{1, 1, 1, 1, 1, 1, 1, 1}, "2 classes"},
	}
	for _, c := range cases {
		err := (&DLRD{Options: c.o}).Fit(context.Background(), c.Y, c.labels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	m := &DLRD{Options: DLRDOptions{K: 2, Iters: 2}}
	if _, err := m.Predict(Y); !errors.Is(err, ErrNotTrained) {
		t.Errorf("untrained Predict returned %v", err)
	}
	if _, err := m.State(); !errors.Is(err, ErrNotTrained) {
		t.Errorf("untrained State returned %v", err)
	}
	if _, err := m.Cost(Y, labels); !errors.Is(err, ErrNotTrained) {
		t.Errorf("untrained Cost returned %v", err)
	}
	if err := m.Fit(context.Background(), Y, labels); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(mat.NewDense(6, 2, nil)); err == nil {
		t.Error("Predict accepted data of the wrong dimension")
	}
	s, _ := m.State()
	s.Matrices["D"] = mat.NewDense(5, 3, nil)
	if err := (&DLRD{}).SetState(s); err == nil {
		t.Error("SetState accepted a dictionary of the wrong size")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (&DLRD{Options: DLRDOptions{K: 2}}).Fit(ctx, Y, labels); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Fit returned %v", err)
	}
	if _, err := m.PredictContext(ctx, Y); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled PredictContext returned %v", err)
	}
}

// TestDLRDBackends checks determinism per seed and backend agreement.
func TestDLRDBackends(t *testing.T) {
	ds := dlsiSynthetic(t, 0, 30, 15)
	checkBackends(t, 1e-6, func() (*mat.Dense, []int) {
		m := &DLRD{Options: DLRDOptions{K: 4, Iters: 3, Seed: 9}}
		if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
			t.Fatal(err)
		}
		pred, err := m.Predict(ds.Test.Y)
		if err != nil {
			t.Fatal(err)
		}
		return m.D, pred
	})
}

// TestDLRDADMMIters checks that admm_iters reaches the dictionary step:
// 0 resolves to 2 and trains as 2 does, 20 trains another dictionary.
func TestDLRDADMMIters(t *testing.T) {
	ds := dlsiSynthetic(t, 20, 120, 40)
	fit := func(a int) *DLRD {
		m := &DLRD{Options: DLRDOptions{K: 5, Beta: 0.1, Iters: 3, Tol: Off, Seed: 4, ADMMIters: a}}
		if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
			t.Fatal(err)
		}
		return m
	}
	def, two, twenty := fit(0), fit(2), fit(20)
	if got := param(def.Params(), "admm_iters").Value; got != "2" {
		t.Errorf("resolved admm_iters = %q, want 2", got)
	}
	if !mat.Equal(def.D, two.D) {
		t.Error("admm_iters 0 and 2 train different dictionaries")
	}
	if mat.EqualApprox(twenty.D, two.D, 1e-6) {
		t.Error("admm_iters 20 trains the dictionary 2 does: the option does not reach the ADMM")
	}
}
