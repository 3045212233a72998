package core

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// L1 returns ‖A‖₁ = Σᵢⱼ |aᵢⱼ|.
func L1(a *mat.Dense) float64 {
	ar := a.RawMatrix()
	var s float64
	for i := 0; i < ar.Rows; i++ {
		for _, x := range ar.Data[i*ar.Stride : i*ar.Stride+ar.Cols] {
			s += math.Abs(x)
		}
	}
	return s
}

// Fisher returns the Fisher discrimination term of FDDL,
//
//	g(X) = Σ_c (‖X_c − M_c‖²_F − ‖M_c − M‖²_F) + ‖X‖²_F,
//
// where the columns of X (K×N) are grouped into classes by part, M_c holds
// the mean column of X_c in each of its n_c columns, and M the mean column
// of X (n_c columns in ‖M_c − M‖²_F).
func Fisher(X *mat.Dense, part Partition) float64 {
	xr := checkFisher(X, part)
	var g float64
	for i := 0; i < xr.Rows; i++ {
		row := xr.Data[i*xr.Stride : i*xr.Stride+xr.Cols]
		m := mean(row)
		for c := 0; c < part.Blocks(); c++ {
			xc := row[part[c]:part[c+1]]
			mc := mean(xc)
			for _, x := range xc {
				g += (x-mc)*(x-mc) + x*x
			}
			g -= float64(len(xc)) * (mc - m) * (mc - m)
		}
	}
	return g
}

// FisherGrad sets dst to half the gradient of the Fisher term,
//
//	½∇g(X) = 2X + M − 2M̂,  M̂ = [M₁ … M_C],
//
// (paper, Lemma fddl_updateX). dst may be X; an empty dst is resized.
func FisherGrad(dst, X *mat.Dense, part Partition) {
	xr := checkFisher(X, part)
	if dst.IsEmpty() {
		dst.ReuseAs(xr.Rows, xr.Cols)
	}
	if r, c := dst.Dims(); r != xr.Rows || c != xr.Cols {
		panic(mat.ErrShape)
	}
	dr := dst.RawMatrix()
	for i := 0; i < xr.Rows; i++ {
		row := xr.Data[i*xr.Stride : i*xr.Stride+xr.Cols]
		out := dr.Data[i*dr.Stride : i*dr.Stride+dr.Cols]
		m := mean(row)
		for c := 0; c < part.Blocks(); c++ {
			lo, hi := part[c], part[c+1]
			mc := mean(row[lo:hi])
			for j := lo; j < hi; j++ {
				out[j] = 2*row[j] + m - 2*mc
			}
		}
	}
}

func checkFisher(X *mat.Dense, part Partition) blas64.General {
	_, n := X.Dims()
	if !part.valid() || part.Len() != n {
		panic("core: Fisher partition does not match the columns of X")
	}
	return X.RawMatrix()
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
