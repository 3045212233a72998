package fisher

import (
	"context"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/lrsdl/lrsdl/core"
	"github.com/lrsdl/lrsdl/internal/parallel"
	"github.com/lrsdl/lrsdl/methods/internal/dl"
)

// dictBasis is gramSpan for B = [D E] (d×2k), given G = DᵀD and H = DᵀE
// (k×k), and leaves the basis factored: Q = Q₁V⁻¹ with Q₁ (d×r) and the
// upper triangular V (r×r) of CholeskyQR2's second pass, so that a
// product Q·A costs one d×r×m product, Q₁·(V⁻¹A), and Q itself is never
// formed. BᵀB is assembled from G, H and EᵀE, one d×k² product instead
// of d×(2k)². C = QᵀB (r×2k). ok is false when 2k is not below
// d/dl.SpanRatio or the factorisation fails.
func dictBasis(D, E, G, H *mat.Dense) (Q1 *mat.Dense, V blas64.Triangular, C *mat.Dense, ok bool) {
	d, k := D.Dims()
	n := 2 * k
	if float64(d) <= dl.SpanRatio*float64(n) {
		return nil, V, nil, false
	}
	g := blas64.Symmetric{N: n, Stride: n, Data: make([]float64, n*n), Uplo: gblas.Upper}
	blas64.Syrk(gblas.Trans, 1, E.RawMatrix(), 0, blas64.Symmetric{N: k, Stride: n, Data: g.Data[k*n+k:], Uplo: gblas.Upper})
	for i := 0; i < k; i++ {
		copy(g.Data[i*n+i:i*n+k], G.RawRowView(i)[i:])
		copy(g.Data[i*n+k:i*n+n], H.RawRowView(i))
	}
	dr, er := D.RawMatrix(), E.RawMatrix()
	return dl.GramBasis(g, d, nil, func(qrow []float64, i int, piv []int, inv []float64) {
		drow, erow := dr.Data[i*dr.Stride:i*dr.Stride+k], er.Data[i*er.Stride:i*er.Stride+k]
		for c, p := range piv {
			if p < k {
				qrow[c] = drow[p] * inv[c]
			} else {
				qrow[c] = erow[p-k] * inv[c]
			}
		}
	})
}

// spanStepD is the nuclear-norm D step of train.stepD (D2L2R2, DLRD),
//
//	D = argmin −2tr(EDᵀ) + tr(F·DᵀD) + 2α Σ_c ‖D_c‖_*  s.t. ‖dᵢ‖ ≤ 1,
//
// twice J's D part φ(D) of phiD, by ADMM + SVT (threshold 2α/ρ) run in
// span([D E]). It reports whether it ran (not when
// that span is not well below the data dimension, see dictBasis) and the
// nuclear term αΣ_c‖D_c‖_* of the new D from its coordinates (‖Q·A‖_* =
// ‖A‖_*), or −1 when D was kept. Every iterate of the ADMM (D, its split Z and the scaled
// dual U, which starts at 0) stays in span([D E]): the ODL sweeps combine
// columns of E and of the iterates, and the thresholding of a block keeps
// its column space. With Q the orthonormal basis of dictBasis (QᵀQ = I)
// and D = Q·Dr, E = Q·Er: tr(EDᵀ) = tr(Er·Drᵀ), DᵀD = DrᵀDr, ‖dᵢ‖ = ‖Qᵀdᵢ‖,
// and ‖Q·A‖_* = ‖A‖_* since Q·A = Q·UΣVᵀ is an SVD with the same singular
// values; so SVT_τ(Q·A) = Q·SVT_τ(A) and the ADMM on Dr = QᵀD, Er = QᵀE,
// r ≤ 2K rows instead of d, gives D = Q·Dr up to rounding. The
// keep-if-lower test compares the reduced objective. The Gram matrix of
// [D E] reuses the cost's DᵀD and DᵀY (train.gc): DᵀE = DᵀY·M(X)ᵀ; the
// new D's DᵀD = DnᵀDn comes from its coordinates (train.gramFrom).
func (t *train) spanStepD(ctx context.Context, E, F *mat.Dense) (done bool, nuc float64, err error) {
	return t.spanStep(ctx, E, F, true, -1)
}

