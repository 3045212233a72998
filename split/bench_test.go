package split

import (
	"math/rand/v2"
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkSubset times Subset copying the training columns of a fold;
// d=500, N=2000, half the columns taken.
func BenchmarkSubset(b *testing.B) {
	const d, n = 500, 2000
	rng := rand.New(rand.NewPCG(1, 1))
	D := mat.NewDense(d, n, nil)
	var ptr, ind []int
	var val []float64
	ptr = append(ptr, 0)
	for j := range n {
		for i := range d {
			if rng.Float64() < 0.05 {
				D.Set(i, j, 1)
				ind, val = append(ind, i), append(val, 1)
			}
		}
		ptr = append(ptr, len(ind))
	}
	idx := make([]int, n/2)
	for i := range idx {
		idx[i] = 2 * i
	}
	labels := make([]int, n)
	for _, c := range []struct {
		name string
		Y    mat.Matrix
	}{{"Dense500x2000", D}, {"CSC500x2000density0.05", sparse.NewCSC(d, n, ptr, ind, val)}} {
		b.Run(c.name, func(b *testing.B) {
			s := Set{Y: c.Y, Labels: labels}
			for b.Loop() {
				Subset(s, idx)
			}
		})
	}
}
