package lowrank

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestGemv checks that gemv's split (gemvSplit), splitting every product, gives
// blas64.Gemv's result to the last bit, for both transposes, several
// shapes (row and column counts not multiples of 8, a stride above the
// column count) and α, β.
func TestGemv(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	rng := rand.New(rand.NewPCG(4, 4))
	for _, sz := range [][2]int{{1, 1}, {16, 16}, {17, 5}, {5, 17}, {37, 61}, {100, 100}, {203, 99}, {64, 1010}} {
		m, n := sz[0], sz[1]
		a := blas64.General{Rows: m, Cols: n, Stride: n + 3, Data: make([]float64, m*(n+3))}
		for i := range a.Data {
			a.Data[i] = rng.NormFloat64()
		}
		for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			lx, ly := n, m
			if tr == blas.Trans {
				lx, ly = m, n
			}
			for _, ab := range [][2]float64{{1, 0}, {-1, 1}, {0.3, -2}} {
				x := make([]float64, lx)
				y0 := make([]float64, ly)
				for i := range x {
					x[i] = rng.NormFloat64()
				}
				for i := range y0 {
					y0[i] = rng.NormFloat64()
				}
				want := append([]float64(nil), y0...)
				got := append([]float64(nil), y0...)
				xv := blas64.Vector{N: lx, Inc: 1, Data: x}
				blas64.Gemv(tr, ab[0], a, xv, ab[1], blas64.Vector{N: ly, Inc: 1, Data: want})
				gemvSplit(0, tr, ab[0], a, xv, ab[1], blas64.Vector{N: ly, Inc: 1, Data: got})
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("%d×%d %c α=%v β=%v: y[%d] = %v, want %v", m, n, tr, ab[0], ab[1], i, got[i], want[i])
						break
					}
				}
			}
		}
	}
}
