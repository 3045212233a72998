package core

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/testutil"
)

// pathProblem returns G = DᵀD and B = DᵀY for unit-norm atoms D (d×k):
// random ones, or with corr > 0 atoms that share a common direction of
// weight corr (ill-conditioned G), and with dup > 0 the first dup atoms
// repeated at the end.
func pathProblem(seed uint64, d, k, n int, corr float64, dup int) (G, B *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 7))
	D := testutil.RandDense(rng, d, k)
	if corr > 0 {
		common := testutil.RandDense(rng, d, 1)
		for j := 0; j < k; j++ {
			for i := 0; i < d; i++ {
				D.Set(i, j, (1-corr)*D.At(i, j)+corr*common.At(i, 0))
			}
		}
	}
	for j := 0; j < dup; j++ {
		for i := 0; i < d; i++ {
			D.Set(i, k-1-j, D.At(i, j))
		}
	}
	D = testutil.UnitCols(D)
	Y := testutil.RandDense(rng, d, n)
	G, B = mat.NewDense(k, k, nil), mat.NewDense(k, n, nil)
	G.Mul(D.T(), D)
	B.Mul(D.T(), Y)
	return G, B
}

// pathSolve runs lassoPath.solve on column j of B and returns the dense
// code and whether the path succeeded.
func pathSolve(G, B *mat.Dense, j int, lambda float64) ([]float64, bool, *lassoPath) {
	k, _ := G.Dims()
	p := newLassoPath(k, lassoPathActive(k))
	for i := 0; i < k; i++ {
		p.b[i] = B.At(i, j)
	}
	ok := p.solve(G.RawMatrix().Data, lambda, lassoPathSteps(k))
	x := make([]float64, k)
	for q, a := range p.act[:p.na] {
		x[a] = p.x[q]
	}
	return x, ok, p
}

// kktViolation returns the largest violation of the lasso optimality
// conditions g_i = −λ sign(x_i) on the support and |g_i| ≤ λ off it,
// g = Gx − b, relative to λ + ‖b‖_∞·1e-3.
func kktViolation(G, B *mat.Dense, j int, x []float64, lambda float64) float64 {
	k, _ := G.Dims()
	var bmax float64
	for i := 0; i < k; i++ {
		bmax = math.Max(bmax, math.Abs(B.At(i, j)))
	}
	var worst float64
	for i := 0; i < k; i++ {
		g := -B.At(i, j)
		for r := 0; r < k; r++ {
			g += G.At(i, r) * x[r]
		}
		var v float64
		if x[i] == 0 {
			v = math.Max(math.Abs(g)-lambda, 0)
		} else {
			v = math.Abs(g + math.Copysign(lambda, x[i]))
		}
		worst = math.Max(worst, v/(lambda+1e-3*bmax))
	}
	return worst
}

func pathObjective(G, B *mat.Dense, j int, x []float64, lambda float64) float64 {
	k, _ := G.Dims()
	var f float64
	for i := 0; i < k; i++ {
		if x[i] == 0 {
			continue
		}
		f += lambda*math.Abs(x[i]) - B.At(i, j)*x[i]
		for r := 0; r < k; r++ {
			f += 0.5 * x[i] * G.At(i, r) * x[r]
		}
	}
	return f
}

