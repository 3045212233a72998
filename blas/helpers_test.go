package blas

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/blas/blas64"
)

const pad = 3 // extra stride of non-contiguous matrices

var sentinel = math.Float64frombits(0x7ff8dead0000beef) // NaN marking padding

// randGeneral returns an r×c matrix with entries in [-1, 1) and stride
// c+extra; padding holds the sentinel.
func randGeneral(rnd *rand.Rand, r, c, extra int) blas64.General {
	s := c + extra
	a := blas64.General{Rows: r, Cols: c, Stride: max(s, 1), Data: make([]float64, r*max(s, 1))}
	for i := range a.Data {
		if i%a.Stride < c {
			a.Data[i] = 2*rnd.Float64() - 1
		} else {
			a.Data[i] = sentinel
		}
	}
	return a
}

// sparsify zeroes each element of a with probability 1−density.
func sparsify(rnd *rand.Rand, a blas64.General, density float64) {
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < a.Cols; j++ {
			if rnd.Float64() >= density {
				a.Data[i*a.Stride+j] = 0
			}
		}
	}
}

func at(a blas64.General, i, j int) float64 { return a.Data[i*a.Stride+j] }

func cloneGeneral(a blas64.General) blas64.General {
	a.Data = slices.Clone(a.Data)
	return a
}

// toCSC and toCSR return the non-zeros of a in compressed form with sorted
// indices.
func toCSC(a blas64.General) *sparse.CSC {
	ptr := []int{0}
	var ind []int
	var val []float64
	for j := 0; j < a.Cols; j++ {
		for i := 0; i < a.Rows; i++ {
			if v := at(a, i, j); v != 0 {
				ind = append(ind, i)
				val = append(val, v)
			}
		}
		ptr = append(ptr, len(val))
	}
	return sparse.NewCSC(a.Rows, a.Cols, ptr, ind, val)
}

func toCSR(a blas64.General) *sparse.CSR {
	ptr := []int{0}
	var ind []int
	var val []float64
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < a.Cols; j++ {
			if v := at(a, i, j); v != 0 {
				ind = append(ind, j)
				val = append(val, v)
			}
		}
		ptr = append(ptr, len(val))
	}
	return sparse.NewCSR(a.Rows, a.Cols, ptr, ind, val)
}

// naiveMul returns op(A)·B by the textbook triple loop, summing over k in
// increasing order.
func naiveMul(a, b blas64.General, transA bool) blas64.General {
	m, k := a.Rows, a.Cols
	if transA {
		m, k = k, m
	}
	c := blas64.General{Rows: m, Cols: b.Cols, Stride: max(b.Cols, 1), Data: make([]float64, m*max(b.Cols, 1))}
	for i := 0; i < m; i++ {
		for j := 0; j < b.Cols; j++ {
			var s float64
			for l := 0; l < k; l++ {
				av := at(a, i, l)
				if transA {
					av = at(a, l, i)
				}
				s += av * at(b, l, j)
			}
			c.Data[i*c.Stride+j] = s
		}
	}
	return c
}

// checkClose fails unless got and want agree within tol·max(1, max|want|)
// and the padding of got still holds the sentinel.
func checkClose(t *testing.T, what string, got, want blas64.General, tol float64) {
	t.Helper()
	if got.Rows != want.Rows || got.Cols != want.Cols {
		t.Fatalf("%s: got %d×%d, want %d×%d", what, got.Rows, got.Cols, want.Rows, want.Cols)
	}
	scale := 1.0
	for i := 0; i < want.Rows; i++ {
		for j := 0; j < want.Cols; j++ {
			scale = max(scale, math.Abs(at(want, i, j)))
		}
	}
	for i := 0; i < got.Rows; i++ {
		for j := 0; j < got.Stride && i*got.Stride+j < len(got.Data); j++ {
			g := at(got, i, j)
			if j >= got.Cols {
				if math.Float64bits(g) != math.Float64bits(sentinel) {
					t.Fatalf("%s: padding (%d,%d) overwritten with %v", what, i, j, g)
				}
				continue
			}
			if w := at(want, i, j); !(math.Abs(g-w) <= tol*scale) {
				t.Fatalf("%s: element (%d,%d) = %v, want %v", what, i, j, g, w)
			}
		}
	}
}

func checkIdentical(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: element %d = %v, want bit-identical %v", what, i, got[i], want[i])
		}
	}
}

// randPartition returns random partitions of n into c blocks, some empty.
func randPartition(rnd *rand.Rand, n, c int) []int {
	p := make([]int, c+1)
	for i := 1; i < c; i++ {
		p[i] = rnd.IntN(n + 1)
	}
	p[c] = n
	sort.Ints(p)
	return p
}
