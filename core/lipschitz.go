package core

import (
	"math"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// MaxEigSym estimates the largest eigenvalue of the symmetric positive
// semidefinite matrix a by power iteration started from v (len n; a zero or
// nil v starts from the all-ones vector). v is left holding the estimated
// eigenvector, so a later call on a nearby matrix starts warm. It stops when
// the Rayleigh quotient changes by less than tol relative, or after maxIter
// iterations, and returns the quotient (a lower bound of λmax).
func MaxEigSym(a *mat.Dense, v []float64, maxIter int, tol float64) float64 {
	n, _ := a.Dims()
	if len(v) != n {
		panic("core: MaxEigSym vector length mismatch")
	}
	var nv float64
	for _, x := range v {
		nv += x * x
	}
	if nv == 0 {
		for i := range v {
			v[i] = 1
		}
		nv = float64(n)
	}
	s := 1 / math.Sqrt(nv)
	for i := range v {
		v[i] *= s
	}
	w := make([]float64, n)
	ar := a.RawMatrix()
	vv := blas64.Vector{N: n, Data: v, Inc: 1}
	wv := blas64.Vector{N: n, Data: w, Inc: 1}
	var rho float64
	for it := 0; it < maxIter; it++ {
		blas64.Gemv(gblas.NoTrans, 1, ar, vv, 0, wv)
		nr := blas64.Dot(vv, wv)
		nw := blas64.Nrm2(wv)
		if nw == 0 {
			return 0
		}
		for i := range v {
			v[i] = w[i] / nw
		}
		if it > 0 && math.Abs(nr-rho) <= tol*math.Abs(nr) {
			rho = nr
			break
		}
		rho = nr
	}
	return rho
}
