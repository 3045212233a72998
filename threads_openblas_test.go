//go:build openblas

package lrsdl

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"

	"github.com/lrsdl/lrsdl/internal/parallel"
)

// TestGemmThreadsSameResult checks that Level3.Dgemm of a product below
// GemmThreadsMin gives the same bits whatever OpenBLAS's thread count
// (threaded OpenBLAS rounds differently), and restores the thread count.
func TestGemmThreadsSameResult(t *testing.T) {
	defer SetOpenBLASThreads(SetOpenBLASThreads(0))
	defer func(v int) { GemmThreadsMin = v }(GemmThreadsMin)
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][3]int{{50, 700, 300}, {300, 301, 302}, {1000, 70, 500}} {
		m, n, k := sz[0], sz[1], sz[2]
		a, b := make([]float64, m*k), make([]float64, k*n)
		for _, s := range [][]float64{a, b} {
			for i := range s {
				s[i] = 2*rnd.Float64() - 1
			}
		}
		var want []float64
		for _, c := range []struct{ threads, min int }{{1, 1 << 30}, {2, 1 << 30}, {2, m*n*k + 1}} {
			SetOpenBLASThreads(c.threads)
			GemmThreadsMin = c.min
			got := make([]float64, m*n)
			Level3{}.Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, b, n, 0, got, n)
			if th := SetOpenBLASThreads(0); th != c.threads {
				t.Errorf("%v: %d threads after Dgemm, want %d", sz, th, c.threads)
			}
			if want == nil {
				want = got
			} else if !slices.Equal(got, want) {
				t.Errorf("%v: %d threads, GemmThreadsMin %d: result differs from one thread", sz, c.threads, c.min)
			}
		}
	}
}

// TestOneBLASThread checks that overlapping OneBLASThread sections keep
// OpenBLAS on one thread until the last ends, that a Dgemm inside one does
// not restore the count early, and that SetOpenBLASThreads inside sets the
// count restored at the end.
func TestOneBLASThread(t *testing.T) {
	defer SetOpenBLASThreads(SetOpenBLASThreads(0))
	SetOpenBLASThreads(2)
	endA := OneBLASThread()
	endB := OneBLASThread()
	a := make([]float64, 4)
	Level3{}.Dgemm(blas.NoTrans, blas.NoTrans, 2, 2, 1, 1, a, 1, a, 2, 0, a, 2)
	endA()
	if th := threads(); th != 1 {
		t.Errorf("%d threads with one section open, want 1", th)
	}
	if prev := SetOpenBLASThreads(3); prev != 2 {
		t.Errorf("SetOpenBLASThreads inside a section returned %d, want the saved 2", prev)
	}
	if th := threads(); th != 1 {
		t.Errorf("%d threads after SetOpenBLASThreads in a section, want 1", th)
	}
	endB()
	if th := threads(); th != 3 {
		t.Errorf("%d threads after the last section, want 3", th)
	}
}

// TestSplitGemmSameResult checks that Level3.Dgemm, which splits the
// columns of mid-sized products between the cores, equals one
// single-threaded OpenBLAS call bit for bit at GOMAXPROCS 1 and 2, for
// the shapes of AR-gender training and every transpose.
func TestSplitGemmSameResult(t *testing.T) {
	defer SetOpenBLASThreads(SetOpenBLASThreads(0))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer func(m int) { GemmSplitMin = m }(GemmSplitMin)
	GemmSplitMin = parallel.SplitMin
	SetOpenBLASThreads(2)
	rnd := rand.New(rand.NewPCG(5, 6))
	for _, sz := range [][3]int{{50, 700, 50}, {50, 700, 300}, {300, 700, 50}, {60, 350, 40}, {10, 1000, 300}, {300, 10, 700}, {300, 50, 700}, {700, 50, 300}} {
		m, n, k := sz[0], sz[1], sz[2]
		if m*n*k >= GemmThreadsMin || m*n*k < parallel.SplitMin {
			t.Fatalf("%v is not a split product", sz)
		}
		for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				lda, ldb := k, n
				if tA == blas.Trans {
					lda = m
				}
				if tB == blas.Trans {
					ldb = k
				}
				a, b, c := make([]float64, m*k), make([]float64, k*n), make([]float64, m*n)
				for _, s := range [][]float64{a, b, c} {
					for i := range s {
						s[i] = 2*rnd.Float64() - 1
					}
				}
				want := slices.Clone(c)
				oneThread{}.Dgemm(tA, tB, m, n, k, 0.5, a, lda, b, ldb, 0.25, want, n)
				for _, procs := range []int{1, 2} {
					runtime.GOMAXPROCS(procs)
					got := slices.Clone(c)
					Level3{}.Dgemm(tA, tB, m, n, k, 0.5, a, lda, b, ldb, 0.25, got, n)
					if !slices.Equal(got, want) {
						t.Errorf("%v %c%c GOMAXPROCS=%d: split product differs from one call", sz, tA, tB, procs)
					}
				}
			}
		}
	}
}
