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
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/internal/testutil"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// jdlToy returns a JDL training run on coparToyProblem (3 classes of 15
// samples in dimension 12, 3 atoms per class, 2 shared).
func jdlToy(seed uint64, o JDLOptions) *jdlTrain {
	Ys, sp, part, D, _ := coparToyProblem(seed, 3, 12, 15, 3, 2)
	if err := o.spec().resolve(nil); err != nil {
		panic(err)
	}
	return newJDLTrain(Ys, sp, part, D, o)
}

// TestJDLStepsLowerCost checks that JDL-X and JDL-D never raise J and that
// JDL-D leaves every atom optimal under ‖d‖ ≤ 1.
func TestJDLStepsLowerCost(t *testing.T) {
	s := jdlToy(1, JDLOptions{K: 3, K0: 2, Lambda1: 0.05, Lambda2: 0.05})
	J := func() float64 { return s.cost().Total }
	toy.CheckDescent(t, "JDL", s.D, 0.95, J,
		func() error { return s.stepXKeep(context.Background()) },
		func() error { s.stepD(); return nil })
	if core.L1(s.X) == 0 {
		t.Fatal("all codes are zero; the test checks nothing")
	}
	_, K := s.D.Dims()
	dlsiCheckBlockOptimal(t, s.D, 0, K, J)
}

