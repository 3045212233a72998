package core

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/james-bowman/sparse"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/internal/testutil"
)

func svRelDiff(a, b mat.Matrix) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, 2) / math.Max(mat.Norm(a, 2), 1e-300)
}

func TestGroupByClass(t *testing.T) {
	labels := []int{7, -1, 7, 3, -1, 7}
	g, err := GroupByClass(labels)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Classes.Labels, []int{-1, 3, 7}) {
		t.Errorf("classes %v, want [-1 3 7]", g.Classes.Labels)
	}
	if !slices.Equal(g.Perm, []int{1, 4, 3, 0, 2, 5}) {
		t.Errorf("perm %v, want [1 4 3 0 2 5]", g.Perm)
	}
	if !slices.Equal(g.Part, Partition{0, 2, 3, 6}) {
		t.Errorf("partition %v, want [0 2 3 6]", g.Part)
	}
	if !slices.Equal(g.Class, []int{2, 0, 2, 1, 0, 2}) {
		t.Errorf("class %v", g.Class)
	}
	for j, p := range g.Perm {
		if c := g.Part.Of(j); c != g.Class[p] {
			t.Errorf("sample %d in block %d, class %d", p, c, g.Class[p])
		}
	}
	if g.Part.Of(6) != -1 || g.Part.Of(-1) != -1 {
		t.Error("Of outside the range should be -1")
	}
	if _, err := GroupByClass(nil); err == nil {
		t.Error("no error for no samples")
	}
	if _, err := GroupWith(ClassesOf([]int{1, 2}), []int{1, 1}); err == nil {
		t.Error("no error for an empty class")
	}
	if _, err := GroupWith(ClassesOf([]int{1, 2}), []int{1, 2, 5}); err == nil {
		t.Error("no error for an unknown label")
	}
}

func TestGroupByClassRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	labels := make([]int, 200)
	for i := range labels {
		labels[i] = 10 * (rng.IntN(7) - 3)
	}
	g, err := GroupByClass(labels)
	if err != nil {
		t.Fatal(err)
	}
	// Brute force: a stable sort of the sample indices by label.
	want := make([]int, len(labels))
	for i := range want {
		want[i] = i
	}
	slices.SortStableFunc(want, func(a, b int) int { return labels[a] - labels[b] })
	if !slices.Equal(g.Perm, want) {
		t.Errorf("perm %v, want %v", g.Perm, want)
	}
	for j, p := range g.Perm {
		c := g.Part.Of(j)
		if g.Classes.Labels[c] != labels[p] || g.Class[p] != c {
			t.Fatalf("position %d: block %d (label %d) holds sample %d with label %d", j, c, g.Classes.Labels[c], p, labels[p])
		}
	}
}

func TestMOp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rows, cols := NewPartition(2, 0, 3), NewPartition(1, 2, 2)
	a := testutil.RandDense(rng, 5, 5)
	var got mat.Dense
	MOp(&got, a, rows, cols)
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			want := a.At(i, j)
			if rows.Of(i) == cols.Of(j) {
				want *= 2
			}
			if got.At(i, j) != want {
				t.Fatalf("M(A)[%d,%d] = %v, want %v", i, j, got.At(i, j), want)
			}
		}
	}
	in := mat.DenseCopyOf(a)
	MOp(in, in, rows, cols)
	if !mat.Equal(in, &got) {
		t.Error("in-place M(A) differs")
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for mismatched partitions")
		}
	}()
	MOp(in, in, NewPartition(5), cols)
}

// svFisherRef evaluates g(X) literally from its definition.
func svFisherRef(X *mat.Dense, part Partition) float64 {
	K, _ := X.Dims()
	mean := func(A mat.Matrix, n int) *mat.Dense {
		r, c := A.Dims()
		m := mat.NewDense(r, n, nil)
		for i := 0; i < r; i++ {
			s := mat.Sum(mat.NewVecDense(c, mat.Row(nil, i, A)))
			for j := 0; j < n; j++ {
				m.Set(i, j, s/float64(c))
			}
		}
		return m
	}
	var g float64
	for c := 0; c < part.Blocks(); c++ {
		Xc := X.Slice(0, K, part[c], part[c+1])
		Mc := mean(Xc, part.Size(c))
		var d mat.Dense
		d.Sub(Xc, Mc)
		g += mat.Norm(&d, 2) * mat.Norm(&d, 2)
		d.Sub(Mc, mean(X, part.Size(c)))
		g -= mat.Norm(&d, 2) * mat.Norm(&d, 2)
	}
	return g + mat.Norm(X, 2)*mat.Norm(X, 2)
}

