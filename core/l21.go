package core

import (
	"gonum.org/v1/gonum/mat"
)

// L21 returns ‖A‖_{2,1} = Σ_j ‖a_j‖₂, the sum of the Euclidean norms of the
// columns of a.
func L21(a *mat.Dense) float64 {
	_, c := a.Dims()
	var s float64
	for j := 0; j < c; j++ {
		s += mat.Norm(a.ColView(j), 2)
	}
	return s
}

// L21Prox sets dst to the proximal operator of τ‖·‖_{2,1} at a,
//
//	argmin_E τ‖E‖_{2,1} + ½‖E − A‖²_F,  e_j = max(0, 1 − τ/‖a_j‖₂)·a_j,
//
// which shrinks every column towards zero by τ in norm. dst may be a; an
// empty dst is resized.
func L21Prox(dst, a *mat.Dense, tau float64) {
	r, c := a.Dims()
	if dst.IsEmpty() {
		dst.ReuseAs(r, c)
	}
	if dr, dc := dst.Dims(); dr != r || dc != c {
		panic(mat.ErrShape)
	}
	for j := 0; j < c; j++ {
		n := mat.Norm(a.ColView(j), 2)
		s := 0.0
		if n > tau {
			s = 1 - tau/n
		}
		for i := 0; i < r; i++ {
			dst.Set(i, j, s*a.At(i, j))
		}
	}
}
