package lowrank

import (
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// SymEigLow returns the k smallest eigenvalues of the symmetric n×n a, in
// ascending order, and their orthonormal eigenvectors (n×k), or ok false
// when the iteration fails (SymEig).
func SymEigLow(a *mat.SymDense, k int) (vals []float64, vecs *mat.Dense, ok bool) {
	vals, vecs, ok = SymEig(a, func([]float64) (int, int) { return 0, min(k, a.SymmetricDim()) })
	if !ok {
		return nil, nil, false
	}
	return vals[:min(k, len(vals))], vecs, true
}

// SymEig returns all eigenvalues of the symmetric n×n a in ascending order
// and the orthonormal eigenvectors (n×(hi−lo)) of those with index lo to
// hi−1, the range chosen by want from the eigenvalues (vecs nil when
// lo = hi); or ok false when the iteration fails. It tridiagonalises a
// (Qᵀ·a·Q = T, tridiag), takes T's eigenvalues by the root-free QR of Dsterf and each wanted
// eigenvector by inverse iteration on T (LAPACK's dstein: a few solves of
// (T − λI)x = b from a fixed random start, re-orthogonalised within
// clusters of eigenvalues closer than 10⁻³‖T‖), then applies Q. The
// re-orthogonalisation x −= BᵀBx (B the cluster's earlier vectors) is
// repeated only when it leaves less than 1/√2 of ‖x‖ (Kahan and Parlett:
// one pass that removes little leaves x orthogonal to B to rounding; a
// second one always does): after the solve, x is mostly the wanted
// vector unless eigenvalues nearly coincide. That is
// O(n³) for tridiag only, against the rotations Dsteqr accumulates into all
// n eigenvectors (mat.EigenSym) when k ≪ n. The largest entry of each
// eigenvector is positive.
func SymEig(a *mat.SymDense, want func(vals []float64) (lo, hi int)) (vals []float64, vecs *mat.Dense, ok bool) {
	n := a.SymmetricDim()
	var impl gonum.Implementation
	raw := a.RawSymmetric()
	A := make([]float64, n*n)
	// Both triangles, row-major.
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := raw.Data[i*raw.Stride+j]
			if raw.Uplo == blas.Lower {
				v = raw.Data[j*raw.Stride+i]
			}
			A[i*n+j], A[j*n+i] = v, v
		}
	}
	d := make([]float64, n)
	e := make([]float64, max(n-1, 1))
	tau := make([]float64, max(n-1, 1))
	tridiag(n, A, d, e, tau)
	lam := append([]float64(nil), d...)
	if !impl.Dsterf(n, lam, append([]float64(nil), e[:n-1]...)) {
		return nil, nil, false
	}
	vals = lam
	lo, hi := want(vals)
	k := hi - lo
	if k == 0 {
		return vals, nil, true
	}
	tnorm := 0.0
	for i := 0; i < n; i++ {
		s := math.Abs(d[i])
		if i > 0 {
			s += math.Abs(e[i-1])
		}
		if i < n-1 {
			s += math.Abs(e[i])
		}
		tnorm = math.Max(tnorm, s)
	}
	Xt := make([]float64, k*n) // the eigenvectors by rows
	sc := make([]float64, k)
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, n)
	dl, dd, du := make([]float64, n), make([]float64, n), make([]float64, n)
	eps := math.Nextafter(1, 2) - 1
	cluster := 0 // first vector of the current cluster
	prev := math.Inf(-1)
	for j := 0; j < k; j++ {
		lj := vals[lo+j]
		if j > 0 && lj-vals[lo+j-1] > 1e-3*tnorm {
			cluster = j
		}
		if lj <= prev+10*eps*tnorm { // separate equal shifts
			lj = prev + 10*eps*tnorm
		}
		prev = lj
		for i := range x {
			x[i] = rng.Float64()*2 - 1
		}
		for it := 0; it < 5; it++ {
			copy(dl, e[:n-1])
			copy(du, e[:n-1])
			for i := range dd {
				dd[i] = d[i] - lj
			}
			if !impl.Dgtsv(n, 1, dl[:n-1], dd, du[:n-1], x, 1) {
				lj += 10 * eps * tnorm // exactly singular: shift off the eigenvalue
				continue
			}
			if j > cluster { // x −= BᵀBx, B the cluster's vectors; twice if x shrinks below 1/√2
				B := blas64.General{Rows: j - cluster, Cols: n, Stride: n, Data: Xt[cluster*n : j*n]}
				xv := blas64.Vector{N: n, Inc: 1, Data: x}
				sv := blas64.Vector{N: j - cluster, Inc: 1, Data: sc}
				before := floats.Norm(x, 2)
				for pass := 0; pass < 2; pass++ {
					gemv(blas.NoTrans, 1, B, xv, 0, sv)
					gemv(blas.Trans, -1, B, sv, 1, xv)
					if floats.Norm(x, 2) >= before/math.Sqrt2 {
						break
					}
				}
			}
			nrm := floats.Norm(x, 2)
			if !(nrm > 0) || math.IsInf(nrm, 0) {
				return nil, nil, false
			}
			floats.Scale(1/nrm, x)
			if it >= 1 && nrm*eps*tnorm > 1e-3 { // converged: large growth
				break
			}
		}
		copy(Xt[j*n:(j+1)*n], x)
	}
	X := mat.NewDense(n, k, nil)
	X.Copy(mat.NewDense(k, n, Xt).T())
	// X = Q·X, Q = H_0·H_1·…·H_{n−2}: the reflectors of a QR of the
	// (n−1)×(n−1) block A[1:n, 0:n−1], applied to the rows 1:n of X.
	if n > 1 && k > 0 {
		xr := X.RawMatrix()
		work := make([]float64, 1)
		impl.Dormqr(blas.Left, blas.NoTrans, n-1, k, n-1, A[n:], n, tau, xr.Data[xr.Stride:], xr.Stride, work, -1)
		work = make([]float64, int(work[0]))
		impl.Dormqr(blas.Left, blas.NoTrans, n-1, k, n-1, A[n:], n, tau, xr.Data[xr.Stride:], xr.Stride, work, len(work))
	}
	// Fix the sign: the largest entry of each vector is positive.
	for j := 0; j < k; j++ {
		col := X.ColView(j).(*mat.VecDense)
		big := 0.0
		for i := 0; i < n; i++ {
			if v := col.AtVec(i); math.Abs(v) > math.Abs(big) {
				big = v
			}
		}
		if big < 0 {
			col.ScaleVec(-1, col)
		}
	}
	return vals, X, true
}

