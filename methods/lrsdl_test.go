package methods

import (
	"context"
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/methods/internal/fisher"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

func testParams() fisher.Params {
	o := LRSDLOptions{K0: 3, FDDLOptions: FDDLOptions{K: 4, Lambda1: 0.01, Lambda2: 0.05, InitIters: 2}}
	p, err := paramsOf(&o, nil)
	if err != nil {
		panic(err)
	}
	return p
}

// mustParams resolves o without data and returns its training parameters.
func mustParams(t testing.TB, o fisherOptions) fisher.Params {
	t.Helper()
	p, err := paramsOf(o, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
func TestLRSDLSyntheticAccuracy(t *testing.T) {
	C, n := 4, 40
	Y, labels, shared := toy.Shared(C, 2*n, 40, 11)
	Ytr, Yte := Y.Slice(0, 40, 0, C*n), Y.Slice(0, 40, C*n, 2*C*n)
	m := &LRSDL{Options: LRSDLOptions{K0: 2, FDDLOptions: FDDLOptions{K: 4, Iters: 10}}}
	if err := m.Fit(context.Background(), Ytr, labels[:C*n]); err != nil {
		t.Fatal(err)
	}
	pred, err := m.Predict(Yte)
	if err != nil {
		t.Fatal(err)
	}
	acc := accuracy(pred, labels[C*n:])
	if acc < 0.95 {
		t.Errorf("accuracy on held-out synthetic data %.3f, want ≥ 0.95", acc)
	}
	// Each planted shared pattern is nearly in the span of D0.
	_, _, D0 := m.Atoms()
	var qr mat.QR
	qr.Factorize(D0)
	var Q mat.Dense
	qr.QTo(&Q)
	Qs := Q.Slice(0, 40, 0, 2)
	for s := 0; s < 2; s++ {
		v := mat.VecDenseCopyOf(shared.ColView(s))
		v.ScaleVec(1/mat.Norm(v, 2), v)
		var pr mat.VecDense
		pr.MulVec(Qs.T(), v)
		if c := mat.Norm(&pr, 2); c < 0.9 {
			t.Errorf("shared pattern %d: correlation with span(D0) %.3f, want ≥ 0.9", s, c)
		}
	}
}

func accuracy(pred, want []int) float64 {
	ok := 0
	for i := range pred {
		if pred[i] == want[i] {
			ok++
		}
	}
	return float64(ok) / float64(len(want))
}

func TestLRSDLDeterministicAndState(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 10, 20, 5)
	fit := func() *LRSDL {
		m := &LRSDL{Options: LRSDLOptions{K0: 2, FDDLOptions: FDDLOptions{K: 3, Iters: 3, Seed: 42}}}
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b := fit(), fit()
	if !mat.Equal(a.fm.Db, b.fm.Db) || !mat.Equal(a.fm.Mc, b.fm.Mc) {
		t.Error("same seed gave different models")
	}
	s, err := a.State()
	if err != nil {
		t.Fatal(err)
	}
	var c LRSDL
	if err := c.SetState(s); err != nil {
		t.Fatal(err)
	}
	pa, _ := a.Predict(Y)
	pc, err := c.Predict(Y)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pa {
		if pa[i] != pc[i] {
			t.Fatalf("restored model predicts %d at %d, original %d", pc[i], i, pa[i])
		}
	}
	if c.Options.K != 3 || c.Options.K0 != 2 {
		t.Errorf("restored options %+v", c.Options)
	}
}

func TestLRSDLCancel(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 10, 20, 5)
	ctx, cancel := context.WithCancel(context.Background())
	m := &LRSDL{Options: LRSDLOptions{FDDLOptions: FDDLOptions{K: 3, Iters: 1000, Tol: -1, Progress: func(p lrsdl.Progress) {
		if p.Iter == 2 {
			cancel()
		}
	}}}}
	err := m.Fit(ctx, Y, labels)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Fit after cancel returned %v", err)
	}
}

func TestLRSDLProgressCost(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 10, 20, 6)
	var costs []lrsdl.Cost
	m := &LRSDL{Options: LRSDLOptions{K0: 2, FDDLOptions: FDDLOptions{K: 3, Iters: 5, Tol: -1,
		Progress: func(p lrsdl.Progress) { costs = append(costs, p.Cost) }}}}
	if err := m.Fit(context.Background(), Y, labels); err != nil {
		t.Fatal(err)
	}
	if len(costs) != 5 {
		t.Fatalf("%d progress calls, want 5", len(costs))
	}
	for i, c := range costs {
		var s float64
		for _, tm := range c.Terms {
			s += tm.Value
		}
		if math.Abs(s-c.Total) > 1e-12*c.Total || len(c.Terms) != 5 {
			t.Errorf("iteration %d: terms %v do not add up to %v", i, c.Terms, c.Total)
		}
		if i > 0 && c.Total > costs[i-1].Total*(1+1e-12) {
			t.Errorf("cost rose from %v to %v", costs[i-1].Total, c.Total)
		}
	}
	c, err := m.Cost(Y, labels)
	if err != nil {
		t.Fatal(err)
	}
	if c.Total <= 0 || c.Term("nuclear") <= 0 || c.Term("shared") <= 0 {
		t.Errorf("Cost at the learned model: %+v", c)
	}
}