// TestLassoPathKKT checks the optimality conditions of the path's codes on
// well- and ill-conditioned G, rank-deficient G (k > d), duplicate atoms,
// λ above ‖b‖_∞ (zero code) and tiny λ, and that some of these runs drop
// atoms from the active set.
func TestLassoPathKKT(t *testing.T) {
	cases := []struct {
		name        string
		d, k        int
		corr        float64
		dup         int
		lambdaScale float64 // λ = lambdaScale·‖B‖_∞ of the problem
	}{
		{"well", 60, 30, 0, 0, 0.1},
		{"ill", 60, 40, 0.9, 0, 0.05},
		{"rankdef", 20, 50, 0, 0, 0.02},
		{"dup", 40, 30, 0, 3, 0.05},
		{"above", 30, 20, 0, 0, 1.01},
		{"tiny", 40, 25, 0.5, 0, 1e-6},
	}
	for ci, c := range cases {
		G, B := pathProblem(uint64(ci+1), c.d, c.k, 8, c.corr, c.dup)
		var leaves int
		for j := 0; j < 8; j++ {
			lambda := c.lambdaScale * maxAbs(B.Slice(0, c.k, j, j+1).(*mat.Dense))
			x, ok, p := pathSolve(G, B, j, lambda)
			leaves += p.leaves
			if !ok {
				t.Errorf("%s column %d: the path failed", c.name, j)
				continue
			}
			if v := kktViolation(G, B, j, x, lambda); v > 1e-9 {
				t.Errorf("%s column %d: KKT violated by %.3g (relative)", c.name, j, v)
			}
			if c.name == "above" {
				for _, v := range x {
					if v != 0 {
						t.Fatalf("above: non-zero code %v", x)
					}
				}
			}
		}
		t.Logf("%s: %d atoms left the active set", c.name, leaves)
		if c.name == "rankdef" && leaves == 0 {
			t.Errorf("%s: no atom left the active set: the test does not exercise removal", c.name)
		}
	}
}

func maxAbs(a *mat.Dense) float64 {
	var m float64
	r, c := a.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m = math.Max(m, math.Abs(a.At(i, j)))
		}
	}
	return m
}

// TestLassoPathBruteForce compares the path with the best of all supports
// and sign patterns on k ≤ 6: each consistent x_S = G_SS⁻¹(b_S − λσ) is a
// candidate, and the lasso minimiser is one of them.
func TestLassoPathBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		k := 2 + int(seed%5)
		d := 3 + int(seed%4) // sometimes k > d
		if d < k {
			d = k // brute force needs G_SS invertible for the minimiser's support
		}
		G, B := pathProblem(seed+100, d, k, 3, 0.3*float64(seed%3), 0)
		lambda := 0.05 + 0.1*float64(seed%4)
		for j := 0; j < 3; j++ {
			x, ok, _ := pathSolve(G, B, j, lambda)
			if !ok {
				t.Fatalf("seed %d column %d: the path failed", seed, j)
			}
			best, bx := bruteLasso(G, B, j, lambda)
			f := pathObjective(G, B, j, x, lambda)
			if f > best+1e-12*math.Abs(best) {
				t.Errorf("seed %d column %d: objective %.15g, brute force %.15g", seed, j, f, best)
			}
			for i := range x {
				if math.Abs(x[i]-bx[i]) > 1e-9 {
					t.Errorf("seed %d column %d: x = %v, brute force %v", seed, j, x, bx)
					break
				}
			}
		}
	}
}

func bruteLasso(G, B *mat.Dense, j int, lambda float64) (float64, []float64) {
	k, _ := G.Dims()
	best, bx := 0.0, make([]float64, k) // x = 0
	for set := 1; set < 1<<k; set++ {
		var S []int
		for i := 0; i < k; i++ {
			if set>>i&1 == 1 {
				S = append(S, i)
			}
		}
		m := len(S)
		for signs := 0; signs < 1<<m; signs++ {
			A := mat.NewDense(m, m, nil)
			r := mat.NewVecDense(m, nil)
			sg := make([]float64, m)
			for p, a := range S {
				sg[p] = 1
				if signs>>p&1 == 1 {
					sg[p] = -1
				}
				r.SetVec(p, B.At(a, j)-lambda*sg[p])
				for q, b := range S {
					A.Set(p, q, G.At(a, b))
				}
			}
			var xs mat.VecDense
			if err := xs.SolveVec(A, r); err != nil {
				continue
			}
			x := make([]float64, k)
			okSign := true
			for p, a := range S {
				if xs.AtVec(p)*sg[p] <= 0 {
					okSign = false
				}
				x[a] = xs.AtVec(p)
			}
			if !okSign {
				continue
			}
			if f := pathObjective(G, B, j, x, lambda); f < best {
				best, bx = f, x
			}
		}
	}
	return best, bx
}

