package core

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/internal/testutil"
)

// encodeProblem returns unit-norm atoms D (d×k) and unit-norm data Y (d×n).
func encodeProblem(seed uint64, d, k, n int) (D, Y *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 70))
	return testutil.RandUnitCols(rng, d, k), testutil.RandUnitCols(rng, d, n)
}

// lambdaMax returns max_j ‖Dᵀy_j‖_∞.
func lambdaMax(D, Y *mat.Dense) float64 {
	var B mat.Dense
	B.Mul(D.T(), Y)
	var m float64
	for _, v := range B.RawMatrix().Data {
		m = max(m, math.Abs(v))
	}
	return m
}

// coderParts returns a coder for D, DᵀY and the squared norms of Y's
// columns.
func coderParts(t *testing.T, D, Y *mat.Dense) (c *SparseCoder, B *mat.Dense, yy []float64) {
	c, err := NewSparseCoder(D)
	if err != nil {
		t.Fatal(err)
	}
	B = &mat.Dense{}
	B.Mul(D.T(), Y)
	return c, B, colNorms2(Y)
}

// directGap returns, per column, the primal objective and the duality gap
// of X computed from D and Y directly (not from the Gram matrix).
func directGap(D, Y, X *mat.Dense, lambda float64) (P, gap []float64) {
	_, n := Y.Dims()
	var R, C mat.Dense
	R.Mul(D, X)
	R.Sub(Y, &R)
	C.Mul(D.T(), &R)
	P, gap = make([]float64, n), make([]float64, n)
	for j := 0; j < n; j++ {
		r, y, x, c := mat.Col(nil, j, &R), mat.Col(nil, j, Y), mat.Col(nil, j, X), mat.Col(nil, j, &C)
		var rr, l1, cmax, ry float64
		for i, v := range r {
			rr += v * v
			ry += v * y[i]
		}
		for _, v := range x {
			l1 += math.Abs(v)
		}
		for _, v := range c {
			cmax = max(cmax, math.Abs(v))
		}
		s := 1.0
		if cmax > lambda {
			s = lambda / cmax
		}
		P[j] = 0.5*rr + lambda*l1
		gap[j] = P[j] - (s*ry - 0.5*s*s*rr)
	}
	return P, gap
}

// TestEncodeGap checks the certificate at return on random problems of
// every regime (K against d, λ against λ_max) and for every algorithm: a
// duality gap recomputed from D and Y directly is below Tol·P (up to
// rounding) in every column, and no column was capped.
func TestEncodeGap(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		shapes := []struct{ d, k, n int }{{40, 10, 30}, {30, 60, 25}, {64, 64, 20}}
		for si, sh := range shapes {
			D, Y := encodeProblem(uint64(si), sh.d, sh.k, sh.n)
			lmax := lambdaMax(D, Y)
			for _, ratio := range []float64{0.001, 0.02, 0.2, 0.7, 1.1} {
				for _, algo := range []SparseAlgorithm{AlgoAuto, AlgoCD, AlgoPath, AlgoFISTA, AlgoADMM} {
					lambda := ratio * lmax
					X := mat.NewDense(sh.k, sh.n, nil)
					tol := 1e-8
					info, err := Encode(context.Background(), X, D, Y, lambda, EncodeOptions{Algorithm: algo, Tol: tol})
					name := fmt.Sprintf("d%dk%dn%d/ratio%g/%v", sh.d, sh.k, sh.n, ratio, algo)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if info.Stop != StopGap || info.Capped != 0 {
						t.Errorf("%s: stop %v, %d capped", name, info.Stop, info.Capped)
					}
					if algo != AlgoAuto && info.Algorithm != algo {
						t.Errorf("%s: ran %v", name, info.Algorithm)
					}
					P, gap := directGap(D, Y, X, lambda)
					for j := range P {
						if gap[j] > tol*P[j]+1e-12*(1+P[j]) {
							t.Errorf("%s: column %d gap %g > %g·P = %g", name, j, gap[j], tol, tol*P[j])
							break
						}
					}
					if ratio > 1 && mat.Norm(X, 1) != 0 {
						t.Errorf("%s: λ > λ_max gave non-zero codes", name)
					}
				}
			}
		}
	})
}

