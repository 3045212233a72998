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
// every call on one thread until the last ends, that SetOpenBLASThreads
// inside sets the count used after it, and that OpenBLAS is back on one
// thread after a threaded call.
func TestOneBLASThread(t *testing.T) {
	defer SetOpenBLASThreads(SetOpenBLASThreads(0))
	big := float64(GemmThreadsMin)
	SetOpenBLASThreads(2)
	if n := callThreads(big); n != 2 {
		t.Errorf("large call on %d threads outside sections, want 2", n)
	}
	if n := callThreads(big - 1); n != 1 {
		t.Errorf("call below GemmThreadsMin on %d threads, want 1", n)
	}
	endA := OneBLASThread()
	endB := OneBLASThread()
	endA()
	endA() // a second call of the same end does nothing
	if n := callThreads(big); n != 1 {
		t.Errorf("large call on %d threads with one section open, want 1", n)
	}
	if prev := SetOpenBLASThreads(3); prev != 2 {
		t.Errorf("SetOpenBLASThreads returned %d, want 2", prev)
	}
	if n := callThreads(big); n != 1 {
		t.Errorf("large call on %d threads after SetOpenBLASThreads in a section, want 1", n)
	}
	endB()
	if n := callThreads(big); n != 3 {
		t.Errorf("large call on %d threads after the last section, want 3", n)
	}
	a := make([]float64, 4)
	Level3{}.Dgemm(blas.NoTrans, blas.NoTrans, 2, 2, 1, 1, a, 1, a, 2, 0, a, 2)
	if th := threads(); th != 1 {
		t.Errorf("OpenBLAS on %d threads between calls, want 1", th)
	}
}

// TestLevel3Threaded checks which calls of every level-3 routine raise
// OpenBLAS's thread count: those of at least GemmThreadsMin multiply-adds,
// counted as the routine's doc says, and no smaller one (OpenBLAS threads
// Dtrsm of any size, so a small Dtrsm left on two threads would wake the
// second one), and that OpenBLAS is on one thread after each.
func TestLevel3Threaded(t *testing.T) {
	defer SetOpenBLASThreads(SetOpenBLASThreads(2))
	defer func(v int) { GemmThreadsMin = v }(GemmThreadsMin)
	const m, n = 40, 30
	buf := func() []float64 {
		s := make([]float64, 64*64)
		for i := range s {
			s[i] = float64(i%7) + 1
		}
		return s
	}
	l := Level3{}
	calls := []struct {
		name string
		work int
		call func()
	}{
		{"Dgemm", m * n * 20, func() { l.Dgemm(blas.NoTrans, blas.NoTrans, m, n, 20, 1, buf(), 20, buf(), n, 0, buf(), n) }},
		{"Dsymm", m * m * n, func() { l.Dsymm(blas.Left, blas.Upper, m, n, 1, buf(), m, buf(), n, 0, buf(), n) }},
		{"Dsyrk", n * n * m / 2, func() { l.Dsyrk(blas.Upper, blas.NoTrans, n, m, 1, buf(), m, 0, buf(), n) }},
		{"Dsyr2k", n * n * m, func() { l.Dsyr2k(blas.Upper, blas.NoTrans, n, m, 1, buf(), m, buf(), m, 0, buf(), n) }},
		{"Dtrmm", m * n * n / 2, func() { l.Dtrmm(blas.Right, blas.Upper, blas.NoTrans, blas.NonUnit, m, n, 1, buf(), n, buf(), n) }},
		{"Dtrsm", m * m * n / 2, func() { l.Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, m, n, 1, buf(), m, buf(), n) }},
	}
	for _, c := range calls {
		for _, min := range []int{c.work, c.work + 1} {
			GemmThreadsMin = min
			before := policy.threaded.Load()
			c.call()
			got := policy.threaded.Load() - before
			want := int64(0)
			if min <= c.work {
				want = 1
			}
			if got != want {
				t.Errorf("%s of %d multiply-adds, GemmThreadsMin %d: %d threaded calls, want %d", c.name, c.work, min, got, want)
			}
			if th := threads(); th != 1 {
				t.Errorf("%s: OpenBLAS on %d threads after the call, want 1", c.name, th)
			}
		}
	}
}

// TestDgemmSerial checks that OpenBLAS.DgemmSerial of a product above
// GemmThreadsMin makes no threaded call and gives the bits of Level3.Dgemm
// on one thread.
func TestDgemmSerial(t *testing.T) {
	defer SetOpenBLASThreads(SetOpenBLASThreads(2))
	defer func(v int) { GemmThreadsMin = v }(GemmThreadsMin)
	rnd := rand.New(rand.NewPCG(5, 6))
	const m, n, k = 90, 70, 50
	a, b := make([]float64, m*k), make([]float64, k*n)
	for _, s := range [][]float64{a, b} {
		for i := range s {
			s[i] = 2*rnd.Float64() - 1
		}
	}
	GemmThreadsMin = m * n * k
	want, got := make([]float64, m*n), make([]float64, m*n)
	SetOpenBLASThreads(1)
	Level3{}.Dgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a, k, b, k, 0, want, n)
	SetOpenBLASThreads(2)
	before := policy.threaded.Load()
	OpenBLAS{}.DgemmSerial(blas.NoTrans, blas.Trans, m, n, k, 1, a, k, b, k, 0, got, n)
	if c := policy.threaded.Load() - before; c != 0 {
		t.Errorf("DgemmSerial made %d threaded calls", c)
	}
	if th := threads(); th != 1 {
		t.Errorf("OpenBLAS on %d threads after DgemmSerial, want 1", th)
	}
	if !slices.Equal(got, want) {
		t.Error("DgemmSerial differs from Dgemm on one thread")
	}
	Level3{}.Dgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a, k, b, k, 0, got, n)
	if c := policy.threaded.Load() - before; c != 1 {
		t.Errorf("Dgemm of GemmThreadsMin multiply-adds made %d threaded calls, want 1", c)
	}
}