// spanStep is spanStepD; with gram false it leaves the cost's products
// (train.gc) out of date instead of setting them for the new D, for a
// caller that changes Y before it needs them (DLRD's reduced E step).
// With nucOld ≥ 0, the nuclear term αΣ_c‖D_c‖_* of the current D, the
// keep-if-lower test takes φ at the current D from the products at hand,
//
//	φ(D) = ½(−2tr(DᵀE) + ⟨F, DᵀD⟩) + nucOld,  DᵀE = H, DᵀD = G,
//
// instead of from its coordinates in span([D E]) (a K²r product and the
// class blocks' SVDs); the two agree up to rounding.
func (t *train) spanStep(ctx context.Context, E, F *mat.Dense, gram bool, nucOld float64) (done bool, nuc float64, err error) {
	d, N := t.Y.Dims()
	if t.set.NoDictSpan || t.p.Alpha <= 0 || t.p.OrigD || t.k0 > 0 || float64(d) <= dl.SpanRatio*float64(2*t.K) {
		return false, -1, nil
	}
	D := t.D()
	// G = DᵀD and H = DᵀE = (DᵀY)·M(X)ᵀ from the cost's products.
	if err := t.gc.update(ctx, t.Db, t.Y, t.sp, t.K); err != nil {
		return true, -1, err
	}
	H := mat.NewDense(t.K, t.K, nil)
	t.dw.mulT(H, t.gc.B.Slice(0, t.K, 0, N).(*mat.Dense), t.mx())
	Q1, V, C, ok := dictBasis(D, E, t.gc.G.Slice(0, t.K, 0, t.K).(*mat.Dense), H)
	if !ok {
		return false, -1, nil
	}
	r, _ := C.Dims()
	Dr := mat.DenseCopyOf(C.Slice(0, r, 0, t.K))
	Er := mat.DenseCopyOf(C.Slice(0, r, t.K, 2*t.K))
	rho := rhoFor(F) * nuclearRhoScale
	sj := &svtJob{ap: t.ap, w: t.classSVT()}
	prox := func(z, v *mat.Dense, rho float64) {
		sj.z, sj.v, sj.tau = z, v, 2*t.p.Alpha/rho
		parallel.For(t.ap.Blocks(), sj, r*t.K*t.K/t.ap.Blocks())
		sj.z, sj.v = nil, nil
	}
	Dn := mat.DenseCopyOf(Dr)
	err = t.admm.Update(ctx, Dn, Er, F, prox, t.p.admmOpts(rho, t.p.updateOpts()))
	if err != nil {
		return true, -1, err
	}
	nuc = t.nuclear(Dn)
	var old float64
	if nucOld >= 0 {
		old = phiKept(H, t.gc.G.Slice(0, t.K, 0, t.K), F, nucOld)
	} else {
		old = t.phiD(Dr, Er, F)
	}
	lower := core.DictObjective(Dn, Er, F)/2+nuc <= old
	var G mat.Dense
	if lower && gram {
		G.Mul(Dn.T(), Dn) // DᵀD = DnᵀQᵀQDn
	}
	if !lower {
		return true, -1, nil
	}
	blas64.Trsm(gblas.Left, gblas.NoTrans, 1, V, Dn.RawMatrix())
	D.Mul(Q1, Dn) // Q·Dn
	// Q is orthonormal to rounding: keep ‖dᵢ‖ ≤ 1 exact.
	for j := 0; j < t.K; j++ {
		col := D.ColView(j).(*mat.VecDense)
		if nrm := mat.Norm(col, 2); nrm > 1 {
			col.ScaleVec(1/nrm, col)
			if gram {
				g := G.RawMatrix()
				blas64.Scal(1/nrm, blas64.Vector{N: t.K, Inc: g.Stride, Data: g.Data[j:]})
				blas64.Scal(1/nrm, blas64.Vector{N: t.K, Inc: 1, Data: g.Data[j*g.Stride:]})
			}
		}
	}
	t.curOK = false
	if gram {
		if err := t.gramFrom(ctx, &G); err != nil {
			return true, -1, err
		}
	}
	return true, nuc, nil
}

