package blas

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
)

// MulThin sets c = a·b for an m×n matrix a and an n×k matrix b with few
// columns, by dot products of the rows of a with the columns of b:
//
//	c[i, j] = Σ_p a[i, p]·b[p, j],
//
// each summed as four partial sums s_l = Σ_{p ≡ l (mod 4)} of fused
// multiply-adds in order of p, then (s0+s2) + (s1+s3), then the last
// n mod 4 terms fused in order; the vector kernel and the scalar loop
// round alike. It reads a once, three rows at a time, where Gemm packs it,
// so for a d×d matrix out of cache and k ≈ 10 it beats Gemm (see
// bench/NOTES.md). work holds bᵀ and has at least n·k elements.
// Chunks of rows are shared between the cores; they depend only on m.
func MulThin(c, a, b blas64.General, work []float64) {
	m, n, k := a.Rows, a.Cols, b.Cols
	if b.Rows != n || c.Rows != m || c.Cols != k || len(work) < n*k {
		panic(errShape)
	}
	if m == 0 || k == 0 {
		return
	}
	if n == 0 {
		zero(c)
		return
	}
	bt := work[:n*k]
	for p := 0; p < n; p++ {
		row := b.Data[p*b.Stride : p*b.Stride+k]
		for j, v := range row {
			bt[j*n+p] = v
		}
	}
	j := thinJobs.Get()
	*j = thinJob{a: a, bt: bt, c: c}
	var nc int
	j.size, nc = chunks((m+2)/3, 4)
	parallelFor(nc, j, m*n*k)
	*j = thinJob{}
	thinJobs.Put(j)
}

type thinJob struct {
	a, c blas64.General
	bt   []float64
	size int // row triples per chunk
}

var thinJobs = make(freeList[thinJob], 8)

func (t *thinJob) Do(ch int) {
	a, c := t.a, t.c
	n, k := a.Cols, c.Cols
	lo, hi := 3*ch*t.size, min(3*(ch+1)*t.size, a.Rows)
	var out [9]float64
	for i := lo; i < hi; {
		rows, lda := 3, a.Stride
		if hi-i < 3 {
			rows, lda = 1, 0 // the last rows one at a time
		}
		for g := 0; g < k; g += 3 {
			b0 := t.bt[g*n:]
			b1 := t.bt[min(g+1, k-1)*n:]
			b2 := t.bt[min(g+2, k-1)*n:]
			dot3x3(a.Data[i*a.Stride:], lda, b0, b1, b2, n, &out)
			for r := 0; r < rows; r++ {
				dst := c.Data[(i+r)*c.Stride+g : (i+r)*c.Stride+min(g+3, k)]
				for jj := range dst {
					dst[jj] = out[3*r+jj]
				}
			}
		}
		i += rows
	}
}

// dot3x3 sets out[3r+j] to the dot product of row r of a (rows lda apart)
// with b_j, over n elements, rounded as MulThin says.
func dot3x3(a []float64, lda int, b0, b1, b2 []float64, n int, out *[9]float64) {
	n4 := n &^ 3
	if hasFMA && n4 > 0 {
		dot3x3Vec(&a[0], lda, &b0[0], &b1[0], &b2[0], n4, out)
	} else {
		dot3x3Portable(a, lda, b0, b1, b2, n4, out)
	}
	if n4 == n {
		return
	}
	bs := [3][]float64{b0, b1, b2}
	for r := 0; r < 3; r++ {
		ar := a[r*lda:]
		for j, b := range bs {
			s := out[3*r+j]
			for p := n4; p < n; p++ {
				s = math.FMA(ar[p], b[p], s)
			}
			out[3*r+j] = s
		}
	}
}

// dot3x3Portable is dot3x3 for n elements (a multiple of 4) without the
// vector kernel: four lanes of fused multiply-adds, as dot3x3Vec.
func dot3x3Portable(a []float64, lda int, b0, b1, b2 []float64, n int, out *[9]float64) {
	bs := [3][]float64{b0, b1, b2}
	for r := 0; r < 3; r++ {
		ar := a[r*lda:]
		for j, b := range bs {
			var s [4]float64
			for p := 0; p < n; p += 4 {
				s[0] = math.FMA(ar[p], b[p], s[0])
				s[1] = math.FMA(ar[p+1], b[p+1], s[1])
				s[2] = math.FMA(ar[p+2], b[p+2], s[2])
				s[3] = math.FMA(ar[p+3], b[p+3], s[3])
			}
			out[3*r+j] = (s[0] + s[2]) + (s[1] + s[3])
		}
	}
}
