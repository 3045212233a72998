package fisher

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lrsdl/lrsdl/methods/internal/toy"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestLRSDLXGradient checks the gradient of ½f̄ + λ2/2·ḡ (eqs. hbar_diff_up/lo,
// with the paper's typos corrected) against central finite differences of the
// cost, for the full problem and for a column block (O-FDDL-X). The case
// with gemm takes the per-class Gemm products on OpenBLAS.
func TestLRSDLXGradient(t *testing.T) {
	for _, c := range []struct {
		k0, d int
		gemm  bool
	}{{0, 12, false}, {3, 12, false}, {0, 5, false}, {3, 5, false}, {3, 12, true}} { // d = 5: Dᵀ(DX) path
		k0 := c.k0
		p := testParams()
		p.K0 = k0
		tr := smallTrain(t, p, 3, 5, c.d, 7)
		h := randomCodes(tr, 3)
		var s xstep
		s.set.BlockGemm = c.gemm
		s.setup(tr.Db, tr.Y, tr.sp, tr.ap, p.Lambda2)
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
	s.setup(tr.Db, tr.Y, tr.sp, tr.ap, p.Lambda2)
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

// TestX0StepGradient checks x0step's gradient against central finite
// differences of the smooth part of J̄ in X0 at a random X̄, and its
// Lipschitz constant against the largest eigenvalue of the Hessian found
// by differencing the gradient (power iteration on G(W) − G(0)).
func TestX0StepGradient(t *testing.T) {
	p := testParams()
	tr := smallTrain(t, p, 3, 5, 12, 7)
	h := randomCodes(tr, 4)
	tr.gc.update(context.Background(), tr.Db, tr.Y, tr.sp, tr.K)
	var s x0step
	s.setup(tr.gc.G.RawMatrix(), tr.gc.B.RawMatrix(), tr.X().RawMatrix(), tr.sp, tr.ap, p.Lambda2)
	X0 := tr.X0()
	k0, N := X0.Dims()
	G := mat.NewDense(k0, N, nil)
	s.grad(G, mat.DenseCopyOf(X0))
	const eps = 1e-5
	for i := 0; i < k0; i++ {
		for j := 0; j < N; j++ {
			x := X0.At(i, j)
			X0.Set(i, j, x+eps)
			fp := h()
			X0.Set(i, j, x-eps)
			fm := h()
			X0.Set(i, j, x)
			fd := (fp - fm) / (2 * eps)
			if math.Abs(fd-G.At(i, j)) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Fatalf("gradient (%d,%d) = %v, finite difference %v", i, j, G.At(i, j), fd)
			}
		}
	}
	// λmax of W ↦ G(W) − G(0) by power iteration.
	G0, V, GV := mat.NewDense(k0, N, nil), mat.NewDense(k0, N, nil), mat.NewDense(k0, N, nil)
	s.grad(G0, mat.NewDense(k0, N, nil))
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range V.RawMatrix().Data {
		V.RawMatrix().Data[i] = rng.NormFloat64()
	}
	var lmax float64
	for it := 0; it < 500; it++ {
		V.Scale(1/mat.Norm(V, 2), V)
		s.grad(GV, V)
		GV.Sub(GV, G0)
		lmax = floats.Dot(V.RawMatrix().Data, GV.RawMatrix().Data)
		V.Copy(GV)
	}
	if L := s.lipschitz(); L < lmax*(1-1e-9) || L > lmax*1.01 {
		t.Errorf("Lipschitz constant %v, largest Hessian eigenvalue %v", L, lmax)
	}
}

// TestSolveX0Exact checks that the default X step leaves X0 at the
// minimiser of J̄ over X0 with X fixed (a proximal-gradient step at 1/L0
// barely moves it) and that the paper's LRSDL-X alone (paperX) does not
// on this problem, whose X0 the joint step 1/L moves slowly.
func TestSolveX0Exact(t *testing.T) {
	move := func(paperX bool) float64 {
		p := testParams()
		p.PaperX = paperX
		tr := smallTrain(t, p, 3, 8, 20, 9)
		for it := 0; it < 3; it++ {
			if err := tr.stepX(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		tr.gc.update(context.Background(), tr.Db, tr.Y, tr.sp, tr.K)
		var s x0step
		s.setup(tr.gc.G.RawMatrix(), tr.gc.B.RawMatrix(), tr.X().RawMatrix(), tr.sp, tr.ap, p.Lambda2)
		X0 := mat.DenseCopyOf(tr.X0())
		k0, N := X0.Dims()
		G := mat.NewDense(k0, N, nil)
		s.grad(G, X0)
		L := s.lipschitz()
		Z := mat.NewDense(k0, N, nil)
		for i, v := range X0.RawMatrix().Data {
			u := v - G.RawMatrix().Data[i]/L
			Z.RawMatrix().Data[i] = math.Copysign(math.Max(math.Abs(u)-p.Lambda1/L, 0), u)
		}
		Z.Sub(Z, X0)
		return mat.Norm(Z, 2) / mat.Norm(X0, 2)
	}
	def, paper := move(false), move(true)
	if def > 1e-3 {
		t.Errorf("default X step: a prox-gradient step moves X0 by %.3g relative, want ≤ 1e-3", def)
	}
	if paper < 10*def {
		t.Errorf("paperX moves X0 by %.3g, default by %.3g: the exact X0 update should matter here", paper, def)
	}
}

// randomCodes fills tr's codes with standard normal values drawn from seed
// and returns the smooth part h of the X step's cost (fidelity, Fisher and
// shared terms) at tr's current codes.
func randomCodes(tr *train, seed uint64) func() float64 {
	rng := rand.New(rand.NewPCG(seed, seed))
	raw := tr.Xb.RawMatrix().Data
	for i := range raw {
		raw[i] = rng.NormFloat64()
	}
	return func() float64 {
		c := tr.mustCost()
		return c.Term("fidelity") + c.Term("fisher") + c.Term("shared")
	}
}

// meanTrain is smallTrain (8 classes of 8 samples, d = 20) on data with a
// large common positive offset, renormalised, as COIL-100's images: the
// atoms share its direction and D̄ᵀD̄ has one dominant eigenvalue.
func meanTrain(t *testing.T, p Params) *train {
	t.Helper()
	Y, labels, _ := toy.Shared(8, 8, 20, 9)
	r, c := Y.Dims()
	for j := 0; j < c; j++ {
		var s float64
		for i := 0; i < r; i++ {
			v := Y.At(i, j) + 1.5
			Y.Set(i, j, v)
			s += v * v
		}
		for i := 0; i < r; i++ {
			Y.Set(i, j, Y.At(i, j)/math.Sqrt(s))
		}
	}
	return trainOn(t, p, Y, labels)
}

// TestXMetric checks the x_metric X step on data whose atoms share a mean
// direction, for FDDL (k0 = 0) and LRSDL (k0 = 3): the metric exists, the
// step lowers the cost, both solvers reach the same minimiser of the
// (strongly convex) X subproblem, and in 30 iterations the metric gets
// closer to it.
func TestXMetric(t *testing.T) {
	ctx := context.Background()
	for _, k0 := range []int{0, 3} {
		step := func(metric bool, iters int, tol float64) (*mat.Dense, float64) {
			p := testParams()
			p.K0 = k0
			tr := meanTrain(t, p) // the same start for every call
			tr.p.XMetric, tr.p.XIters, tr.p.XTol = metric, iters, tol
			before := tr.mustCost().Total
			if err := tr.solveX(ctx, tr.Xb); err != nil {
				t.Fatal(err)
			}
			after := tr.mustCost().Total
			if after > before {
				t.Errorf("k0=%d metric=%v: the X step raised the cost from %v to %v", k0, metric, before, after)
			}
			if metric {
				m, ok := tr.xs.metric(&tr.lip)
				if !ok || m.Beta < 3*m.Alpha {
					t.Fatalf("k0=%d: metric %v (α %v, β %v), want β ≥ 3α", k0, ok, m.Alpha, m.Beta)
				}
			}
			return tr.Xb, after
		}
		xm, jm := step(true, 100000, 1e-13)
		xs, js := step(false, 100000, 1e-13)
		if math.Abs(jm-js) > 1e-9*js {
			t.Errorf("k0=%d: minimum %v with the metric, %v without", k0, jm, js)
		}
		var d mat.Dense
		d.Sub(xm, xs)
		if e := mat.Norm(&d, 2) / mat.Norm(xs, 2); e > 1e-5 {
			t.Errorf("k0=%d: minimisers differ by %v (relative)", k0, e)
		}
		_, jm30 := step(true, 30, -1)
		_, js30 := step(false, 30, -1)
		if !(jm30-js < js30-js) {
			t.Errorf("k0=%d: after 30 iterations the metric is %v above the minimum, scalar steps %v", k0, jm30-js, js30-js)
		}
		t.Logf("k0=%d: 30 iterations reach %.3g (metric) and %.3g (scalar) above the minimum %v", k0, jm30-js, js30-js, js)
	}
}

// TestTransposeOnce checks xstep's cached transposes: a symmetric matrix
// is its own, another is transposed once and then reused.
func TestTransposeOnce(t *testing.T) {
	sym := blas64.General{Rows: 2, Cols: 2, Stride: 3, Data: []float64{1, 2, 9, 2, 5, 9}}
	var ts blas64.General
	var buf []float64
	if got := transposeOnce(&ts, &buf, sym); &got.Data[0] != &sym.Data[0] {
		t.Error("symmetric matrix copied")
	}
	a := blas64.General{Rows: 2, Cols: 3, Stride: 4, Data: []float64{1, 2, 3, 0, 4, 5, 6, 0}}
	var ta blas64.General
	got := transposeOnce(&ta, &buf, a)
	if want := []float64{1, 4, 2, 5, 3, 6}; got.Rows != 3 || got.Cols != 2 || !slices.Equal(got.Data, want) {
		t.Errorf("transpose = %+v, want %v", got, want)
	}
	a.Data[0] = 7
	if again := transposeOnce(&ta, &buf, a); again.Data[0] != 1 {
		t.Error("transpose recomputed")
	}
}