func TestFisher(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	part := NewPartition(3, 1, 4)
	X := testutil.RandDense(rng, 4, 8)
	if got, want := Fisher(X, part), svFisherRef(X, part); math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("g(X) = %v, want %v", got, want)
	}
	// ½∇g against central differences of ½g.
	var G mat.Dense
	FisherGrad(&G, X, part)
	const h = 1e-5
	for i := 0; i < 4; i++ {
		for j := 0; j < 8; j++ {
			fd := testutil.CentralDiff(func() float64 { return Fisher(X, part) }, X, i, j, h) / 2
			if math.Abs(fd-G.At(i, j)) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("½∇g[%d,%d] = %v, finite difference %v", i, j, G.At(i, j), fd)
			}
		}
	}
	FisherGrad(X, X, part)
	if !mat.Equal(X, &G) {
		t.Error("in-place FisherGrad differs")
	}
	if got := L1(mat.NewDense(2, 2, []float64{1, -2, 0, 3.5})); got != 6.5 {
		t.Errorf("L1 = %v, want 6.5", got)
	}
}

func TestLassoGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	D, Y, W := testutil.RandDense(rng, 6, 4), testutil.RandDense(rng, 6, 3), testutil.RandDense(rng, 4, 3)
	h := func() float64 {
		var r mat.Dense
		r.Mul(D, W)
		r.Sub(Y, &r)
		return mat.Norm(&r, 2) * mat.Norm(&r, 2) / 2
	}
	var G, B mat.Dense
	G.Mul(D.T(), D)
	B.Mul(D.T(), Y)
	g := mat.NewDense(4, 3, nil)
	testutil.Backends(t, func(t *testing.T) {
		lassoGrad(g, &G, &B, W)
		const e = 1e-6
		for i := 0; i < 4; i++ {
			for j := 0; j < 3; j++ {
				if fd := testutil.CentralDiff(h, W, i, j, e); math.Abs(fd-g.At(i, j)) > 1e-6*math.Max(1, math.Abs(fd)) {
					t.Errorf("∇h[%d,%d] = %v, finite difference %v", i, j, g.At(i, j), fd)
				}
			}
		}
	})
}

func svSparse(rng *rand.Rand, r, c int, density float64) (*sparse.DOK, *mat.Dense) {
	s := sparse.NewDOK(r, c)
	d := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if rng.Float64() < density {
				v := rng.NormFloat64()
				s.Set(i, j, v)
				d.Set(i, j, v)
			}
		}
	}
	return s, d
}

func TestMulTransSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	A, X := testutil.RandDense(rng, 9, 4), testutil.RandDense(rng, 4, 6)
	s, Y := svSparse(rng, 9, 6, 0.3)
	var want, wantBT mat.Dense
	want.Mul(A.T(), Y)
	wantBT.Mul(Y, X.T())
	for name, b := range map[string]mat.Matrix{"csc": s.ToCSC(), "csr": s.ToCSR(), "coo": s.ToCOO(), "dense": Y, "transpose": mat.DenseCopyOf(Y.T()).T()} {
		var got, gotBT mat.Dense
		MulTrans(&got, A, b)
		MulBT(&gotBT, b, X)
		if d := svRelDiff(&want, &got); d > 1e-14 {
			t.Errorf("%s: MulTrans differs by %g", name, d)
		}
		if d := svRelDiff(&wantBT, &gotBT); d > 1e-14 {
			t.Errorf("%s: MulBT differs by %g", name, d)
		}
	}
}

// svLassoProblem returns a small lasso problem with unit-norm atoms.
func svLassoProblem(seed uint64, d, k, n int) (D, Y *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 1))
	return testutil.RandUnitCols(rng, d, k), testutil.RandDense(rng, d, n)
}