// TestJDLXGradient checks the gradient of JDL-X (on the compact codes)
// against central differences of the smooth terms of J, and the
// optimality conditions of the codes JDL-X returns.
func TestJDLXGradient(t *testing.T) {
	s := jdlToy(2, JDLOptions{K: 3, K0: 2, Lambda1: 0.05, Lambda2: 0.1})
	rng := rand.New(rand.NewPCG(5, 5))
	K, N := s.X.Dims()
	randomize := func() {
		for i := 0; i < K; i++ {
			for j := 0; j < N; j++ {
				s.X.Set(i, j, rng.NormFloat64())
			}
		}
	}
	randomize()
	smooth := func() float64 { c := s.cost(); return c.Total - c.Term("sparsity") }
	if err := s.stepX(context.Background()); err != nil { // sets G and B
		t.Fatal(err)
	}
	randomize()
	g := mat.NewDense(K, N, nil)
	s.grad(g, s.X)
	const h = 1e-6
	for i := 0; i < K; i++ {
		for j := 0; j < N; j++ {
			if fd := testutil.CentralDiff(smooth, s.X, i, j, h); math.Abs(fd-g.At(i, j)) > 1e-5*math.Max(1, math.Abs(fd)) {
				t.Errorf("∂J/∂x[%d,%d] = %v by differences, %v by grad", i, j, fd, g.At(i, j))
			}
		}
	}
	s.fista = core.FISTA{MaxIter: 5000, Tol: 1e-12, Restart: true}
	if err := s.stepX(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.grad(g, s.X)
	nz := 0
	for i := 0; i < K; i++ {
		for j := 0; j < N; j++ {
			x, gi := s.X.At(i, j), g.At(i, j)
			switch {
			case x != 0:
				nz++
				if want := -s.l1 * math.Copysign(1, x); math.Abs(gi-want) > 1e-6 {
					t.Errorf("x[%d,%d]=%v: ∂J = %v, want %v", i, j, x, gi, want)
				}
			case math.Abs(gi) > s.l1+1e-6:
				t.Errorf("x[%d,%d]=0: |∂J| = %v > λ1", i, j, math.Abs(gi))
			}
		}
	}
	if nz == 0 {
		t.Fatal("all codes are zero; the test checks nothing")
	}
}

// TestJDLBlockProducts checks what JDL forms from the compact code blocks
// (the gradient, J's residual, B = D̄ᵀY, E = YX̃ᵀ and F = X̃X̃ᵀ) against
// the dense products with X̃ (K̄×N, zero off the blocks).
func TestJDLBlockProducts(t *testing.T) {
	s := jdlToy(3, JDLOptions{K: 3, K0: 2, Lambda1: 0.05, Lambda2: 0.1})
	rng := rand.New(rand.NewPCG(7, 7))
	kk, N := s.X.Dims()
	if err := s.stepX(context.Background()); err != nil { // sets G and B
		t.Fatal(err)
	}
	for i := 0; i < kk; i++ {
		for j := 0; j < N; j++ {
			s.X.Set(i, j, rng.NormFloat64())
		}
	}
	X := mat.DenseCopyOf(s.full())
	nz := 0
	for _, v := range X.RawMatrix().Data {
		if v != 0 {
			nz++
		}
	}
	if want := kk * N; nz != want {
		t.Fatalf("X̃ has %d non-zeros, want the %d of the compact codes", nz, want)
	}
	// compact gathers the code blocks of a K̄×N matrix.
	compact := func(a *mat.Dense) *mat.Dense {
		c := mat.NewDense(kk, N, nil)
		s.codeBlocks(func(a0, a1, r0, r1, s0, s1 int) {
			c.Slice(r0, r1, s0, s1).(*mat.Dense).Copy(a.Slice(a0, a1, s0, s1))
		})
		return c
	}
	close := func(name string, got, want *mat.Dense) {
		t.Helper()
		if !mat.EqualApprox(got, want, 1e-12*math.Max(1, mat.Norm(want, math.Inf(1)))) {
			t.Errorf("%s differs from the dense product", name)
		}
	}
	var B mat.Dense
	B.Mul(s.D.T(), s.Y)
	close("B", &s.B, compact(&B))

	var g, fg mat.Dense
	g.Mul(&s.G, X)
	g.Sub(&g, &B)
	core.FisherGrad(&fg, X, s.sp)
	fg.Scale(s.l2, &fg)
	g.Add(&g, &fg)
	got := mat.NewDense(kk, N, nil)
	s.grad(got, s.X)
	close("gradient", got, compact(&g))

	var R mat.Dense
	R.Mul(s.D, X)
	R.Sub(s.Y, &R)
	if got, want := s.cost().Term("fidelity"), core.Dot(&R, &R)/2; math.Abs(got-want) > 1e-12*want {
		t.Errorf("fidelity %v, dense %v", got, want)
	}

	var E, F mat.Dense
	E.Mul(s.Y, X.T())
	F.Mul(X, X.T())
	s.stepD()
	close("E", &s.E, &E)
	close("F", &s.F, &F)
	if !mat.Equal(&s.F, s.F.T()) {
		t.Error("F is not symmetric")
	}
}

// TestJDLSynthetic trains JDL and JDL* on the simulated data (4 classes with
// shared patterns, chance 25 %) and checks monotone progress, accuracy,
// Atoms, sparse input and the state round trip.
func TestJDLSynthetic(t *testing.T) {
	ds := dlsiSynthetic(t, 20, 120, 40)
	for _, name := range []string{"JDL", "JDL*"} {
		c, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		m := c.(*JDL)
		var costs []float64
		m.Options = JDLOptions{K: 5, K0: 3, Lambda1: 0.01, Iters: 6, Tol: 1e-12, Seed: 4,
			Progress: func(p lrsdl.Progress) { costs = append(costs, p.Cost.Total) }}
		if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
			t.Fatal(err)
		}
		dlsiCheckMonotone(t, name, costs, 6)
		if fi := m.FitInfo(); fi.Iters != 6 || fi.Stop != lrsdl.StopMaxIters || fi.Cost.Total != costs[5] {
			t.Errorf("%s FitInfo %+v, want 6 iterations to the maximum at cost %v", name, fi, costs[5])
		}
		D, part, D0 := m.Atoms()
		if _, k := D.Dims(); k != 20 || part.Blocks() != 4 || D0 == nil {
			t.Fatalf("%s Atoms: D with %d atoms, part %v, D0 %v", name, k, part, D0)
		}
		acc := dlsiAccuracy(t, m, ds.Test)
		t.Logf("%s synthetic accuracy %.3f", name, acc)
		if acc < 0.85 {
			t.Errorf("%s: accuracy %.3f on 4-class synthetic data, want ≥ 0.85", name, acc)
		}
		fresh, _ := New(name)
		dlsiCheckRoundTrip(t, m, fresh, ds.Test.Y)
		if a, b := fmt.Sprint(m.Params()), fmt.Sprint(fresh.(lrsdl.Configurable).Params()); a != b {
			t.Errorf("%s options after SetState %s, want %s", name, b, a)
		}
		dlsiCheckSparse(t, m, ds.Test.Y)
		if _, err := m.Cost(ds.Test.Y, ds.Test.Labels); err != nil {
			t.Error(err)
		}
		other := "JDL*"
		if name == other {
			other = "JDL"
		}
		s, _ := m.State()
		o, _ := New(other)
		if err := o.(lrsdl.Persistent).SetState(s); err == nil {
			t.Errorf("%s accepted the state of %s", other, name)
		}
	}
}

