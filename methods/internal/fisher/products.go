package fisher

import (
	"github.com/lrsdl/lrsdl/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// transposeOnce returns *t, first setting it to aᵀ (in *buf) when it is
// unset; a symmetric a is its own transpose.
func transposeOnce(t *blas64.General, buf *[]float64, a blas64.General) blas64.General {
	if t.Data != nil {
		return *t
	}
	if a.Rows == a.Cols && symmetric(a) {
		*t = a
		return a
	}
	n := a.Rows * a.Cols
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	var src mat.Dense
	src.SetRawMatrix(a)
	dst := mat.NewDense(a.Cols, a.Rows, (*buf)[:n])
	dst.Copy(src.T())
	*t = dst.RawMatrix()
	return *t
}

// symmetric reports whether the square matrix a equals aᵀ bit for bit.
func symmetric(a blas64.General) bool {
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < i; j++ {
			if a.Data[i*a.Stride+j] != a.Data[j*a.Stride+i] {
				return false
			}
		}
	}
	return true
}

// addMul adds op(a)·b to dst, op(a) = aᵀ if trans, by axpys over the
// non-zeros of a (blas.AddCombination, no cgo): per-class blocks below
// useBlockGemm's size do not pay for a BLAS call.
func addMul(dst, a, b blas64.General, trans bool) {
	if dst.Cols < addMulLoop {
		addMulSmall(dst, a, b, trans)
		return
	}
	for i := 0; i < dst.Rows; i++ {
		dr := dst.Data[i*dst.Stride : i*dst.Stride+dst.Cols]
		if trans {
			blas.AddCombination(dr, a.Rows, a.Data[i:], a.Stride, b.Data, b.Stride)
		} else {
			blas.AddCombination(dr, a.Cols, a.Data[i*a.Stride:], 1, b.Data, b.Stride)
		}
	}
}

// addMulLoop is the row length below which addMul runs plain loops: at a
// class's 7 samples the calls of blas.AddCombination cost more than the
// multiply-adds.
const addMulLoop = 16

// addMulSmall is addMul by plain loops, adding the same terms in the same
// order (so with the same rounding).
func addMulSmall(dst, a, b blas64.General, trans bool) {
	n := dst.Cols
	for i := 0; i < dst.Rows; i++ {
		dr := dst.Data[i*dst.Stride : i*dst.Stride+n]
		for p := 0; p < b.Rows; p++ {
			v := a.Data[i*a.Stride+p]
			if trans {
				v = a.Data[p*a.Stride+i]
			}
			if v == 0 {
				continue
			}
			for j, x := range b.Data[p*b.Stride : p*b.Stride+n] {
				dr[j] += float64(v * x)
			}
		}
	}
}

// copyInto copies a into dst and returns dst, or returns a copy of a when
// dst is nil.
func copyInto(dst, a *mat.Dense) *mat.Dense {
	if dst == nil {
		return mat.DenseCopyOf(a)
	}
	dst.Copy(a)
	return dst
}

func sub(g blas64.General, r0, r1, c0, c1 int) blas64.General {
	return blas64.General{Rows: r1 - r0, Cols: c1 - c0, Stride: g.Stride, Data: g.Data[r0*g.Stride+c0:]}
}