// TestLassoKKT checks the optimality conditions Dᵀ(Y − DX) ∈ λ∂‖X‖₁ of
// FISTA (with and without restart) and ADMM.
func TestLassoKKT(t *testing.T) {
	D, Y := svLassoProblem(11, 20, 12, 6)
	const lambda = 0.3
	for _, o := range []LassoOptions{{Tol: 1e-13}, {Tol: 1e-13, Restart: true}, {Tol: 1e-12, ADMM: true}} {
		o.MaxIter = 20000
		testutil.Backends(t, func(t *testing.T) {
			X := mat.NewDense(12, 6, nil)
			if err := Lasso(context.Background(), X, D, Y, lambda, o); err != nil {
				t.Fatal(err)
			}
			var R, C mat.Dense
			R.Mul(D, X)
			R.Sub(Y, &R)
			C.Mul(D.T(), &R)
			nz := 0
			for i := 0; i < 12; i++ {
				for j := 0; j < 6; j++ {
					x, c := X.At(i, j), C.At(i, j)
					if x == 0 {
						if math.Abs(c) > lambda*(1+1e-7) {
							t.Errorf("%+v: X[%d,%d]=0 but |Dᵀr| = %v > λ", o, i, j, c)
						}
						continue
					}
					nz++
					if math.Abs(c-lambda*math.Copysign(1, x)) > 1e-7*lambda {
						t.Errorf("%+v: X[%d,%d]=%v but Dᵀr = %v ≠ λ·sign", o, i, j, x, c)
					}
				}
			}
			if nz == 0 || nz == 72 {
				t.Errorf("degenerate test problem: %d non-zeros", nz)
			}
		})
	}
}

func TestLassoSparseAndErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	D := testutil.RandUnitCols(rng, 15, 5)
	s, Y := svSparse(rng, 15, 7, 0.4)
	X1, X2 := mat.NewDense(5, 7, nil), mat.NewDense(5, 7, nil)
	opts := LassoOptions{MaxIter: 300, Tol: -1}
	if err := Lasso(context.Background(), X1, D, Y, 0.1, opts); err != nil {
		t.Fatal(err)
	}
	if err := Lasso(context.Background(), X2, D, s.ToCSC(), 0.1, opts); err != nil {
		t.Fatal(err)
	}
	if d := svRelDiff(X1, X2); d > 1e-12 {
		t.Errorf("sparse and dense Y differ by %g", d)
	}
	// X as a view of a wider matrix.
	wide := mat.NewDense(5, 9, nil)
	X3 := wide.Slice(0, 5, 1, 8).(*mat.Dense)
	if err := Lasso(context.Background(), X3, D, Y, 0.1, opts); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(X1, X3) || wide.At(0, 0) != 0 || wide.At(4, 8) != 0 {
		t.Error("lasso into a view differs or writes outside it")
	}
	if err := Lasso(context.Background(), mat.NewDense(4, 7, nil), D, Y, 0.1, opts); err == nil {
		t.Error("no error for a wrong X shape")
	}
	if err := Lasso(context.Background(), X1, D, Y, math.NaN(), opts); err == nil {
		t.Error("no error for λ = NaN")
	}
	bad := mat.DenseCopyOf(D)
	bad.Set(0, 0, math.Inf(1))
	if err := Lasso(context.Background(), X1, bad, Y, 0.1, opts); err == nil {
		t.Error("no error for an infinite dictionary")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Lasso(ctx, X1, D, Y, 0.1, opts); err != context.Canceled {
		t.Errorf("cancelled lasso returned %v", err)
	}
}

