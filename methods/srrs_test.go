package methods

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/data"
	"github.com/lrsdl/lrsdl/internal/testutil"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// srrsFisherRef returns tr S_W(G) − tr S_B(G) + η‖G‖²_F from the
// definitions of the scatter matrices of the columns of G by class.
func srrsFisherRef(G *mat.Dense, sp core.Partition, eta float64) float64 {
	p, N := G.Dims()
	m := make([]float64, p)
	for i := 0; i < p; i++ {
		for j := 0; j < N; j++ {
			m[i] += G.At(i, j) / float64(N)
		}
	}
	var sw, sb, all float64
	for c := 0; c < sp.Blocks(); c++ {
		s0, s1 := sp.Block(c)
		for i := 0; i < p; i++ {
			var mc float64
			for j := s0; j < s1; j++ {
				mc += G.At(i, j) / float64(s1-s0)
			}
			for j := s0; j < s1; j++ {
				sw += (G.At(i, j) - mc) * (G.At(i, j) - mc)
				all += G.At(i, j) * G.At(i, j)
			}
			sb += float64(s1-s0) * (mc - m[i]) * (mc - m[i])
		}
	}
	return sw - sb + eta*all
}

// srrsToy returns an SRRS run on random data: 3 classes of 4, 5 and 6
// samples in dimension 7 (rank 7), p = 3, with random ALM state.
func srrsToy(t *testing.T, eta float64) *srrsTrain {
	rng := rand.New(rand.NewPCG(7, 7))
	sp := core.NewPartition(4, 5, 6)
	X := testutil.RandDense(rng, 7, 15)
	_, sig, Xh, _ := srrsReduce(context.Background(), X, dl.Settings{})
	o := SRRSOptions{P: 3, Lambda1: 0.5, Lambda2: 0.7, Eta: eta}
	if eta == 0 {
		o.Eta = Off
	}
	if err := o.spec().resolve(nil); err != nil {
		t.Fatal(err)
	}
	s := newSRRSTrain(Xh, sig, sp, o)
	s.mu = 2.5
	for _, m := range []*mat.Dense{s.J, s.E, s.Y1, s.Y2} {
		r, c := m.Dims()
		m.Copy(testutil.RandDense(rng, r, c))
	}
	return s
}

// TestSRRSFisher checks tr(P̂ᵀQ·M·QᵀP̂), from the three projectors of M,
// against the definition of the supervised term for random Q and P̂.
func TestSRRSFisher(t *testing.T) {
	for _, eta := range []float64{0, 0.3, 1} {
		s := srrsToy(t, eta)
		rng := rand.New(rand.NewPCG(1, uint64(eta*10)))
		Q := testutil.RandDense(rng, 7, 15)
		var G mat.Dense
		G.Mul(s.Ph.T(), Q)
		if got, want := s.fisher(Q), srrsFisherRef(&G, s.sp, s.eta); math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Errorf("η=%v: f = %v, want %v", eta, got, want)
		}
	}
}

// TestSRRSPStep checks that the P step returns orthonormal columns that
// no other orthonormal P̂ (random, or the P step's own with a column
// swapped for another eigenvector) beats.
func TestSRRSPStep(t *testing.T) {
	s := srrsToy(t, 0)
	rng := rand.New(rand.NewPCG(2, 2))
	Q := testutil.RandDense(rng, 7, 15)
	s.stepPAt(Q)
	var I mat.Dense
	I.Mul(s.Ph.T(), s.Ph)
	if !mat.EqualApprox(&I, identity(3), 1e-12) {
		t.Fatalf("P̂ᵀP̂ = %v", mat.Formatted(&I))
	}
	f := s.fisher(Q)
	best := s.Ph
	for k := 0; k < 200; k++ {
		var qr mat.QR
		qr.Factorize(testutil.RandDense(rng, 7, 3))
		var P mat.Dense
		qr.QTo(&P)
		s.Ph = mat.DenseCopyOf(P.Slice(0, 7, 0, 3))
		if g := s.fisher(Q); g < f-1e-10 {
			t.Fatalf("a random orthonormal P̂ gives f = %v < %v of the P step", g, f)
		}
	}
	s.Ph = best
}

