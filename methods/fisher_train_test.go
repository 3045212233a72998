package methods

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/data"
)

// TestLRSDLStepsLowerCost checks that each of the X, D and D0 steps does not
// increase J̄, that every update changes its variables, for E- and O- variants.
func TestLRSDLStepsLowerCost(t *testing.T) {
	ctx := context.Background()
	for _, orig := range []bool{false, true} {
		p := testParams()
		p.origX, p.origD = orig, orig
		tr := smallTrain(t, p, 3, 8, 20, 9)
		for it := 0; it < 3; it++ {
			steps := []struct {
				name string
				fn   func(context.Context) error
				v    *mat.Dense
			}{{"X", tr.stepX, tr.Xb}, {"D", tr.stepD, tr.D()}, {"D0", tr.stepD0, tr.D0()}}
			for _, st := range steps {
				before := tr.cost().Total
				old := mat.DenseCopyOf(st.v)
				if err := st.fn(ctx); err != nil {
					t.Fatal(err)
				}
				after := tr.cost().Total
				if after > before*(1+1e-12) {
					t.Errorf("orig=%v iter %d: step %s raised the cost from %v to %v", orig, it, st.name, before, after)
				}
				if mat.EqualApprox(old, st.v, 1e-12) {
					t.Errorf("orig=%v iter %d: step %s left its variable unchanged", orig, it, st.name)
				}
			}
		}
	}
}

// TestLRSDLEtaLowRank checks that a larger η gives a D0 of smaller nuclear norm.
func TestLRSDLEtaLowRank(t *testing.T) {
	Y, labels, _ := lrsdlSynth(3, 15, 30, 4)
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
	Y, labels, _ := lrsdlSynth(3, 20, 30, 10)
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
	Y, labels, _ := lrsdlSynth(3, 8, 60, 12)
	Yt, _, _ := lrsdlSynth(3, 5, 60, 13)
	if Q, _, _ := reduceSpan(context.Background(), Y); Q == nil {
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
			spanOff = off
			m := mk()
			err := m.Fit(context.Background(), Y, labels)
			spanOff = false
			if err != nil {
				t.Fatal(err)
			}
			if pred[i], err = m.Predict(Yt); err != nil {
				t.Fatal(err)
			}
			switch m := m.(type) {
			case *LRSDL:
				Db[i] = m.dl.Db
			case *FDDL:
				Db[i] = m.dl.Db
			case *D2L2R2:
				Db[i] = m.dl.Db
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

// TestPhiMatchesCost checks phiD and phiD0, by which the nuclear-norm
// dictionary updates compare costs, against the full J̄: for random
// changes of D (with α > 0) and of D0, J̄ must change by exactly as much
// as φ.
func TestPhiMatchesCost(t *testing.T) {
	p := testParams()
	p.eta, p.alpha = 0.1, 0.05
	tr := smallTrain(t, p, 3, 8, 20, 9)
	if err := tr.stepX(context.Background()); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name string
		v    *mat.Dense
		phi  func(D *mat.Dense) float64
	}{
		{"D", tr.D(), func(D *mat.Dense) float64 { E, F := tr.dProblem(); return tr.phiD(D, E, F) }},
		{"D0", tr.D0(), func(D *mat.Dense) float64 { E, F := tr.d0Problem(); return tr.phiD0(D, E, F) }},
	} {
		for trial := 0; trial < 3; trial++ {
			old := mat.DenseCopyOf(c.v)
			j0, f0 := tr.cost().Total, c.phi(c.v)
			r, k := c.v.Dims()
			for i := 0; i < r; i++ {
				for j := 0; j < k; j++ {
					c.v.Set(i, j, c.v.At(i, j)+0.1*rng.NormFloat64())
				}
			}
			dj, df := tr.cost().Total-j0, c.phi(c.v)-f0
			if math.Abs(dj-df) > 1e-9*math.Max(math.Abs(dj), j0) || dj == 0 {
				t.Errorf("%s trial %d: J̄ changed by %v, φ by %v", c.name, trial, dj, df)
			}
			c.v.Copy(old)
		}
	}
}

// TestDProblemProducts checks E = Ȳ·M(X)ᵀ and F = M(XXᵀ) of dProblem, and
// E = (Y − ½D·M(X))·X0ᵀ and F = X0X0ᵀ of d0Problem (the sparse kernel's
// products), against the dense formulas, at the sparse codes of the
// initialisation and at dense codes (the Gemm path).
func TestDProblemProducts(t *testing.T) {
	tr := smallTrain(t, testParams(), 3, 8, 20, 9)
	for _, dense := range []bool{false, true} {
		if dense {
			for i := range tr.Xb.RawMatrix().Data {
				tr.Xb.RawMatrix().Data[i] += 0.1 * float64(i%7+1)
			}
		}
		E, F := tr.dProblem()
		var wantE, wantF mat.Dense
		wantE.Mul(tr.ybar(), tr.mx().T())
		wantF.Mul(tr.X(), tr.X().T())
		blas.DoubleDiagBlocks(wantF.RawMatrix(), tr.ap, tr.ap)
		if !mat.EqualApprox(E, &wantE, 1e-12) || !mat.EqualApprox(F, &wantF, 1e-12) {
			t.Errorf("dense=%v: E off by %g, F off by %g", dense, maxDiff(E, &wantE), maxDiff(F, &wantF))
		}
		if !mat.Equal(F, F.T()) {
			t.Errorf("dense=%v: F is not symmetric", dense)
		}
		E0, F0 := tr.d0Problem()
		var V, wantE0, wantF0 mat.Dense
		V.Mul(tr.D(), tr.mx())
		V.Scale(-0.5, &V)
		V.Add(&V, tr.Y)
		wantE0.Mul(&V, tr.X0().T())
		wantF0.Mul(tr.X0(), tr.X0().T())
		if !mat.EqualApprox(E0, &wantE0, 1e-12) || !mat.EqualApprox(F0, &wantF0, 1e-12) {
			t.Errorf("dense=%v: E0 off by %g, F0 off by %g", dense, maxDiff(E0, &wantE0), maxDiff(F0, &wantF0))
		}
		if !mat.Equal(F0, F0.T()) {
			t.Errorf("dense=%v: F0 is not symmetric", dense)
		}
	}
}

// maxDiff returns the largest absolute difference of the elements of a and b.
func maxDiff(a, b *mat.Dense) float64 {
	var m float64
	ra, rb := a.RawMatrix(), b.RawMatrix()
	for i := 0; i < ra.Rows; i++ {
		for j := 0; j < ra.Cols; j++ {
			m = math.Max(m, math.Abs(ra.Data[i*ra.Stride+j]-rb.Data[i*rb.Stride+j]))
		}
	}
	return m
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
			dicts = append(dicts, m.dl.Db)
		}
		if !mat.Equal(dicts[0], dicts[1]) {
			t.Errorf("k0=%d: one core and two gave different dictionaries", k0)
		}
	}
}