// svtGramMin is the least τ/σ_max for which SVTGram thresholds through the
// Gram matrix: its eigenvalues carry errors of about ε·σ_max², so a kept
// singular value σ > τ is off by ε·σ_max²/(2τ) ≤ 10⁻¹⁰·σ_max.
const svtGramMin = 1e-6

// SVTGram sets dst (r×N, resized when empty) to the singular value
// thresholding D_τ(a) of core.SVT through the eigenvectors of the Gram
// matrix aᵀa (or aaᵀ when r < N) whose eigenvalues exceed τ²: with
// aᵀa = VΛVᵀ and σ = √λ, D_τ(a) = a·V_k·diag(1 − τ/σ)·V_kᵀ. Only the k
// kept vectors are formed (SymEig); a zero a gives zero at once. It
// returns ‖D_τ(a)‖_* = Σ(σ − τ) over the kept σ, and reports false,
// leaving dst alone, when τ is below svtGramMin·‖a‖₂, a is not
// finite or the eigendecomposition fails; core.SVT is then the way.
func SVTGram(dst, a *mat.Dense, tau float64) (nuc float64, ok bool) {
	r, N := a.Dims()
	if !(tau > 0) || r == 0 || N == 0 {
		return 0, false
	}
	zero := true
	for i := 0; i < r; i++ {
		for _, v := range a.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, false
			}
			zero = zero && v == 0
		}
	}
	if zero { // D_τ(0) = 0
		if dst.IsEmpty() {
			dst.ReuseAs(r, N)
		}
		dst.Zero()
		return 0, true
	}
	wide := r < N
	var G mat.SymDense
	if wide {
		G.SymOuterK(1, a)
	} else {
		G.SymOuterK(1, a.T())
	}
	lo := 0
	vals, V, ok := SymEig(&G, func(v []float64) (int, int) {
		n := len(v)
		if v[n-1] <= 0 || tau < svtGramMin*math.Sqrt(v[n-1]) {
			return n, n
		}
		lo = sort.SearchFloat64s(v, tau*tau)
		for lo < n && v[lo] <= tau*tau {
			lo++
		}
		return lo, n
	})
	if !ok || len(vals) == 0 || vals[len(vals)-1] <= 0 || tau < svtGramMin*math.Sqrt(vals[len(vals)-1]) {
		return 0, false
	}
	if dst.IsEmpty() {
		dst.ReuseAs(r, N)
	}
	if V == nil {
		dst.Zero()
		return 0, true
	}
	_, k := V.Dims()
	f := make([]float64, k)
	for j := range f {
		sv := math.Sqrt(vals[lo+j])
		f[j] = 1 - tau/sv
		nuc += sv - tau
	}
	var W, Vf mat.Dense
	Vf.CloneFrom(V)
	for i := 0; i < Vf.RawMatrix().Rows; i++ {
		floats.Mul(Vf.RawRowView(i), f)
	}
	if wide { // D_τ(a) = U_k·diag(f)·U_kᵀ·a
		W.Mul(V.T(), a)
		dst.Mul(&Vf, &W)
		return nuc, true
	}
	W.Mul(a, &Vf)
	dst.Mul(&W, V.T())
	return nuc, true
}

// tridiagBlock is the panel width of tridiag.
const tridiagBlock = 32