// TestSRRSZStep checks the exact Z̃ step: the gradient of its objective
//
//	λ2 f(P̂, ΣZ̃) + μ/2‖X̂ − ΣZ̃ − Ê + Y1/μ‖² + μ/2‖Z̃ − J + Y2/μ‖²
//
// by central differences (f from the definition) vanishes at its result.
func TestSRRSZStep(t *testing.T) {
	for _, eta := range []float64{0, 0.5, 1} {
		s := srrsToy(t, eta)
		if err := s.stepZ(); err != nil {
			t.Fatal(err)
		}
		L := func() float64 {
			SZ := s.sigQ(s.Z)
			var G, a, b mat.Dense
			G.Mul(s.Ph.T(), SZ)
			a.Scale(1/s.mu, s.Y1)
			a.Add(&a, s.Xh)
			a.Sub(&a, SZ)
			a.Sub(&a, s.E)
			b.Scale(1/s.mu, s.Y2)
			b.Add(&b, s.Z)
			b.Sub(&b, s.J)
			return s.l2*srrsFisherRef(&G, s.sp, s.eta) + s.mu/2*(core.Dot(&a, &a)+core.Dot(&b, &b))
		}
		r, N := s.Z.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < N; j++ {
				if g := testutil.CentralDiff(L, s.Z, i, j, 1e-5); math.Abs(g) > 1e-7 {
					t.Errorf("η=%v: ∂L/∂z[%d,%d] = %v at the Z step's result", eta, i, j, g)
				}
			}
		}
	}
}

// TestSRRSALM runs the inexact ALM on simulated data: the constraint
// residuals must fall below the tolerance and the objective settle.
func TestSRRSALM(t *testing.T) {
	ds := dlsiSynthetic(t, 10, 30, 12)
	Ys, g, err := dl.TrainingSet(ds.Train.Y, ds.Train.Labels)
	if err != nil {
		t.Fatal(err)
	}
	o := SRRSOptions{P: 5, Eta: Off}
	if err := o.spec().resolve(nil); err != nil {
		t.Fatal(err)
	}
	_, sig, Xh, _ := srrsReduce(context.Background(), Ys, dl.Settings{})
	s := newSRRSTrain(Xh, sig, g.Part, o)
	var gaps, costs []float64
	for it := 0; it < 200 && (len(gaps) == 0 || gaps[len(gaps)-1] > 1e-7); it++ {
		if err := s.step(); err != nil {
			t.Fatal(err)
		}
		gaps = append(gaps, s.gap())
		costs = append(costs, s.cost().Total)
	}
	n := len(gaps)
	t.Logf("%d iterations; residual %.3g -> %.3g; objective %.6g -> %.6g", n, gaps[0], gaps[n-1], costs[0], costs[n-1])
	if gaps[n-1] > 1e-7 || n < 5 {
		t.Fatalf("residual %v after %d iterations", gaps[n-1], n)
	}
	if d := math.Abs(costs[n-1]-costs[n-2]) / math.Abs(costs[n-1]); d > 1e-5 {
		t.Errorf("objective still moves by %v relative at the end", d)
	}
	if s.cost().Term("fisher") >= 0 {
		t.Errorf("supervised term %v: with η = 0 the projected classes should separate (f < 0)", s.cost().Term("fisher"))
	}
}

// TestSRRSSynthetic trains SRRS on the simulated data and checks FitInfo,
// accuracy, sparse input and the state round trip. The simulated classes
// are mixtures of patterns, far from the Gaussian classes a Fisher
// subspace suits: the nearest neighbour on the raw data scores 0.79 and
// SRRS about 0.47 (chance 0.25), so the floor only checks that it learns.
func TestSRRSSynthetic(t *testing.T) {
	ds := dlsiSynthetic(t, 10, 120, 60)
	for _, clean := range []bool{false, true} {
		var iters int
		m := &SRRS{Options: SRRSOptions{P: 30, Rule: "nn", Clean: clean, Progress: func(p lrsdl.Progress) { iters = p.Iter }}}
		if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
			t.Fatal(err)
		}
		if fi := m.FitInfo(); fi.Stop != lrsdl.StopConverged || fi.Iters != iters || fi.Cost.Total == 0 {
			t.Errorf("FitInfo %+v after %d iterations, want converged", fi, iters)
		}
		acc := dlsiAccuracy(t, m, ds.Test)
		t.Logf("SRRS clean=%v synthetic accuracy %.3f", clean, acc)
		if acc < 0.4 {
			t.Errorf("clean=%v: accuracy %.3f on 4-class synthetic data, want ≥ 0.4", clean, acc)
		}
		fresh := &SRRS{}
		dlsiCheckRoundTrip(t, m, fresh, ds.Test.Y)
		if a, b := fmt.Sprint(m.Params()), fmt.Sprint(fresh.Params()); a != b {
			t.Errorf("options after SetState %s, want %s", b, a)
		}
		dlsiCheckSparse(t, m, ds.Test.Y)
		if c, err := m.Cost(ds.Test.Y, ds.Test.Labels); err != nil || c.Term("fisher") == 0 {
			t.Errorf("Cost %+v, %v", c, err)
		}
	}
}

