//go:build openblas

package lrsdl

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
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
