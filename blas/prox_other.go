//go:build !amd64 || noasm

package blas

var hasVec = false

func proxVec(z, w, g *float64, n int, step, t, beta float64, acc *[12]float64) {
	panic("blas: no vector kernel")
}