// TestLassoPathFISTA compares LassoGram's codes (ADMM option, all by the
// path) with FISTA run to convergence: the objective is no higher, per
// column.
func TestLassoPathFISTA(t *testing.T) {
	for _, sz := range [][3]int{{30, 20, 40}, {20, 40, 30}} {
		D, Y := svLassoProblem(41, sz[0], sz[1], sz[2])
		const lambda = 0.1
		testutil.Backends(t, func(t *testing.T) {
			k, n := sz[1], sz[2]
			X, F := mat.NewDense(k, n, nil), mat.NewDense(k, n, nil)
			// A large MaxIter makes ADMM dearer than the path for every column.
			if err := Lasso(context.Background(), X, D, Y, lambda, LassoOptions{ADMM: true, MaxIter: 1 << 20}); err != nil {
				t.Fatal(err)
			}
			G, B := mat.NewDense(k, k, nil), mat.NewDense(k, n, nil)
			G.Mul(D.T(), D)
			B.Mul(D.T(), Y)
			for j := 0; j < n; j++ {
				x, ok, _ := pathSolve(G, B, j, lambda)
				if !ok || !mat.Equal(X.ColView(j), mat.NewVecDense(k, x)) {
					t.Fatalf("%v column %d: not the path's code", sz, j)
				}
			}
			if err := Lasso(context.Background(), F, D, Y, lambda, LassoOptions{MaxIter: 100000, Tol: 1e-15, Restart: true}); err != nil {
				t.Fatal(err)
			}
			for j := 0; j < n; j++ {
				fx := blLasso(D, Y, X, j, lambda)
				ff := blLasso(D, Y, F, j, lambda)
				if fx > ff+1e-10*math.Abs(ff) {
					t.Errorf("%v column %d: objective %.15g, FISTA %.15g", sz, j, fx, ff)
				}
			}
		})
	}
}

// blLasso returns ½‖y_j − Dx_j‖² + λ‖x_j‖₁.
func blLasso(D, Y, X *mat.Dense, j int, lambda float64) float64 {
	d, k := D.Dims()
	var f float64
	for i := 0; i < d; i++ {
		r := Y.At(i, j)
		for a := 0; a < k; a++ {
			r -= D.At(i, a) * X.At(a, j)
		}
		f += 0.5 * r * r
	}
	for a := 0; a < k; a++ {
		f += lambda * math.Abs(X.At(a, j))
	}
	return f
}

// TestLassoPathDeterministic: the codes are the same bit for bit on one
// goroutine and on several, with the path and with ADMM (tiny λ on a
// rank-deficient G: the path fails).
func TestLassoPathDeterministic(t *testing.T) {
	for _, c := range []struct {
		lambda  float64
		maxIter int // large: the path for every column
	}{{0.05, 1 << 20}, {1e-7, 0}} {
		lambda := c.lambda
		G, B := pathProblem(9, 30, 60, 5*lassoPathChunk+3, 0.2, 0)
		k, n := B.Dims()
		run := func(procs int) *mat.Dense {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			X := mat.NewDense(k, n, nil)
			if err := LassoGram(context.Background(), X, G, B, lambda, LassoOptions{ADMM: true, MaxIter: c.maxIter}); err != nil {
				t.Fatal(err)
			}
			return X
		}
		a, b := run(1), run(4)
		x, ok, _ := pathSolve(G, B, n-1, lambda)
		if path := ok && mat.Equal(a.ColView(n-1), mat.NewVecDense(k, x)); path != (c.maxIter > 0) {
			t.Errorf("λ = %g: the last column was coded by the path: %v", lambda, path)
		}
		if !mat.Equal(a, b) {
			t.Errorf("λ = %g: codes differ between GOMAXPROCS 1 and 4", lambda)
		}
	}
}

// TestLassoPathDense: codes too dense for the path (k = 280 atoms, all
// active at λ = 1e-4, beyond lassoPathActive) go to ADMM: the result is
// LassoADMM's.
func TestLassoPathDense(t *testing.T) {
	G, B := pathProblem(10, 300, 280, 70, 0, 0)
	k, n := B.Dims()
	const lambda = 1e-4
	X, W := mat.NewDense(k, n, nil), mat.NewDense(k, n, nil)
	if err := LassoGram(context.Background(), X, G, B, lambda, LassoOptions{ADMM: true}); err != nil {
		t.Fatal(err)
	}
	if err := LassoADMM(context.Background(), W, G, B, lambda, LassoOptions{}); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(X, W) {
		t.Error("the codes are not LassoADMM's")
	}
}