// TestEncodeScreeningSafe checks that gap-safe screening never drops an
// atom of the solution: a tightly solved reference without screening, and
// the atoms kept at the end of a screened solve.
func TestEncodeScreeningSafe(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		for seed, sh := range []struct{ d, k, n int }{{30, 20, 20}, {20, 50, 20}, {50, 50, 10}} {
			D, Y := encodeProblem(uint64(10+seed), sh.d, sh.k, sh.n)
			c, B, yy := coderParts(t, D, Y)
			lmax := lambdaMax(D, Y)
			for _, ratio := range []float64{0.01, 0.1, 0.4} {
				lambda := ratio * lmax
				ref := EncodeOptions{Tol: 1e-14, NoScreening: true}.defaults()
				o := EncodeOptions{Tol: 1e-10}.defaults()
				w, wr := newCDWork(sh.k), newCDWork(sh.k)
				screened := 0
				for j := 0; j < sh.n; j++ {
					for i := 0; i < sh.k; i++ {
						w.b[i], w.x[i] = B.At(i, j), 0
						wr.b[i], wr.x[i] = B.At(i, j), 0
					}
					st := w.solve(c.gram.RawMatrix().Data, c.norm, yy[j], lambda, &o)
					wr.solve(c.gram.RawMatrix().Data, c.norm, yy[j], lambda, &ref)
					screened += st.screened
					for i := 0; i < sh.k; i++ {
						if math.Abs(wr.x[i]) > 1e-9 && !w.kept[i] {
							t.Errorf("d%dk%d ratio %g column %d: atom %d (reference %g) screened out", sh.d, sh.k, ratio, j, i, wr.x[i])
						}
					}
				}
				if ratio == 0.4 && screened == 0 {
					t.Errorf("d%dk%d ratio %g: nothing screened", sh.d, sh.k, ratio)
				}
			}
		}
	})
}

// TestEncodeCap checks that a cap reached before the certificate is
// reported, not taken for convergence.
func TestEncodeCap(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		D, Y := encodeProblem(3, 30, 60, 12)
		lambda := 0.001 * lambdaMax(D, Y)
		for _, o := range []EncodeOptions{
			{Algorithm: AlgoCD, MaxSweeps: 1, NoNewton: true},
			{Algorithm: AlgoCD, MaxOuter: 1, NoNewton: true},
		} {
			X := mat.NewDense(60, 12, nil)
			info, err := Encode(context.Background(), X, D, Y, lambda, o)
			if err != nil {
				t.Fatal(err)
			}
			if info.Stop != StopCap || info.Capped == 0 {
				t.Errorf("%+v: stop %v, %d capped, max relative gap %g", o, info.Stop, info.Capped, info.MaxRelGap)
			}
			if info.MaxRelGap <= DefaultEncodeTol {
				t.Errorf("%+v: capped at relative gap %g", o, info.MaxRelGap)
			}
		}
	})
}

// TestEncodeOrthogonal checks the closed form of an orthonormal dictionary,
// x = S_λ(Dᵀy), for every algorithm.
func TestEncodeOrthogonal(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 5))
		d, k, n := 20, 12, 15
		var qr mat.QR
		qr.Factorize(testutil.RandDense(rng, d, k))
		var Q mat.Dense
		qr.QTo(&Q)
		D := mat.DenseCopyOf(Q.Slice(0, d, 0, k))
		Y := testutil.RandDense(rng, d, n)
		lambda := 0.5
		var B mat.Dense
		B.Mul(D.T(), Y)
		for _, algo := range []SparseAlgorithm{AlgoAuto, AlgoCD, AlgoPath, AlgoFISTA, AlgoADMM} {
			X := mat.NewDense(k, n, nil)
			if _, err := Encode(context.Background(), X, D, Y, lambda, EncodeOptions{Algorithm: algo, Tol: 1e-12}); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < k; i++ {
				for j := 0; j < n; j++ {
					if want := soft(B.At(i, j), lambda); math.Abs(X.At(i, j)-want) > 1e-6*(1+math.Abs(want)) {
						t.Fatalf("%v: X[%d,%d] = %g, want %g", algo, i, j, X.At(i, j), want)
					}
				}
			}
		}
	})
}

