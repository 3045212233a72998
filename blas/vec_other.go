//go:build !amd64 || noasm

package blas

const hasVec, hasFMA = false, false

func proxVec(z, w, g *float64, n int, step, t, beta float64, acc *[12]float64) {
	panic("blas: no vector kernel")
}

func axpy4Vec(acc *float64, n int, v *float64, a0, a1, a2, a3 *float64) {
	panic("blas: no vector kernel")
}

func axpy1Vec(acc *float64, n int, v float64, a *float64) {
	panic("blas: no vector kernel")
}

func countVec(cnt *int, row *float64, n int) int {
	panic("blas: no vector kernel")
}

func dot3x3Vec(a *float64, lda int, b0, b1, b2 *float64, n int, out *[9]float64) {
	panic("blas: no vector kernel")
}

func proxShiftVec(z, w, gr, br *float64, n int, o, step, t, beta float64, acc *[12]float64, ws *[4]float64) {
	panic("blas: no vector kernel")
}
