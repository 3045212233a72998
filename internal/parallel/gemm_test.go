package parallel

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// naive is a reference Dgemm computing each element of C by one loop over
// k in order. It counts its calls.
type naive struct{ calls *int }

func (d naive) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	*d.calls++
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for l := 0; l < k; l++ {
				ia, ib := i*lda+l, l*ldb+j
				if tA != blas.NoTrans {
					ia = l*lda + i
				}
				if tB != blas.NoTrans {
					ib = j*ldb + l
				}
				s += a[ia] * b[ib]
			}
			c[i*ldc+j] = alpha*s + beta*c[i*ldc+j]
		}
	}
}

// locked serialises a Dgemmer that is not safe for concurrent use.
type locked struct {
	d  naive
	mu chan struct{}
}

func (l locked) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	l.mu <- struct{}{}
	defer func() { <-l.mu }()
	l.d.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func randSlice(rnd *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 2*rnd.Float64() - 1
	}
	return s
}

// TestSplitDgemm checks that SplitDgemm equals one call of the Dgemm it
// splits bit for bit, for every transpose and padded strides, that it
// splits the products large enough and no others, and that its result is
// the same at GOMAXPROCS 1 and 2.
func TestSplitDgemm(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][3]int{{50, 700, 50}, {7, 1000, 40}, {60, 200, 30}, {50, 700, 1}, {3, 40, 5}, {300, 10, 700}, {700, 63, 50}, {20, 20, 2000}} {
		m, n, k := sz[0], sz[1], sz[2]
		split := m*n*k >= SplitMin
		for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				lda, ldb, ldc := k+3, n+2, n+1
				ra, rb := m, k
				if tA != blas.NoTrans {
					lda, ra = m+3, k
				}
				if tB != blas.NoTrans {
					ldb, rb = k+2, n
				}
				a, b, c0 := randSlice(rnd, ra*lda), randSlice(rnd, rb*ldb), randSlice(rnd, m*ldc)
				var calls int
				want := slices.Clone(c0)
				naive{&calls}.Dgemm(tA, tB, m, n, k, 0.7, a, lda, b, ldb, -0.3, want, ldc)
				for _, procs := range []int{1, 2} {
					runtime.GOMAXPROCS(procs)
					calls = 0
					got := slices.Clone(c0)
					d := locked{naive{&calls}, make(chan struct{}, 1)}
					SplitDgemm(d, tA, tB, m, n, k, 0.7, a, lda, b, ldb, -0.3, got, ldc)
					if !slices.Equal(got, want) {
						t.Errorf("%v %c%c GOMAXPROCS=%d: result differs from one Dgemm", sz, tA, tB, procs)
					}
					work := float64(m) * float64(n) * float64(k)
					_, count := gemmChunks(n, work)
					if n < 2*gemmMinSize {
						_, count = gemmChunks(m, work)
					}
					if count < 2 {
						split = false
					}
					if split && calls != count || !split && calls != 1 {
						t.Errorf("%v %c%c: %d Dgemm calls, want %d chunks if split (%t)", sz, tA, tB, calls, count, split)
					}
				}
			}
		}
	}
}

// TestGemmChunks checks that the chunks cover the columns without overlap,
// are multiples of 8 wide except the last, and number 2 for products up to
// 2·gemmChunkWork and more for larger ones.
func TestGemmChunks(t *testing.T) {
	for n := 1; n < 3000; n++ {
		for _, work := range []float64{SplitMin, 2 * gemmChunkWork, 4 * gemmChunkWork, 1e12} {
			size, count := gemmChunks(n, work)
			if count < 1 || count > gemmMaxChunks || size%8 != 0 || size < gemmMinSize || (count-1)*size >= n || count*size < n {
				t.Fatalf("gemmChunks(%d, %g) = %d, %d", n, work, size, count)
			}
			if n >= 1000 && (work <= 2*gemmChunkWork && count != 2 || work >= 4*gemmChunkWork && count < 4 || work == 1e12 && count != gemmMaxChunks) {
				t.Fatalf("gemmChunks(%d, %g) = %d chunks", n, work, count)
			}
		}
	}
}

// TestSplitDgemmAllocs checks that a split product does not allocate once
// warm.
func TestSplitDgemmAllocs(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	m, n, k := 50, 700, 50
	a, b, c := randSlice(rnd, m*k), randSlice(rnd, k*n), randSlice(rnd, m*n)
	var calls int
	d := &locked{naive{&calls}, make(chan struct{}, 1)} // a pointer: no allocation per call
	f := func() { SplitDgemm(d, blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, b, n, 0, c, n) }
	f()
	if allocs := testing.AllocsPerRun(10, f); allocs > 0 {
		t.Errorf("%v allocations per SplitDgemm", allocs)
	}
}