// TestEncodeBruteForce compares the objective on tiny problems with the
// minimum over every support and sign pattern s of the candidates
// x_S = G_SS⁻¹(b_S − λs) whose signs agree with s (the optimum is one).
func TestEncodeBruteForce(t *testing.T) {
	testutil.Backends(t, func(t *testing.T) {
		for seed := uint64(0); seed < 6; seed++ {
			d, k := 3+int(seed%3), 4
			D, Y := encodeProblem(100+seed, d, k, 3)
			lmax := lambdaMax(D, Y)
			for _, ratio := range []float64{0.01, 0.3} {
				lambda := ratio * lmax
				X := mat.NewDense(k, 3, nil)
				if _, err := Encode(context.Background(), X, D, Y, lambda, EncodeOptions{Tol: 1e-12}); err != nil {
					t.Fatal(err)
				}
				P, _ := directGap(D, Y, X, lambda)
				for j := range P {
					best := bruteEncode(D, mat.Col(nil, j, Y), lambda)
					if P[j] > best*(1+1e-9)+1e-14 || P[j] < best*(1-1e-9)-1e-14 {
						t.Errorf("seed %d ratio %g column %d: objective %.15g, brute force %.15g", seed, ratio, j, P[j], best)
					}
				}
			}
		}
	})
}

func bruteEncode(D *mat.Dense, y []float64, lambda float64) float64 {
	d, k := D.Dims()
	yv := mat.NewVecDense(d, y)
	obj := func(x []float64) float64 {
		var r mat.VecDense
		r.MulVec(D, mat.NewVecDense(k, x))
		r.SubVec(yv, &r)
		v := 0.5 * mat.Dot(&r, &r)
		for _, xi := range x {
			v += lambda * math.Abs(xi)
		}
		return v
	}
	best := obj(make([]float64, k))
	pat := make([]int, k) // 0 off, 1 positive, 2 negative
	for {
		var S []int
		for i, p := range pat {
			if p != 0 {
				S = append(S, i)
			}
		}
		if len(S) > 0 && len(S) <= d {
			DS := mat.NewDense(d, len(S), nil)
			rhs := mat.NewVecDense(len(S), nil)
			for q, i := range S {
				DS.SetCol(q, mat.Col(nil, i, D))
				s := 1.0
				if pat[i] == 2 {
					s = -1
				}
				rhs.SetVec(q, mat.Dot(D.ColView(i), yv)-lambda*s)
			}
			var G mat.SymDense
			G.SymOuterK(1, DS.T())
			var ch mat.Cholesky
			if ch.Factorize(&G) {
				var xs mat.VecDense
				if ch.SolveVecTo(&xs, rhs) == nil {
					x := make([]float64, k)
					ok := true
					for q, i := range S {
						v := xs.AtVec(q)
						if (pat[i] == 1 && v <= 0) || (pat[i] == 2 && v >= 0) {
							ok = false
						}
						x[i] = v
					}
					if ok {
						best = min(best, obj(x))
					}
				}
			}
		}
		i := 0
		for i < k && pat[i] == 2 {
			pat[i] = 0
			i++
		}
		if i == k {
			return best
		}
		pat[i]++
	}
}