func TestLRSDLBadInput(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 5, 10, 1)
	ctx := context.Background()
	nan := mat.DenseCopyOf(Y)
	nan.Set(2, 3, math.NaN())
	cases := []struct {
		name   string
		m      *LRSDL
		Y      mat.Matrix
		labels []int
	}{
		{"NaN", &LRSDL{}, nan, labels},
		{"labels", &LRSDL{}, Y, labels[1:]},
		{"one class", &LRSDL{}, Y, make([]int, len(labels))},
		{"singleton class", &LRSDL{}, Y, append([]int{99}, labels[1:]...)},
		{"negative k", &LRSDL{Options: LRSDLOptions{FDDLOptions: FDDLOptions{K: -1}}}, Y, labels},
		{"w", &LRSDL{Options: LRSDLOptions{FDDLOptions: FDDLOptions{W: 2}}}, Y, labels},
		{"nil", &LRSDL{}, nil, labels},
	}
	for _, c := range cases {
		if err := c.m.Fit(ctx, c.Y, c.labels); err == nil {
			t.Errorf("%s: Fit returned no error", c.name)
		}
	}
	var m LRSDL
	if _, err := m.Predict(Y); err == nil {
		t.Error("Predict before Fit returned no error")
	}
	m.Options.Iters = 1
	if err := m.Fit(ctx, Y, labels); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(mat.NewDense(3, 2, nil)); err == nil {
		t.Error("Predict with the wrong dimension returned no error")
	}
	if _, err := m.Cost(Y, append([]int{12345}, labels[1:]...)); err == nil {
		t.Error("Cost with an unknown label returned no error")
	}
}

// TestLRSDLBackends checks that both BLAS backends train the same model.
func TestLRSDLBackends(t *testing.T) {
	impls := blas.Implementations()
	if len(impls) < 2 {
		t.Skip("only one BLAS backend in this build")
	}
	defer blas64.Use(blas64.Implementation())
	Y, labels, _ := toy.Shared(3, 10, 20, 5)
	var ref *mat.Dense
	for name, impl := range impls {
		blas64.Use(impl)
		m := &LRSDL{Options: LRSDLOptions{K0: 2, FDDLOptions: FDDLOptions{K: 3, Iters: 3, Tol: -1}}}
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = m.fm.Db
			continue
		}
		if !mat.EqualApprox(ref, m.fm.Db, 1e-6) {
			t.Errorf("backend %s: dictionaries differ from the other backend", name)
		}
	}
}