func TestPowerIter(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	testutil.Backends(t, func(t *testing.T) {
		var p PowerIter
		for trial := 0; trial < 20; trial++ {
			n := 2 + rng.IntN(40)
			B := testutil.RandDense(rng, n+rng.IntN(5)-2+1, n)
			var A mat.Dense
			A.Mul(B.T(), B)
			var es mat.EigenSym
			if !es.Factorize(mat.NewSymDense(n, A.RawMatrix().Data), false) {
				t.Fatal("EigenSym failed")
			}
			vals := es.Values(nil)
			lmax := vals[len(vals)-1]
			rho, ub := p.MaxEig(&A)
			if rho > lmax*(1+1e-12) {
				t.Errorf("n=%d: Rayleigh quotient %v above λmax %v", n, rho, lmax)
			}
			if ub < lmax {
				t.Errorf("n=%d: upper bound %v below λmax %v", n, ub, lmax)
			}
			if ub > lmax*1.05 {
				t.Errorf("n=%d: upper bound %v loose for λmax %v", n, ub, lmax)
			}
		}
	})
	// Zero matrix and the workspace variant's allocations.
	var p PowerIter
	if rho, ub := p.MaxEig(mat.NewDense(3, 3, nil)); rho != 0 || ub != 0 {
		t.Errorf("zero matrix: %v, %v", rho, ub)
	}
	A := mat.NewDense(30, 30, nil)
	A.Mul(testutil.RandDense(rng, 30, 30).T(), testutil.RandDense(rng, 30, 30))
	A.Mul(A.T(), A)
	p.MaxEig(A)
	if n := testing.AllocsPerRun(10, func() { p.MaxEig(A) }); n != 0 {
		t.Errorf("PowerIter.MaxEig allocates %v times", n)
	}
}

// TestPowerIterChunks checks that the chunked products of PowerIter give
// every wᵢ = (Av)ᵢ bit for bit as one blas64.Gemv call, and ‖A‖_∞ and the
// largest diagonal entry as a serial pass, on one core and on two, at
// sizes below and above the one from which the chunks are shared.
func TestPowerIterChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	testutil.Backends(t, func(t *testing.T) {
		for _, n := range []int{1, 3, 63, 64, 101, 1030, 1500} {
			A := testutil.RandDense(rng, n, n)
			ar := A.RawMatrix()
			v := make([]float64, n)
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			want := make([]float64, n)
			blas64.Gemv(gblas.NoTrans, 1, ar, blas64.Vector{N: n, Data: v, Inc: 1}, 0, blas64.Vector{N: n, Data: want, Inc: 1})
			var wantInf, wantDiag float64
			for i := 0; i < n; i++ {
				wantInf = math.Max(wantInf, floats.Norm(A.RawRowView(i), 1))
				wantDiag = math.Max(wantDiag, A.At(i, i))
			}
			for _, procs := range []int{1, 2} {
				func() {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					var j gemvJob
					w := make([]float64, n)
					j.gemv(ar, v, w)
					if !slices.Equal(w, want) {
						t.Errorf("n=%d GOMAXPROCS=%d: chunked Av differs from one Gemv", n, procs)
					}
					inf, diag := j.normInf(A)
					if inf != wantInf || diag != wantDiag {
						t.Errorf("n=%d GOMAXPROCS=%d: ‖A‖_∞, max aᵢᵢ = %v, %v, want %v, %v", n, procs, inf, diag, wantInf, wantDiag)
					}
				}()
			}
		}
	})
}

func TestFISTAAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	D, Y := svLassoProblem(31, 30, 20, 10)
	var G, B mat.Dense
	G.Mul(D.T(), D)
	B.Mul(D.T(), Y)
	X := testutil.RandDense(rng, 20, 10)
	grad := func(g, w *mat.Dense) { lassoGrad(g, &G, &B, w) }
	testutil.Backends(t, func(t *testing.T) {
		for _, restart := range []bool{false, true} {
			f := FISTA{MaxIter: 1, Tol: -1, Restart: restart}
			ctx := context.Background()
			f.Solve(ctx, X, grad, 50, 0.1, nil)
			if n := testing.AllocsPerRun(20, func() { f.Solve(ctx, X, grad, 50, 0.1, nil) }); n != 0 {
				t.Errorf("restart=%v: one FISTA iteration allocates %v times", restart, n)
			}
			rl := make([]float64, 20)
			f.MaxIter = 5
			if n := testing.AllocsPerRun(20, func() { f.Solve(ctx, X, grad, 50, 0, rl) }); n != 0 {
				t.Errorf("restart=%v: five FISTA iterations with row λ allocate %v times", restart, n)
			}
		}
	})
}