// TestEncodeWarm checks warm starts: from the certified solution no sweep
// is needed, and along a decreasing λ path the previous codes are used.
func TestEncodeWarm(t *testing.T) {
	D, Y := encodeProblem(8, 30, 50, 20)
	c, err := NewSparseCoder(D)
	if err != nil {
		t.Fatal(err)
	}
	lmax := lambdaMax(D, Y)
	X := mat.NewDense(50, 20, nil)
	ctx := context.Background()
	for _, ratio := range []float64{0.5, 0.2, 0.05} {
		if _, err := c.Encode(ctx, X, Y, ratio*lmax, EncodeOptions{Algorithm: AlgoCD, Warm: true}); err != nil {
			t.Fatal(err)
		}
	}
	info, err := c.Encode(ctx, X, Y, 0.05*lmax, EncodeOptions{Algorithm: AlgoCD, Warm: true})
	if err != nil {
		t.Fatal(err)
	}
	if info.Sweeps != 0 || info.Stop != StopGap {
		t.Errorf("warm start at the solution: %d sweeps, stop %v", info.Sweeps, info.Stop)
	}
	cold, err := c.Encode(ctx, mat.NewDense(50, 20, nil), Y, 0.05*lmax, EncodeOptions{Algorithm: AlgoCD})
	if err != nil {
		t.Fatal(err)
	}
	if cold.Sweeps == 0 {
		t.Errorf("cold start took no sweep")
	}
}

// TestEncodeAllocs checks that the warm per-column solve allocates nothing.
func TestEncodeAllocs(t *testing.T) {
	D, Y := encodeProblem(9, 30, 60, 4)
	c, B, yy := coderParts(t, D, Y)
	lambda := 0.01 * lambdaMax(D, Y)
	o := EncodeOptions{}.defaults()
	w := newCDWork(60)
	g := c.gram.RawMatrix().Data
	run := func() {
		for j := 0; j < 4; j++ {
			for i := 0; i < 60; i++ {
				w.b[i], w.x[i] = B.At(i, j), 0
			}
			w.solve(g, c.norm, yy[j], lambda, &o)
			copy(w.b, w.b)
			w.path(g, c.norm, yy[j], lambda, &o)
		}
	}
	run()
	if a := testing.AllocsPerRun(5, run); a != 0 {
		t.Errorf("%g allocations per run", a)
	}
}

// TestEncodeArgs checks the shape, λ and finiteness errors.
func TestEncodeArgs(t *testing.T) {
	D, Y := encodeProblem(1, 10, 5, 3)
	ctx := context.Background()
	if _, err := Encode(ctx, mat.NewDense(4, 3, nil), D, Y, 0.1, EncodeOptions{}); err == nil {
		t.Error("wrong X shape accepted")
	}
	if _, err := Encode(ctx, mat.NewDense(5, 3, nil), D, Y, -1, EncodeOptions{}); err == nil {
		t.Error("negative λ accepted")
	}
	Yn := mat.DenseCopyOf(Y)
	Yn.Set(0, 0, math.NaN())
	if _, err := Encode(ctx, mat.NewDense(5, 3, nil), D, Yn, 0.1, EncodeOptions{}); err == nil {
		t.Error("NaN data accepted")
	}
}

func BenchmarkSparseCode(b *testing.B) {
	for _, sh := range []struct{ d, k, n int }{{300, 50, 500}, {300, 500, 500}, {1024, 1010, 1000}} {
		D, Y := encodeProblem(70, sh.d, sh.k, sh.n)
		c, err := NewSparseCoder(D)
		if err != nil {
			b.Fatal(err)
		}
		X := mat.NewDense(sh.k, sh.n, nil)
		for _, lambda := range []float64{0.001, 0.01, 0.1} {
			b.Run(fmt.Sprintf("d%dK%dn%d/lambda%g", sh.d, sh.k, sh.n, lambda), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := c.Encode(context.Background(), X, Y, lambda, EncodeOptions{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