// tridiag reduces the symmetric n×n A (row-major, both triangles stored,
// lda n) to tridiagonal form QᵀAQ = T, as LAPACK's Dsytrd with the lower
// triangle: d (n) and e (n−1) get T's diagonal and subdiagonal, and
// Q = H_0·…·H_{n−2}, H_i = I − τ_i·v·vᵀ with v_{0..i} = 0, v_{i+1} = 1 and
// v_{i+2..n−1} stored in A[i+2:n, i]. Panels of tridiagBlock columns
// accumulate the reflectors as A ← A − V·Wᵀ − W·Vᵀ (w = τ·A·v − ½τ²(vᵀAv)·v
// with A the current matrix, through the panel's V and W), and the rest of
// A is updated by two products after each panel. Unlike gonum's Dsytrd,
// which reads one triangle through Dsymv, the trailing matrix is kept in
// both triangles so that A·v is a Dgemv.
func tridiag(n int, A, d, e, tau []float64) {
	var impl gonum.Implementation
	if n == 0 {
		return
	}
	nb := tridiagBlock
	V := make([]float64, n*nb) // rows i0.., stride nb
	W := make([]float64, n*nb)
	col := make([]float64, n)
	t1 := make([]float64, nb)
	t2 := make([]float64, nb)
	wbuf := make([]float64, n)
	for i0 := 0; i0 < n-1; i0 += nb {
		jb := min(nb, n-1-i0)
		for k := range V[:(n-i0)*nb] {
			V[k], W[k] = 0, 0
		}
		for j := 0; j < jb; j++ {
			i := i0 + j
			// Column i from row i on (row i of A: symmetric), updated by
			// the panel's earlier reflectors.
			c := col[:n-i]
			copy(c, A[i*n+i:i*n+n])
			if j > 0 {
				r := i - i0
				vi := blas64.General{Rows: n - i, Cols: j, Stride: nb, Data: V[r*nb:]}
				wi := blas64.General{Rows: n - i, Cols: j, Stride: nb, Data: W[r*nb:]}
				cv := blas64.Vector{N: n - i, Inc: 1, Data: c}
				blas64.Gemv(blas.NoTrans, -1, vi, blas64.Vector{N: j, Inc: 1, Data: W[r*nb:]}, 1, cv)
				blas64.Gemv(blas.NoTrans, -1, wi, blas64.Vector{N: j, Inc: 1, Data: V[r*nb:]}, 1, cv)
			}
			d[i] = c[0]
			// Reflector of c[1:]: H·c[1:] = β·e_1.
			beta, t := impl.Dlarfg(n-i-1, c[1], c[2:], 1)
			e[i], tau[i] = beta, t
			c[1] = 1
			v := c[1:] // length n−i−1
			for r := i + 2; r < n; r++ {
				A[r*n+i] = c[r-i]
			}
			A[(i+1)*n+i] = beta
			rv := i + 1 - i0 // row of v's first entry in V and W
			for r := range v {
				V[(rv+r)*nb+j] = v[r]
			}
			if t == 0 {
				continue // H = I: w = 0
			}
			// w = τ(A22·v − V(Wᵀv) − W(Vᵀv)), A22 = A[i+1:, i+1:].
			mv := n - i - 1
			w := wbuf[:mv]
			a22 := blas64.General{Rows: mv, Cols: mv, Stride: n, Data: A[(i+1)*n+i+1:]}
			vv := blas64.Vector{N: mv, Inc: 1, Data: v}
			wv := blas64.Vector{N: mv, Inc: 1, Data: w}
			gemv(blas.NoTrans, 1, a22, vv, 0, wv)
			if j > 0 {
				vp := blas64.General{Rows: mv, Cols: j, Stride: nb, Data: V[rv*nb:]}
				wp := blas64.General{Rows: mv, Cols: j, Stride: nb, Data: W[rv*nb:]}
				s1 := blas64.Vector{N: j, Inc: 1, Data: t1}
				s2 := blas64.Vector{N: j, Inc: 1, Data: t2}
				blas64.Gemv(blas.Trans, 1, wp, vv, 0, s1)
				blas64.Gemv(blas.Trans, 1, vp, vv, 0, s2)
				blas64.Gemv(blas.NoTrans, -1, vp, s1, 1, wv)
				blas64.Gemv(blas.NoTrans, -1, wp, s2, 1, wv)
			}
			floats.Scale(t, w)
			floats.AddScaled(w, -0.5*t*floats.Dot(w, v), v)
			for r := range w {
				W[(rv+r)*nb+j] = w[r]
			}
		}
		// A[i1:, i1:] −= V·Wᵀ + W·Vᵀ over the panel's rows from i1.
		i1 := i0 + jb
		if i1 < n {
			mt := n - i1
			r := i1 - i0
			vp := blas64.General{Rows: mt, Cols: jb, Stride: nb, Data: V[r*nb:]}
			wp := blas64.General{Rows: mt, Cols: jb, Stride: nb, Data: W[r*nb:]}
			at := blas64.General{Rows: mt, Cols: mt, Stride: n, Data: A[i1*n+i1:]}
			blas64.Gemm(blas.NoTrans, blas.Trans, -1, vp, wp, 1, at)
			blas64.Gemm(blas.NoTrans, blas.Trans, -1, wp, vp, 1, at)
		}
	}
	d[n-1] = A[(n-1)*n+n-1]
}