func TestFISTARowLambdaAndCancel(t *testing.T) {
	D, Y := svLassoProblem(41, 12, 6, 4)
	var G, B mat.Dense
	G.Mul(D.T(), D)
	B.Mul(D.T(), Y)
	var p PowerIter
	_, L := p.MaxEig(&G)
	grad := func(g, w *mat.Dense) { lassoGrad(g, &G, &B, w) }
	// Row weights all equal to λ give the same solution as a scalar λ.
	X1, X2 := mat.NewDense(6, 4, nil), mat.NewDense(6, 4, nil)
	f := FISTA{MaxIter: 400, Tol: -1}
	f.Solve(context.Background(), X1, grad, L, 0.2, nil)
	rl := []float64{0.2, 0.2, 0.2, 0.2, 0.2, 0.2}
	f.Solve(context.Background(), X2, grad, L, 0, rl)
	if !mat.Equal(X1, X2) {
		t.Error("row λ differs from scalar λ")
	}
	// A huge λ on row 0 zeroes it.
	rl[0] = 1e6
	f.Solve(context.Background(), X2, grad, L, 0, rl)
	for j := 0; j < 4; j++ {
		if X2.At(0, j) != 0 {
			t.Errorf("row 0 not zeroed: %v", mat.Row(nil, 0, X2))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if it, err := f.Solve(ctx, X1, grad, L, 0.2, nil); err != context.Canceled || it != 0 {
		t.Errorf("cancelled Solve: %d iterations, %v", it, err)
	}
}

// svDictProblem returns E = D*·F for a random PD F and D* with columns of
// norm `scale`.
func svDictProblem(seed uint64, d, k int, scale float64) (Dstar, E, F *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 2))
	Dstar = testutil.RandUnitCols(rng, d, k)
	Dstar.Scale(scale, Dstar)
	X := testutil.RandDense(rng, k, 3*k)
	F = mat.NewDense(k, k, nil)
	F.Mul(X, X.T())
	E = mat.NewDense(d, k, nil)
	E.Mul(Dstar, F)
	return Dstar, E, F
}

func TestUpdateDictDecreases(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		_, E, F := svDictProblem(51, 10, 8, 3) // constraint active
		rng := rand.New(rand.NewPCG(52, 0))
		D := testutil.RandUnitCols(rng, 10, 8)
		prev := DictObjective(D, E, F)
		for sweep := 0; sweep < 30; sweep++ {
			UpdateDict(D, E, F, UpdateDictOptions{MaxIter: 1, Tol: -1})
			obj := DictObjective(D, E, F)
			if obj > prev+1e-12*math.Abs(prev) {
				t.Fatalf("sweep %d: objective rose from %v to %v", sweep, prev, obj)
			}
			prev = obj
			for j := 0; j < 8; j++ {
				if n := floats.Norm(mat.Col(nil, j, D), 2); n > 1+1e-12 {
					t.Fatalf("atom %d has norm %v", j, n)
				}
			}
		}
		// Projected-gradient optimality: D = Π(D − ∇/L) at the solution.
		UpdateDict(D, E, F, UpdateDictOptions{MaxIter: 2000, Tol: 1e-14})
		var G mat.Dense
		G.Mul(D, F)
		G.Sub(&G, E) // ½∇ = DF − E
		var p PowerIter
		_, L := p.MaxEig(F)
		for j := 0; j < 8; j++ {
			c := mat.Col(nil, j, D)
			g := mat.Col(nil, j, &G)
			floats.AddScaled(c, -1/L, g)
			floats.Scale(1/math.Max(1, floats.Norm(c, 2)), c)
			if d := floats.Distance(c, mat.Col(nil, j, D), 2); d > 1e-8 {
				t.Errorf("atom %d is not a fixed point of the projected gradient step (%g)", j, d)
			}
		}
	})
}

