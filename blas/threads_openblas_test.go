//go:build openblas

package blas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// level3Call is one call of a level-3 routine on fresh operands: it
// returns the output and gonum's result for the same call.
type level3Call struct {
	name string
	work int // multiply-adds, as the routine's doc counts them
	run  func(impl gblas.Float64Level3) []float64
}

// level3Calls returns calls of every routine in each of its forms (side,
// triangle, transposes) at sizes whose free sides split into several
// chunks.
func level3Calls() []level3Call {
	const m, n, k = 150, 110, 70
	fill := func(seed uint64, size int) []float64 {
		r := rand.New(rand.NewPCG(seed, 9))
		s := make([]float64, size)
		for i := range s {
			s[i] = 2*r.Float64() - 1
		}
		return s
	}
	// tri is an r×r matrix with a unit diagonal and small off-diagonal
	// elements, well conditioned for Dtrsm with either Diag.
	tri := func(r int) []float64 {
		s := fill(1, r*r)
		for i := range s {
			s[i] /= float64(r)
		}
		for i := 0; i < r; i++ {
			s[i*r+i] = 1
		}
		return s
	}
	var calls []level3Call
	tr := []gblas.Transpose{gblas.NoTrans, gblas.Trans}
	for _, tA := range tr {
		for _, tB := range tr {
			for _, sz := range [][2]int{{m, n}, {n, m}} {
				mm, nn := sz[0], sz[1]
				la, lb := k, nn // op(A) is mm×k, op(B) k×nn
				if tA == gblas.Trans {
					la = mm
				}
				if tB == gblas.Trans {
					lb = k
				}
				calls = append(calls, level3Call{fmt.Sprintf("Dgemm %c%c %dx%d", tA, tB, mm, nn), mm * nn * k, func(impl gblas.Float64Level3) []float64 {
					c := fill(3, mm*nn)
					impl.Dgemm(tA, tB, mm, nn, k, 0.7, fill(4, mm*k), la, fill(5, k*nn), lb, 0.3, c, nn)
					return c
				}})
			}
		}
	}
	for _, s := range []gblas.Side{gblas.Left, gblas.Right} {
		for _, ul := range []gblas.Uplo{gblas.Upper, gblas.Lower} {
			r := m
			if s == gblas.Right {
				r = n
			}
			calls = append(calls, level3Call{fmt.Sprintf("Dsymm %c%c", s, ul), m * n * r, func(impl gblas.Float64Level3) []float64 {
				c := fill(3, m*n)
				impl.Dsymm(s, ul, m, n, 0.7, fill(4, r*r), r, fill(5, m*n), n, 0.3, c, n)
				return c
			}})
			for _, tA := range tr {
				for _, d := range []gblas.Diag{gblas.NonUnit, gblas.Unit} {
					calls = append(calls, level3Call{fmt.Sprintf("Dtrmm %c%c%c%c", s, ul, tA, d), m * n * r / 2, func(impl gblas.Float64Level3) []float64 {
						b := fill(5, m*n)
						impl.Dtrmm(s, ul, tA, d, m, n, 0.7, tri(r), r, b, n)
						return b
					}})
					calls = append(calls, level3Call{fmt.Sprintf("Dtrsm %c%c%c%c", s, ul, tA, d), m * n * r / 2, func(impl gblas.Float64Level3) []float64 {
						b := fill(5, m*n)
						impl.Dtrsm(s, ul, tA, d, m, n, 0.7, tri(r), r, b, n)
						return b
					}})
				}
			}
		}
	}
	for _, ul := range []gblas.Uplo{gblas.Upper, gblas.Lower} {
		for _, t := range tr {
			ld := k
			if t == gblas.Trans {
				ld = m
			}
			calls = append(calls, level3Call{fmt.Sprintf("Dsyrk %c%c", ul, t), m * m * k / 2, func(impl gblas.Float64Level3) []float64 {
				c := fill(3, m*m)
				impl.Dsyrk(ul, t, m, k, 0.7, fill(4, m*k), ld, 0.3, c, m)
				return c
			}})
			calls = append(calls, level3Call{fmt.Sprintf("Dsyr2k %c%c", ul, t), m * m * k, func(impl gblas.Float64Level3) []float64 {
				c := fill(3, m*m)
				impl.Dsyr2k(ul, t, m, k, 0.7, fill(4, m*k), ld, fill(5, m*k), ld, 0.3, c, m)
				return c
			}})
		}
	}
	return calls
}

// TestLevel3Split checks every level-3 routine split between the cores:
// that a call of at least Level3's threshold of multiply-adds is split and
// a smaller one is not, that the split call computes what gonum's does, and
// that it gives the same bits with SetOpenBLASThreads(1) and 2, with
// GOMAXPROCS 1 and 2. OpenBLAS stays on one thread throughout.
func TestLevel3Split(t *testing.T) {
	defer SetOpenBLASThreads(SetOpenBLASThreads(0))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range level3Calls() {
		want := c.run(gonum.Implementation{})
		before := policy.splits.Load()
		whole := c.run(Level3{from: c.work + 1})
		if n := policy.splits.Load() - before; n != 0 {
			t.Errorf("%s of %d multiply-adds, threshold %d: split", c.name, c.work, c.work+1)
		}
		l := Level3{from: c.work}
		var first []float64
		for _, v := range []struct{ threads, procs int }{{2, 2}, {1, 2}, {2, 1}} {
			SetOpenBLASThreads(v.threads)
			runtime.GOMAXPROCS(v.procs)
			before := policy.splits.Load()
			got := c.run(l)
			if n := policy.splits.Load() - before; n != 1 {
				t.Errorf("%s of %d multiply-adds, threshold %d: %d split calls, want 1", c.name, c.work, l.from, n)
			}
			if th := threads(); th != 1 {
				t.Errorf("%s: OpenBLAS on %d threads, want 1", c.name, th)
			}
			if first == nil {
				first = got
				for i := range got {
					if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) || math.Abs(whole[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
						t.Errorf("%s: element %d is %v split, %v whole, gonum %v", c.name, i, got[i], whole[i], want[i])
						break
					}
				}
			} else if !slices.Equal(got, first) {
				t.Errorf("%s: %d threads, GOMAXPROCS %d: result differs", c.name, v.threads, v.procs)
			}
		}
	}
}

// TestSetOpenBLASThreads checks that SetOpenBLASThreads returns the
// previous setting and that n < 1 leaves it.
func TestSetOpenBLASThreads(t *testing.T) {
	defer SetOpenBLASThreads(SetOpenBLASThreads(0))
	SetOpenBLASThreads(2)
	if prev := SetOpenBLASThreads(3); prev != 2 {
		t.Errorf("SetOpenBLASThreads(3) returned %d, want 2", prev)
	}
	if prev := SetOpenBLASThreads(0); prev != 3 {
		t.Errorf("SetOpenBLASThreads(0) returned %d, want 3", prev)
	}
	if prev := SetOpenBLASThreads(1); prev != 3 {
		t.Errorf("SetOpenBLASThreads(1) after 0 returned %d, want 3", prev)
	}
}