// phiKept returns J's D part φ(D) = ½(−2tr(EDᵀ) + tr(F·DᵀD)) +
// αΣ_c‖D_c‖_* (train.phiD) from H = DᵀE, G = DᵀD and the nuclear term
// nuc: ½(−2tr(H) + ⟨F, G⟩) + nuc.
func phiKept(H, G mat.Matrix, F *mat.Dense, nuc float64) float64 {
	k, _ := H.Dims()
	var tr float64
	for i := 0; i < k; i++ {
		tr += H.At(i, i)
	}
	return (-2*tr+core.Dot(F, G))/2 + nuc
}

// svtJob is the prox of the class-wise nuclear norm, z = SVT_τ(v) on each
// class block of atoms: chunk c thresholds block c (the blocks are
// independent, so the result does not depend on how they are shared).
type svtJob struct {
	z, v *mat.Dense
	ap   core.Partition
	tau  float64
	w    []core.SVTWorkspace // of each class
}

func (j *svtJob) Do(c int) {
	r, _ := j.z.Dims()
	a0, a1 := j.ap.Block(c)
	j.w[c].SVT(j.z.Slice(0, r, a0, a1).(*mat.Dense), j.v.Slice(0, r, a0, a1).(*mat.Dense), j.tau)
}

// gramFrom sets the cost's products (train.gc) for the current D̄ = D
// (k0 = 0) with G = DᵀD given, computing only B = DᵀY: at d = 10⁴ this
// spares gramCache.update's d×K² product when G comes from the reduced
// coordinates of spanStepD. The cache must hold products of the same Y.
// Cancelled, it returns ctx's error and leaves the cache out of date.
func (t *train) gramFrom(ctx context.Context, G *mat.Dense) error {
	gc := &t.gc
	if err := gemmPieces(ctx, t.Db.RawMatrix(), t.Y.RawMatrix(), gc.B.RawMatrix()); err != nil {
		gc.partial, gc.yD = true, nil
		return err
	}
	gc.Db.Copy(t.Db)
	gc.G.Copy(G)
	return nil
}

// nuclear returns αΣ_c‖D_c‖_* for the class blocks D_c of D.
// The blocks' norms are computed concurrently and summed in order.
func (t *train) nuclear(D *mat.Dense) float64 {
	d, _ := D.Dims()
	j := &nuclearJob{D: D, ap: t.ap, norms: make([]float64, t.ap.Blocks()), w: t.classSVT()}
	parallel.For(t.ap.Blocks(), j, d*t.K*t.K/max(1, t.ap.Blocks()))
	var v float64
	for _, n := range j.norms {
		v += t.p.Alpha * n
	}
	return v
}

// nuclearJob sets norms[c] to the nuclear norm of class block c of D.
type nuclearJob struct {
	D     *mat.Dense
	ap    core.Partition
	norms []float64
	w     []core.SVTWorkspace // of each class
}

func (j *nuclearJob) Do(c int) {
	d, _ := j.D.Dims()
	a0, a1 := j.ap.Block(c)
	j.norms[c] = j.w[c].NuclearNorm(j.D.Slice(0, d, a0, a1))
}

// classSVT returns the SVT workspaces of the class blocks, one per class.
func (t *train) classSVT() []core.SVTWorkspace {
	if len(t.svtC) != t.ap.Blocks() {
		t.svtC = make([]core.SVTWorkspace, t.ap.Blocks())
	}
	return t.svtC
}
