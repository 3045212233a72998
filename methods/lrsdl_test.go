package methods

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/james-bowman/sparse"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl"
	"github.com/lrsdl/lrsdl/core"
)

// lrsdlSynth returns n samples per class of C classes in dimension d: each
// sample mixes 2 of its class's 4 patterns with both shared patterns
// (weights larger than the class part), plus noise; columns have unit
// norm. It also returns the shared patterns (d×2). Labels are 10·c+3 in
// shuffled order.
func lrsdlSynth(C, n, d int, seed uint64) (Y *mat.Dense, labels []int, shared *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 1))
	pat := func() []float64 {
		v := make([]float64, d)
		for i := range v {
			if rng.Float64() < 0.3 {
				v[i] = rng.Float64()
			}
		}
		return v
	}
	shared = mat.NewDense(d, 2, nil)
	for s := 0; s < 2; s++ {
		shared.SetCol(s, pat())
	}
	priv := make([][][]float64, C)
	for c := range priv {
		for p := 0; p < 4; p++ {
			priv[c] = append(priv[c], pat())
		}
	}
	Y = mat.NewDense(d, C*n, nil)
	perm := rng.Perm(C * n)
	labels = make([]int, C*n)
	col := make([]float64, d)
	for c := 0; c < C; c++ {
		for j := 0; j < n; j++ {
			for i := range col {
				col[i] = 0.01 * rng.NormFloat64()
			}
			for _, p := range rng.Perm(4)[:2] {
				a := rng.Float64()
				for i := range col {
					col[i] += a * priv[c][p][i]
				}
			}
			for s := 0; s < 2; s++ {
				a := 1 + rng.Float64()
				for i := range col {
					col[i] += a * shared.At(i, s)
				}
			}
			var nrm float64
			for _, v := range col {
				nrm += v * v
			}
			for i := range col {
				col[i] /= math.Sqrt(nrm)
			}
			k := perm[c*n+j]
			Y.SetCol(k, col)
			labels[k] = 10*c + 3
		}
	}
	return Y, labels, shared
}