// TestSRRSSparseTraining checks that training on a *sparse.CSC gives the
// model dense training gives.
func TestSRRSSparseTraining(t *testing.T) {
	ds := dlsiSynthetic(t, 10, 30, 12)
	var Ps []*mat.Dense
	for _, Y := range []mat.Matrix{ds.Train.Y, data.Store(ds.Train.Y, 2)} {
		m := &SRRS{Options: SRRSOptions{P: 5, Iters: 20}}
		if err := m.Fit(context.Background(), Y, ds.Train.Labels); err != nil {
			t.Fatal(err)
		}
		Ps = append(Ps, m.P)
	}
	if !mat.EqualApprox(Ps[0], Ps[1], 1e-9) {
		t.Error("sparse and dense training give different projections")
	}
}

// TestSRRSBadInput checks descriptive errors for bad input.
func TestSRRSBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	Y := testutil.RandDense(rng, 5, 8)
	labels := []int{1, 1, 1, 1, 2, 2, 2, 2}
	inf := mat.DenseCopyOf(Y)
	inf.Set(1, 1, math.NaN())
	cases := []struct {
		name   string
		o      SRRSOptions
		Y      mat.Matrix
		labels []int
		want   string
	}{
		{"label count", SRRSOptions{}, Y, labels[:3], "labels"},
		{"NaN", SRRSOptions{}, inf, labels, "non-finite"},
		{"p above the rank", SRRSOptions{P: 6}, Y, labels, "SRRS option p=6: p must be at most 5"},
		{"rho", SRRSOptions{Rho: 1}, Y, labels, "rho=1"},
		{"lambda1", SRRSOptions{Lambda1: -2}, Y, labels, "lambda1=-2"},
		{"one class", SRRSOptions{}, Y, []int{1, 1, 1, 1, 1, 1, 1, 1}, "2 classes"},
	}
	for _, c := range cases {
		err := (&SRRS{Options: c.o}).Fit(context.Background(), c.Y, c.labels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	m := &SRRS{Options: SRRSOptions{Iters: 3}}
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
	if p := m.Params()[0]; p.Value != "1" {
		t.Errorf("default p resolved to %q, want 1 (classes − 1)", p.Value)
	}
	if _, err := m.Predict(mat.NewDense(6, 2, nil)); err == nil {
		t.Error("Predict accepted data of the wrong dimension")
	}
	s, _ := m.State()
	s.Matrices["labels"] = mat.NewDense(1, 8, []float64{0, 0, 0, 0, 1, 1, 1, 2})
	if err := (&SRRS{}).SetState(s); err == nil {
		t.Error("SetState accepted a label outside the classes")
	}
	s.Matrices["F"] = mat.NewDense(2, 8, nil)
	if err := (&SRRS{}).SetState(s); err == nil {
		t.Error("SetState accepted features of the wrong size")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (&SRRS{}).Fit(ctx, Y, labels); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Fit returned %v", err)
	}
	if _, err := m.PredictContext(ctx, Y); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled PredictContext returned %v", err)
	}
}

// TestSRRSBackends checks determinism and backend agreement. The
// projection's trailing eigenvectors belong to near-equal eigenvalues, so
// the backends' roundings move it by about 5e-5 after 30 ALM iterations.
func TestSRRSBackends(t *testing.T) {
	ds := dlsiSynthetic(t, 10, 30, 12)
	checkBackends(t, 1e-3, func() (*mat.Dense, []int) {
		m := &SRRS{Options: SRRSOptions{P: 5, Iters: 30}}
		if err := m.Fit(context.Background(), ds.Train.Y, ds.Train.Labels); err != nil {
			t.Fatal(err)
		}
		pred, err := m.Predict(ds.Test.Y)
		if err != nil {
			t.Fatal(err)
		}
		return m.P, pred
	})
}

