package fisher

import (
	"math"
	"runtime"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/blas"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// dlrdBasis is the basis of DLRD's reduced training: W (d×r, orthonormal
// columns) spans the samples Y0 and e_i for every row i where the error
// E has been non-zero. Every iterate stays in range(W): the initial D is
// learned in span(Y0), the D step combines columns of D and of
// (Y0 − E)·M(X)ᵀ, and E's columns lie in span(e_i). J depends on D and on
// Y = Y0 − E only through DᵀD, DᵀY, ‖Y_c‖², column norms and the singular
// values of each D_c, which W preserves (WᵀW = I), so training on the
// coordinates Dr = WᵀD and Yr = WᵀY (r rows instead of d) gives D = W·Dr
// up to rounding. Only the E step works in the data space, on D = W·Dr.
type dlrdBasis struct {
	W   *mat.Dense // d×r
	Y0r *mat.Dense // r×N: WᵀY0
	// q is dl.ThinQR's basis of Y0 when it took the sparse route: W's first
	// r0 columns are q's Q (residuals goes through its factors), or nil.
	q  *dl.SpanBasis
	r0 int
	P  mat.Dense // r×N workspace of the E step
	A  mat.Dense // r×K workspace of the E step
	in []bool    // rows i with e_i ∈ range(W)
	D  mat.Dense // d×K: W·Dr
	nz []dlrdEntry
}

// dlrdEntry is a non-zero entry E[i, j] = v of the error.
type dlrdEntry struct {
	i, j int
	v    float64
}

// dlrdReduceMin is the least d/N at which DLRD trains in coordinates: W
// costs about 4dN² flops once and each E step one d×r×K product W·Dr
// instead of the data-space D step's several (span([D E]) basis, DᵀY,
// Y·M(X)ᵀ).
const dlrdReduceMin = 2

// reduce switches s to training in the coordinates of dlrdBasis when d is
// at least dlrdReduceMin·N, E is zero and D lies in span(Y0)
// (newTrainSpan's, checked by its column norms). It reports whether it
// did. W is dl.ThinQR's basis of Y0 (formed), which leaves out residuals below
// 10⁻⁷ relative (gramSpanTol) of samples nearly in the span of others:
// training sees WWᵀY0, within 10⁻⁷ of Y0 (Oxford Flower's 1020 training
// samples have rank 1010 at that tolerance).
func (s *dlrdTrain) reduce() bool {
	t := s.t
	d, N := s.Y0.Dims()
	if t.set.NoSpan || t.set.NoDLRDReduce || float64(d) < dlrdReduceMin*float64(N) || t.k0 > 0 {
		return false
	}
	Q, C := dl.ThinQR(s.Y0, t.set)
	if Q == nil {
		return false
	}
	W := Q.Form()
	D := t.Db
	_, r := W.Dims()
	Dr := mat.NewDense(r, t.K, nil)
	Dr.Mul(W.T(), D)
	// D's parts outside range(W): newTrainSpan learns D_c on dl.ThinQR's basis
	// of Y_c alone, which can keep directions the basis of all of Y0 leaves
	// out.
	var P mat.Dense
	P.Mul(W, Dr)
	P.Sub(D, &P)
	var out []int
	for j := 0; j < t.K; j++ {
		if mat.Norm(P.ColView(j), 2) > 1e-8 {
			out = append(out, j)
		}
	}
	s.b = &dlrdBasis{W: W, Y0r: C, in: make([]bool, d)}
	if Q.Sparse() {
		s.b.q, s.b.r0 = Q, r
	}
	if len(out) > 0 {
		R := mat.NewDense(d, len(out), nil)
		for q, j := range out {
			R.ColView(q).(*mat.VecDense).CopyVec(P.ColView(j))
		}
		s.appendBasis(complement(W, R), Dr)
		_, r = s.b.W.Dims()
		Dr = mat.NewDense(r, t.K, nil)
		Dr.Mul(s.b.W.T(), D)
	}
	// ‖Wᵀdᵢ‖ = ‖dᵢ‖ iff dᵢ ∈ range(W).
	for j := 0; j < t.K; j++ {
		a, b := mat.Norm(Dr.ColView(j), 2), mat.Norm(D.ColView(j), 2)
		if math.Abs(a-b) > 1e-10*math.Max(b, 1) {
			s.b, t.Db, t.Y = nil, D, mat.DenseCopyOf(s.Y0)
			return false
		}
	}
	t.Db, t.Y = Dr, mat.DenseCopyOf(s.b.Y0r)
	t.gc, t.curOK, s.fitOK, s.nucOK = gramCache{}, false, false, false
	s.E = nil // zero: E lives in b.nz
	return true
}

// full returns the data-space dictionary W·Dr (a workspace of s).
func (s *dlrdTrain) full() *mat.Dense {
	b := s.b
	d, _ := b.W.Dims()
	b.D.Reset()
	b.D.ReuseAs(d, s.t.K)
	blas.Gemm(gblas.NoTrans, gblas.NoTrans, 1, b.W.RawMatrix(), s.t.D().RawMatrix(), 0, b.D.RawMatrix())
	return &b.D
}

// dictionary returns the learned D = W·Dr with ‖dᵢ‖ ≤ 1 exact (W is
// orthonormal to rounding), or the data-space D without a basis.
func (s *dlrdTrain) dictionary() *mat.Dense {
	if s.b == nil {
		return s.t.Db
	}
	D := mat.DenseCopyOf(s.full())
	for j := 0; j < s.t.K; j++ {
		col := D.ColView(j).(*mat.VecDense)
		if nrm := mat.Norm(col, 2); nrm > 1 {
			col.ScaleVec(1/nrm, col)
		}
	}
	return D
}

// stepEReduced is stepE in coordinates: E = S_{β/2}(½(R + R̂)) from the
// data-space D = W·Dr, W extended by the rows where E is newly non-zero,
// and Yr = WᵀY0 − WᵀE (E has a few non-zeros). E is kept by its non-zero
// entries only (b.nz, by rows).
func (s *dlrdTrain) stepEReduced() {
	t, b := s.t, s.b
	j := s.residualJob()
	_, N := s.Y0.Dims()
	d := j.d
	parallel.For(len(j.nz), j, d*N*max(1, j.ext.Rows))
	b.nz = b.nz[:0]
	var fresh []int
	for _, nz := range j.nz {
		for _, z := range nz {
			if !b.in[z.i] && (len(fresh) == 0 || fresh[len(fresh)-1] != z.i) {
				fresh = append(fresh, z.i)
			}
		}
		b.nz = append(b.nz, nz...)
	}
	if len(fresh) > 0 {
		s.extend(fresh)
	}
	t.Y.Copy(b.Y0r)
	w, y := b.W.RawMatrix(), t.Y.RawMatrix()
	for _, z := range b.nz {
		// column j of WᵀE gains E_ij·(row i of W).
		blas64.Axpy(-z.v, blas64.Vector{N: w.Cols, Inc: 1, Data: w.Data[z.i*w.Stride:]},
			blas64.Vector{N: w.Cols, Inc: y.Stride, Data: y.Data[z.j:]})
	}
	t.gc = gramCache{} // Y changed in place
	t.curOK, s.fitOK = false, false
}

// dlrdRows is the number of rows of the residual each chunk of the E step
// forms and thresholds (a fixed split: the entries do not depend on it).
const dlrdRows = 64

// dlrdEJob is the E step's task: chunk c forms rows [c·dlrdRows, …) of ½(R
// + R̂) = Y0 − ½W·(Dr·M(X)) in a buffer and keeps the entries above β/2 in
// magnitude, shrunk, in nz[c].
type dlrdEJob struct {
	s *dlrdTrain
	d int
	h float64
	// On dl.ThinQR's sparse route, W·P = (Y0_P·S⁻¹)·top + W_ext·ext with
	// top = T·V⁻¹·P (r0×N) and ext P's other rows; otherwise R holds
	// Y0 − ½W·P, formed.
	top, ext blas64.General
	nz       [][]dlrdEntry
	bufs     parallel.FreeList[[]float64] // row chunks of the residual
}

// residualJob returns the E step's task at the current D and X: on the
// sparse route with top and ext set, otherwise with s.R = ½(R + R̂).
func (s *dlrdTrain) residualJob() *dlrdEJob {
	t, b := s.t, s.b
	d, N := s.Y0.Dims()
	j := &s.ej
	n := (d + dlrdRows - 1) / dlrdRows
	if len(j.nz) != n {
		j.nz = make([][]dlrdEntry, n)
		j.bufs = make(parallel.FreeList[[]float64], min(n, runtime.GOMAXPROCS(0)))
	}
	for c := range j.nz {
		j.nz[c] = j.nz[c][:0]
	}
	j.s, j.d, j.h = s, d, s.beta/2
	j.top, j.ext = blas64.General{}, blas64.General{}
	if b.q == nil {
		s.residualsOf(s.full())
		return j
	}
	r, r0 := t.Db.RawMatrix().Rows, b.r0
	// top = T·V⁻¹·(Dr·M(X))_top as (T·V⁻¹·Dr_top)·M(X): the triangular
	// factors on K columns instead of N.
	b.A.Reset()
	b.A.ReuseAs(r, t.K)
	b.A.Copy(t.D())
	a := b.A.RawMatrix()
	atop := blas64.General{Rows: r0, Cols: t.K, Stride: a.Stride, Data: a.Data}
	V, T := b.q.Triangles()
	blas64.Trsm(gblas.Left, gblas.NoTrans, 1, V, atop)
	blas64.Trmm(gblas.Left, gblas.NoTrans, 1, T, atop)
	s.mulMX(&b.P, &b.A)
	p := b.P.RawMatrix()
	j.top = blas64.General{Rows: r0, Cols: N, Stride: p.Stride, Data: p.Data}
	if r > r0 {
		j.ext = blas64.General{Rows: r - r0, Cols: N, Stride: p.Stride, Data: p.Data[r0*p.Stride:]}
	}
	return j
}

// Do forms and thresholds chunk c of the residual's rows.
func (j *dlrdEJob) Do(c int) {
	s := j.s
	_, N := s.Y0.Dims()
	i0, i1 := c*dlrdRows, min((c+1)*dlrdRows, j.d)
	pb := j.bufs.Get()
	if len(*pb) < dlrdRows*N {
		*pb = make([]float64, dlrdRows*N)
	}
	buf := *pb
	defer j.bufs.Put(pb)
	var R blas64.General
	if j.top.Rows > 0 {
		// The rows of residuals' d×N product, entry by entry the same
		// operations: (Y0_P·S⁻¹)·top, then W_ext·ext added by Gemm.
		R = blas64.General{Rows: i1 - i0, Cols: N, Stride: N, Data: buf[:(i1-i0)*N]}
		for i := range R.Data {
			R.Data[i] = 0
		}
		for i := i0; i < i1; i++ {
			s.b.q.AddRowTimes(R.Data[(i-i0)*N:(i-i0+1)*N], i, j.top)
		}
		if j.ext.Rows > 0 {
			w := s.b.W.RawMatrix()
			r0 := s.b.r0
			a := blas64.General{Rows: i1 - i0, Cols: j.ext.Rows, Stride: w.Stride, Data: w.Data[i0*w.Stride+r0:]}
			blas64.Gemm(gblas.NoTrans, gblas.NoTrans, 1, a, j.ext, 1, R)
		}
		y := s.Y0.RawMatrix()
		for i := i0; i < i1; i++ {
			ri, yi := R.Data[(i-i0)*N:(i-i0+1)*N], y.Data[i*y.Stride:i*y.Stride+N]
			for q, v := range ri {
				ri[q] = yi[q] - 0.5*v
			}
		}
	} else {
		r := s.R.RawMatrix()
		R = blas64.General{Rows: i1 - i0, Cols: N, Stride: r.Stride, Data: r.Data[i0*r.Stride:]}
	}
	nz := j.nz[c]
	for i := i0; i < i1; i++ {
		for q, v := range R.Data[(i-i0)*R.Stride : (i-i0)*R.Stride+N] {
			if a := math.Abs(v); a > j.h {
				nz = append(nz, dlrdEntry{i, q, math.Copysign(a-j.h, v)})
			}
		}
	}
	j.nz[c] = nz
}

// extend adds to W an orthonormal basis of the parts of e_i, i in rows,
// outside range(W) (complement), with the coordinates of the new columns
// (appendBasis).
func (s *dlrdTrain) extend(rows []int) {
	b := s.b
	d, _ := b.W.Dims()
	Z := mat.NewDense(d, len(rows), nil)
	for q, i := range rows {
		b.in[i] = true
		Z.Set(i, q, 1)
	}
	s.appendBasis(complement(b.W, Z), s.t.Db)
}

// complement returns an orthonormal basis of the parts of the columns of
// Z (d×m, overwritten) outside range(W), W (d×r) orthonormal: Z = (I −
// WWᵀ)Z twice (block Gram–Schmidt, four d×r×m products), then the columns
// among themselves (modified Gram–Schmidt, twice; m ≪ r), those below
// 10⁻⁸ (inside range(W) or the others) dropped.
func complement(W, Z *mat.Dense) [][]float64 {
	_, r := W.Dims()
	_, m := Z.Dims()
	w, z := W.RawMatrix(), Z.RawMatrix()
	c := mat.NewDense(r, m, nil).RawMatrix()
	for pass := 0; pass < 2; pass++ {
		blas.Gemm(gblas.Trans, gblas.NoTrans, 1, w, z, 0, c)
		blas.Gemm(gblas.NoTrans, gblas.NoTrans, -1, w, c, 1, z)
	}
	var cols [][]float64
	for q := 0; q < m; q++ {
		v := mat.Col(nil, q, Z)
		if floats.Norm(v, 2) < 1e-8 {
			continue // e_i in range(W)
		}
		for pass := 0; pass < 2; pass++ {
			for _, u := range cols {
				floats.AddScaled(v, -floats.Dot(u, v), u)
			}
		}
		nrm := floats.Norm(v, 2)
		if nrm < 1e-8 {
			continue
		}
		floats.Scale(1/nrm, v)
		cols = append(cols, v)
	}
	return cols
}

// appendBasis appends the columns Z (orthonormal, ⊥ W) to W, with their
// coordinates: zero rows in Dr (set as t.Db with Dr's first rows), ZᵀY0
// in Y0r.
func (s *dlrdTrain) appendBasis(Z [][]float64, Dr *mat.Dense) {
	t, b := s.t, s.b
	d, r := b.W.Dims()
	m := len(Z)
	if m == 0 {
		return
	}
	W := mat.NewDense(d, r+m, nil)
	W.Slice(0, d, 0, r).(*mat.Dense).Copy(b.W)
	for q, z := range Z {
		W.ColView(r + q).(*mat.VecDense).CopyVec(mat.NewVecDense(d, z))
	}
	_, N := b.Y0r.Dims()
	Y0r := mat.NewDense(r+m, N, nil)
	Y0r.Slice(0, r, 0, N).(*mat.Dense).Copy(b.Y0r)
	Y0r.Slice(r, r+m, 0, N).(*mat.Dense).Mul(W.Slice(0, d, r, r+m).T(), s.Y0)
	Dn := mat.NewDense(r+m, t.K, nil)
	Dn.Slice(0, r, 0, t.K).(*mat.Dense).Copy(Dr)
	b.W, b.Y0r, t.Db, t.Y = W, Y0r, Dn, mat.NewDense(r+m, N, nil)
}