// TestJDLSparseTraining checks that training on a *sparse.CSC gives the
// model dense training gives.
func TestJDLSparseTraining(t *testing.T) {
	ds := dlsiSynthetic(t, 0, 30, 15)
	var Ds []*mat.Dense
	for _, Y := range []mat.Matrix{ds.Train.Y, data.Store(ds.Train.Y, 2)} {
		m := &JDL{Options: JDLOptions{K: 4, K0: 2, Iters: 3, Seed: 2}}
		if err := m.Fit(context.Background(), Y, ds.Train.Labels); err != nil {
			t.Fatal(err)
		}
		Ds = append(Ds, m.D)
	}
	if !mat.EqualApprox(Ds[0], Ds[1], 1e-9) {
		t.Error("sparse and dense training give different dictionaries")
	}
}

// TestJDLBadInput checks descriptive errors for bad input.
func TestJDLBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	Y := testutil.RandDense(rng, 5, 8)
	labels := []int{1, 1, 1, 1, 2, 2, 2, 2}
	inf := mat.DenseCopyOf(Y)
	inf.Set(1, 1, math.NaN())
	cases := []struct {
		name   string
		o      JDLOptions
		Y      mat.Matrix
		labels []int
		want   string
	}{
		{"label count", JDLOptions{K: 2, K0: 2}, Y, labels[:3], "labels"},
		{"NaN", JDLOptions{K: 2, K0: 2}, inf, labels, "non-finite"},
		{"too few samples", JDLOptions{K: 5, K0: 2}, Y, labels, "JDL option k=5: k must be at most 4"},
		{"too many shared atoms", JDLOptions{K: 2, K0: 9}, Y, labels, "fewer than k0"},
		{"negative lambda2", JDLOptions{K: 2, K0: 2, Lambda2: -2}, Y, labels, "lambda2=-2"},
		{"NaN lambda1", JDLOptions{K: 2, K0: 2, Lambda1: math.NaN()}, Y, labels, "lambda1=NaN"},
		{"one class", JDLOptions{K: 2, K0: 2}, Y, []int{1, 1, 1, 1, 1, 1, 1, 1}, "2 classes"},
	}
	for _, c := range cases {
		err := (&JDL{Options: c.o}).Fit(context.Background(), c.Y, c.labels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	m := &JDL{Options: JDLOptions{K: 2, K0: 2, Iters: 2}}
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
	if err := (&JDL{}).SetState(s); err == nil {
		t.Error("SetState accepted a dictionary of the wrong size")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (&JDL{Options: JDLOptions{K: 2, K0: 2}}).Fit(ctx, Y, labels); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Fit returned %v", err)
	}
	if _, err := m.PredictContext(ctx, Y); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled PredictContext returned %v", err)
	}
	if err := m.SetParam("lambda2", "-3"); err == nil || !strings.Contains(err.Error(), "lambda2=-3") {
		t.Errorf("SetParam lambda2=-3 returned %v", err)
	}
	if err := m.SetParam("lambda2", "0"); err != nil || m.Options.Lambda2 != Off {
		t.Errorf("SetParam lambda2=0: %v, option %v", err, m.Options.Lambda2)
	}
}

// TestJDLBackends checks that one seed gives the same model on every run
// and nearly the same on every BLAS backend.
func TestJDLBackends(t *testing.T) {
	ds := dlsiSynthetic(t, 0, 30, 15)
	checkBackends(t, 1e-6, func() (*mat.Dense, []int) {
		m := &JDL{Options: JDLOptions{K: 4, K0: 2, Iters: 3, Seed: 9}}
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

// checkBackends runs fit twice on every backend (testutil.Backends): the
// runs on one backend must agree bit for bit, and the backends within tol
// (relative) on the matrix and on 99 % of the predictions.
func checkBackends(t *testing.T, tol float64, fit func() (*mat.Dense, []int)) {
	var ref *mat.Dense
	var refPred []int
	testutil.Backends(t, func(t *testing.T) {
		D1, p1 := fit()
		D2, p2 := fit()
		if !mat.Equal(D1, D2) || fmt.Sprint(p1) != fmt.Sprint(p2) {
			t.Error("two runs with one seed differ")
		}
		if ref == nil {
			ref, refPred = D1, p1
			return
		}
		var diff mat.Dense
		diff.Sub(D1, ref)
		if n := mat.Norm(&diff, 2); n > tol*mat.Norm(ref, 2) {
			t.Errorf("model differs from the first backend's by %v", n)
		}
		same := 0
		for i := range p1 {
			if p1[i] == refPred[i] {
				same++
			}
		}
		if same < len(p1)*99/100 {
			t.Errorf("%d of %d predictions agree with the first backend's", same, len(p1))
		}
	})
}