// smallTrain returns a training state with random dictionaries and codes.
func smallTrain(t *testing.T, p dlParams, C, n, d int, seed uint64) *train {
	t.Helper()
	Y, labels, _ := lrsdlSynth(C, n, d, seed)
	Ys, g, err := trainingSet(Y, labels)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := newTrain(context.Background(), p, Ys, g.Part)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func testParams() dlParams {
	o := LRSDLOptions{K0: 3, FDDLOptions: FDDLOptions{K: 4, Lambda1: 0.01, Lambda2: 0.05, InitIters: 2}}
	m := LRSDL{Options: o}
	return m.params()
}

// TestLRSDLXGradient checks the gradient of ½f̄ + λ2/2·ḡ (eqs. hbar_diff_up/lo,
// with the paper's typos corrected) against central finite differences of the
// cost, for the full problem and for a column block (O-FDDL-X). The case
// with gemm takes the per-class Gemm products on OpenBLAS.
func TestLRSDLXGradient(t *testing.T) {
	defer func(m int) { blockGemmMin = m }(blockGemmMin)
	for _, c := range []struct {
		k0, d int
		gemm  bool
	}{{0, 12, false}, {3, 12, false}, {0, 5, false}, {3, 5, false}, {3, 12, true}} { // d = 5: Dᵀ(DX) path
		k0 := c.k0
		blockGemmMin = 8192
		if c.gemm {
			blockGemmMin = 0
		}
		p := testParams()
		p.k0 = k0
		tr := smallTrain(t, p, 3, 5, c.d, 7)
		rng := rand.New(rand.NewPCG(3, 3))
		for _, v := range tr.Xb.RawMatrix().Data {
			_ = v
		}
		raw := tr.Xb.RawMatrix().Data
		for i := range raw {
			raw[i] = rng.NormFloat64()
		}
		h := func() float64 {
			c := tr.cost()
			return c.Term("fidelity") + c.Term("fisher") + c.Term("shared")
		}
		var s xstep
		s.setup(tr.Db, tr.Y, tr.sp, tr.ap, p.lambda2)
		if (s.T != nil) != (c.d == 5) {
			t.Fatalf("d=%d: factored product used: %v", c.d, s.T != nil)
		}
		kb, N := tr.Xb.Dims()
		G := mat.NewDense(kb, N, nil)
		s.grad(G, tr.Xb)
		const eps = 1e-5
		for i := 0; i < kb; i++ {
			for j := 0; j < N; j++ {
				x := tr.Xb.At(i, j)
				tr.Xb.Set(i, j, x+eps)
				fp := h()
				tr.Xb.Set(i, j, x-eps)
				fm := h()
				tr.Xb.Set(i, j, x)
				fd := (fp - fm) / (2 * eps)
				if math.Abs(fd-G.At(i, j)) > 1e-6*math.Max(1, math.Abs(fd)) {
					t.Fatalf("k0=%d: gradient (%d,%d) = %v, finite difference %v", k0, i, j, G.At(i, j), fd)
				}
			}
		}
		// Block of class 1 with the other columns fixed.
		lo, hi := tr.sp.Block(1)
		for i := 0; i < kb; i++ {
			var sum float64
			for j, v := range tr.Xb.RawRowView(i) {
				if j < lo || j >= hi {
					sum += v
				}
			}
			s.other[i] = sum
		}
		s.col0, s.c0 = lo, 1
		W := mat.DenseCopyOf(tr.Xb.Slice(0, kb, lo, hi))
		Gb := mat.NewDense(kb, hi-lo, nil)
		s.grad(Gb, W)
		if !mat.EqualApprox(Gb, G.Slice(0, kb, lo, hi), 1e-10) {
			t.Errorf("k0=%d: block gradient differs from the full gradient", k0)
		}
	}
}

// TestLRSDLLipschitz checks that L bounds the gradient's Lipschitz constant:
// ‖∇h(X+E) − ∇h(X)‖ ≤ L‖E‖ for the top direction found by power iteration.
func TestLRSDLLipschitz(t *testing.T) {
	p := testParams()
	tr := smallTrain(t, p, 3, 5, 12, 8)
	var s xstep
	s.setup(tr.Db, tr.Y, tr.sp, tr.ap, p.lambda2)
	L := s.lipschitz(new(lipWork))
	kb, N := tr.Xb.Dims()
	E := mat.NewDense(kb, N, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range E.RawMatrix().Data {
		E.RawMatrix().Data[i] = rng.NormFloat64()
	}
	Z := mat.NewDense(kb, N, nil)
	G0, G1 := mat.NewDense(kb, N, nil), mat.NewDense(kb, N, nil)
	s.grad(G0, Z)
	var lam float64
	for it := 0; it < 500; it++ {
		E.Scale(1/mat.Norm(E, 2), E)
		s.grad(G1, E)
		G1.Sub(G1, G0) // Hessian times E
		lam = mat.Norm(G1, 2)
		E.Copy(G1)
	}
	if lam > L || L > 2.5*lam {
		t.Errorf("Lipschitz bound %v, largest Hessian eigenvalue %v", L, lam)
	}
}

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

func TestLRSDLSyntheticAccuracy(t *testing.T) {
	C, n := 4, 40
	Y, labels, shared := lrsdlSynth(C, 2*n, 40, 11)
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
	Y, labels, _ := lrsdlSynth(3, 10, 20, 5)
	fit := func() *LRSDL {
		m := &LRSDL{Options: LRSDLOptions{K0: 2, FDDLOptions: FDDLOptions{K: 3, Iters: 3, Seed: 42}}}
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b := fit(), fit()
	if !mat.Equal(a.dl.Db, b.dl.Db) || !mat.Equal(a.dl.mc, b.dl.mc) {
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
	Y, labels, _ := lrsdlSynth(3, 10, 20, 5)
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
	Y, labels, _ := lrsdlSynth(3, 10, 20, 6)
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
	Y, labels, _ := lrsdlSynth(3, 5, 10, 1)
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
	impls := lrsdl.Implementations()
	if len(impls) < 2 {
		t.Skip("only one BLAS backend in this build")
	}
	defer blas64.Use(blas64.Implementation())
	Y, labels, _ := lrsdlSynth(3, 10, 20, 5)
	var ref *mat.Dense
	for name, impl := range impls {
		blas64.Use(impl)
		m := &LRSDL{Options: LRSDLOptions{K0: 2, FDDLOptions: FDDLOptions{K: 3, Iters: 3, Tol: -1}}}
		if err := m.Fit(context.Background(), Y, labels); err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = m.dl.Db
			continue
		}
		if !mat.EqualApprox(ref, m.dl.Db, 1e-6) {
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

func TestLRSDLXAllocs(t *testing.T) {
	tr := smallTrain(t, testParams(), 3, 8, 20, 2)
	var s xstep
	s.setup(tr.Db, tr.Y, tr.sp, tr.ap, 0.05)
	kb, N := tr.Xb.Dims()
	G := mat.NewDense(kb, N, nil)
	if a := testing.AllocsPerRun(10, func() { s.grad(G, tr.Xb) }); a != 0 {
		t.Errorf("gradient allocates %v times per call", a)
	}
}

// TestLRSDLXSparsePath checks that the gradient through the sparse kernel
// (codes mostly zero) equals the dense one and allocates nothing.
func TestLRSDLXSparsePath(t *testing.T) {
	for _, d := range []int{20, 5} {
		testLRSDLXSparsePath(t, d)
	}
}

func testLRSDLXSparsePath(t *testing.T, d int) {
	tr := smallTrain(t, testParams(), 3, 30, d, 2)
	raw := tr.Xb.RawMatrix().Data
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range raw {
		raw[i] = 0
		if rng.Float64() < 0.03 {
			raw[i] = rng.NormFloat64()
		}
	}
	var s xstep
	s.setup(tr.Db, tr.Y, tr.sp, tr.ap, 0.05)
	kb, N := tr.Xb.Dims()
	Gs, Gd := mat.NewDense(kb, N, nil), mat.NewDense(kb, N, nil)
	s.grad(Gs, tr.Xb)
	if a := testing.AllocsPerRun(10, func() { s.grad(Gs, tr.Xb) }); a != 0 {
		t.Errorf("sparse gradient allocates %v times per call", a)
	}
	sw := s.sw
	s.sw = nil
	s.grad(Gd, tr.Xb)
	s.sw = sw
	if !mat.EqualApprox(Gs, Gd, 1e-12) {
		t.Error("sparse and dense gradients differ")
	}
	if mat.Equal(Gs, Gd) {
		t.Log("sparse and dense gradients are bit-identical")
	}
}

// TestLRSDLTransformOptimal checks the optimality conditions of the codes of
// eq. findcodebarx: with r = ∇(½‖y − D̄x̄‖² + λ2/2‖x0 − m0‖²), r_i = −λ·sgn(x_i)
// where x_i ≠ 0 and |r_i| ≤ λ where x_i = 0.
func TestLRSDLTransformOptimal(t *testing.T) {
	Y, labels, _ := lrsdlSynth(3, 10, 20, 8)
	m := &LRSDL{Options: LRSDLOptions{K0: 2, FDDLOptions: FDDLOptions{K: 3, Iters: 3, Lambda: 0.02}}}
	if err := m.Fit(context.Background(), Y, labels); err != nil {
		t.Fatal(err)
	}
	X, X0, err := m.Transform(Y)
	if err != nil {
		t.Fatal(err)
	}
	D, _, D0 := m.Atoms()
	_, m0 := m.Means()
	var Xb mat.Dense
	Xb.Stack(X, X0)
	var Db mat.Dense
	Db.Augment(D, D0)
	var R, G mat.Dense
	R.Mul(&Db, &Xb)
	R.Sub(&R, Y)
	G.Mul(Db.T(), &R)
	K, _ := X.Dims()
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

// TestFDDLIsLRSDLWithoutShared checks that FDDL is LRSDL with k0 = 0.
func TestFDDLIsLRSDLWithoutShared(t *testing.T) {
	Y, labels, _ := lrsdlSynth(3, 10, 20, 9)
	o := FDDLOptions{K: 3, Iters: 4, Seed: 3}
	f := &FDDL{Options: o}
	l := &LRSDL{Options: LRSDLOptions{FDDLOptions: o, K0: -1}}
	if err := f.Fit(context.Background(), Y, labels); err != nil {
		t.Fatal(err)
	}
	if err := l.Fit(context.Background(), Y, labels); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(f.dl.Db, l.dl.Db) {
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

// TestLRSDLTune checks the cross-validation of the prediction parameters.
func TestLRSDLTune(t *testing.T) {
	Y, labels, _ := lrsdlSynth(3, 12, 20, 11)
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
	Y, labels, _ := lrsdlSynth(3, 10, 20, 13)
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
	if !mat.EqualApprox(a.dl.Db, b.dl.Db, 1e-10) {
		t.Error("sparse and dense input gave different dictionaries")
	}
	for i := range pa {
		if pa[i] != pb[i] {
			t.Fatalf("sparse input predicts %d at %d, dense %d", pb[i], i, pa[i])
		}
	}
	if !mat.Equal(a.dl.Db, c.dl.Db) {
		t.Error("GOMAXPROCS=1 and 2 gave different dictionaries")
	}
}

func TestLRSDLSetStateErrors(t *testing.T) {
	Y, labels, _ := lrsdlSynth(3, 6, 10, 1)
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

// directFidelity returns ½f̄ of lrsdlCost from the residuals themselves.
func directFidelity(Y *mat.Dense, sp, ap core.Partition, Db, Xb *mat.Dense) float64 {
	d, N := Y.Dims()
	K := ap.Len()
	kb, _ := Xb.Dims()
	var fid float64
	for c := 0; c < sp.Blocks(); c++ {
		s0, s1 := sp.Block(c)
		Yc, Xc := Y.Slice(0, d, s0, s1), Xb.Slice(0, kb, s0, s1).(*mat.Dense)
		var R, R2 mat.Dense
		R.Mul(Db, Xc)
		R.Sub(Yc, &R)
		fid += mat.Norm(&R, 2) * mat.Norm(&R, 2)
		R2.CloneFrom(Yc)
		for j := 0; j < ap.Blocks(); j++ {
			a0, a1 := ap.Block(j)
			var P mat.Dense
			P.Mul(Db.Slice(0, d, a0, a1), Xc.Slice(a0, a1, 0, s1-s0))
			if j == c {
				R2.Sub(&R2, &P)
			} else {
				fid += mat.Norm(&P, 2) * mat.Norm(&P, 2)
			}
		}
		if kb > K {
			var P mat.Dense
			P.Mul(Db.Slice(0, d, K, kb), Xc.Slice(K, kb, 0, s1-s0))
			R2.Sub(&R2, &P)
		}
		fid += mat.Norm(&R2, 2) * mat.Norm(&R2, 2)
	}
	_ = N
	return fid / 2
}

// TestLRSDLCostFidelity checks the Gram form of the fidelity against the
// residuals, with and without shared atoms, and that the cached products
// follow changes of D̄.
func TestLRSDLCostFidelity(t *testing.T) {
	for _, k0 := range []int{0, 3} {
		p := testParams()
		p.k0 = k0
		tr := smallTrain(t, p, 3, 6, 15, 4)
		rng := rand.New(rand.NewPCG(5, uint64(k0)))
		for rep := 0; rep < 2; rep++ {
			for _, m := range []*mat.Dense{tr.Xb, tr.Db} {
				raw := m.RawMatrix().Data
				for i := range raw {
					raw[i] = rng.NormFloat64()
				}
			}
			got := tr.cost().Term("fidelity")
			want := directFidelity(tr.Y, tr.sp, tr.ap, tr.Db, tr.Xb)
			if math.Abs(got-want) > 1e-12*want {
				t.Errorf("k0=%d rep %d: fidelity %v, direct %v", k0, rep, got, want)
			}
		}
	}
}

// TestFisherDLSpanReduction trains LRSDL, FDDL and D2L2R2 on a d > N problem
// in span(Y) and on the full data: same dictionaries and labels.
func TestFisherDLSpanReduction(t *testing.T) {
	Y, labels, _ := lrsdlSynth(3, 8, 60, 12)
	Yt, _, _ := lrsdlSynth(3, 5, 60, 13)
	if Q, _ := reduceSpan(Y); Q == nil {
		t.Fatal("60×24 data not reduced")
	}
	o := FDDLOptions{K: 4, Iters: 4, Seed: 2}
	for _, mk := range []func() lrsdl.Classifier{
		func() lrsdl.Classifier { return &LRSDL{Options: LRSDLOptions{FDDLOptions: o, K0: 3}} },
		func() lrsdl.Classifier { return &FDDL{Options: o} },
		func() lrsdl.Classifier { return &D2L2R2{Options: D2L2R2Options{FDDLOptions: o, Alpha: 0.05}} },
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