func TestLRSDLRegistered(t *testing.T) {
	for _, n := range []string{"LRSDL", "FDDL", "D2L2R2"} {
		c, err := New(n)
		if err != nil || c.Name() != n {
			t.Errorf("New(%q) = %v, %v", n, c, err)
		}
	}
}

// TestLRSDLTransformOptimal checks the optimality conditions of the codes of
// eq. findcodebarx: with r = ∇(½‖y − D̄x̄‖² + λ2/2‖x0 − m0‖²), r_i = −λ·sgn(x_i)
// where x_i ≠ 0 and |r_i| ≤ λ where x_i = 0.
func TestLRSDLTransformOptimal(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 10, 20, 8)
	m := &LRSDL{Options: LRSDLOptions{K0: 2, FDDLOptions: FDDLOptions{K: 3, Iters: 3, Lambda: 0.02}}}
	if err := m.Fit(context.Background(), Y, labels); err != nil {
		t.Fatal(err)
	}
	Xb, err := m.Transform(Y)
	if err != nil {
		t.Fatal(err)
	}
	D, _, D0 := m.Atoms()
	_, m0 := m.Means()
	_, K := D.Dims()
	var Db mat.Dense
	Db.Augment(D, D0)
	var R, G mat.Dense
	R.Mul(&Db, Xb)
	R.Sub(&R, Y)
	G.Mul(Db.T(), &R)
	kb, n := Xb.Dims()
	l2, lam := 0.01, 0.02
	for i := 0; i < kb; i++ {
		for j := 0; j < n; j++ {
			g, x := G.At(i, j), Xb.At(i, j)
			if i >= K {
				g += l2 * (x - m0[i-K])
			}
			if x != 0 && math.Abs(g+lam*math.Copysign(1, x)) > 1e-4 || x == 0 && math.Abs(g) > lam+1e-4 {
				t.Fatalf("code (%d,%d) = %v violates optimality: gradient %v, λ %v", i, j, x, g, lam)
			}
		}
	}
}

// TestFDDLIsLRSDLWithoutShared checks that FDDL is LRSDL with k0 = 0 (and
// the same options: their default x_iters differ).
func TestFDDLIsLRSDLWithoutShared(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 10, 20, 9)
	o := FDDLOptions{K: 3, Iters: 4, Seed: 3, XIters: 50}
	f := &FDDL{Options: o}
	l := &LRSDL{Options: LRSDLOptions{FDDLOptions: o, K0: -1}}
	if err := f.Fit(context.Background(), Y, labels); err != nil {
		t.Fatal(err)
	}
	if err := l.Fit(context.Background(), Y, labels); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(f.fm.Db, l.fm.Db) {
		t.Error("FDDL and LRSDL with k0 = 0 learned different dictionaries")
	}
	c, err := f.Cost(Y, labels)
	if err != nil {
		t.Fatal(err)
	}
	if c.Term("shared") != 0 || c.Term("nuclear") != 0 || c.Term("fisher") == 0 {
		t.Errorf("FDDL cost terms %+v", c.Terms)
	}
	if _, _, D0 := f.Atoms(); D0 != nil {
		t.Error("FDDL has a shared dictionary")
	}
}

