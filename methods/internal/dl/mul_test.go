package dl

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/internal/testutil"
	"github.com/lrsdl/lrsdl/methods/internal/toy"
)

// TestMulDense checks MulDense against Dense.Mul for every combination of
// transposes, on products small enough for one Gemm call and large enough
// to be split between the cores, into an empty and a sized dst, and that it
// panics on mismatched shapes.
func TestMulDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][3]int{{3, 4, 5}, {300, 40, 200}, {1, 700, 9}} {
		m, k, n := sz[0], sz[1], sz[2]
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				name := fmt.Sprintf("%dx%dx%d ta=%v tb=%v", m, k, n, ta, tb)
				var a, b mat.Matrix
				if ta {
					a = testutil.RandDense(rng, k, m).T()
				} else {
					a = testutil.RandDense(rng, m, k)
				}
				if tb {
					b = testutil.RandDense(rng, n, k).T()
				} else {
					b = testutil.RandDense(rng, k, n)
				}
				var want, got mat.Dense
				want.Mul(a, b)
				MulDense(&got, a, b)
				if !mat.EqualApprox(&got, &want, 1e-12) {
					t.Errorf("%s: differs from Dense.Mul", name)
				}
				sized := mat.NewDense(m, n, nil)
				sized.Apply(func(int, int, float64) float64 { return 7 }, sized) // beta = 0 overwrites
				MulDense(sized, a, b)
				if !mat.EqualApprox(sized, &want, 1e-12) {
					t.Errorf("%s: differs from Dense.Mul into a sized dst", name)
				}
			}
		}
	}
	for _, c := range []struct {
		name string
		dst  *mat.Dense
		a, b mat.Matrix
	}{
		{"inner", &mat.Dense{}, mat.NewDense(2, 3, nil), mat.NewDense(2, 3, nil)},
		{"dst", mat.NewDense(2, 2, nil), mat.NewDense(2, 3, nil), mat.NewDense(3, 4, nil)},
		{"operand", &mat.Dense{}, mat.NewDiagDense(2, nil), mat.NewDense(2, 3, nil)},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			MulDense(c.dst, c.a, c.b)
		}()
	}
}

// TestMulDenseExact checks that AᵀB by MulDense, shared between the cores
// in chunks, has the bits of the whole product in one BLAS call (below
// blas.GemmThreadsMin), on every backend, for inner dimensions
// above OpenBLAS's and gonum's block sizes. OpenBLAS's AVX-512 kernels
// round an element by where it falls in the product's tiles (530×130×203
// differs in its last bits with Cooperlake's); with them the chunked
// product must agree with the whole one to 1e-12.
func TestMulDenseExact(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	testutil.Backends(t, func(t *testing.T) {
		exact := !strings.HasSuffix(t.Name(), "/openblas") || !avx512Kernels(blas.BackendDetail())
		rng := rand.New(rand.NewPCG(45, 46))
		for _, sz := range [][3]int{{530, 130, 203}, {1037, 425, 60}, {300, 64, 1020}} {
			d, K, N := sz[0], sz[1], sz[2]
			if d*K*N < parallel.MinWork || d*K*N >= blas.GemmThreadsMin {
				t.Fatalf("%v: not split by MulDense", sz)
			}
			A, B := testutil.RandDense(rng, d, K), testutil.RandDense(rng, d, N)
			var want mat.Dense
			want.Mul(A.T(), B)
			for _, got := range []*mat.Dense{{}, mat.NewDense(K, N, nil)} {
				MulDense(got, A.T(), B)
				if exact && !mat.Equal(got, &want) || !mat.EqualApprox(got, &want, 1e-12) {
					t.Errorf("%v: chunked product differs from the whole one by %g", sz, toy.MaxAbsDiff(got, &want))
				}
			}
		}
	})
}

// avx512Kernels reports whether BackendDetail names one of OpenBLAS's
// AVX-512 kernel sets.
func avx512Kernels(detail string) bool {
	for _, core := range []string{"SkylakeX", "Cooperlake", "SapphireRapids"} {
		if strings.Contains(detail, "core "+core) {
			return true
		}
	}
	return false
}
