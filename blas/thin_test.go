package blas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestMulThin checks MulThin against the rounding it documents, computed
// here term by term, with the vector kernel where the CPU has one (the
// portable loop: TestDot3x3), on shapes with
// row, column and length remainders and padded strides (padding
// untouched), at GOMAXPROCS 1 and 4; and against the exact product to
// 1e-13 relative.
func TestMulThin(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rnd := rand.New(rand.NewPCG(21, 22))
	for _, sh := range [][3]int{{1, 1, 1}, {4, 4, 3}, {5, 7, 1}, {9, 13, 2}, {130, 301, 10}, {1031, 258, 7}, {50, 33, 4}, {20, 21, 5}, {40, 17, 11}, {64, 0, 3}, {0, 5, 2}} {
		m, n, k := sh[0], sh[1], sh[2]
		a, b := randGeneral(rnd, m, n, pad), randGeneral(rnd, n, k, pad)
		want := make([]float64, m*k)
		for i := 0; i < m; i++ {
			for j := 0; j < k; j++ {
				var s [4]float64
				n4 := n &^ 3
				for p := 0; p < n4; p++ {
					s[p%4] = math.FMA(at(a, i, p), at(b, p, j), s[p%4])
				}
				v := (s[0] + s[2]) + (s[1] + s[3])
				for p := n4; p < n; p++ {
					v = math.FMA(at(a, i, p), at(b, p, j), v)
				}
				want[i*k+j] = v
				var exact float64 // sanity of the reference
				for p := 0; p < n; p++ {
					exact += at(a, i, p) * at(b, p, j)
				}
				if math.Abs(v-exact) > 1e-13*float64(n+1) {
					t.Fatalf("%v: reference %v, plain sum %v", sh, v, exact)
				}
			}
		}
		for _, procs := range []int{1, 4} {
			runtime.GOMAXPROCS(procs)
			c := randGeneral(rnd, m, k, pad)
			MulThin(c, a, b, make([]float64, n*k))
			got := make([]float64, m*k)
			for i := 0; i < m; i++ {
				for j := 0; j < k; j++ {
					got[i*k+j] = at(c, i, j)
				}
				for j := k; j < c.Stride; j++ {
					if v := c.Data[i*c.Stride+j]; math.Float64bits(v) != math.Float64bits(sentinel) {
						t.Fatalf("%v: padding of row %d overwritten", sh, i)
					}
				}
			}
			checkIdentical(t, fmt.Sprintf("MulThin %v procs=%d", sh, procs), got, want)
		}
	}
}

// TestDot3x3 checks dot3x3Portable, and dot3x3Vec where the CPU has AVX and
// FMA, bit for bit against four lanes of fused multiply-adds summed as
// (s0 + s2) + (s1 + s3), computed here term by term.
func TestDot3x3(t *testing.T) {
	rnd := rand.New(rand.NewPCG(23, 24))
	for _, n := range []int{4, 8, 12, 100, 304} {
		lda := n + 3
		a := randSlice(rnd, 2*lda+n)
		b := [3][]float64{randSlice(rnd, n), randSlice(rnd, n), randSlice(rnd, n)}
		var want [9]float64
		for r := 0; r < 3; r++ {
			for j := range b {
				var s [4]float64
				for p := 0; p < n; p++ {
					s[p%4] = math.FMA(a[r*lda+p], b[j][p], s[p%4])
				}
				want[3*r+j] = (s[0] + s[2]) + (s[1] + s[3])
			}
		}
		var got [9]float64
		dot3x3Portable(a, lda, b[0], b[1], b[2], n, &got)
		checkIdentical(t, fmt.Sprintf("dot3x3Portable n=%d", n), got[:], want[:])
		if hasFMA {
			dot3x3Vec(&a[0], lda, &b[0][0], &b[1][0], &b[2][0], n, &got)
			checkIdentical(t, fmt.Sprintf("dot3x3Vec n=%d", n), got[:], want[:])
		}
	}
}

func TestMulThinShape(t *testing.T) {
	defer func() {
		if r := recover(); r != errShape {
			t.Fatalf("short workspace: recovered %v, want errShape", r)
		}
	}()
	rnd := rand.New(rand.NewPCG(1, 2))
	a, b, c := randGeneral(rnd, 5, 6, 0), randGeneral(rnd, 6, 2, 0), randGeneral(rnd, 5, 2, 0)
	MulThin(c, a, b, make([]float64, 11))
}
