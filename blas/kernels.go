package blas

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	_ "github.com/lrsdl/lrsdl" // installs the build's BLAS backend
)

const (
	errShape = "blas: dimension mismatch"
	errPart  = "blas: bad partition"
)

// ProxStep performs one fused FISTA step on row-major rows×cols buffers:
//
//	zₙ = S_{τᵢ}(W − step·G)          τᵢ = thr[i] (one per row) or thr[0]
//	W  = zₙ + beta·(zₙ − Z)
//	Z  = zₙ
//
// where S_τ(v) = sgn(v)·max(|v|−τ, 0). It returns ‖zₙ − Z‖², ‖zₙ‖² and
// ⟨W_old − zₙ, zₙ − Z⟩ (positive values signal that an adaptive restart is due).
func ProxStep(z, w, g []float64, rows, cols int, step float64, thr []float64, beta float64) (dz2, z2, restart float64) {
	n := rows * cols
	if len(z) < n || len(w) < n || len(g) < n || (len(thr) != 1 && len(thr) != rows) {
		panic(errShape)
	}
	for i := 0; i < rows; i++ {
		t := thr[0]
		if len(thr) == rows {
			t = thr[i]
		}
		zr, wr, gr := z[i*cols:(i+1)*cols], w[i*cols:(i+1)*cols], g[i*cols:(i+1)*cols]
		for j, wv := range wr {
			v := wv - step*gr[j]
			var zn float64
			if v > t {
				zn = v - t
			} else if v < -t {
				zn = v + t
			}
			d := zn - zr[j]
			dz2 += d * d
			z2 += zn * zn
			restart += (wv - zn) * d
			wr[j] = zn + beta*d
			zr[j] = zn
		}
	}
	return dz2, z2, restart
}

// SoftThreshold sets x[i] = sgn(x[i])·max(|x[i]|−t, 0).
func SoftThreshold(x []float64, t float64) {
	for i, v := range x {
		x[i] = math.Copysign(math.Max(math.Abs(v)-t, 0), v)
	}
}

// BlockMeans writes into dst (rows×C) the mean of each block of columns of
// x (rows×N): dst[:,c] = mean of x[:, p[c]:p[c+1]]. p has C+1 increasing
// entries with p[0] = 0 and p[C] = N. Empty blocks give zero columns.
func BlockMeans(dst, x blas64.General, p []int) {
	C := len(p) - 1
	if C < 1 || p[0] != 0 || p[C] != x.Cols {
		panic(errPart)
	}
	if dst.Rows != x.Rows || dst.Cols != C {
		panic(errShape)
	}
	for i := 0; i < x.Rows; i++ {
		xr := x.Data[i*x.Stride : i*x.Stride+x.Cols]
		dr := dst.Data[i*dst.Stride : i*dst.Stride+C]
		for c := 0; c < C; c++ {
			lo, hi := p[c], p[c+1]
			if hi <= lo {
				dr[c] = 0
				continue
			}
			var s float64
			for _, v := range xr[lo:hi] {
				s += v
			}
			dr[c] = s / float64(hi-lo)
		}
	}
}

// DoubleDiagBlocks applies the paper's M operator in place: it doubles the
// diagonal blocks a[rp[c]:rp[c+1], cp[c]:cp[c+1]] of a.
func DoubleDiagBlocks(a blas64.General, rp, cp []int) {
	if len(rp) != len(cp) || rp[len(rp)-1] > a.Rows || cp[len(cp)-1] > a.Cols {
		panic(errPart)
	}
	for c := 0; c+1 < len(rp); c++ {
		for i := rp[c]; i < rp[c+1]; i++ {
			row := a.Data[i*a.Stride+cp[c] : i*a.Stride+cp[c+1]]
			for j := range row {
				row[j] *= 2
			}
		}
	}
}
