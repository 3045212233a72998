package methods

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/internal/testutil"
)

// TestMulDense checks mulDense against Dense.Mul for every combination of
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
				mulDense(&got, a, b)
				if !mat.EqualApprox(&got, &want, 1e-12) {
					t.Errorf("%s: differs from Dense.Mul", name)
				}
				sized := mat.NewDense(m, n, nil)
				sized.Apply(func(int, int, float64) float64 { return 7 }, sized) // beta = 0 overwrites
				mulDense(sized, a, b)
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
			mulDense(c.dst, c.a, c.b)
		}()
	}
}

// TestDLSIWorkReused checks that E-DLSI-D passes whose blocks share one
// blockGram's workspaces (dlsiWork: ADMM's, the factorisation of the Z step
// on its goroutine, the copies of D and of the other atoms) give the bits
// of passes that start each block from fresh workspaces, over blocks of
// different sizes (COPAR's shared block), with S⁻¹ formed and with the
// Cholesky solves (dlsiInvMax) and with both in one pass, twice over so that the workspaces are
// reused at sizes smaller than their capacity.
func TestDLSIWorkReused(t *testing.T) {
	const d, C, n, eta = 40, 3, 6, 0.3
	part := blockPartition(C, 4, 7)
	for _, invMax := range []int{20, 3, 0} {
		func() {
			defer func(v int) { dlsiInvMax = v }(dlsiInvMax)
			dlsiInvMax = invMax
			rng := rand.New(rand.NewPCG(8, 9))
			D0 := testutil.RandUnitCols(rng, d, part.Len())
			Y := testutil.RandDense(rng, d, 30)
			X := testutil.RandDense(rng, part.Len(), 30)
			var F, E mat.Dense
			F.Mul(X, X.T())
			E.Mul(Y, X.T())
			run := func(fresh bool) *mat.Dense {
				D := mat.DenseCopyOf(D0)
				var g blockGram
				g.init(D)
				duals := make([]mat.Dense, part.Blocks())
				for pass := 0; pass < 2; pass++ {
					for b := 0; b < part.Blocks(); b++ {
						if fresh {
							g.work = dlsiWork{}
						}
						lo, hi := part.Block(b)
						Db := D.Slice(0, d, lo, hi).(*mat.Dense)
						Eb := mat.DenseCopyOf(E.Slice(0, d, lo, hi))
						Fb := mat.DenseCopyOf(F.Slice(lo, hi, lo, hi))
						var A *mat.Dense
						if fresh {
							A = otherAtoms(D, part, b)
						} else {
							A = otherAtomsTo(&g.work.a, D, part, b)
						}
						if err := dlsiUpdateIncoherentGram(context.Background(), Db, Eb, Fb, A, &g, part, b, &duals[b], nil, eta, false); err != nil {
							t.Fatal(err)
						}
					}
				}
				return D
			}
			want, got := run(true), run(false)
			if mat.Equal(want, D0) {
				t.Fatal("the passes left D unchanged")
			}
			if !mat.Equal(got, want) {
				t.Errorf("dlsiInvMax %d: reused workspaces differ from fresh ones by %g", invMax, maxAbsDiff(got, want))
			}
		}()
	}
}

// TestMulDenseExact checks that AᵀB by mulDense, shared between the cores
// in chunks, has the bits of the whole product in one BLAS call
// (blas.GemmThreadsMin raised), on every backend, for inner dimensions
// above OpenBLAS's and gonum's block sizes. OpenBLAS's AVX-512 kernels
// round an element by where it falls in the product's tiles (530×130×203
// differs in its last bits with Cooperlake's); with them the chunked
// product must agree with the whole one to 1e-12.
func TestMulDenseExact(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	testutil.Backends(t, func(t *testing.T) {
		exact := !strings.HasSuffix(t.Name(), "/openblas") || !avx512Kernels(blas.BackendDetail())
		rng := rand.New(rand.NewPCG(45, 46))
		for _, sz := range [][3]int{{530, 130, 203}, {1037, 425, 120}, {300, 64, 1020}} {
			d, K, N := sz[0], sz[1], sz[2]
			if d*K*N < parallel.MinWork {
				t.Fatalf("%v: too small to be split", sz)
			}
			A, B := testutil.RandDense(rng, d, K), testutil.RandDense(rng, d, N)
			var want mat.Dense
			func() {
				defer func(v int) { blas.GemmThreadsMin = v }(blas.GemmThreadsMin)
				blas.GemmThreadsMin = math.MaxInt
				want.Mul(A.T(), B)
			}()
			for _, got := range []*mat.Dense{{}, mat.NewDense(K, N, nil)} {
				mulDense(got, A.T(), B)
				if exact && !mat.Equal(got, &want) || !mat.EqualApprox(got, &want, 1e-12) {
					t.Errorf("%v: chunked product differs from the whole one by %g", sz, maxAbsDiff(got, &want))
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