func TestUpdateDictClosedForm(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		Dstar, E, F := svDictProblem(61, 12, 6, 0.5) // constraint inactive
		// D = E·F⁻¹ when no atom reaches the unit ball's boundary.
		var Finv, closed mat.Dense
		if err := Finv.Inverse(F); err != nil {
			t.Fatal(err)
		}
		closed.Mul(E, &Finv)
		if d := svRelDiff(Dstar, &closed); d > 1e-10 {
			t.Fatalf("test setup: closed form differs from D* by %g", d)
		}
		D := testutil.RandUnitCols(rand.New(rand.NewPCG(62, 0)), 12, 6)
		UpdateDict(D, E, F, UpdateDictOptions{MaxIter: 5000, Tol: 1e-15})
		if d := svRelDiff(&closed, D); d > 1e-9 {
			t.Errorf("UpdateDict differs from E·F⁻¹ by %g", d)
		}
	})
}

func TestUpdateDictAllocs(t *testing.T) {
	_, E, F := svDictProblem(75, 20, 10, 1)
	D := testutil.RandUnitCols(rand.New(rand.NewPCG(76, 0)), 20, 10)
	var w DictUpdater
	w.Update(D, E, F, UpdateDictOptions{MaxIter: 1})
	if n := testing.AllocsPerRun(10, func() { w.Update(D, E, F, UpdateDictOptions{MaxIter: 3, Tol: -1}) }); n != 0 {
		t.Errorf("ODL sweeps with a warm workspace allocate %v times", n)
	}
}

func TestUpdateDictUnusedAtom(t *testing.T) {
	_, E, F := svDictProblem(71, 8, 5, 0.5)
	// Atom 2 unused: zero row and column of F, zero column of E.
	for i := 0; i < 5; i++ {
		F.Set(2, i, 0)
		F.Set(i, 2, 0)
	}
	for r := 0; r < 8; r++ {
		E.Set(r, 2, 0)
	}
	D := testutil.RandUnitCols(rand.New(rand.NewPCG(72, 0)), 8, 5)
	before := mat.Col(nil, 2, D)
	UpdateDict(D, E, F, UpdateDictOptions{})
	if !slices.Equal(before, mat.Col(nil, 2, D)) {
		t.Error("unused atom changed")
	}
	if svHasNaN(D) {
		t.Error("NaN in the dictionary")
	}
}

func TestSVT(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	for _, sz := range [][2]int{{7, 4}, {4, 7}, {5, 5}} {
		r, c := sz[0], sz[1]
		A := testutil.RandDense(rng, r, c)
		var svd mat.SVD
		svd.Factorize(A, mat.SVDFull)
		s := svd.Values(nil)
		tau := (s[1] + s[2]) / 2 // keeps exactly two singular values
		// Brute force: full U·Σ_τ·Vᵀ with an r×c Σ_τ.
		var U, V mat.Dense
		svd.UTo(&U)
		svd.VTo(&V)
		S := mat.NewDense(r, c, nil)
		for i, x := range s {
			S.Set(i, i, math.Max(x-tau, 0))
		}
		var want mat.Dense
		want.Product(&U, S, V.T())
		testutil.Backends(t, func(t *testing.T) {
			var Z mat.Dense
			if rank, err := SVT(&Z, A, tau); rank != 2 || err != nil {
				t.Errorf("%d×%d: rank %d (%v), want 2", r, c, rank, err)
			}
			if d := svRelDiff(&want, &Z); d > 1e-12 {
				t.Errorf("%d×%d: SVT differs from the brute force by %g", r, c, d)
			}
			// Prox optimality: no perturbation lowers τ‖Z‖_* + ½‖Z − A‖².
			obj := func(Z mat.Matrix) float64 {
				var d mat.Dense
				d.Sub(Z, A)
				return tau*NuclearNorm(Z) + mat.Norm(&d, 2)*mat.Norm(&d, 2)/2
			}
			best := obj(&Z)
			for trial := 0; trial < 50; trial++ {
				P := testutil.RandDense(rng, r, c)
				P.Scale(math.Pow(10, -1-3*rng.Float64()), P)
				P.Add(P, &Z)
				if o := obj(P); o < best-1e-12 {
					t.Fatalf("%d×%d: perturbation lowers the prox objective %v < %v", r, c, o, best)
				}
			}
			in := mat.DenseCopyOf(A)
			_, _ = SVT(in, in, tau)
			if d := svRelDiff(&Z, in); d > 1e-15 {
				t.Error("in-place SVT differs")
			}
			if rank, _ := SVT(in, A, s[0]+1); rank != 0 || mat.Norm(in, 2) != 0 {
				t.Error("τ above σ₁ should give zero")
			}
		})
	}
}