// TestLRSDLTune checks the cross-validation of the prediction parameters.
func TestLRSDLTune(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 12, 20, 11)
	m := &LRSDL{Options: LRSDLOptions{K0: 2, FDDLOptions: FDDLOptions{K: 3, Iters: 3}}}
	r, err := m.Tune(context.Background(), Y, labels, TuneOptions{W: []float64{0.3, 0.7}, Lambda: []float64{0.001, 0.05}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Accuracy < 0.8 || (r.Lambda != 0.001 && r.Lambda != 0.05) || (!r.LC && r.W != 0.3 && r.W != 0.7) {
		t.Errorf("Tune result %+v", r)
	}
	if m.Options.Lambda != r.Lambda || m.Options.LC != r.LC || !r.LC && m.Options.W != r.W {
		t.Errorf("options %+v do not hold the choice %+v", m.Options, r)
	}
	if _, err := m.Tune(context.Background(), Y, labels, TuneOptions{Folds: 10}); err == nil {
		t.Error("Tune with more folds than samples allow returned no error")
	}
	if _, err := m.Tune(context.Background(), Y, labels, TuneOptions{W: []float64{2}}); err == nil {
		t.Error("Tune with w = 2 returned no error")
	}
}

// toCSC returns Y in compressed sparse column form.
func toCSC(Y *mat.Dense) *sparse.CSC {
	r, c := Y.Dims()
	ptr := []int{0}
	var ind []int
	var val []float64
	for j := 0; j < c; j++ {
		for i := 0; i < r; i++ {
			if v := Y.At(i, j); v != 0 {
				ind = append(ind, i)
				val = append(val, v)
			}
		}
		ptr = append(ptr, len(ind))
	}
	return sparse.NewCSC(r, c, ptr, ind, val)
}

// TestLRSDLSparseInputAndProcs checks that sparse input trains and predicts
// like dense input and that the model does not depend on GOMAXPROCS.
func TestLRSDLSparseInputAndProcs(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 10, 20, 13)
	fit := func(Y mat.Matrix, procs int) (*LRSDL, []int) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		m := &LRSDL{Options: LRSDLOptions{K0: 2, FDDLOptions: FDDLOptions{K: 3, Iters: 3}}}
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		p, err := m.Predict(Y)
		if err != nil {
			t.Fatal(err)
		}
		return m, p
	}
	a, pa := fit(Y, 2)
	b, pb := fit(toCSC(Y), 2)
	c, _ := fit(Y, 1)
	if !mat.EqualApprox(a.fm.Db, b.fm.Db, 1e-10) {
		t.Error("sparse and dense input gave different dictionaries")
	}
	for i := range pa {
		if pa[i] != pb[i] {
			t.Fatalf("sparse input predicts %d at %d, dense %d", pb[i], i, pa[i])
		}
	}
	if !mat.Equal(a.fm.Db, c.fm.Db) {
		t.Error("GOMAXPROCS=1 and 2 gave different dictionaries")
	}
}

func TestLRSDLSetStateErrors(t *testing.T) {
	Y, labels, _ := toy.Shared(3, 6, 10, 1)
	m := &LRSDL{Options: LRSDLOptions{FDDLOptions: FDDLOptions{K: 2, Iters: 1}}}
	if err := m.Fit(context.Background(), Y, labels); err != nil {
		t.Fatal(err)
	}
	good, err := m.State()
	if err != nil {
		t.Fatal(err)
	}
	bad := func(edit func(s *lrsdl.State)) *lrsdl.State {
		s := *good
		s.Matrices = map[string]*mat.Dense{}
		for k, v := range good.Matrices {
			s.Matrices[k] = mat.DenseCopyOf(v)
		}
		edit(&s)
		return &s
	}
	cases := map[string]*lrsdl.State{
		"nil":         nil,
		"method":      bad(func(s *lrsdl.State) { s.Method = "FDDL" }),
		"options":     bad(func(s *lrsdl.State) { s.Options = []byte("{") }),
		"missing":     bad(func(s *lrsdl.State) { delete(s.Matrices, "Mc") }),
		"classes":     bad(func(s *lrsdl.State) { s.Classes = s.Classes[:2] }),
		"means shape": bad(func(s *lrsdl.State) { s.Matrices["Mc"] = mat.NewDense(1, 3, nil) }),
		"partition":   bad(func(s *lrsdl.State) { s.Matrices["part"].Set(0, 1, 5) }),
	}
	for name, s := range cases {
		var r LRSDL
		if err := r.SetState(s); err == nil {
			t.Errorf("%s: SetState returned no error", name)
		}
	}
	var f FDDL
	if err := f.SetState(good); err == nil {
		t.Error("FDDL accepted an LRSDL state")
	}
	var u LRSDL
	if _, err := u.State(); err == nil {
		t.Error("State of an untrained model returned no error")
	}
}
