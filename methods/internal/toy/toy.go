package toy

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/cputime"
	"github.com/lrsdl/lrsdl/internal/testutil"
	"gonum.org/v1/gonum/mat"
)

// Shared returns n samples per class of C classes in dimension d: each
// sample mixes 2 of its class's 4 patterns with both shared patterns
// (weights larger than the class part), plus noise; columns have unit
// norm. It also returns the shared patterns (d×2). Labels are 10·c+3 in
// shuffled order.
func Shared(C, n, d int, seed uint64) (Y *mat.Dense, labels []int, shared *mat.Dense) {
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

// Classes returns C classes of n samples in dimension d, each a
// sparse combination of its own class atoms plus noise, sorted by class,
// and random unit-norm initial dictionaries with k atoms per class.
func Classes(seed uint64, C, d, n, k int) (Ys *mat.Dense, sp, part core.Partition, D *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 1))
	sizes := make([]int, C)
	ks := make([]int, C)
	for c := range sizes {
		sizes[c], ks[c] = n, k
	}
	sp, part = core.NewPartition(sizes...), core.NewPartition(ks...)
	Ys = mat.NewDense(d, C*n, nil)
	for c := 0; c < C; c++ {
		A := testutil.RandUnitCols(rng, d, 4)
		for j := 0; j < n; j++ {
			for i := 0; i < d; i++ {
				v := 0.05 * rng.NormFloat64()
				for a := 0; a < 4; a++ {
					if (j+a)%2 == 0 {
						v += A.At(i, a) * (1 + rng.Float64())
					}
				}
				Ys.Set(i, c*n+j, v)
			}
		}
	}
	D = testutil.RandUnitCols(rng, d, C*k)
	return Ys, sp, part, D
}

// MaxAbsDiff returns max |a_ij − b_ij|.
func MaxAbsDiff(a, b *mat.Dense) float64 {
	r, c := a.Dims()
	m := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m = math.Max(m, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return m
}

// Testdata returns the path of the named file in the repository's testdata
// directory.
func Testdata(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", name)
}

// ARGender returns the path of the AR gender data set (testdata/argender.mat
// of the repository), or skips t.
func ARGender(t testing.TB) string {
	for _, p := range []string{Testdata("argender.mat"), "/work/shared/data/argender.mat"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("argender.mat not found")
	return ""
}

// Eye returns the n×n identity.
func Eye(n int) *mat.Dense {
	I := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		I.Set(i, i, 1)
	}
	return I
}

// CheckDescent runs 6 rounds of stepX and stepD and checks that neither
// raises J, that every atom of D keeps ‖d‖ ≤ 1 and that J ends below drop
// times J after the first round. Errors start with name.
func CheckDescent(t *testing.T, name string, D *mat.Dense, drop float64, J func() float64, stepX, stepD func() error) {
	t.Helper()
	prev := J()
	var first, last float64
	for it := 0; it < 6; it++ {
		if err := stepX(); err != nil {
			t.Fatal(err)
		}
		cx := J()
		if cx > prev*(1+1e-9) {
			t.Errorf("%s: iter %d: X step raised J from %.10g to %.10g", name, it, prev, cx)
		}
		if err := stepD(); err != nil {
			t.Fatal(err)
		}
		cd := J()
		if cd > cx*(1+1e-9) {
			t.Errorf("%s: iter %d: D step raised J from %.10g to %.10g", name, it, cx, cd)
		}
		_, K := D.Dims()
		for j := 0; j < K; j++ {
			if nrm := mat.Norm(D.ColView(j), 2); nrm > 1+1e-9 {
				t.Errorf("%s: atom %d has norm %v > 1", name, j, nrm)
			}
		}
		if it == 0 {
			first = cd
		}
		last, prev = cd, cd
	}
	if !(last < drop*first) {
		t.Errorf("%s: J barely moved: %v -> %v", name, first, last)
	}
}

// CPUMetric resets the timer and returns a function that reports the
// process's CPU time per operation (cpu-ms/op; both cores count).
func CPUMetric(b *testing.B) func() {
	b.ResetTimer()
	t := cputime.Process()
	return func() {
		b.StopTimer()
		b.ReportMetric(float64(cputime.Process()-t)/1e6/float64(b.N), "cpu-ms/op")
	}
}

// LassoMinimum returns, for every column y of Y, ½‖y − Da‖² and ‖a‖₁ at
// the lasso code a = argmin ½‖y − Da‖² + λ‖a‖₁ found by FISTA run far past
// the tolerance the methods use, the residual formed from D explicitly: an
// independent check of the Gram-matrix path and residual of prediction.
func LassoMinimum(t *testing.T, D *mat.Dense, Y mat.Matrix, lambda float64) (half, l1 []float64) {
	t.Helper()
	_, k := D.Dims()
	_, n := Y.Dims()
	A := mat.NewDense(k, n, nil)
	if err := core.Lasso(context.Background(), A, D, Y, lambda, core.LassoOptions{MaxIter: 100000, Tol: 1e-15}); err != nil {
		t.Fatal(err)
	}
	var R mat.Dense
	R.Mul(D, A)
	R.Sub(Y, &R)
	half, l1 = make([]float64, n), make([]float64, n)
	for j := 0; j < n; j++ {
		half[j] = 0.5 * mat.Dot(R.ColView(j), R.ColView(j))
		for i := 0; i < k; i++ {
			l1[j] += math.Abs(A.At(i, j))
		}
	}
	return half, l1
}

// Columns returns the columns idx of a.
func Columns(a *mat.Dense, idx []int) *mat.Dense {
	d, _ := a.Dims()
	out := mat.NewDense(d, len(idx), nil)
	for j, c := range idx {
		out.SetCol(j, mat.Col(nil, c, a))
	}
	return out
}
