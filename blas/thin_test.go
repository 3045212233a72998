package blas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestMulThin checks MulThin against the rounding it documents, computed
// here term by term, with the vector kernel and without, on shapes with
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
		for _, vec := range []bool{true, false} {
			for _, procs := range []int{1, 4} {
				func() {
					defer func(v bool) { hasFMA = v }(hasFMA)
					hasFMA = hasFMA && vec
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
					checkIdentical(t, fmt.Sprintf("MulThin %v vector=%v procs=%d", sh, hasFMA, procs), got, want)
				}()
			}
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
