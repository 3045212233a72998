package methods

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/core"
)

// TestD2L2R2StepsLowerCost checks that the X and D steps of D2L2R2 do not
// increase its cost and that D changes.
func TestD2L2R2StepsLowerCost(t *testing.T) {
	p := mustParams(t, &D2L2R2Options{Alpha: 0.05, FDDLOptions: FDDLOptions{K: 4, Lambda2: 0.05, InitIters: 2}})
	tr := smallTrain(t, p, 3, 8, 20, 9)
	ctx := context.Background()
	for it := 0; it < 3; it++ {
		for _, st := range []struct {
			name string
			fn   func(context.Context) error
			v    *mat.Dense
		}{{"X", tr.stepX, tr.Xb}, {"D", tr.stepD, tr.D()}} {
			before := tr.cost()
			old := mat.DenseCopyOf(st.v)
			if err := st.fn(ctx); err != nil {
				t.Fatal(err)
			}
			after := tr.cost()
			if after.Total > before.Total*(1+1e-12) {
				t.Errorf("iter %d: step %s raised the cost from %v to %v", it, st.name, before.Total, after.Total)
			}
			if mat.EqualApprox(old, st.v, 1e-12) {
				t.Errorf("iter %d: step %s left its variable unchanged", it, st.name)
			}
			if after.Term("nuclear") <= 0 {
				t.Errorf("nuclear term %v", after.Term("nuclear"))
			}
		}
	}
}

// TestD2L2R2AlphaLowRank checks that a larger α gives class dictionaries of
// smaller total nuclear norm, and that the model classifies held-out data.
func TestD2L2R2AlphaLowRank(t *testing.T) {
	C, n, d := 3, 20, 30
	Y, labels, _ := lrsdlSynth(C, 2*n, d, 12)
	Ytr, Yte := Y.Slice(0, d, 0, C*n), Y.Slice(0, d, C*n, 2*C*n)
	var nuc []float64
	for _, a := range []float64{-1, 0.05, 0.5} {
		m := &D2L2R2{Options: D2L2R2Options{Alpha: a, FDDLOptions: FDDLOptions{K: 5, Iters: 6, Tol: -1}}}
		if err := m.Fit(context.Background(), Ytr, labels[:C*n]); err != nil {
			t.Fatal(err)
		}
		D, part, D0 := m.Atoms()
		if D0 != nil {
			t.Error("D2L2R2 has a shared dictionary")
		}
		var s float64
		for c := 0; c < part.Blocks(); c++ {
			lo, hi := part.Block(c)
			s += core.NuclearNorm(D.Slice(0, d, lo, hi))
		}
		nuc = append(nuc, s)
		if a == 0.05 {
			pred, err := m.Predict(Yte)
			if err != nil {
				t.Fatal(err)
			}
			if acc := accuracy(pred, labels[C*n:]); acc < 0.9 {
				t.Errorf("D2L2R2 held-out accuracy %.3f, want ≥ 0.9", acc)
			}
		}
	}
	if !(nuc[0] > nuc[1] && nuc[1] > nuc[2]) {
		t.Errorf("Σ‖D_c‖_* for α = 0, 0.05, 0.5: %v, want decreasing", nuc)
	}
}

// TestD2L2R2ReducedStepD checks that D2L2R2's D step in span([D E])
// (train.spanStepD) gives the D step in the data space up to rounding, with
// the same costs, and lowers J.
func TestD2L2R2ReducedStepD(t *testing.T) {
	Ys, sp, _, _ := dlsiToyProblem(1, 3, 60, 15, 3)
	p := mustParams(t, &D2L2R2Options{Alpha: 0.05, FDDLOptions: FDDLOptions{K: 3, Lambda2: 0.05, InitIters: 2}})
	ctx := context.Background()
	run := func(off bool) (*mat.Dense, []float64) {
		dSpanOff = off
		defer func() { dSpanOff = false }()
		tr, err := newTrain(ctx, p, mat.DenseCopyOf(Ys), sp)
		if err != nil {
			t.Fatal(err)
		}
		var costs []float64
		for it := 0; it < 3; it++ {
			if err := tr.stepX(ctx); err != nil {
				t.Fatal(err)
			}
			if !off {
				E, _ := tr.dProblem()
				if _, _, _, ok := dictSpan(tr.D(), E); !ok {
					t.Fatal("D step not reduced")
				}
			}
			before := tr.cost().Total
			if err := tr.stepD(ctx); err != nil {
				t.Fatal(err)
			}
			after := tr.cost().Total
			if after > before*(1+1e-12) {
				t.Errorf("off=%v iteration %d: D step raised J from %v to %v", off, it, before, after)
			}
			costs = append(costs, before, after)
		}
		return mat.DenseCopyOf(tr.D()), costs
	}
	sameReducedStep(t, run)
}

// TestXStepKeptNuclear checks that the cost the X step keeps (keepIfLower,
// with the nuclear term carried over since D̄ did not change) is the cost
// evaluated anew, to the last bit, for D2L2R2 (α‖D_c‖_*) and LRSDL
// (η‖D0‖_*).
func TestXStepKeptNuclear(t *testing.T) {
	Ys, sp, _, _ := dlsiToyProblem(1, 3, 60, 15, 3)
	ctx := context.Background()
	for _, o := range []fisherOptions{
		&D2L2R2Options{Alpha: 0.5, FDDLOptions: FDDLOptions{K: 3, Lambda2: 0.05, InitIters: 2}},
		&LRSDLOptions{K0: 2, Eta: 0.5, FDDLOptions: FDDLOptions{K: 3, Lambda2: 0.05, InitIters: 2}},
	} {
		tr, err := newTrain(ctx, mustParams(t, o), mat.DenseCopyOf(Ys), sp)
		if err != nil {
			t.Fatal(err)
		}
		for it := 0; it < 3; it++ {
			if err := tr.stepX(ctx); err != nil {
				t.Fatal(err)
			}
			kept, fresh := tr.current(), tr.cost()
			if kept.Total != fresh.Total || kept.Term("nuclear") != fresh.Term("nuclear") {
				t.Errorf("%T iteration %d: kept cost %v (nuclear %v), anew %v (nuclear %v)", o, it, kept.Total, kept.Term("nuclear"), fresh.Total, fresh.Term("nuclear"))
			}
			if !(fresh.Term("nuclear") > 0) {
				t.Errorf("%T: nuclear term %v, the test checks little", o, fresh.Term("nuclear"))
			}
			if err := tr.stepD(ctx); err != nil {
				t.Fatal(err)
			}
			if err := tr.stepD0(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}