// TestSRRSReduceTall checks the reduction of a tall training set, which
// goes through the span QR: X = U·X̂ with orthonormal U, and the singular
// values those of X.
func TestSRRSReduceTall(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	X := mat.NewDense(60, 12, nil)
	for i := range 60 {
		for j := range 12 {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	U, sig, Xh, err := srrsReduce(context.Background(), X, dl.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var rec, utu mat.Dense
	rec.Mul(U, Xh)
	if !mat.EqualApprox(&rec, X, 1e-10) {
		t.Error("U·X̂ differs from X")
	}
	utu.Mul(U.T(), U)
	if !mat.EqualApprox(&utu, toy.Eye(len(sig)), 1e-12) {
		t.Error("U has no orthonormal columns")
	}
	var svd mat.SVD
	svd.Factorize(X, mat.SVDNone)
	if want := svd.Values(nil); !floats.EqualApprox(sig, want, 1e-10) {
		t.Errorf("singular values %v, want %v", sig, want)
	}
}

// TestSRRSGramSVD checks srrsGramSVD against srrsSVD (mat.SVD) on a wide
// random matrix: the same singular values, orthonormal U with U·X̂ = A and
// X̂·X̂ᵀ = Σ²; and that it declines rank-deficient and ill-conditioned
// matrices (λ_min < srrsGramMin·λ_max), whose reduction srrsSVD then
// truncates to the rank.
func TestSRRSGramSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	A := testutil.RandDense(rng, 40, 70)
	U, sig, Xh, ok := srrsGramSVD(A)
	if !ok {
		t.Fatal("declined a well-conditioned matrix")
	}
	_, want, _, _ := srrsSVD(A)
	if !floats.EqualApprox(sig, want, 1e-12) {
		t.Errorf("singular values %v, want %v", sig, want)
	}
	var rec, utu, xxt mat.Dense
	rec.Mul(U, Xh)
	if !mat.EqualApprox(&rec, A, 1e-12) {
		t.Error("U·X̂ differs from A")
	}
	utu.Mul(U.T(), U)
	if !mat.EqualApprox(&utu, toy.Eye(40), 1e-13) {
		t.Error("U has no orthonormal columns")
	}
	xxt.Mul(Xh, Xh.T())
	s2 := make([]float64, len(sig))
	for i, v := range sig {
		s2[i] = v * v
	}
	if !mat.EqualApprox(&xxt, mat.NewDiagDense(len(s2), s2), 1e-12) {
		t.Error("X̂·X̂ᵀ is not Σ²")
	}
	// Row 39 repeats row 0 (rank 39); then row 39 is row 0 plus 1e-4
	// times noise (σ_min/σ_max about 1e-5).
	for _, c := range []struct {
		eps  float64
		rank int
	}{{0, 39}, {1e-4, 40}} {
		eps := c.eps
		B := mat.DenseCopyOf(A)
		for j := 0; j < 70; j++ {
			B.Set(39, j, A.At(0, j)+eps*rng.NormFloat64())
		}
		if _, _, _, ok := srrsGramSVD(B); ok {
			t.Errorf("ε=%v: accepted an ill-conditioned matrix", eps)
		}
		_, sig, _, err := srrsReduce(context.Background(), B, dl.Settings{})
		if err != nil || len(sig) != c.rank {
			t.Errorf("ε=%v: reduction to rank %d, %v; want %d", eps, len(sig), err, c.rank)
		}
	}
}

// TestSRRSPStepPanic checks that a P step failing on its own goroutine
// panics in the caller of waitP.
func TestSRRSPStepPanic(t *testing.T) {
	s := srrsToy(t, 0)
	Q := mat.NewDense(7, 15, nil)
	Q.Set(2, 3, math.NaN())
	defer func() {
		if v := recover(); v == nil {
			t.Error("no panic from a P step on NaN")
		}
	}()
	s.startP(Q)
	s.waitP()
}

// TestSRRSDefaultP checks the default subspace dimension on 30 classes
// whose means lie on 30 orthogonal axes (d = 40, 8 training and 8 test
// samples per class, noise 0.4): p resolves to C − 1 = 29, the number of
// negative eigenvalues of the supervised term, and the nearest projected
// class mean then scores ≥ 0.95 (0.967). The former default p = 10 keeps
// 10 of the 29 discriminative directions and merges classes (0.642).
func TestSRRSDefaultP(t *testing.T) {
	const C, d, n = 30, 40, 8
	rng := rand.New(rand.NewPCG(3, 4))
	set := func() (*mat.Dense, []int) {
		Y := mat.NewDense(d, C*n, nil)
		lab := make([]int, C*n)
		for c := 0; c < C; c++ {
			for j := c * n; j < (c+1)*n; j++ {
				lab[j] = c + 1
				for i := 0; i < d; i++ {
					Y.Set(i, j, 0.4*rng.NormFloat64())
				}
				Y.Set(c, j, Y.At(c, j)+2)
			}
		}
		return Y, lab
	}
	Ytr, ltr := set()
	Yte, lte := set()
	acc := func(m *SRRS) float64 {
		if err := m.Fit(context.Background(), Ytr, ltr); err != nil {
			t.Fatal(err)
		}
		got, err := m.Predict(Yte)
		if err != nil {
			t.Fatal(err)
		}
		ok := 0
		for i, l := range got {
			if l == lte[i] {
				ok++
			}
		}
		return float64(ok) / float64(len(got))
	}
	m := &SRRS{}
	a := acc(m)
	if p := m.Params()[0]; p.Name != "p" || p.Value != "29" {
		t.Errorf("default p resolved to %s=%s, want p=29", p.Name, p.Value)
	}
	old := acc(&SRRS{Options: SRRSOptions{P: 10}})
	t.Logf("accuracy %.3f at the default p, %.3f at p = 10", a, old)
	if a < 0.95 {
		t.Errorf("accuracy %.3f at the default p, want ≥ 0.95", a)
	}
	if old >= 0.8 {
		t.Errorf("accuracy %.3f at p = 10: the data no longer tells the defaults apart", old)
	}
}
