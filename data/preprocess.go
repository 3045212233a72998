package data

import (
	"math"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"
)

// DefaultSparseDensity is the density below which loaded data is stored
// as a *sparse.CSC rather than a *mat.Dense.
const DefaultSparseDensity = 0.1

// Density returns the fraction of non-zero entries of m.
func Density(m mat.Matrix) float64 {
	r, c := m.Dims()
	if r == 0 || c == 0 {
		return 0
	}
	return float64(nnz(m)) / (float64(r) * float64(c))
}

func nnz(m mat.Matrix) int {
	switch m := m.(type) {
	case *sparse.CSC:
		n := 0
		m.DoNonZero(func(_, _ int, v float64) {
			if v != 0 {
				n++
			}
		})
		return n
	case *mat.Dense:
		n := 0
		raw := m.RawMatrix()
		for i := 0; i < raw.Rows; i++ {
			for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
				if v != 0 {
					n++
				}
			}
		}
		return n
	}
	r, c := m.Dims()
	n := 0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if m.At(i, j) != 0 {
				n++
			}
		}
	}
	return n
}

// Store returns m as a *sparse.CSC if its density is below maxDensity and
// as a *mat.Dense otherwise. A matrix already of the chosen type is
// returned as it is; otherwise a copy is made.
func Store(m mat.Matrix, maxDensity float64) mat.Matrix {
	if Density(m) < maxDensity {
		if s, ok := m.(*sparse.CSC); ok {
			return s
		}
		return toCSC(m)
	}
	switch m := m.(type) {
	case *mat.Dense:
		return m
	case *sparse.CSC:
		return m.ToDense()
	}
	return mat.DenseCopyOf(m)
}

// toCSC copies the non-zero entries of m into a new CSC matrix.
func toCSC(m mat.Matrix) *sparse.CSC {
	r, c := m.Dims()
	indptr := make([]int, c+1)
	var ind []int
	var val []float64
	for j := 0; j < c; j++ {
		for i := 0; i < r; i++ {
			if v := m.At(i, j); v != 0 {
				ind = append(ind, i)
				val = append(val, v)
			}
		}
		indptr[j+1] = len(ind)
	}
	return sparse.NewCSC(r, c, indptr, ind, val)
}

// transposeCSC returns the transpose of a as a new CSC matrix with sorted
// row indices.
func transposeCSC(a *sparse.CSC) *sparse.CSC {
	r, c := a.Dims()
	raw := a.RawMatrix()
	n := len(raw.Data)
	// Column i of the transpose holds row i of a.
	indptr := make([]int, r+1)
	for _, i := range raw.Ind[:n] {
		indptr[i+1]++
	}
	for i := 0; i < r; i++ {
		indptr[i+1] += indptr[i]
	}
	next := append([]int(nil), indptr[:r]...)
	ind := make([]int, n)
	val := make([]float64, n)
	for j := 0; j < c; j++ {
		for k := raw.Indptr[j]; k < raw.Indptr[j+1]; k++ {
			i := raw.Ind[k]
			ind[next[i]] = j
			val[next[i]] = raw.Data[k]
			next[i]++
		}
	}
	return sparse.NewCSC(c, r, indptr, ind, val)
}

// NormalizeColumns returns a copy of m in which every column has unit ℓ2
// norm, the convention of the paper. Columns of zero norm are left zero.
// A *sparse.CSC gives a *sparse.CSC; any other matrix gives a *mat.Dense.
func NormalizeColumns(m mat.Matrix) mat.Matrix {
	if s, ok := m.(*sparse.CSC); ok {
		raw := s.RawMatrix()
		r, c := s.Dims()
		cp := sparse.NewCSC(r, c,
			append([]int(nil), raw.Indptr...),
			append([]int(nil), raw.Ind...),
			append([]float64(nil), raw.Data...))
		NormalizeCSC(cp)
		return cp
	}
	d := mat.DenseCopyOf(m)
	NormalizeDense(d)
	return d
}

// NormalizeDense scales the columns of m in place to unit ℓ2 norm.
// Columns of zero norm are left zero.
func NormalizeDense(m *mat.Dense) {
	raw := m.RawMatrix()
	norms := make([]float64, raw.Cols)
	for i := 0; i < raw.Rows; i++ {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			norms[j] += v * v
		}
	}
	for j, s := range norms {
		norms[j] = invNorm(s)
		if !plain(s) {
			rescale(raw.Data[j:], raw.Rows, raw.Stride)
			norms[j] = 1
		}
	}
	for i := 0; i < raw.Rows; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		for j := range row {
			row[j] *= norms[j]
		}
	}
}

// NormalizeCSC scales the columns of m in place to unit ℓ2 norm.
// Columns of zero norm are left zero.
func NormalizeCSC(m *sparse.CSC) {
	raw := m.RawMatrix()
	for j := 0; j+1 < len(raw.Indptr); j++ {
		col := raw.Data[raw.Indptr[j]:raw.Indptr[j+1]]
		var s float64
		for _, v := range col {
			s += v * v
		}
		if !plain(s) {
			rescale(col, len(col), 1)
			continue
		}
		f := invNorm(s)
		for k := range col {
			col[k] *= f
		}
	}
}

// plain reports whether a column whose sum of squares is s can be
// scaled by invNorm(s): s neither overflowed nor lost precision to
// underflow (nor is zero, which may hide subnormal entries).
func plain(s float64) bool { return s >= 0x1p-900 && s <= 0x1p900 }

// rescale scales x[0], x[inc], …, x[(n-1)inc] in place to unit ℓ2 norm,
// dividing by the largest magnitude first so that the sum of squares
// neither overflows nor underflows. A zero vector is left zero.
func rescale(x []float64, n, inc int) {
	var m float64
	for k := range n {
		m = max(m, math.Abs(x[k*inc]))
	}
	if m == 0 {
		return
	}
	var s float64
	for k := range n {
		v := x[k*inc] / m
		s += v * v
	}
	f := math.Sqrt(s)
	for k := range n {
		x[k*inc] = x[k*inc] / m / f
	}
}

// invNorm returns the factor that scales a column whose squared norm is s
// to unit norm, or 1 for a zero column.
func invNorm(s float64) float64 {
	if s == 0 {
		return 1
	}
	return 1 / math.Sqrt(s)
}

// normalizeInPlace normalises the columns of a matrix made by this
// package (*mat.Dense or *sparse.CSC).
func normalizeInPlace(m mat.Matrix) mat.Matrix {
	switch m := m.(type) {
	case *mat.Dense:
		NormalizeDense(m)
		return m
	case *sparse.CSC:
		NormalizeCSC(m)
		return m
	}
	return NormalizeColumns(m)
}
