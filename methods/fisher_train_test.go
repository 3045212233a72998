package methods

import (
	"context"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// TestLRSDLEtaLowRank checks that a larger η gives a D0 of smaller nuclear norm.
func TestLRSDLEtaLowRank(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 15, 30, 4)
	var nuc []float64
	for _, eta := range []float64{-1, 0.05, 0.5} {
		m := &LRSDL{Options: LRSDLOptions{K0: 6, Eta: eta, FDDLOptions: FDDLOptions{K: 4, Iters: 8, Tol: -1}}}
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		_, _, D0 := m.Atoms()
		nuc = append(nuc, core.NuclearNorm(D0))
	}
	if !(nuc[0] > nuc[1] && nuc[1] > nuc[2]) {
		t.Errorf("‖D0‖_* for η = 0, 0.05, 0.5: %v, want decreasing", nuc)
	}
}

// TestLRSDLOriginalAlgorithms trains with O-FDDL-X and O-FDDL-D and checks
// that the reported cost never rises and the result classifies.
func TestLRSDLOriginalAlgorithms(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 20, 30, 10)
	for _, o := range []FDDLOptions{{OriginalX: true}, {OriginalD: true}, {OriginalX: true, OriginalD: true}} {
		var costs []float64
		o.K, o.Iters, o.Tol = 4, 5, -1
		o.Progress = func(p lrsdl.Progress) { costs = append(costs, p.Cost.Total) }
		m := &LRSDL{Options: LRSDLOptions{FDDLOptions: o, K0: 2}}
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(costs); i++ {
			if costs[i] > costs[i-1]*(1+1e-12) {
				t.Errorf("%+v: cost rose from %v to %v", o, costs[i-1], costs[i])
			}
		}
		pred, err := m.Predict(Y)
		if err != nil {
			t.Fatal(err)
		}
		if acc := accuracy(pred, labels); acc < 0.9 {
			t.Errorf("original_x=%v original_d=%v: training accuracy %.3f", o.OriginalX, o.OriginalD, acc)
		}
	}
}

// TestFisherDLSpanReduction trains LRSDL, FDDL and D2L2R2 on a d > N problem
// in span(Y) and on the full data: same dictionaries and labels.
func TestFisherDLSpanReduction(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 8, 60, 12)
	Yt, _, _ := toy.Shared(3, 5, 60, 13)
	if Q, _, _ := dl.ReduceSpan(context.Background(), Y, dl.Settings{}); Q == nil {
		t.Fatal("60×24 data not reduced")
	}
	o := FDDLOptions{K: 4, Iters: 4, Seed: 2}
	for _, mk := range []func() lrsdl.Classifier{
		func() lrsdl.Classifier { return &LRSDL{Options: LRSDLOptions{FDDLOptions: o, K0: 3}} },
		func() lrsdl.Classifier { return &FDDL{Options: o} },
		func() lrsdl.Classifier {
			// 5 ADMM iterations: at the default 2 the two
			// dictionaries are 3.6e-8 apart, above the bound below.
			od := o
			od.ADMMIters = 5
			return &D2L2R2{Options: D2L2R2Options{FDDLOptions: od, Alpha: 0.025}}
		},
	} {
		var Db [2]*mat.Dense
		var pred [2][]int
		for i, off := range []bool{false, true} {
			m := mk()
			m.(interface{ settings() *dl.Settings }).settings().NoSpan = off
			err := m.Fit(context.Background(), Y, labels)
			if err != nil {
				t.Fatal(err)
			}
			if pred[i], err = m.Predict(Yt); err != nil {
				t.Fatal(err)
			}
			switch m := m.(type) {
			case *LRSDL:
				Db[i] = m.fm.Db
			case *FDDL:
				Db[i] = m.fm.Db
			case *D2L2R2:
				Db[i] = m.fm.Db
			}
		}
		var diff mat.Dense
		diff.Sub(Db[0], Db[1])
		if r := mat.Norm(&diff, 2) / mat.Norm(Db[1], 2); !(r <= 1e-8) {
			t.Errorf("%s: ‖D̄_reduced − D̄‖/‖D̄‖ = %.3g", mk().Name(), r)
		}
		for j := range pred[0] {
			if pred[0][j] != pred[1][j] {
				t.Errorf("%s: sample %d predicted %d reduced, %d not", mk().Name(), j, pred[0][j], pred[1][j])
				break
			}
		}
	}
}

// TestTwoCoresSameModelLarge is TestTwoCoresSameModel for E-FDDL and LRSDL
// at C=50, d=300, n=k=7, where the Gram products of the cost (350×350×300)
// are above blas.GemmThreadsMin, so blas.Level3 splits them between the
// cores: the dictionaries on one core with SetOpenBLASThreads(1) and on
// two with 2 must be the same.
func TestTwoCoresSameModelLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("trains twice per method")
	}
	defer blas.SetOpenBLASThreads(blas.SetOpenBLASThreads(0))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	Y, labels := data.FaceLike(50, 300, 7, 3)
	for _, k0 := range []int{Off, 7} {
		var dicts []*mat.Dense
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			blas.SetOpenBLASThreads(procs)
			m := &LRSDL{Options: LRSDLOptions{K0: k0, FDDLOptions: FDDLOptions{K: 7, Iters: 2, Tol: Off}}}
			if err := m.Fit(context.Background(), Y, labels); err != nil {
				t.Fatal(err)
			}
			dicts = append(dicts, m.fm.Db)
		}
		if !mat.Equal(dicts[0], dicts[1]) {
			t.Errorf("k0=%d: one core and two gave different dictionaries", k0)
		}
	}
}