func TestADMMZeroProxIsUpdateDict(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		_, E, F := svDictProblem(91, 10, 6, 0.5) // constraint inactive, so a wrong ρ shows
		D0 := testutil.RandUnitCols(rand.New(rand.NewPCG(92, 0)), 10, 6)
		want := mat.DenseCopyOf(D0)
		UpdateDict(want, E, F, UpdateDictOptions{MaxIter: 5000, Tol: 1e-15})
		got := mat.DenseCopyOf(D0)
		id := func(z, v *mat.Dense, _ float64) { z.Copy(v) }
		err := ADMMDict(context.Background(), got, E, F, id, ADMMOptions{MaxIter: 500, Tol: 1e-13, Update: UpdateDictOptions{MaxIter: 500, Tol: 1e-14}})
		if err != nil {
			t.Fatal(err)
		}
		if d := svRelDiff(want, got); d > 1e-8 {
			t.Errorf("ADMM with r=0 differs from UpdateDict by %g", d)
		}
	})
}

func TestADMMNuclear(t *testing.T) {
	_, E, F := svDictProblem(95, 10, 5, 0.5)
	const eta = 2.0
	obj := func(D *mat.Dense) float64 { return DictObjective(D, E, F) + eta*NuclearNorm(D) }
	D := testutil.RandUnitCols(rand.New(rand.NewPCG(96, 0)), 10, 5)
	start := obj(D)
	err := ADMMDict(context.Background(), D, E, F, SVTProx(eta), ADMMOptions{MaxIter: 2000, Tol: 1e-12, Update: UpdateDictOptions{MaxIter: 200, Tol: 1e-14}})
	if err != nil {
		t.Fatal(err)
	}
	best := obj(D)
	if best >= start {
		t.Fatalf("ADMM did not lower the objective: %v → %v", start, best)
	}
	// No small feasible perturbation does better (up to ADMM's accuracy).
	rng := rand.New(rand.NewPCG(97, 0))
	for trial := 0; trial < 100; trial++ {
		P := testutil.RandDense(rng, 10, 5)
		P.Scale(1e-3, P)
		P.Add(P, D)
		for j := 0; j < 5; j++ {
			c := mat.Col(nil, j, P)
			floats.Scale(1/math.Max(1, floats.Norm(c, 2)), c)
			P.SetCol(j, c)
		}
		if o := obj(P); o < best-1e-7*math.Abs(best) {
			t.Fatalf("perturbation lowers the objective: %v < %v", o, best)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ADMMDict(ctx, D, E, F, SVTProx(eta), ADMMOptions{}); err != context.Canceled {
		t.Errorf("cancelled ADMM returned %v", err)
	}
}

func TestLearnDict(t *testing.T) {
	rng := rand.New(rand.NewPCG(101, 0))
	Dtrue := testutil.RandUnitCols(rng, 16, 6)
	// Samples are sparse combinations of the true atoms.
	X := mat.NewDense(6, 60, nil)
	for j := 0; j < 60; j++ {
		X.Set(rng.IntN(6), j, 1+rng.Float64())
		X.Set(rng.IntN(6), j, -1-rng.Float64())
	}
	var Y mat.Dense
	Y.Mul(Dtrue, X)
	opts := LearnDictOptions{Iter: 15}
	D1, X1, err := LearnDict(context.Background(), &Y, 6, 0.05, rand.New(rand.NewPCG(1, 2)), opts)
	if err != nil {
		t.Fatal(err)
	}
	D2, _, _ := LearnDict(context.Background(), &Y, 6, 0.05, rand.New(rand.NewPCG(1, 2)), opts)
	if !mat.Equal(D1, D2) {
		t.Error("same seed, different dictionaries")
	}
	var R mat.Dense
	R.Mul(D1, X1)
	R.Sub(&Y, &R)
	if rel := mat.Norm(&R, 2) / mat.Norm(&Y, 2); rel > 0.1 {
		t.Errorf("relative reconstruction error %v", rel)
	}
	for j := 0; j < 6; j++ {
		if n := floats.Norm(mat.Col(nil, j, D1), 2); n > 1+1e-12 {
			t.Errorf("atom %d norm %v", j, n)
		}
	}
	// More atoms than samples, and bad arguments.
	if D, _, err := LearnDict(context.Background(), Y.Slice(0, 16, 0, 3), 5, 0.05, rand.New(rand.NewPCG(1, 2)), LearnDictOptions{Iter: 2}); err != nil || svHasNaN(D) {
		t.Errorf("k > n: %v", err)
	}
	if _, _, err := LearnDict(context.Background(), &Y, 0, 0.05, rand.New(rand.NewPCG(1, 2)), opts); err == nil {
		t.Error("no error for k = 0")
	}
	if _, err := LearnDictFrom(context.Background(), &Y, mat.NewDense(15, 6, nil), 0.05, opts); err == nil {
		t.Error("LearnDictFrom: no error for a dictionary of 15 rows on 16-row samples")
	}
}

// TestBackendParity compares the solvers across the linked BLAS backends.
func TestBackendParity(t *testing.T) {
	impls := blas.Implementations()
	if len(impls) < 2 {
		t.Skip("one backend linked; build with -tags openblas")
	}
	orig := blas64.Implementation()
	defer blas64.Use(orig)
	D, Y := svLassoProblem(111, 40, 30, 25)
	_, E, F := svDictProblem(112, 40, 30, 2)
	type result struct{ X, Dd, Z *mat.Dense }
	res := map[string]result{}
	for name, impl := range impls {
		blas64.Use(impl)
		X := mat.NewDense(30, 25, nil)
		if err := Lasso(context.Background(), X, D, Y, 0.1, LassoOptions{MaxIter: 100, Tol: -1}); err != nil {
			t.Fatal(err)
		}
		Dd := testutil.RandUnitCols(rand.New(rand.NewPCG(113, 0)), 40, 30)
		UpdateDict(Dd, E, F, UpdateDictOptions{MaxIter: 20, Tol: -1})
		Z := mat.DenseCopyOf(Dd)
		ADMMDict(context.Background(), Z, E, F, SVTProx(1), ADMMOptions{MaxIter: 10, Tol: -1, Update: UpdateDictOptions{MaxIter: 5, Tol: -1}})
		res[name] = result{X, Dd, Z}
	}
	a, b := res["gonum"], res["openblas"]
	for what, p := range map[string][2]*mat.Dense{"lasso": {a.X, b.X}, "UpdateDict": {a.Dd, b.Dd}, "ADMMDict": {a.Z, b.Z}} {
		if d := svRelDiff(p[0], p[1]); d > 1e-10 {
			t.Errorf("%s: backends differ by %g", what, d)
		}
	}
}

func svHasNaN(a *mat.Dense) bool {
	for _, v := range a.RawMatrix().Data {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}

// TestFISTAShortStepsNotConvergence minimises ½Σhᵢxᵢ² − Σxᵢ with one
// curvature h₀ = 10⁴ and the rest 1 (so x*ᵢ = 1/hᵢ) from x = 0: the first
// steps, of 1/L = 10⁻⁴ per coordinate, are within the tolerance, but FISTA
// must not stop on them.
func TestFISTAShortStepsNotConvergence(t *testing.T) {
	const n = 50
	h := make([]float64, n)
	for i := range h {
		h[i] = 1
	}
	h[0] = 1e4
	grad := func(g, w *mat.Dense) {
		for i := range h {
			g.Set(i, 0, h[i]*w.At(i, 0)-1)
		}
	}
	obj := func(x *mat.Dense) float64 {
		var s float64
		for i := range h {
			v := x.At(i, 0)
			s += h[i]*v*v/2 - v
		}
		return s
	}
	var opt float64
	for _, hi := range h {
		opt -= 1 / (2 * hi)
	}
	x := mat.NewDense(n, 1, nil)
	f := FISTA{MaxIter: 10000, Tol: 1e-3, Restart: true}
	it, err := f.Solve(context.Background(), x, grad, 1e4, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := obj(x); got-opt > 1e-2*math.Abs(opt) {
		t.Errorf("stopped after %d iterations at %v, minimum %v", it, got, opt)
	}
}
