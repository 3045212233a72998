package blas

import "gonum.org/v1/gonum/blas/blas64"

const (
	errShape = "blas: dimension mismatch"
	errPart  = "blas: bad partition"
)

// proxMinElems is the smallest chunk of ProxStep, in elements.
const proxMinElems = 8192

// ProxStep performs one fused FISTA step on row-major rows×cols buffers:
//
//	zₙ = S_{τᵢ}(W − step·G)          τᵢ = thr[i] (one per row) or thr[0]
//	W  = zₙ + beta·(zₙ − Z)
//	Z  = zₙ
//
// where S_τ(v) = sgn(v)·max(|v|−τ, 0) (NaN stays NaN). It returns ‖zₙ − Z‖²,
// ‖zₙ‖² and ⟨W_old − zₙ, zₙ − Z⟩ (positive values signal that an adaptive
// restart is due). Large inputs are split over both cores; the sums are
// taken over fixed chunks, so the results do not depend on GOMAXPROCS.
func ProxStep(z, w, g []float64, rows, cols int, step float64, thr []float64, beta float64) (dz2, z2, restart float64) {
	n := rows * cols
	if rows < 0 || cols < 0 || len(z) < n || len(w) < n || len(g) < n || (len(thr) != 1 && len(thr) != rows) {
		panic(errShape)
	}
	j := proxJobs.Get()
	*j = proxJob{z: z, w: w, g: g, thr: thr, rows: rows, cols: cols, step: step, beta: beta}
	var count int
	j.size, count = chunks(rows, (proxMinElems+cols-1)/max(cols, 1))
	parallelFor(count, j, elemWork*n)
	for _, p := range j.part[:count] {
		dz2 += p[0]
		z2 += p[1]
		restart += p[2]
	}
	*j = proxJob{}
	proxJobs.Put(j)
	return dz2, z2, restart
}

type proxJob struct {
	z, w, g, thr     []float64
	rows, cols, size int
	step, beta       float64
	part             [maxChunks][3]float64
}

var proxJobs = make(freeList[proxJob], 8)

func (j *proxJob) Do(c int) {
	lo, hi := c*j.size, min((c+1)*j.size, j.rows)
	var acc [12]float64 // lanes 0-3: ‖zₙ−Z‖², 4-7: ‖zₙ‖², 8-11: restart
	if len(j.thr) == 1 {
		// One threshold: the chunk is one contiguous range.
		proxRange(j.z[lo*j.cols:hi*j.cols], j.w[lo*j.cols:hi*j.cols], j.g[lo*j.cols:hi*j.cols], j.step, j.thr[0], j.beta, &acc)
	} else {
		for i := lo; i < hi; i++ {
			r := i * j.cols
			proxRange(j.z[r:r+j.cols], j.w[r:r+j.cols], j.g[r:r+j.cols], j.step, j.thr[i], j.beta, &acc)
		}
	}
	for q := range 3 {
		a := acc[4*q : 4*q+4]
		j.part[c][q] = (a[0] + a[1]) + (a[2] + a[3])
	}
}

// proxRange runs the step of ProxStep on one range with threshold t,
// adding the sums of element k to lane k mod 4 of acc. The vector kernel
// (proxVec) performs exactly these operations on groups of 4 elements.
func proxRange(z, w, g []float64, step, t, beta float64, acc *[12]float64) {
	n := len(z)
	w, g = w[:n], g[:n]
	k := 0
	if hasVec && n >= 4 {
		k = n &^ 3
		proxVec(&z[0], &w[0], &g[0], k, step, t, beta, acc)
	}
	proxScalar(z[k:], w[k:], g[k:], step, t, beta, acc)
}

// proxScalar is the portable proxRange for len(z) elements; z, w and g
// start at a multiple of 4 from the start of the range. The float64
// conversions keep the compiler from fusing multiply-adds, so the vector
// kernel and this loop round identically.
func proxScalar(z, w, g []float64, step, t, beta float64, acc *[12]float64) {
	w, g = w[:len(z)], g[:len(z)]
	for k, zo := range z {
		l := k & 3
		wv := w[k]
		v := wv - float64(step*g[k])
		zn := v - max(-t, min(t, v)) // S_t(v) without branches; NaN stays NaN
		d := zn - zo
		acc[l] += float64(d * d)
		acc[4+l] += float64(zn * zn)
		acc[8+l] += float64((wv - zn) * d)
		w[k] = zn + float64(beta*d)
		z[k] = zn
	}
}

// SoftThreshold sets x[i] = sgn(x[i])·max(|x[i]|−t, 0) (NaN stays NaN).
func SoftThreshold(x []float64, t float64) {
	for i, v := range x {
		switch {
		case v > t:
			x[i] = v - t
		case v < -t:
			x[i] = v + t
		case v == v:
			x[i] = 0
		}
	}
}

// BlockMeans writes into dst (rows×C) the mean of each block of columns of
// x (rows×N): dst[:,c] = mean of x[:, p[c]:p[c+1]]. p has C+1
// non-decreasing entries with p[0] = 0 and p[C] = N. Empty blocks give
// zero columns.
func BlockMeans(dst, x blas64.General, p []int) {
	C := len(p) - 1
	if C < 1 || p[0] != 0 || p[C] != x.Cols {
		panic(errPart)
	}
	for c := 0; c < C; c++ {
		if p[c+1] < p[c] {
			panic(errPart)
		}
	}
	if dst.Rows != x.Rows || dst.Cols != C {
		panic(errShape)
	}
	for i := 0; i < x.Rows; i++ {
		xr := x.Data[i*x.Stride : i*x.Stride+x.Cols]
		dr := dst.Data[i*dst.Stride : i*dst.Stride+C]
		for c := range dr {
			lo, hi := p[c], p[c+1]
			if hi == lo {
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
// diagonal blocks a[rp[c]:rp[c+1], cp[c]:cp[c+1]] of a. When M(A) (or
// M(A)+cI) multiplies many right-hand sides, form it once with
// DoubleDiagBlocks and use one Gemm per product; MulM is for a single use.
func DoubleDiagBlocks(a blas64.General, rp, cp []int) {
	if len(rp) != len(cp) || len(rp) == 0 || rp[len(rp)-1] > a.Rows || cp[len(cp)-1] > a.Cols {
		panic(errPart)
	}
	for c := 0; c+1 < len(rp); c++ {
		if rp[c] < 0 || cp[c] < 0 || rp[c+1] < rp[c] || cp[c+1] < cp[c] {
			panic(errPart)
		}
		for i := rp[c]; i < rp[c+1]; i++ {
			row := a.Data[i*a.Stride+cp[c] : i*a.Stride+cp[c+1]]
			for j := range row {
				row[j] *= 2
			}
		}
	}
}
